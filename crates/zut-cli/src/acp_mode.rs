//! `zut acp`: the Agent Client Protocol agent on stdin/stdout. Each ACP
//! session gets a conversation set up as the other modes set theirs up
//! (flags, config, provider, extensions), working in the client's cwd.

use std::sync::Arc;

use zut_acp::{Backend, BoxFuture, Conversation, OpenRequest};
use zut_agent::Agent;
use zut_ext_host::{ui_channel, ExtensionHost};
use zut_protocol::EventName;

use crate::agent_mode::{session, setup};
use crate::args::GlobalArgs;
use zut_session::Choice;

/// Builds a conversation per `session/new` from the global flags.
struct CliBackend {
    args: GlobalArgs,
}

impl Backend for CliBackend {
    fn open(&self, req: OpenRequest) -> BoxFuture<'static, Result<Conversation, String>> {
        let mut args = self.args.clone();
        args.cwd = Some(req.cwd);
        let keep = !args.no_session;
        Box::pin(async move {
            let mut setup = setup::build(&args).map_err(|e| format!("{e:#}"))?;
            // The client answers approvals (`session/request_permission`)
            // and shows reasoning as thought chunks.
            setup.agent.confirm_tools = args.no_yolo;
            setup.agent.reasoning_events = true;
            let provider = setup.provider?;
            let (home, cwd) = (setup.agent.system.zut_home.clone(), setup.agent.cwd.clone());
            // Each ACP session is a session file (new, or the one
            // `session/load` names) unless `--no-session`.
            let choice = match req.resume {
                Some(id) => Some(Choice::Resume(id)),
                None if keep => Some(Choice::New),
                None => None,
            };
            let opened = match &choice {
                Some(c) => Some(session::open(
                    c,
                    &home,
                    &cwd,
                    &setup.host_provider,
                    &setup.host_model,
                    "",
                )?),
                None => None,
            };
            let info = opened
                .as_ref()
                .map(|o| session::attach_to_host(o, &mut setup.host));
            let (ui_tx, ui_rx) = ui_channel();
            let (host, report) = ExtensionHost::start(setup.host, ui_tx).await;
            for e in &report.errors {
                crate::errln!("zut: extension: {e}");
            }
            let host = Arc::new(host);
            host.emit_session_event(EventName::SESSION_START, info.clone());
            if info.is_some() {
                host.emit_session_event(EventName::SESSION_OPENED, info);
            }
            let mut agent = Agent::new(provider, Some(host), setup.agent);
            let session_id = opened.map(|o| {
                let id = o.writer.meta().id.clone();
                agent.attach_session(o.writer, o.snapshot.as_ref());
                id
            });
            agent.set_file_access(req.files);
            // The editor's MCP servers (and the user's): stop with the agent.
            let (mcp, notes) = zut_mcp::acp::start_for_session(&home, &cwd, &req.mcp_servers);
            for n in notes {
                crate::errln!("zut acp: {n}");
            }
            agent.set_mcp(Some(mcp));
            let (controller, events) = zut_agent::Controller::new(agent, Some(ui_rx));
            Ok(Conversation {
                controller,
                events,
                session_id,
            })
        })
    }

    fn can_load(&self) -> bool {
        !self.args.no_session
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
