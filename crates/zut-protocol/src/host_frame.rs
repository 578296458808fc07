//! Frames the host sends to an extension (extension stdin).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::SessionInfo;
use crate::ext_frame::PanelClose;
use crate::serde_helpers::is_zero;

/// Any frame the host may write on an extension's stdin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HostFrame {
    /// Reply to `hello`.
    HelloAck(HelloAck),
    /// The user ran one of the extension's commands.
    CommandInvoked(CommandInvoked),
    /// The model called one of the extension's tools.
    ToolCall(ToolCall),
    /// A subscribed lifecycle event (one-way).
    Event(Event),
    /// A chance to block or modify a lifecycle event.
    EventIntercept(EventIntercept),
    /// A key pressed while the extension's panel is focused.
    PanelKey(PanelKey),
    /// The user closed the extension's panel.
    PanelClose(PanelClose),
    /// Defined by the Go types but never sent; extensions must tolerate it.
    PanelResize(PanelResize),
    /// The host is exiting or reloading.
    Shutdown,
    /// Any other `type` (for SDKs reading host frames).
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}

/// `hello_ack`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HelloAck {
    /// Always 2.
    #[serde(default)]
    pub protocol_version: u32,
    /// Host version string.
    #[serde(default)]
    pub zut_version: String,
    /// Active provider at start-up (may be empty).
    #[serde(default)]
    pub provider: String,
    /// Active model at start-up (may be empty).
    #[serde(default)]
    pub model: String,
    /// The user's project directory.
    #[serde(default)]
    pub cwd: String,
    /// The extension's own directory.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub extension_dir: String,
    /// Where the extension should persist state (same as `extension_dir`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub data_dir: String,
    /// The current session, when one has been announced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionInfo>,
}

/// `command_invoked`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CommandInvoked {
    /// Request id, echoed in `command_response`.
    pub id: String,
    /// Canonical spelling of the registered command.
    pub name: String,
    /// Text after the command name, trimmed; omitted when empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub args: String,
}

/// `tool_call`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolCall {
    /// Request id, echoed in `tool_result`.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Argument object (`{}` when the model sent none).
    #[serde(default)]
    pub args: Value,
}

/// `event`: one-way lifecycle notification. Only the fields relevant to
/// `event` are present.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Event {
    /// Event name (see [`crate::EventName`]).
    pub event: String,
    /// Session events: the active branch. `subagent_start` /
    /// `subagent_end`: the child's session (`parent_id`: the parent's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionInfo>,
    /// Session events: the receiving extension's own state snapshot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<Value>,
    /// `turn_start`: 1-based step.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub step: u64,
    /// `tool_call` / `tool_confirmation_requested`: call id.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tool_id: String,
    /// `tool_call` / `tool_confirmation_requested`: tool name.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tool_name: String,
    /// `tool_call`: the model's original arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_args: Option<Value>,
    /// `tool_confirmation_requested`: short preview.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tool_preview: String,
    /// `assistant_message`: visible text. `subagent_start`: the task;
    /// `subagent_end`: the child's final text (at most 4000 bytes).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// `turn_end`: stop reason. `subagent_end`: the child's state
    /// (`completed`, `failed`, `interrupted`, `stopped`, `idle`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stop: String,
    /// `turn_end`, `subagent_end`: error text.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error: String,
    /// zut: the subagent whose turn this is (every event of a child's
    /// turns, and `subagent_start` / `subagent_end`); absent for the
    /// parent's own events.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub subagent_id: String,
}

impl Event {
    /// An event with only its name set.
    pub fn named(event: impl Into<String>) -> Self {
        Self {
            event: event.into(),
            ..Self::default()
        }
    }
}

/// `event_intercept`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EventIntercept {
    /// Request id, echoed in `event_intercept_response`.
    pub id: String,
    /// `tool_call`, `turn_start` or `assistant_message`.
    pub event: String,
    /// `tool_call`: call id.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tool_id: String,
    /// `tool_call`: tool name.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tool_name: String,
    /// `tool_call`: current (possibly already rewritten) arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_args: Option<Value>,
    /// `turn_start`: 1-based step.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub step: u64,
    /// `assistant_message`: assembled text.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
}

/// `panel_key`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PanelKey {
    /// Id of the focused panel.
    pub panel_id: String,
    /// Normalised key name (`up`, `down`, `enter`, `rune`, ...).
    pub key: String,
    /// For `rune`: the typed character.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
}

/// `panel_resize` (never sent by zut; defined for completeness).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PanelResize {
    /// Id of the panel.
    pub panel_id: String,
    /// Columns.
    #[serde(default)]
    pub width: u32,
    /// Rows.
    #[serde(default)]
    pub height: u32,
}
