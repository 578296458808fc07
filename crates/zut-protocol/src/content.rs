//! Value types shared by several frames.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One block of a `tool_result.content` array.
///
/// Kept as a loose struct rather than an enum so that unknown block types
/// reach the host, which turns them into a visible
/// `[unknown block type "<t>" from extension <ext>]` text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ContentBlock {
    /// `text` or `image`; anything else is reported as unknown.
    #[serde(rename = "type", default)]
    pub kind: String,
    /// Text of a `text` block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// MIME type of an `image` block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Standard base64 (with padding) of an `image` block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            kind: "text".into(),
            text: Some(text.into()),
            ..Self::default()
        }
    }

    /// An image block from already base64-encoded data.
    pub fn image(mime_type: impl Into<String>, base64_data: impl Into<String>) -> Self {
        Self {
            kind: "image".into(),
            mime_type: Some(mime_type.into()),
            data: Some(base64_data.into()),
            ..Self::default()
        }
    }
}

/// The content of an extension-owned panel.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PanelContent {
    /// Panel id chosen by the extension.
    #[serde(default)]
    pub id: String,
    /// Title; falls back to the extension name when empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// Body lines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<String>,
    /// Muted footer line.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub footer: String,
}

/// Identity of the active session branch, as sent in `hello_ack` and
/// session lifecycle events. Empty fields are omitted on the wire.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionInfo {
    /// The session file's own id.
    pub id: String,
    /// Id of the session this one was branched from.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub parent_id: String,
    /// Absolute path of the session file.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path: String,
    /// The session's project directory.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cwd: String,
    /// Number of effective messages copied from the parent.
    #[serde(default, skip_serializing_if = "crate::serde_helpers::is_zero")]
    pub fork_point: u64,
}
