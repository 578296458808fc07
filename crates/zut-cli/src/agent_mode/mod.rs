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
use zut_agent::controller::{CommandOutcome, JobOutcome};
use zut_agent::conversation::SessionRequest;
use zut_agent::{Controller, PromptOutcome};
use zut_providers::Part;

use crate::args::{GlobalArgs, Mode};
use output::Output;

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
    // The servers start as the first model request goes out (docs/mcp.md).
    if matches!(setup.mcp, zut_agent::conversation::McpServers::Configured) {
        setup.mcp = zut_agent::conversation::McpServers::ConfiguredHeld;
    }
    let choice = match session::choice(&args, &setup.agent.system.zut_home, &setup.agent.cwd) {
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
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(&format!("starting the runtime: {e}")),
    };
    let restore = !crate::args::model_explicit(&args);
    rt.block_on(run_prompt(setup, mode, text, args.stats, choice, restore))
}

fn fail(msg: &str) -> i32 {
    crate::errln!("zut: {msg}");
    1
}

/// One job through the conversation controller: the prompt, a slash
/// command (and the prompt it may queue) or `/compact`.
async fn run_prompt(
    setup: setup::RunSetup,
    mode: Mode,
    text: String,
    stats: Option<std::path::PathBuf>,
    choice: Option<zut_session::Choice>,
    restore_model: bool,
) -> i32 {
    let started = Instant::now();
    let home = setup.agent.system.zut_home.clone();
    let (provider_name, model) = (setup.provider_name.clone(), setup.model.clone());
    // The session is opened (or created) before extensions start and
    // before the model is called: a sessions directory that cannot be
    // created, an unreadable file or one another zut writes ends the run.
    let request = SessionRequest {
        choice,
        title: text.clone(),
    };
    let conv = match zut_agent::conversation::open(setup, request) {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    for note in &conv.notes {
        crate::errln!("{note}");
    }
    zut_models::switch::install(&conv.controller, &home);
    // A resumed session goes on with the model it last used.
    if let (true, Some(snap)) = (restore_model, &conv.resumed) {
        if let Err(w) = zut_models::switch::restore(&conv.controller, &snap.meta, &home) {
            crate::errln!("zut: warning: {w}");
        }
    }
    let ctrl = conv.controller;
    let out = Arc::new(Output::new(mode));
    let flusher = tokio::spawn(output::flush_when_idle(out.clone()));
    let pump = tokio::spawn(output::pump(conv.events, out.clone()));
    let cancel = CancellationToken::new();
    let stopped_by = Arc::new(AtomicI32::new(0));
    let watcher = tokio::spawn(watch_signals(cancel.clone(), stopped_by.clone()));
    let aborter = {
        let (ctrl, cancel) = (ctrl.clone(), cancel.clone());
        tokio::spawn(async move {
            cancel.cancelled().await;
            ctrl.abort();
        })
    };
    ctrl.ready().await;
    let result = tokio::select! {
        r = run_job(&ctrl, &text, mode) => r,
        // Ctrl+C / SIGTERM while an extension works on a command ends the
        // run at once; its late reply is then ignored as an unknown id.
        () = cancel.cancelled(), if !ctrl.state().busy => Finished::Prompt(PromptOutcome::Aborted),
    };
    let result = match result {
        Finished::Prompt(PromptOutcome::Completed { .. }) | Finished::Compacted(_)
            if cancel.is_cancelled() =>
        {
            Finished::Prompt(PromptOutcome::Aborted)
        }
        other => other,
    };
    watcher.abort();
    aborter.abort();
    if let Err(e) = ctrl.close().await {
        crate::errln!("zut: {e}");
    }
    drop(ctrl);
    // The host is gone now: the pump finishes after writing the last
    // frames (e.g. `ext_chrome_clear`).
    let _ = tokio::time::timeout(Duration::from_secs(2), pump).await;
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

/// Runs the run's one piece of work and waits for the job it queued.
async fn run_job(ctrl: &Controller, text: &str, mode: Mode) -> Finished {
    let job = if zut_agent::skills::parse_command(text).is_some()
        || text.trim_start().starts_with("/mcp__")
    {
        // `/skill:<name> [request]` becomes the skill's message,
        // `/mcp__<server>__<prompt> args` the MCP prompt's (names keep
        // their case).
        let (name, args) = text
            .trim_start()
            .trim_start_matches('/')
            .split_once(char::is_whitespace)
            .unwrap_or((text.trim().trim_start_matches('/'), ""));
        match ctrl.command(name, args, None).await {
            Ok(CommandOutcome::Queued(job)) => job,
            Ok(_) => return Finished::Done,
            Err(e) => return Finished::Failed(e),
        }
    } else if let Some((name, args)) = input::slash_command(text) {
        match slash::run(ctrl, &name, &args, mode).await {
            Ok(Some(job)) => job,
            Ok(None) => return Finished::Done,
            Err(e) => return Finished::Failed(e),
        }
    } else {
        ctrl.prompt(
            vec![Part::Text {
                text: text.to_string(),
            }],
            None,
        )
    };
    match job.outcome().await {
        JobOutcome::Prompt(o) => Finished::Prompt(o),
        JobOutcome::Compact(Ok(summary)) => Finished::Compacted(summary),
        JobOutcome::Compact(Err(e)) => Finished::Failed(e),
        JobOutcome::Dropped => Finished::Prompt(PromptOutcome::Aborted),
        other => Finished::Failed(format!("unexpected job outcome: {other:?}")),
    }
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
