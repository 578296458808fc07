//! The provider-neutral conversation: messages and their parts, as the
//! agent keeps them and every provider translates them (`zut-providers`
//! re-exports these as its own).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who said a [`Message`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The user (also carries tool results back to the model).
    User,
    /// The model.
    Assistant,
}

/// One message of the conversation sent to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Speaker.
    pub role: Role,
    /// Ordered content parts.
    pub content: Vec<Part>,
}

impl Message {
    /// A user message holding one text part.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: vec![Part::Text { text: text.into() }],
        }
    }

    /// The concatenated text parts of this message.
    pub fn text(&self) -> String {
        self.texts().collect()
    }

    /// The text parts of this message, in order.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.content.iter().filter_map(|p| match p {
            Part::Text { text } => Some(text.as_str()),
            _ => None,
        })
    }

    /// The tool calls of this message, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = (&str, &str, &Value)> {
        self.content.iter().filter_map(|p| match p {
            Part::ToolCall { id, name, args } => Some((id.as_str(), name.as_str(), args)),
            _ => None,
        })
    }
}

/// One content part of a [`Message`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// MIME type such as `image/png`.
        mime_type: String,
        /// Base64 data (no `data:` prefix).
        data: String,
    },
    /// Model reasoning ("thinking"). Providers that need it echoed back
    /// (Anthropic) keep the signature; others drop the part when sending.
    Thinking {
        /// Reasoning text (may be empty when redacted).
        text: String,
        /// Opaque provider signature, echoed back verbatim.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    /// A tool call made by the assistant.
    ToolCall {
        /// Provider-assigned call id.
        id: String,
        /// Tool name.
        name: String,
        /// Parsed arguments (an object; `{}` when the model sent nothing).
        args: Value,
    },
    /// The result of a tool call, sent back in a user message.
    ToolResult {
        /// The id of the [`Part::ToolCall`] this answers.
        call_id: String,
        /// Whether the tool failed.
        is_error: bool,
        /// Result content: only `Text` and `Image` parts.
        content: Vec<Part>,
    },
}

/// Why the model stopped (the `stop` of rpc.md's `turn_end`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished its answer (also `stop_sequence`, `refusal`, OpenAI `stop`).
    EndTurn,
    /// The model wants tool results.
    ToolUse,
    /// Output token limit hit.
    Length,
    /// The request failed.
    Error,
    /// The request was cancelled.
    Aborted,
}
