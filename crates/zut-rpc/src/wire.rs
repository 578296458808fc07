//! The RPC wire types (rpc.md §3–§4 and the opt-in additions): requests
//! read from stdin, responses written to stdout, and their data objects.
//! Events are `zut_agent::AgentEvent`s. The JSON Schema in
//! `schema/rpc.schema.json` is generated from these types.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

/// An image attached to a prompt.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct ImageInput {
    /// MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// Standard base64 of the image bytes.
    pub data: String,
}

/// A request line. Every request may carry an `id` (string), echoed in its
/// response.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request {
    /// Authenticate (with `ZUTCORE_RPC_TOKEN`) and/or opt in to additions.
    Hello {
        /// The token (required when `ZUTCORE_RPC_TOKEN` is set).
        #[serde(default)]
        token: Option<String>,
        /// Opt-in additions: `commands` (`command`, `reload_ext`),
        /// `ext_ui` (panel/submit events, `panel_key`, `panel_close`),
        /// `sessions` and `mcp_elicitation` (`mcp_elicitation` events,
        /// `elicitation_response`).
        #[serde(default)]
        capabilities: Vec<String>,
    },
    /// Run a prompt (queued behind the running prompt/compaction).
    Prompt {
        /// The user message, sent verbatim.
        message: String,
        /// Attached images.
        #[serde(default)]
        images: Vec<ImageInput>,
    },
    /// Cancel the running prompt or compaction.
    Abort,
    /// Compact the conversation (queued like a prompt).
    Compact {
        /// Extra instructions for the summary.
        #[serde(default)]
        instructions: Option<String>,
    },
    /// Conversation state.
    GetState,
    /// The transcript.
    GetMessages,
    /// Drop the transcript.
    Clear,
    /// Switch model (same provider).
    SetModel {
        /// Model id.
        model: String,
    },
    /// Set the reasoning level.
    SetReasoning {
        /// `off`, `minimum`, `low`, `medium`, `high`, `xhigh` or `max`.
        reasoning: String,
    },
    /// The current provider's models.
    GetModels,
    /// Liveness check.
    Ping,
    /// Opt-in (`commands`): run a slash command.
    Command {
        /// Command name, with or without `/`.
        name: String,
        /// Arguments text.
        #[serde(default)]
        args: String,
    },
    /// Opt-in (`ext_ui`): a key for an extension's panel.
    PanelKey {
        /// The extension owning the panel.
        extension: String,
        /// Panel id.
        panel_id: String,
        /// Key name (`rune`, `enter`, `esc`, `up`, …).
        key: String,
        /// Typed text for `rune`.
        #[serde(default)]
        text: String,
    },
    /// Opt-in (`mcp_elicitation`): the answer to an `mcp_elicitation`
    /// event (an MCP server asking the user for input).
    ElicitationResponse {
        /// The event's `request_id`.
        request_id: u64,
        /// `accept`, `decline` or `cancel`.
        action: String,
        /// The form's values (with `accept`).
        #[serde(default)]
        content: Option<serde_json::Map<String, serde_json::Value>>,
    },
    /// Opt-in (`ext_ui`): the client closed an extension's panel.
    PanelClose {
        /// The extension owning the panel.
        extension: String,
        /// Panel id.
        panel_id: String,
    },
    /// Opt-in (`commands`): reload the extensions.
    ReloadExt,
    /// Opt-in (`commands`): every command `command` runs (for completion
    /// in the client).
    GetCommands,
    /// Opt-in (`sessions`): the session files of the working directory
    /// (every directory's with `all`), newest first.
    ListSessions {
        /// Every directory's sessions.
        #[serde(default)]
        all: bool,
    },
    /// Opt-in (`sessions`): continue in a new, empty session file (the
    /// running prompt is aborted first).
    NewSession,
    /// Opt-in (`sessions`): continue in another session file, by path or
    /// id (the running prompt is aborted first; a file another zut writes
    /// or a broken one is refused and nothing is aborted).
    SwitchSession {
        /// Path of the session file.
        #[serde(default)]
        path: Option<String>,
        /// Session id (or a unique prefix), in the working directory.
        #[serde(default)]
        session_id: Option<String>,
    },
    /// Opt-in (`sessions`): branch the current session at effective
    /// message `at` and continue in the branch.
    ForkSession {
        /// Messages kept (0 = none).
        at: usize,
        /// A tree checkout: hidden from session lists.
        #[serde(default)]
        hidden: bool,
    },
    /// Opt-in (`sessions`): rename the current session file (after the
    /// running prompt).
    RenameSession {
        /// The new title.
        title: String,
    },
}

/// A response line.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Response {
    /// Always `response`.
    #[serde(rename = "type")]
    pub kind: ResponseType,
    /// The request's id (omitted when it had none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The request's `type` (`""` for malformed JSON).
    pub command: String,
    /// Whether the command succeeded.
    pub success: bool,
    /// Result data (omitted when there is none), with its fields in the
    /// order of its type.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Value>")]
    pub data: Option<Box<RawValue>>,
    /// Error text when `success` is false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The constant `response` tag.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResponseType {
    /// `response`.
    Response,
}

