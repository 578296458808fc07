//! One entry point for a conversation, shared by every front end (print,
//! stream and JSON runs, the TUI, RPC, ACP): [`open`] opens (or creates)
//! the session file, builds the agent, attaches the session and returns a
//! [`Controller`] whose worker starts the extensions before its first job.
//!
//! The order is the one protocol.md §5.2/§10.3 asks for: the session file
//! is opened before extensions start (a busy or unreadable file ends the
//! run before any process is spawned); extensions get the session's saved
//! state in `hello_ack`, then `session_start` and `session_opened`.

use std::path::PathBuf;

use zut_ext_host::{ui_channel, HostConfig};
use zut_providers::Provider;
use zut_session::{Choice, NewSession, Snapshot};

use crate::agent::Agent;
use crate::config::AgentConfig;
use crate::controller::{Controller, EventStream, Startup};

/// Everything a conversation needs, resolved from flags and files by the
/// caller (the CLI).
pub struct Setup {
    /// The model client, or why none could be configured: a conversation
    /// without a model still runs extension commands that only display.
    pub provider: Result<Provider, String>,
    /// Provider name announced to extensions and written in new session
    /// files (the resolved one, else what was asked).
    pub provider_name: String,
    /// Model id, likewise.
    pub model: String,
    /// The extension host to start.
    pub host: HostConfig,
    /// Agent settings.
    pub agent: AgentConfig,
    /// Where `read`, `write` and `edit` get and put text (an editor's
    /// buffers over ACP); `None`: the disk.
    pub files: Option<std::sync::Arc<dyn zut_tools::FileAccess>>,
    /// Which MCP servers start with the conversation (their tools join as
    /// they become ready; nothing waits for them).
    pub mcp: McpServers,
}

/// The MCP servers of a conversation.
#[derive(Debug, Clone, Default)]
pub enum McpServers {
    /// None.
    #[default]
    None,
    /// The user's and the project's (`config.json`, `.mcp.json`,
    /// `.zut/mcp.json`; project servers once trusted).
    Configured,
    /// Those, plus the servers an ACP client passed in `session/new`.
    WithAcp(Vec<serde_json::Value>),
    /// [`McpServers::Configured`], their first start held until the first
    /// model request is being sent, something waits for a server, or
    /// [`MCP_HOLD`] has passed: the print modes (`-p`, `--json`,
    /// `--stream`), whose first request would otherwise share the cores
    /// with the servers' forks and start-up.
    ConfiguredHeld,
}

/// The longest [`McpServers::ConfiguredHeld`] holds the servers' start.
pub const MCP_HOLD: std::time::Duration = std::time::Duration::from_millis(50);

/// Which session file the conversation writes to.
#[derive(Debug, Clone, Default)]
pub struct SessionRequest {
    /// `None`: no file (`--no-session`).
    pub choice: Option<Choice>,
    /// Title of a new file (usually from the first prompt).
    pub title: String,
}

/// An open conversation.
pub struct Conversation {
    /// The handle every front end drives.
    pub controller: Controller,
    /// Its one ordered event stream.
    pub events: EventStream,
    /// The session file, when there is one.
    pub session: Option<PathBuf>,
    /// The file as it was read when resumed (`None` for a new file or
    /// none): front ends show its tail.
    pub resumed: Option<Box<Snapshot>>,
    /// What the MCP configuration had to say (overrides, untrusted or
    /// malformed files), one line each, for the front end to show.
    pub notes: Vec<String>,
}

/// Opens a conversation; must be called inside a tokio runtime. Errors are
/// the session file's (busy, unreadable, directory not creatable), with
/// the path in the text.
pub fn open(setup: Setup, session: SessionRequest) -> Result<Conversation, String> {
    let Setup {
        provider,
        provider_name,
        model,
        mut host,
        agent: config,
        files,
        mcp,
    } = setup;
    let opened = match &session.choice {
        None => None,
        Some(choice) => {
            let cwd = config.cwd.display().to_string();
            let new = NewSession {
                cwd: cwd.clone(),
                provider: provider_name.clone(),
                model: model.clone(),
                version: env!("CARGO_PKG_VERSION").to_string(),
                title: zut_session::title_from_prompt(&session.title),
            };
            Some(
                zut_session::open(choice, &config.system.zut_home, &cwd, new)
                    .map_err(|e| e.to_string())?,
            )
        }
    };
    let info = opened.as_ref().map(|o| {
        host.persist_state = true;
        if let Some(snap) = &o.snapshot {
            host.states = snap
                .states
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), serde_json::from_str(v.get()).ok()?)))
                .collect();
        }
        crate::session_bridge::session_info(o.writer.path(), o.writer.meta())
    });
    let (provider, unavailable) = match provider {
        Ok(p) => (p, None),
        Err(why) => (placeholder(&provider_name, &model)?, Some(why)),
    };
    let (home, cwd) = (config.system.zut_home.clone(), config.cwd.clone());
    let jail = config.jail.clone();
    let ask = config.mcp_elicitation;
    let elicitation = zut_mcp::Elicitation::declared_from_start_modes(ask);
    let mut agent = Agent::new(provider, None, config);
    agent.set_file_access(files);
    // MCP servers start on tasks of their own (zut-mcp).
    let mut notes = Vec::new();
    let manager = match mcp {
        McpServers::None => None,
        McpServers::Configured => {
            let (m, n) = zut_mcp::McpManager::start_default_with(&home, &cwd, jail, elicitation);
            notes = n;
            Some(m)
        }
        McpServers::ConfiguredHeld => {
            let (m, n) =
                zut_mcp::McpManager::start_default_held(&home, &cwd, jail, elicitation, MCP_HOLD);
            notes = n;
            Some(m)
        }
        McpServers::WithAcp(servers) => {
            let (m, n) =
                zut_mcp::acp::start_for_session_with(&home, &cwd, &servers, jail, elicitation);
            notes = n;
            Some(m)
        }
    };
    agent.set_mcp(manager);
    let mut path = None;
    let mut resumed = None;
    if let Some(o) = opened {
        path = Some(o.writer.path().to_path_buf());
        agent.attach_session(o.writer, o.snapshot.as_ref());
        resumed = o.snapshot.filter(|s| !s.messages.is_empty()).map(Box::new);
    }
    let (ui_tx, ui_rx) = ui_channel();
    let startup = Startup {
        config: host,
        ui: ui_tx,
        session: info,
    };
    let (controller, events) = Controller::start(agent, ui_rx, Some(startup), unavailable);
    if ask.any() {
        controller.set_mcp_elicitation_modes(ask);
    }
    Ok(Conversation {
        controller,
        events,
        session: path,
        resumed,
        notes,
    })
}

/// A client that is never called (the controller refuses model work when
/// no provider could be configured), so the agent can still be built.
fn placeholder(name: &str, model: &str) -> Result<Provider, String> {
    let mut config = zut_providers::ProviderConfig::new(
        "openai-compatible",
        "http://127.0.0.1:9/v1",
        None,
        model,
    )
    .map_err(|e| e.to_string())?;
    config.provider = name.to_string();
    Provider::new(config).map_err(|e| e.to_string())
}
