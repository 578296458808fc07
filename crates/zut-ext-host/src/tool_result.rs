//! Turning an extension's `tool_result` into what the model receives
//! (protocol §8.4 and §8.5).

use base64::Engine;
use serde_json::Value;

/// One block of a tool result as the agent sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolContent {
    /// Text.
    Text(String),
    /// Decoded image bytes.
    Image {
        /// MIME type as sent (not validated).
        mime_type: String,
        /// Raw bytes.
        data: Vec<u8>,
    },
}

/// The result of an extension tool call, attributed to its extension.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    /// Result blocks (never empty).
    pub content: Vec<ToolContent>,
    /// Whether the call failed.
    pub is_error: bool,
    /// Deferred tools to activate (unfiltered; the agent keeps names that exist).
    pub activate_tools: Vec<String>,
    /// Opaque state snapshot to persist; `Some(Null)` clears it. Never sent
    /// to the provider.
    pub details: Option<Value>,
    /// Manifest name of the extension that owns the tool.
    pub extension: String,
    /// Tool name.
    pub tool: String,
}

impl ToolOutcome {
    /// An error result with one text block.
    pub fn error(extension: &str, tool: &str, text: impl Into<String>) -> Self {
        Self {
            content: vec![ToolContent::Text(text.into())],
            is_error: true,
            activate_tools: Vec::new(),
            details: None,
            extension: extension.to_string(),
            tool: tool.to_string(),
        }
    }

    /// `extension <ext>/<tool> failed: <why>`.
    pub fn failed(extension: &str, tool: &str, why: &str) -> Self {
        Self::error(
            extension,
            tool,
            format!("extension {extension}/{tool} failed: {why}"),
        )
    }

    /// All text blocks joined with newlines (for logs and tests).
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|c| match c {
                ToolContent::Text(t) => Some(t.as_str()),
                ToolContent::Image { .. } => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Converts a raw `tool_result` per §8.4.
pub(crate) fn convert(extension: &str, tool: &str, raw: zut_protocol::ToolResult) -> ToolOutcome {
    let mut is_error = raw.is_error;
    let mut content = Vec::new();
    for block in raw.content {
        match block.kind.as_str() {
            "text" => {
                if let Some(text) = block.text.filter(|t| !t.is_empty()) {
                    content.push(ToolContent::Text(text));
                }
            }
            "image" => {
                let data = block.data.unwrap_or_default();
                match base64::engine::general_purpose::STANDARD.decode(data.as_bytes()) {
                    Ok(bytes) => content.push(ToolContent::Image {
                        mime_type: block.mime_type.unwrap_or_default(),
                        data: bytes,
                    }),
                    Err(e) => {
                        is_error = true;
                        content.push(ToolContent::Text(format!(
                            "extension {extension}/{tool} returned undecodable image: {e}"
                        )));
                    }
                }
            }
            other => content.push(ToolContent::Text(format!(
                "[unknown block type {other:?} from extension {extension}]"
            ))),
        }
    }
    if content.is_empty() {
        content.push(ToolContent::Text("(extension returned no content)".into()));
    }
    ToolOutcome {
        content,
        is_error,
        activate_tools: raw.activate_tools,
        details: raw.details,
        extension: extension.to_string(),
        tool: tool.to_string(),
    }
}

/// Size of a state snapshot re-serialised as compact JSON: the fallback
/// when the raw bytes are not known (`null`).
pub(crate) fn state_size(details: &Value) -> usize {
    serde_json::to_vec(details)
        .map(|v| v.len())
        .unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use zut_protocol::{ContentBlock, ToolResult};

    #[test]
    fn conversion_rules() {
        let raw = ToolResult {
            id: "1".into(),
            content: vec![
                ContentBlock::text(""),
                ContentBlock::text("ok"),
                ContentBlock::image("image/png", "aGk="),
                ContentBlock {
                    kind: "video".into(),
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let out = convert("e", "t", raw);
        assert!(!out.is_error);
        assert_eq!(
            out.content,
            vec![
                ToolContent::Text("ok".into()),
                ToolContent::Image {
                    mime_type: "image/png".into(),
                    data: b"hi".to_vec()
                },
                ToolContent::Text("[unknown block type \"video\" from extension e]".into()),
            ]
        );
        let bad = convert(
            "e",
            "t",
            ToolResult {
                content: vec![ContentBlock::image("image/png", "%%%")],
                ..Default::default()
            },
        );
        assert!(bad.is_error);
        assert!(bad.text().contains("returned undecodable image"));
        let empty = convert("e", "t", ToolResult::default());
        assert_eq!(empty.text(), "(extension returned no content)");
    }
}
