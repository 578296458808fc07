//! The non-interactive agent modes: print (`-p`), stream (`--stream`) and
//! JSON (`--json`).

mod input;
mod output;
pub(crate) mod session;
pub(crate) mod setup;
mod slash;
mod stats;

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;
use zut_agent::{Agent, AgentEvent, PromptOutcome};
use zut_ext_host::{ui_channel, ExtensionHost};
use zut_protocol::EventName;
use zut_providers::Part;

use crate::args::{GlobalArgs, Mode};
use output::Output;
use slash::SlashOutcome;

/// Exit status after a user abort (128 + SIGINT).
const EXIT_ABORTED: i32 = 130;

/// Runs a non-`ext` invocation in `mode`; returns the exit status.
pub fn run(args: GlobalArgs, mode: Mode) -> i32 {
    match mode {
        Mode::Interactive => return crate::tui_mode::run(&args),
        Mode::Rpc => return crate::rpc_mode::run(&args),
        Mode::Print | Mode::Stream | Mode::Json => {}
    }
    if args.no_yolo {
        crate::errln!("zut: --no-yolo needs the interactive mode; ignored");
    }
    let text = match input::prompt_text(&args.prompt) {
        Ok(t) => t,
        Err(e) => return fail(&e.to_string()),
    };
    if text.trim().is_empty() {
        return fail("no prompt given (pass it as an argument or pipe it on stdin)");
    }
    let mut setup = match setup::build(&args) {
        Ok(s) => s,
        Err(e) => return fail(&format!("{e:#}")),
    };
    let (zut_home, cwd) = (setup.agent.system.zut_home.clone(), setup.agent.cwd.clone());
    let choice = match session::choice(&args, &zut_home, &cwd) {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    // A plain prompt needs the model at once: say so before starting
    // extensions. A slash command may not (`display`), so it gets to run.
    if input::slash_command(&text).is_none() || zut_agent::skills::parse_command(&text).is_some() {
        if let Err(e) = &setup.provider {
            return fail(e);
        }
    }
    // The session is opened (or created) before extensions start and
    // before the model is called: a sessions directory that cannot be
    // created, an unreadable file or one another zut writes ends the run.
    let opened = match &choice {
        None => None,
        Some(c) => match session::open(
            c,
            &zut_home,
            &cwd,
            &setup.host_provider,
            &setup.host_model,
            &text,
        ) {
            Ok(o) => Some(o),
            Err(e) => return fail(&e),
        },
    };
    // `hello_ack.session` stays absent at start-up (protocol.md §5.2: the
    // session is announced after the extensions started).
    let info = opened
        .as_ref()
        .map(|o| zut_agent::session_bridge::session_info(o.writer.path(), o.writer.meta()));
    if let Some(o) = &opened {
        setup.host.persist_state = true;
        if let Some(snap) = &o.snapshot {
            setup.host.states = snap
                .states
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), serde_json::from_str(v.get()).ok()?)))
                .collect();
        }
    }
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(&format!("starting the runtime: {e}")),
    };
    rt.block_on(run_prompt(setup, mode, text, args.stats, opened, info))
}

fn fail(msg: &str) -> i32 {
    crate::errln!("zut: {msg}");
    1
}

