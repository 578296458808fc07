//! RPC mode (`zut rpc`, `--rpc`, `--mode rpc`): the Go original's
//! line-delimited JSON protocol on stdin/stdout (rpc.md), plus opt-in
//! additions, as a thin front end over `zut_agent::Controller`.

mod dispatch;
mod forward;
mod lines;
mod output;
#[cfg(test)]
mod schema;
pub mod wire;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;
use zut_agent::{Agent, Controller};
use zut_ext_host::{ui_channel, ExtensionHost};
use zut_protocol::EventName;

use crate::agent_mode::setup;
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
    let setup = match setup::build(args) {
        Ok(s) => s,
        Err(e) => return fail(&format!("{e:#}")),
    };
    if let Err(e) = &setup.provider {
        return fail(e);
    }
    let token = std::env::var(TOKEN_VAR).ok().filter(|t| !t.is_empty());
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(&format!("starting the runtime: {e}")),
    };
    rt.block_on(serve(setup, token))
}

fn fail(msg: &str) -> i32 {
    crate::errln!("zut: {msg}");
    1
}

async fn serve(setup: setup::RunSetup, token: Option<String>) -> i32 {
    let (out, writer) = Out::start(token.is_none());
    let (ui_tx, ui_rx) = ui_channel();
    let (host, report) = ExtensionHost::start(setup.host, ui_tx).await;
    for err in &report.errors {
        crate::errln!("extension load: {err}");
    }
    let host = Arc::new(host);
    host.emit_session_event(EventName::SESSION_START, None);
    let cwd = setup.agent.cwd.display().to_string();
    let Ok(provider) = setup.provider else {
        return 1;
    };
    let agent = Agent::new(provider, Some(host.clone()), setup.agent);
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
    let code = read_loop(&mut d).await;
    if code != 0 {
        crate::errln!("zut: rpc: bad auth token");
        d.tasks.abort_all();
        controller.abort();
        controller.shutdown().await;
        host.shutdown_with_grace(Duration::from_millis(100)).await;
    } else {
        // EOF: finish what was asked, then stop the extensions.
        while d.tasks.join_next().await.is_some() {}
        controller.wait_idle().await;
        if let Some(mut agent) = controller.shutdown().await {
            if let Some(Err(e)) = agent.close_session() {
                crate::errln!("zut: {e}");
            }
        }
        host.shutdown().await;
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
    code
}

/// Reads requests until EOF (0), a bad token (1), or SIGINT/SIGTERM (0,
/// after aborting the running job).
async fn read_loop(d: &mut Dispatcher) -> i32 {
    let stdin = tokio::io::BufReader::with_capacity(64 * 1024, tokio::io::stdin());
    let mut lines = Lines::new(stdin, MAX_LINE);
    let stop = stop_signal();
    tokio::pin!(stop);
    loop {
        let input = tokio::select! {
            i = lines.next() => i,
            () = &mut stop => {
                d.controller.abort();
                return 0;
            }
        };
        match input {
            Input::Eof => return 0,
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
                    return 1;
                }
            }
        }
    }
}

/// Resolves on the first SIGINT or SIGTERM.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut int), Ok(mut term)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}
