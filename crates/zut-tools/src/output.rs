//! What a tool hands back to the model: content blocks plus an error flag.

use serde::{Deserialize, Serialize};

/// One block of a tool result.
///
/// Serializes like the extension protocol's `tool_result` content:
/// `{"type":"text","text":"…"}` and
/// `{"type":"image","mime_type":"image/png","data":"<base64>"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "WireContent", into = "WireContent")]
pub enum ToolContent {
    /// Plain text for the model.
    Text(String),
    /// An image, base64-encoded (standard alphabet, padded).
    Image {
        /// MIME type derived from the image's magic bytes, e.g. `image/png`.
        mime_type: String,
        /// Base64 of the raw image bytes.
        data: String,
    },
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireContent {
    Text { text: String },
    Image { mime_type: String, data: String },
}

impl From<WireContent> for ToolContent {
    fn from(w: WireContent) -> Self {
        match w {
            WireContent::Text { text } => ToolContent::Text(text),
            WireContent::Image { mime_type, data } => ToolContent::Image { mime_type, data },
        }
    }
}

impl From<ToolContent> for WireContent {
    fn from(c: ToolContent) -> Self {
        match c {
            ToolContent::Text(text) => WireContent::Text { text },
            ToolContent::Image { mime_type, data } => WireContent::Image { mime_type, data },
        }
    }
}

/// The result of running a tool. Failures are ordinary outputs with
/// `is_error: true` and a text the model can read and act on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolOutput {
    /// Content blocks, in order.
    pub content: Vec<ToolContent>,
    /// Whether the call failed (bad arguments, I/O error, non-zero exit, …).
    pub is_error: bool,
}

impl ToolOutput {
    /// A successful output with a single text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![ToolContent::Text(text.into())],
            is_error: false,
        }
    }

    /// A failed output with a single text block explaining the failure.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            content: vec![ToolContent::Text(text.into())],
            is_error: true,
        }
    }

    /// A successful output with a single image block.
    pub fn image(mime_type: impl Into<String>, data: impl Into<String>) -> Self {
        Self {
            content: vec![ToolContent::Image {
                mime_type: mime_type.into(),
                data: data.into(),
            }],
            is_error: false,
        }
    }

    /// All text blocks joined with newlines (images are skipped). Handy for
    /// logs and tests.
    pub fn text_content(&self) -> String {
        let mut out = String::new();
        for c in &self.content {
            if let ToolContent::Text(t) = c {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(t);
            }
        }
        out
    }
}
