//! Frames an extension sends to the host (extension stdout).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::{ContentBlock, PanelContent};
use crate::serde_helpers::{is_false, present};

/// Any frame an extension may write on its stdout.
///
/// Unknown keys are ignored; an unknown `type` decodes to
/// [`ExtFrame::Unknown`] through [`crate::decode_ext_frame`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ExtFrame {
    /// First frame of every extension.
    Hello(Hello),
    /// Registers a slash command.
    RegisterCommand(RegisterCommand),
    /// Registers an LLM-callable tool.
    RegisterTool(RegisterTool),
    /// Declares observed and intercepted lifecycle events.
    Subscribe(Subscribe),
    /// All initial registrations are flushed.
    Ready,
    /// Reply to `command_invoked`.
    CommandResponse(CommandResponse),
    /// Reply to `tool_call`.
    ToolResult(ToolResult),
    /// Reply to `event_intercept`.
    EventInterceptResponse(EventInterceptResponse),
    /// One-shot note.
    Notify(Notify),
    /// Persistent status item.
    Status(Status),
    /// Persistent widget.
    Widget(Widget),
    /// Removes a widget.
    WidgetClear(WidgetClear),
    /// Host-owned alert (terminal bell).
    Alert(Alert),
    /// Removes this extension's notes.
    ClearNotes(ClearNotes),
    /// Submits a user prompt (interactive only).
    Submit(Submit),
    /// Runs a slash command as if typed (interactive only).
    SubmitSlash(SubmitSlash),
    /// Opens a panel spontaneously.
    OpenPanel(OpenPanel),
    /// Redraws the extension's open panel.
    PanelRender(PanelRender),
    /// Closes the extension's open panel.
    PanelClose(PanelClose),
    /// Acknowledges `shutdown`.
    ShutdownAck,
    /// Any other `type`; the host logs and skips it.
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}

impl ExtFrame {
    /// The wire name of this frame's `type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Hello(_) => "hello",
            Self::RegisterCommand(_) => "register_command",
            Self::RegisterTool(_) => "register_tool",
            Self::Subscribe(_) => "subscribe",
            Self::Ready => "ready",
            Self::CommandResponse(_) => "command_response",
            Self::ToolResult(_) => "tool_result",
            Self::EventInterceptResponse(_) => "event_intercept_response",
            Self::Notify(_) => "notify",
            Self::Status(_) => "status",
            Self::Widget(_) => "widget",
            Self::WidgetClear(_) => "widget_clear",
            Self::Alert(_) => "alert",
            Self::ClearNotes(_) => "clear_notes",
            Self::Submit(_) => "submit",
            Self::SubmitSlash(_) => "submit_slash",
            Self::OpenPanel(_) => "open_panel",
            Self::PanelRender(_) => "panel_render",
            Self::PanelClose(_) => "panel_close",
            Self::ShutdownAck => "shutdown_ack",
            Self::Unknown => "unknown",
        }
    }
}

/// `hello`: must be the extension's first stdout line.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Hello {
    /// Must be 2; a missing value counts as 0 and is refused.
    #[serde(default)]
    pub protocol_version: u32,
    /// Must be non-empty; should equal the manifest name.
    #[serde(default)]
    pub name: String,
    /// Informational; the manifest version is authoritative.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// Informational; ignored by the host.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<String>,
}

/// `register_command`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RegisterCommand {
    /// Command name without the leading `/`; matched case-insensitively.
    pub name: String,
    /// One-line description for help and completion.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
}

/// `register_tool`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RegisterTool {
    /// Tool name, exact case.
    pub name: String,
    /// Description offered to the model.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// JSON Schema of the arguments; must be an object schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Value>,
    /// Registered but not advertised until activated via `activate_tools`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub deferred: bool,
}

/// `subscribe`: accumulates across frames.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Subscribe {
    /// Lifecycle events to observe.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<String>,
    /// Events to intercept (`tool_call`, `turn_start`, `assistant_message`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intercept: Vec<String>,
}

/// `command_response`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CommandResponse {
    /// Id of the `command_invoked` being answered.
    pub id: String,
    /// `prompt`, `insert`, `display`, `open_panel` or `noop` (empty = `noop`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub action: String,
    /// Text for `prompt`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prompt: String,
    /// Text for `insert`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub insert: String,
    /// Text for `display`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub display: String,
    /// Panel for `open_panel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_panel: Option<PanelContent>,
    /// Non-empty: shown as an error; the action is not performed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error: String,
}

/// `tool_result`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolResult {
    /// Id of the `tool_call` being answered.
    pub id: String,
    /// Result blocks.
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// Marks the call as failed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub is_error: bool,
    /// Deferred tools to activate.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub activate_tools: Vec<String>,
    /// Opaque extension state; `Some(Null)` clears it, `None` leaves it.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
}

/// `event_intercept_response`: every field defaults to "allow, unchanged".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EventInterceptResponse {
    /// Id of the `event_intercept` being answered.
    pub id: String,
    /// Refuse the action.
    #[serde(default, skip_serializing_if = "is_false")]
    pub block: bool,
    /// Refusal text.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// `tool_call`: complete replacement argument object.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub modified_args: Option<Value>,
    /// `assistant_message`: replacement user-visible text.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub replace_text: String,
    /// `turn_start`: hidden context for the upcoming request only.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub context: String,
}

/// `notify`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Notify {
    /// `info`, `success`, `warn` or `error`.
    #[serde(default)]
    pub level: String,
    /// Note text; each line becomes one note line.
    #[serde(default)]
    pub message: String,
}

/// `status`: empty `text` removes the item.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Status {
    /// Item key, scoped to the extension.
    #[serde(default)]
    pub key: String,
    /// Colour level.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub level: String,
    /// Item text.
    #[serde(default)]
    pub text: String,
}

/// `widget`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Widget {
    /// Widget id, scoped to the extension.
    #[serde(default)]
    pub id: String,
    /// Placement; every value resolves to `above_input`.
    #[serde(default)]
    pub position: String,
    /// Header text.
    #[serde(default)]
    pub title: String,
    /// Body lines.
    #[serde(default)]
    pub lines: Vec<String>,
}

/// `widget_clear`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WidgetClear {
    /// Widget id.
    #[serde(default)]
    pub id: String,
}

/// `alert`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Alert {
    /// Only `bell` is defined.
    #[serde(default)]
    pub kind: String,
    /// Semantic metadata, never printed.
    #[serde(default)]
    pub reason: String,
}

/// `clear_notes`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClearNotes {}

/// `submit`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Submit {
    /// Prompt text; trimmed, ignored when empty.
    #[serde(default)]
    pub text: String,
}

/// `submit_slash`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SubmitSlash {
    /// Must start with `/`.
    #[serde(default)]
    pub text: String,
}

/// `open_panel` (spontaneous form).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OpenPanel {
    /// The panel to open.
    #[serde(default)]
    pub panel: PanelContent,
}

/// `panel_render`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PanelRender {
    /// Id of the open panel.
    #[serde(default)]
    pub panel_id: String,
    /// New title; empty keeps the previous one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// Replaces all lines.
    #[serde(default)]
    pub lines: Vec<String>,
    /// Replaces the footer.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub footer: String,
}

/// `panel_close` (either direction).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PanelClose {
    /// Id of the panel.
    #[serde(default)]
    pub panel_id: String,
}
