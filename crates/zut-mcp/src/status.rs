//! A server's state as front ends show it (`zut mcp list`, `/mcp`).

use std::path::PathBuf;

use crate::catalog::SkippedTool;
use crate::config::Scope;

/// Where a server is in its life.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerStatus {
    /// `disabled: true`, or switched off.
    Disabled,
    /// A project server waiting for `zut mcp trust`.
    Untrusted,
    /// Spawning / connecting / initializing.
    Starting,
    /// Initialized; its tools are offered.
    Ready,
    /// The server needs `zut mcp login <name>` (HTTP 401).
    NeedsLogin(String),
    /// Failed; the reason (and whether zut retries) is in the text.
    Failed(String),
    /// Stopped with zut or its session.
    Stopped,
}

impl ServerStatus {
    /// One word: `disabled`, `untrusted`, `starting`, `ready`, `needs-login`, `failed`, `stopped`.
    pub fn word(&self) -> &'static str {
        match self {
            ServerStatus::Disabled => "disabled",
            ServerStatus::Untrusted => "untrusted",
            ServerStatus::Starting => "starting",
            ServerStatus::Ready => "ready",
            ServerStatus::NeedsLogin(_) => "needs-login",
            ServerStatus::Failed(_) => "failed",
            ServerStatus::Stopped => "stopped",
        }
    }

    /// Whether starting is over (ready or not).
    pub fn settled(&self) -> bool {
        !matches!(self, ServerStatus::Starting)
    }
}

/// A snapshot of one server.
#[derive(Debug, Clone)]
pub struct ServerInfo {
    /// Name.
    pub name: String,
    /// Where it is configured.
    pub scope: Scope,
    /// `stdio`, `http` or `sse`.
    pub transport: &'static str,
    /// State.
    pub status: ServerStatus,
    /// Offered tools.
    pub tools: usize,
    /// Tools not offered, with reasons.
    pub skipped: Vec<SkippedTool>,
    /// Prompts.
    pub prompts: usize,
    /// Resources.
    pub resources: usize,
    /// Restarts after crashes so far.
    pub restarts: u32,
    /// The server's log file.
    pub log: PathBuf,
    /// What runs or is reached (`command arg…` or the URL, as configured).
    pub target: String,
    /// The file that configures it (`None`: passed by a front end).
    pub source: Option<PathBuf>,
    /// How its process last started: `jailed`, `permissions` or
    /// `unconfined` (`None`: a remote server, or not started).
    pub sandbox: Option<&'static str>,
}
