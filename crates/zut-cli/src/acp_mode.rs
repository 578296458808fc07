//! `zut acp`: the Agent Client Protocol agent on stdin/stdout. Each ACP
//! session gets a conversation set up as the other modes set theirs up
//! (flags, config, provider, extensions), working in the client's cwd.

use std::path::PathBuf;
use std::sync::Arc;

use zut_acp::{Backend, BoxFuture, Conversation};
use zut_agent::Agent;
use zut_ext_host::{ui_channel, ExtensionHost};
use zut_protocol::EventName;

use crate::agent_mode::setup;
use crate::args::GlobalArgs;

/// Builds a conversation per `session/new` from the global flags.
struct CliBackend {
    args: GlobalArgs,
}

impl Backend for CliBackend {
    fn open(&self, cwd: PathBuf) -> BoxFuture<'static, Result<Conversation, String>> {
        let mut args = self.args.clone();
        args.cwd = Some(cwd);
        Box::pin(async move {
            let mut setup = setup::build(&args).map_err(|e| format!("{e:#}"))?;
            // The client answers approvals (`session/request_permission`)
            // and shows reasoning as thought chunks.
            setup.agent.confirm_tools = args.no_yolo;
            setup.agent.reasoning_events = true;
            let provider = setup.provider?;
            let (ui_tx, ui_rx) = ui_channel();
            let (host, report) = ExtensionHost::start(setup.host, ui_tx).await;
            for e in &report.errors {
                crate::errln!("zut: extension: {e}");
            }
            let host = Arc::new(host);
            host.emit_session_event(EventName::SESSION_START, None);
            let agent = Agent::new(provider, Some(host), setup.agent);
            let (controller, events) = zut_agent::Controller::new(agent, Some(ui_rx));
            Ok(Conversation { controller, events })
        })
    }
}

/// Runs `zut acp [flags]`; returns the exit status.
pub fn run(argv: &[String]) -> i32 {
    let args = match crate::args::parse(argv) {
        Ok(a) => a,
        Err(e) => {
            crate::errln!("zut acp: {e}");
            return 2;
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            crate::errln!("zut acp: starting the runtime: {e}");
            return 1;
        }
    };
    let backend = Arc::new(CliBackend { args });
    match rt.block_on(zut_acp::serve_stdio(backend)) {
        Ok(()) => 0,
        Err(e) => {
            crate::errln!("zut acp: {e}");
            1
        }
    }
}
