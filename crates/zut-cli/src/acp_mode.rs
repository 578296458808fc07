//! `zut acp`: the Agent Client Protocol agent on stdin/stdout. Each ACP
//! session is a conversation opened as every mode opens one
//! (`zut_agent::conversation::open`, from the global flags and config),
//! working in the client's cwd; one process holds as many live sessions as
//! the client opens.

use std::sync::Arc;

use zut_acp::{Backend, BoxFuture, Conversation, OpenRequest};
use zut_agent::conversation::SessionRequest;

use crate::agent_mode::setup;
use crate::args::GlobalArgs;
use zut_session::Choice;

/// Builds a conversation per `session/new` / `session/load` from the
/// global flags.
struct CliBackend {
    args: GlobalArgs,
}

impl Backend for CliBackend {
    fn open(&self, req: OpenRequest) -> BoxFuture<'static, Result<Conversation, String>> {
        let mut args = self.args.clone();
        args.cwd = Some(req.cwd);
        let keep = !args.no_session;
        let restore = !crate::args::model_explicit(&args);
        Box::pin(async move {
            let mut setup = setup::build(&args).map_err(|e| format!("{e:#}"))?;
            // The client answers approvals (`session/request_permission`)
            // and shows reasoning as thought chunks.
            setup.agent.confirm_tools = args.no_yolo;
            setup.agent.reasoning_events = true;
            setup.files = req.files;
            // The editor's MCP servers (and the user's): they stop with
            // the session.
            setup.mcp = zut_agent::conversation::McpServers::WithAcp(req.mcp_servers);
            // MCP elicitations go to a client that shows forms.
            setup.agent.mcp_elicitation = req.elicitation;
            if let Err(e) = &setup.provider {
                return Err(e.clone());
            }
            // Each ACP session is a session file (new, or the one
            // `session/load` names) unless `--no-session`. A file another
            // zut process writes is refused (one writer per file).
            let choice = match req.resume {
                Some(id) => Some(Choice::Resume(id)),
                None if keep => Some(Choice::New),
                None => None,
            };
            let request = SessionRequest {
                choice,
                title: String::new(),
            };
            let context_window = setup.agent.compaction.context_window.unwrap_or_else(|| {
                setup
                    .provider
                    .as_ref()
                    .ok()
                    .and_then(|p| zut_agent::compaction::known_context_window(p.model()))
                    .unwrap_or(zut_agent::compaction::DEFAULT_CONTEXT_WINDOW)
            });
            let home = setup.agent.system.zut_home.clone();
            let conv = zut_agent::conversation::open(setup, request)?;
            zut_models::switch::install(&conv.controller, &home);
            // `session/load` goes on with the session's provider and model,
            // as the TUI's resume does, unless the flags chose them.
            if let (true, Some(snap)) = (restore, &conv.resumed) {
                if let Err(w) = zut_models::switch::restore(&conv.controller, &snap.meta, &home) {
                    crate::errln!("zut acp: warning: {w}");
                }
            }
            for n in &conv.notes {
                crate::errln!("zut acp: {n}");
            }
            let session_id = match &conv.session {
                Some(path) => Some(
                    zut_session::read(path)
                        .map(|s| s.meta.id)
                        .map_err(|e| e.to_string())?,
                ),
                None => None,
            };
            conv.controller.ready().await;
            Ok(Conversation {
                controller: std::sync::Arc::new(conv.controller),
                events: conv.events,
                session_id,
                context_window,
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
