//! RPC mode (`zut rpc`, `--rpc`, `--mode rpc`): builds the conversation
//! the way print mode does (provider, optional session file, extensions)
//! and hands it to `zut_rpc::serve`, which speaks the protocol.

use std::sync::Arc;

use zut_agent::{Agent, Controller};
use zut_ext_host::{ui_channel, ExtensionHost};
use zut_protocol::EventName;

use crate::agent_mode::{session, setup};
use crate::args::GlobalArgs;
use zut_rpc::TOKEN_VAR;

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
    // Before extensions start, so no signal is lost to the default action.
    let stop = zut_rpc::Signals::install().watch();
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
    let (controller, events) = Controller::new(agent, Some(ui_rx));
    let conv = zut_rpc::Conversation {
        controller,
        events,
        host,
        cwd,
        token,
    };
    zut_rpc::serve(conv, stop).await
}
