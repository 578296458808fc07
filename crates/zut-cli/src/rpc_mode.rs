//! RPC mode (`zut rpc`, `--rpc`, `--mode rpc`): the Go original's
//! line-delimited JSON protocol on stdin/stdout (rpc.md), plus opt-in
//! additions, as a thin front end over `zut_agent::Controller`.

mod dispatch;
mod forward;
mod lines;
mod output;
mod parse;
#[cfg(test)]
mod schema;
mod signals;
pub mod wire;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;
use zut_agent::{Agent, Controller};
use zut_ext_host::{ui_channel, ExtensionHost};
use zut_protocol::EventName;

use crate::agent_mode::{session, setup};
use crate::args::GlobalArgs;
use dispatch::{Dispatcher, Next};
use lines::{Input, Lines, MAX_LINE};
use output::Out;
use wire::Response;

/// The environment variable holding the auth token (rpc.md §2).
pub const TOKEN_VAR: &str = "ZUTCORE_RPC_TOKEN";

/// Runs RPC mode; returns the exit status.
pub fn run(args: &GlobalArgs) -> i32 {
    if args.no_yolo {
        crate::errln!("zut: --no-yolo has no effect in RPC mode (it has no confirmations)");
    }
    let mut setup = match setup::build(args) {
        Ok(s) => s,
        Err(e) => return fail(&format!("{e:#}")),
    };
    if let Err(e) = &setup.provider {
        return fail(e);
    }
    // Opt-in persistence, opened before extensions start (as in print
    // mode): a busy or unreadable file ends the run here.
    let opened = match persistence(args, &setup) {
        Ok(o) => o,
        Err(e) => return fail(&e),
    };
    let info = opened
        .as_ref()
        .map(|o| session::attach_to_host(o, &mut setup.host));
    let token = std::env::var(TOKEN_VAR).ok().filter(|t| !t.is_empty());
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(&format!("starting the runtime: {e}")),
    };
    let code = rt.block_on(serve(setup, token, opened, info));
    // A read of stdin blocked in tokio's reader thread cannot be cancelled:
    // after a signal (stdin still open) the runtime must not wait for it.
    rt.shutdown_background();
    code
}

/// The session RPC mode writes to: none unless `--session PATH`, `-c` or
/// `-r <id>` asks for one (the Go original never persists in RPC; the
/// client owns persistence). Conflicting flags are refused as in print
/// mode.
fn persistence(
    args: &GlobalArgs,
    setup: &setup::RunSetup,
) -> Result<Option<zut_session::Opened>, String> {
    let (home, cwd) = (&setup.agent.system.zut_home, &setup.agent.cwd);
    let choice = match session::choice(args, home, cwd)? {
        None | Some(zut_session::Choice::New) => return Ok(None),
        Some(c) => c,
    };
    session::open(
        &choice,
        home,
        cwd,
        &setup.host_provider,
        &setup.host_model,
        "",
    )
    .map(Some)
}

fn fail(msg: &str) -> i32 {
    crate::errln!("zut: {msg}");
    1
}

async fn serve(
    setup: setup::RunSetup,
    token: Option<String>,
    opened: Option<zut_session::Opened>,
    info: Option<zut_protocol::SessionInfo>,
) -> i32 {
    let stop = signals::Signals::install().watch();
    let (out, writer) = Out::start(token.is_none());
    let (ui_tx, ui_rx) = ui_channel();
    let (host, report) = ExtensionHost::start(setup.host, ui_tx).await;
    for err in &report.errors {
        crate::errln!("extension load: {err}");
    }
    let host = Arc::new(host);
    // protocol.md §10.3: session_start, then session_opened with a session.
    host.emit_session_event(EventName::SESSION_START, info.clone());
    if info.is_some() {
        host.emit_session_event(EventName::SESSION_OPENED, info);
    }
    let cwd = setup.agent.cwd.display().to_string();
    let Ok(provider) = setup.provider else {
        return 1;
    };
    let mut agent = Agent::new(provider, Some(host.clone()), setup.agent);
    if let Some(o) = opened {
        agent.attach_session(o.writer, o.snapshot.as_ref());
    }
    let (controller, stream) = Controller::new(agent, Some(ui_rx));
    let ext_ui = Arc::new(AtomicBool::new(false));
    let forwarder = tokio::spawn(forward::run(stream, out.clone(), ext_ui.clone()));
    let mut d = Dispatcher {
        controller: controller.clone(),
        out: out.clone(),
        token,
        cwd,
        commands: Arc::new(AtomicBool::new(false)),
        ext_ui,
        tasks: JoinSet::new(),
    };
    let ended = read_loop(&mut d, stop).await;
    match ended {
        Ended::BadToken => {
            crate::errln!("zut: rpc: bad auth token");
            d.tasks.abort_all();
            controller.abort();
            if let Some(mut agent) = controller.shutdown().await {
                // Nothing was asked: a session file this run created goes.
                let _ = agent.close_session();
            }
            host.shutdown_with_grace(Duration::from_millis(100)).await;
        }
        Ended::Eof | Ended::Signal => {
            if ended == Ended::Eof {
                // Finish what was asked.
                while d.tasks.join_next().await.is_some() {}
            } else {
                // Stop: unanswered commands and queued jobs are dropped,
                // the running job is aborted.
                d.tasks.abort_all();
                loop {
                    controller.drop_queued();
                    controller.abort();
                    let idle = controller.wait_idle();
                    if tokio::time::timeout(Duration::from_millis(20), idle)
                        .await
                        .is_ok()
                    {
                        break;
                    }
                }
            }
            controller.wait_idle().await;
            if let Some(mut agent) = controller.shutdown().await {
                if let Some(Err(e)) = agent.close_session() {
                    crate::errln!("zut: {e}");
                }
            }
            host.shutdown().await;
        }
    }
    d.tasks.abort_all();
    drop(d);
    drop(controller);
    drop(host);
    // The stream ends once the host's UI channel is closed; its last
    // frames (ext_chrome_clear) are written before that.
    let abort = forwarder.abort_handle();
    if tokio::time::timeout(Duration::from_secs(3), forwarder)
        .await
        .is_err()
    {
        abort.abort();
    }
    drop(out);
    let _ = tokio::task::spawn_blocking(move || writer.join()).await;
    match ended {
        Ended::BadToken => 1,
        Ended::Eof | Ended::Signal => 0,
    }
}

/// Why the read loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    /// End of input: queued work finishes.
    Eof,
    /// A wrong token in `hello`: exit 1.
    BadToken,
    /// SIGINT or SIGTERM: work is aborted.
    Signal,
}

/// Reads requests until EOF, a bad token or the first SIGINT/SIGTERM.
async fn read_loop(d: &mut Dispatcher, mut stop: tokio::sync::oneshot::Receiver<()>) -> Ended {
    let stdin = tokio::io::BufReader::with_capacity(64 * 1024, tokio::io::stdin());
    let mut lines = Lines::new(stdin, MAX_LINE);
    loop {
        let input = tokio::select! {
            i = lines.next() => i,
            Ok(()) = &mut stop => return Ended::Signal,
        };
        match input {
            Input::Eof => return Ended::Eof,
            Input::TooLong(n) => d.out.line(
                Response::err(
                    None,
                    "",
                    format!(
                        "line too long: {n} bytes (the limit is {} MiB); skipped",
                        MAX_LINE / (1024 * 1024)
                    ),
                )
                .to_line(),
            ),
            Input::Line(line) => {
                if d.line(&line) == Next::BadToken {
                    return Ended::BadToken;
                }
            }
        }
    }
}
