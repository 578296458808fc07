//! RPC mode (`zut rpc`, `--rpc`, `--mode rpc`): opens the conversation the
//! way every mode does (`zut_agent::conversation::open`) and hands it to
//! `zut_rpc::serve`, which speaks the protocol.

use zut_agent::conversation::SessionRequest;

use crate::agent_mode::{session, setup};
use crate::args::GlobalArgs;
use zut_rpc::TOKEN_VAR;

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
    // Opt-in persistence: none unless `--session PATH`, `-c` or `-r <id>`
    // asks for one (the Go original never persists in RPC; the client owns
    // persistence). Conflicting flags are refused as in print mode.
    let choice = match session::choice(args, &setup.agent.system.zut_home, &setup.agent.cwd) {
        Ok(None | Some(zut_session::Choice::New)) => None,
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    let token = std::env::var(TOKEN_VAR).ok().filter(|t| !t.is_empty());
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(&format!("starting the runtime: {e}")),
    };
    let restore = !crate::args::model_explicit(args);
    let code = rt.block_on(serve(setup, token, choice, restore));
    // A read of stdin blocked in tokio's reader thread cannot be cancelled:
    // after a signal (stdin still open) the runtime must not wait for it.
    rt.shutdown_background();
    code
}

fn fail(msg: &str) -> i32 {
    crate::errln!("zut: {msg}");
    1
}

async fn serve(
    setup: setup::RunSetup,
    token: Option<String>,
    choice: Option<zut_session::Choice>,
    restore_model: bool,
) -> i32 {
    // Before extensions start, so no signal is lost to the default action.
    let stop = zut_rpc::Signals::install().watch();
    let cwd = setup.agent.cwd.display().to_string();
    let zut_home = setup.agent.system.zut_home.clone();
    let request = SessionRequest {
        choice,
        title: String::new(),
    };
    // A busy or unreadable session file ends the run before extensions
    // start.
    let conv = match zut_agent::conversation::open(setup, request) {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    for note in &conv.notes {
        crate::errln!("zut: {note}");
    }
    zut_models::switch::install(&conv.controller, &zut_home);
    // A resumed session (`-c`, `-r`) goes on with the model it last used,
    // unless this run chose its provider or model.
    if let (true, Some(snap)) = (restore_model, &conv.resumed) {
        if let Err(w) = zut_models::switch::restore(&conv.controller, &snap.meta, &zut_home) {
            crate::errln!("zut: warning: {w}");
        }
    }
    // Requests are read once the extensions registered their commands.
    conv.controller.ready().await;
    let conv = zut_rpc::Conversation {
        controller: conv.controller,
        events: conv.events,
        cwd,
        zut_home,
        token,
    };
    zut_rpc::serve(conv, stop).await
}
