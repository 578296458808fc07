//! Provider-neutral conversation types shared by every provider and the agent loop.
//!
//! These are the only types the agent core sees: a provider translates them to
//! and from its own wire format.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use zut_types::message::{Message, Part, Role, StopReason};

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Tool name.
    pub name: String,
    /// Description shown to the model.
    pub description: String,
    /// JSON Schema (an object schema) of the arguments, shared: the agent
    /// keeps one copy of each tool's schema for all its requests.
    #[serde(with = "shared_value")]
    pub input_schema: Arc<Value>,
    /// For a deferred tool activated by a tool result: the index in
    /// [`Request::messages`] of the message holding that result. Providers
    /// with a native deferred-tool format (Kimi K3 on OpenAI-compatible
    /// routes) load the schema there; the others list it with the rest.
    /// `None`: an ordinary tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activated_after: Option<usize>,
}

/// Reasoning effort requested from the model (`--reasoning`), zut's levels
/// in increasing order. Each wire maps a level to its own knob (an effort
/// name, a thinking budget); a model with fewer levels gets the nearest one
/// (see [`crate::reasoning`]).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "snake_case")]
pub enum Reasoning {
    /// No reasoning requested.
    #[default]
    Off,
    /// The least reasoning the model can do (OpenAI `minimal`, 1024 budget tokens).
    Minimum,
    /// Low effort.
    Low,
    /// Medium effort.
    Medium,
    /// High effort.
    High,
    /// Extra-high effort (OpenAI `xhigh`); `maximum` is an alias.
    #[serde(rename = "xhigh")]
    XHigh,
    /// The top tier, above `xhigh`, where a model has one.
    Max,
}

/// One model request.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Model id.
    pub model: String,
    /// System prompt (may be empty).
    pub system: String,
    /// Conversation so far.
    pub messages: Vec<Message>,
    /// Tools offered to the model (may be empty).
    pub tools: Vec<ToolSpec>,
    /// Output token cap.
    pub max_tokens: u32,
    /// Reasoning effort.
    pub reasoning: Reasoning,
}

/// Token usage of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Input (prompt) tokens, excluding cache reads/writes when the provider splits them.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Reasoning tokens when the provider reports them separately.
    pub reasoning: Option<u64>,
    /// Tokens read from the prompt cache.
    pub cache_read: u64,
    /// Tokens written to the prompt cache.
    pub cache_write: u64,
}

impl Usage {
    /// Records OpenAI's counts (Chat Completions and Responses), whose
    /// `prompt` count includes the `cached` tokens; a missing count is 0.
    pub(crate) fn set_openai(
        &mut self,
        prompt: Option<u64>,
        cached: Option<u64>,
        output: Option<u64>,
        reasoning: Option<u64>,
    ) {
        let cached = cached.unwrap_or(0);
        self.input = prompt.unwrap_or(0).saturating_sub(cached);
        self.cache_read = cached;
        self.output = output.unwrap_or(0);
        self.reasoning = reasoning;
    }
}

/// A streamed event, delivered while a request runs.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// An HTTP attempt starts (`attempt` is 1-based).
    RequestStarted {
        /// Attempt number, 1-based.
        attempt: u32,
        /// Maximum attempts.
        max_attempts: u32,
    },
    /// A retry is scheduled after a retryable failure.
    RetryScheduled {
        /// The attempt that failed.
        attempt: u32,
        /// Maximum attempts.
        max_attempts: u32,
        /// Delay before the next attempt.
        delay_ms: u64,
        /// Why (status and provider message; never the key).
        reason: String,
    },
    /// The request waits before its attempt: another request of the same
    /// provider (a clone: the conversation or a subagent) got a 429.
    RateLimited {
        /// How long it waits.
        delay_ms: u64,
    },
    /// First output of the assistant message.
    AssistantStart,
    /// Assistant text.
    TextDelta(String),
    /// Reasoning text.
    ThinkingDelta(String),
    /// A tool call starts.
    ToolUseStart {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
    },
    /// A fragment of a tool call's JSON arguments.
    ToolUseArgs {
        /// Call id.
        id: String,
        /// Raw JSON fragment.
        delta: String,
    },
    /// A tool call's arguments are complete.
    ToolUseEnd {
        /// Call id.
        id: String,
    },
}

/// The finished result of a streamed request.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// The assembled assistant message (text, thinking and tool calls, in stream order).
    pub message: Message,
    /// Why the model stopped.
    pub stop: StopReason,
    /// Token usage.
    pub usage: Usage,
}

/// Requests and messages for the wire serializers' unit tests.
#[cfg(test)]
pub(crate) mod fixtures {
    use serde_json::{json, Value};

    use super::{Message, Part, Reasoning, Request, Role, ToolSpec};

    /// Model `m`, system `sys`, the tool `read`, 100 output tokens, high
    /// reasoning.
    pub(crate) fn request(messages: Vec<Message>) -> Request {
        Request {
            model: "m".into(),
            system: "sys".into(),
            messages,
            tools: vec![ToolSpec {
                name: "read".into(),
                description: "d".into(),
                input_schema: json!({"type": "object"}).into(),
                activated_after: None,
            }],
            max_tokens: 100,
            reasoning: Reasoning::High,
        }
    }

    /// A user message: the text `look` and a PNG image (`AAA=`).
    pub(crate) fn look_at_image() -> Message {
        Message {
            role: Role::User,
            content: vec![
                Part::Text {
                    text: "look".into(),
                },
                Part::Image {
                    mime_type: "image/png".into(),
                    data: "AAA=".into(),
                },
            ],
        }
    }

    /// An assistant message.
    pub(crate) fn assistant(content: Vec<Part>) -> Message {
        Message {
            role: Role::Assistant,
            content,
        }
    }

    /// A thinking part.
    pub(crate) fn thinking(text: &str, signature: Option<&str>) -> Part {
        Part::Thinking {
            text: text.into(),
            signature: signature.map(str::to_string),
        }
    }

    /// A tool call part.
    pub(crate) fn call(id: &str, name: &str, args: Value) -> Part {
        Part::ToolCall {
            id: id.into(),
            name: name.into(),
            args,
        }
    }

    /// A user message answering the call `call_id` with `text`.
    pub(crate) fn result(call_id: &str, is_error: bool, text: &str) -> Message {
        Message {
            role: Role::User,
            content: vec![Part::ToolResult {
                call_id: call_id.into(),
                is_error,
                content: vec![Part::Text { text: text.into() }],
            }],
        }
    }
}

/// (De)serializes an `Arc<Value>` as the value itself.
mod shared_value {
    use std::sync::Arc;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::Value;

    pub fn serialize<S: Serializer>(v: &Arc<Value>, s: S) -> Result<S::Ok, S::Error> {
        v.as_ref().serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<Value>, D::Error> {
        Value::deserialize(d).map(Arc::new)
    }
}
