//! zut's Agent Client Protocol front end: `zut acp` speaks ACP (JSON-RPC
//! over stdio) to an editor and drives one [`zut_agent::Controller`] per
//! ACP session.
//!
//! This crate knows the protocol and the controller's API only: how a
//! conversation is built (provider, extension host, session file) is the
//! [`Backend`]'s business, given by the CLI.

mod permission;
mod server;
mod sessions;
mod updates;

use std::path::PathBuf;

pub use futures::future::BoxFuture;

pub use server::serve_stdio;

/// A conversation ready to be driven: the controller and its event stream.
pub struct Conversation {
    /// The controller.
    pub controller: zut_agent::Controller,
    /// Its one event stream.
    pub events: zut_agent::EventStream,
}

/// Builds conversations for `session/new` (the CLI sets up provider,
/// extensions and session storage the way its other modes do).
pub trait Backend: Send + Sync + 'static {
    /// Opens a conversation working in `cwd` (the client's directory).
    /// Errors are shown to the client as the request's error message.
    fn open(&self, cwd: PathBuf) -> BoxFuture<'static, Result<Conversation, String>>;
}