async fn run_prompt(
    setup: setup::RunSetup,
    mode: Mode,
    text: String,
    stats: Option<std::path::PathBuf>,
    opened: Option<zut_session::Opened>,
    info: Option<zut_protocol::SessionInfo>,
) -> i32 {
    let started = Instant::now();
    let out = Arc::new(Output::new(mode));
    let flusher = tokio::spawn(output::flush_when_idle(out.clone()));
    let (ui_tx, ui_rx) = ui_channel();
    let drain = tokio::spawn(output::drain_ui(ui_rx, out.clone()));
    // MCP servers start on tasks; their tools join when ready (zut-mcp).
    let (mcp, mcp_notes) =
        zut_mcp::McpManager::start_default(&setup.agent.system.zut_home, &setup.agent.cwd);
    for note in mcp_notes {
        crate::errln!("{note}");
    }
    let (host, report) = ExtensionHost::start(setup.host, ui_tx).await;
    for err in &report.errors {
        crate::errln!("extension load: {err}");
    }
    let host = Arc::new(host);
    // protocol.md §10.3: session_start, then session_opened when a session
    // exists; each subscriber gets only its own state.
    host.emit_session_event(EventName::SESSION_START, info.clone());
    if info.is_some() {
        host.emit_session_event(EventName::SESSION_OPENED, info);
    }

    let cancel = CancellationToken::new();
    let stopped_by = Arc::new(AtomicI32::new(0));
    let watcher = tokio::spawn(watch_signals(cancel.clone(), stopped_by.clone()));
    let (provider_name, model) = (setup.host_provider, setup.host_model);
    let mut agent = setup
        .provider
        .map(|p| Agent::new(p, Some(host.clone()), setup.agent))
        .map(|mut a| {
            a.set_mcp(Some(mcp.clone()));
            a
        });
    // Without a model (a slash command that only displays) nobody writes
    // to the session; it is closed (and removed if new) at the end.
    let mut idle_session = None;
    match (&mut agent, opened) {
        (Ok(agent), Some(o)) => agent.attach_session(o.writer, o.snapshot.as_ref()),
        (Err(_), Some(o)) => idle_session = Some(o.writer),
        (_, None) => {}
    }

    let prompt = match (input::slash_command(&text), &mut agent) {
        // `/skill:<name> [request]` becomes the skill's message (one code
        // path with the TUI and RPC: `Agent::expand_skill_command`).
        // `/mcp__<server>__<prompt> args`: the MCP prompt's text.
        (_, Ok(_)) if text.starts_with("/mcp__") => {
            match mcp.expand_prompt_command(&text, &cancel).await {
                Some(Ok(message)) => SlashOutcome::RunPrompt(message),
                Some(Err(why)) => SlashOutcome::Failed(why),
                None => SlashOutcome::Failed(format!("unknown MCP prompt: {text}")),
            }
        }
        (_, Ok(agent)) if zut_agent::skills::parse_command(&text).is_some() => {
            match agent.expand_skill_command(&text) {
                Some(Ok(message)) => SlashOutcome::RunPrompt(message),
                Some(Err(why)) => SlashOutcome::Failed(why),
                None => SlashOutcome::RunPrompt(text),
            }
        }
        (Some((name, args)), _) => slash::run(&name, &args, &host, &out, mode, &cancel).await,
        (None, _) => SlashOutcome::RunPrompt(text),
    };
    let result = match (prompt, &mut agent) {
        (SlashOutcome::RunPrompt(text), Ok(agent)) => {
            let mut sink = |ev: AgentEvent| out.agent_event(&ev);
            Finished::Prompt(
                agent
                    .prompt(vec![Part::Text { text }], &cancel, &mut sink)
                    .await,
            )
        }
        (SlashOutcome::RunPrompt(_), Err(e)) => Finished::Failed(format!(
            "the command's prompt needs a model, but none is configured: {e}"
        )),
        (SlashOutcome::Aborted, _) => Finished::Prompt(PromptOutcome::Aborted),
        (SlashOutcome::Done, _) => Finished::Done,
        (SlashOutcome::Failed(msg), _) => Finished::Failed(msg),
        (SlashOutcome::Compact(instructions), Ok(agent)) => {
            let mut sink = |ev: AgentEvent| out.agent_event(&ev);
            let instructions = Some(instructions.as_str()).filter(|s| !s.trim().is_empty());
            match agent.compact(instructions, &cancel, &mut sink).await {
                Ok(summary) => Finished::Compacted(summary),
                Err(_) if cancel.is_cancelled() => Finished::Prompt(PromptOutcome::Aborted),
                Err(e) => Finished::Failed(e),
            }
        }
        (SlashOutcome::Compact(_), Err(e)) => Finished::Failed(format!(
            "/compact needs a model, but none is configured: {e}"
        )),
    };
    watcher.abort();
    let closed = match (&mut agent, idle_session) {
        (_, Some(w)) => Some(w.close()),
        (Ok(agent), None) => agent.close_session(),
        (Err(_), None) => None,
    };
    if let Some(Err(e)) = closed {
        crate::errln!("zut: {e}");
    }
    drop(agent);
    mcp.shutdown().await;
    host.shutdown().await;
    drop(host);
    // The host's UI sender is gone now: the drain finishes after writing
    // the last frames (e.g. `ext_chrome_clear`).
    let _ = tokio::time::timeout(Duration::from_secs(2), drain).await;
    flusher.abort();
    out.flush();

    if let Some(path) = stats {
        let (usage, steps) = out.totals();
        stats::write(
            &path,
            &provider_name,
            &model,
            &usage,
            steps,
            started.elapsed().as_millis(),
        );
    }
    let signal = stopped_by.load(Ordering::SeqCst);
    finish(result, mode, &out, signal)
}

/// How the run ended.
enum Finished {
    /// A turn ran (from the prompt or a command's `prompt` action).
    Prompt(PromptOutcome),
    /// A slash command finished without a turn (display/noop); exit 0.
    Done,
    /// Failed with this message; exit 1.
    Failed(String),
    /// `/compact` finished with this summary; exit 0.
    Compacted(String),
}

/// Cancels the run on the first SIGINT (Ctrl+C) or SIGTERM and records
/// which signal it was, so the exit status can say so (130 or 143). The
/// run then ends through its normal path: the model request and any tool
/// are cancelled, extensions are shut down, buffered output is written.
async fn watch_signals(cancel: CancellationToken, stopped_by: Arc<AtomicI32>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut int), Ok(mut term)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            return;
        };
        let sig = tokio::select! {
            _ = int.recv() => libc::SIGINT,
            _ = term.recv() => libc::SIGTERM,
        };
        stopped_by.store(sig, Ordering::SeqCst);
        cancel.cancel();
    }
    #[cfg(not(unix))]
    {
        if tokio::signal::ctrl_c().await.is_ok() {
            stopped_by.store(2, Ordering::SeqCst);
            cancel.cancel();
        }
    }
}

/// Prints the mode's final output and picks the exit status.
fn finish(result: Finished, mode: Mode, out: &Output, signal: i32) -> i32 {
    let outcome = match result {
        Finished::Done => return 0,
        Finished::Failed(msg) => return fail(&msg),
        Finished::Compacted(summary) => {
            match mode {
                Mode::Print => crate::stdio::line(&summary),
                Mode::Stream if out.line_open() => crate::stdio::line(""),
                _ => {}
            }
            return 0;
        }
        Finished::Prompt(o) => o,
    };
    if mode == Mode::Stream && out.line_open() {
        crate::stdio::line("");
    }
    match outcome {
        PromptOutcome::Completed { final_text, .. } => {
            if mode == Mode::Print {
                crate::stdio::line(&final_text);
            }
            0
        }
        PromptOutcome::Blocked { reason } => {
            if mode != Mode::Json {
                crate::errln!("zut: turn blocked: {reason}");
            }
            0
        }
        PromptOutcome::Aborted => {
            if mode != Mode::Json {
                crate::errln!("zut: aborted");
            }
            if signal > 0 {
                128 + signal
            } else {
                EXIT_ABORTED
            }
        }
        PromptOutcome::Failed { message } => {
            if mode == Mode::Json {
                1
            } else {
                fail(&message)
            }
        }
    }
}
