//! The JSON shape of message content for JSON/RPC clients (rpc.md §6):
//! images are reduced to their byte count, reasoning is omitted.

use serde::Serialize;
use serde_json::Value;

/// One content block as JSON/RPC clients see it.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum JsonBlock {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image (never embedded).
    Image {
        /// MIME type.
        mime_type: String,
        /// Decoded size in bytes.
        bytes: usize,
    },
    /// A tool call.
    ToolCall {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments.
        args: Value,
    },
    /// A tool result.
    ToolResult {
        /// Answered call.
        call_id: String,
        /// Failure flag.
        is_error: bool,
        /// Result blocks.
        content: Vec<JsonBlock>,
    },
}