impl Response {
    /// A success response.
    pub fn ok(id: Option<String>, command: &str, data: Option<Box<RawValue>>) -> Self {
        Self {
            kind: ResponseType::Response,
            id,
            command: command.to_string(),
            success: true,
            data,
            error: None,
        }
    }

    /// An error response.
    pub fn err(id: Option<String>, command: &str, error: impl Into<String>) -> Self {
        Self {
            kind: ResponseType::Response,
            id,
            command: command.to_string(),
            success: false,
            data: None,
            error: Some(error.into()),
        }
    }

    /// The JSON line (no newline).
    pub fn to_line(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_else(|e| {
            format!(r#"{{"type":"response","command":"","success":false,"error":"encoding: {e}"}}"#)
                .into_bytes()
        })
    }
}

/// `hello` data.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct HelloData {
    /// RPC protocol version: 1.
    pub protocol_version: u32,
    /// zut's version.
    pub version: String,
    /// Provider name.
    pub provider: String,
    /// Current model.
    pub model: String,
    /// The opt-in capabilities granted (only when the client asked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<String>>,
}

/// `prompt` / `compact` data when the job starts.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct StartedData {
    /// Always true.
    pub started: bool,
}

/// `get_state` data.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct StateData {
    /// Provider name.
    pub provider: String,
    /// Current model.
    pub model: String,
    /// Reasoning level (`""` when off).
    pub reasoning: String,
    /// The `--cwd` value (or the process cwd).
    pub cwd: String,
    /// Messages in the transcript.
    pub message_count: usize,
    /// Whether a prompt/compaction runs (false once aborted).
    pub busy: bool,
    /// Token usage so far (the same counts as the `usage` event's).
    pub usage: zut_types::UsageCounts,
}

/// `get_messages` data.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct MessagesData {
    /// Messages in order (rpc.md §6).
    pub messages: Vec<MessageJson>,
}

/// One message (rpc.md §6).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct MessageJson {
    /// `user`, `assistant`, `tool` or `developer`.
    pub role: String,
    /// Content blocks.
    pub content: Vec<zut_agent::transcript::JsonBlock>,
    /// RFC 3339 time.
    pub time: String,
}

/// `set_model` data.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ModelData {
    /// The model now in use.
    pub model: String,
}

/// `set_reasoning` data.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ReasoningData {
    /// The normalised level (`""` for off).
    pub reasoning: String,
}

/// `get_models` data.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ModelsData {
    /// The models.
    pub models: Vec<zut_agent::controller::ModelInfo>,
}

/// `ping` data.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct PongData {
    /// Always true.
    pub pong: bool,
}

/// `command` data (opt-in).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CommandData {
    /// What the command did: `prompt`, `compact`, `reload`, `display`,
    /// `insert`, `open_panel`, `done` or `noop`.
    pub action: String,
    /// For `prompt`/`compact`/`reload`: the job started (the response is
    /// written when it starts, like `prompt`'s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started: Option<bool>,
    /// The owning extension, for extension commands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extension: Option<String>,
    /// `display`/`insert` text, or a built-in's confirmation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// `get_commands` data (opt-in).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CommandsData {
    /// Built-ins first, then extension commands, then skills.
    pub commands: Vec<zut_agent::controller::CommandEntry>,
}

/// A session move's data (opt-in `sessions`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SessionData {
    /// The session file now open (absent with `--no-session`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Its id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Its title.
    pub title: String,
    /// Its messages (the conversation's transcript now).
    pub message_count: usize,
    /// `switch_session`: `provider/model` the conversation switched to,
    /// the ones the session last used (absent: unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `switch_session`: why the session's provider and model could not be
    /// restored (the conversation goes on with the ones in use).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_warning: Option<String>,
}

/// One row of `list_sessions` (opt-in `sessions`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SessionEntry {
    /// Session id.
    pub id: String,
    /// File path.
    pub path: String,
    /// Title (`""` when untitled).
    pub title: String,
    /// Working directory it belongs to.
    pub cwd: String,
    /// Messages in the file.
    pub message_count: usize,
    /// Start time (RFC 3339).
    pub started: String,
    /// Parent session id when forked.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub parent_id: String,
}

/// `list_sessions` data (opt-in `sessions`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SessionsData {
    /// Newest first.
    pub sessions: Vec<SessionEntry>,
}

/// `reload_ext` data (opt-in).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ReloadData {
    /// Extensions stopped.
    pub stopped: usize,
    /// Extensions registered after the reload.
    pub loaded: usize,
    /// Of those, ready when the wait ended.
    pub ready: usize,
    /// Load errors.
    pub errors: Vec<String>,
}

/// Serialises a data object, keeping its field order (cannot fail for
/// these types).
pub fn data<T: Serialize>(v: &T) -> Option<Box<RawValue>> {
    serde_json::value::to_raw_value(v).ok()
}
