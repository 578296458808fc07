//! zut's Agent Client Protocol front end: `zut acp` speaks ACP (JSON-RPC
//! over stdio) to an editor and drives one conversation per ACP session
//! through a [`zut_control::ConversationHandle`] (`zut_agent::Controller`
//! implements it; this crate does not depend on the agent).
//!
//! This crate knows the protocol and the controller's API only: how a
//! conversation is built (provider, extension host, session file) is the
//! [`Backend`]'s business, given by the CLI.

mod children;
mod commands;
mod elicit;
mod files;
mod permission;
mod plan;
mod replay;
mod server;
mod sessions;
mod updates;

use std::path::PathBuf;

pub use futures::future::BoxFuture;

pub use server::serve_stdio;

/// A conversation ready to be driven: the controller and its event stream.
pub struct Conversation {
    /// The controller.
    pub controller: std::sync::Arc<dyn zut_control::ConversationHandle>,
    /// Its one event stream.
    pub events: zut_control::EventStream,
    /// The id of the session file it is kept in (`None`: not persisted).
    /// It becomes the ACP session id, so `session/load` can find it.
    pub session_id: Option<String>,
    /// The model's context window in tokens (0: unknown), the `size` of
    /// the `usage_update`s.
    pub context_window: u64,
}

/// What `session/new` or `session/load` asks the [`Backend`] for.
pub struct OpenRequest {
    /// The client's working directory.
    pub cwd: PathBuf,
    /// The client's `fs/*` methods, when it offers any: give them to
    /// `zut_agent::Agent::set_file_access`.
    pub files: Option<std::sync::Arc<dyn zut_tools::FileAccess>>,
    /// `session/load`: the id of the session to resume (`None`: new).
    pub resume: Option<String>,
    /// The `mcpServers` the client passed, as JSON: start them for this
    /// conversation with `zut_mcp::acp::start_for_session` and give the
    /// manager to `zut_agent::Agent::set_mcp` (they stop with it).
    pub mcp_servers: Vec<serde_json::Value>,
    /// The elicitation modes the client declared (`elicitation.form`,
    /// `elicitation.url`): the MCP servers' requests for input in these
    /// modes are forwarded to it as `elicitation/create` (set
    /// `zut_agent::AgentConfig::mcp_elicitation`); nothing else is
    /// declared to the servers, and other requests are declined.
    pub elicitation: zut_types::ElicitationModes,
}

/// Builds conversations for `session/new` and `session/load` (the CLI sets
/// up provider, extensions and session storage the way its other modes
/// do).
pub trait Backend: Send + Sync + 'static {
    /// Opens a conversation. Errors are shown to the client as the
    /// request's error message.
    fn open(&self, req: OpenRequest) -> BoxFuture<'static, Result<Conversation, String>>;

    /// Whether conversations are kept in session files that
    /// `session/load` can resume (advertised as `loadSession`).
    fn can_load(&self) -> bool {
        false
    }
}
