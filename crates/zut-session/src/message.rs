//! The `message` object of a row (sessions-themes-skills.md §1.4): the Go
//! original's `provider.Message` JSON. Content blocks carry no `type`; the
//! kind is recognised from the keys present.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The user.
    User,
    /// The model.
    Assistant,
    /// Tool results.
    Tool,
    /// Host context (time context, compaction notes).
    Developer,
}

/// One transcript message as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionMessage {
    /// Speaker.
    pub role: Role,
    /// Content blocks (never empty).
    pub content: Vec<Block>,
    /// RFC 3339 time (Go writes a zero time as `0001-01-01T00:00:00Z`).
    #[serde(default = "zero_time")]
    pub time: String,
    /// String metadata (`internal_context`, `compaction`, `tokens_before`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<BTreeMap<String, String>>,
    /// Deferred tools activated by this (tool) message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added_tool_names: Vec<String>,
}

fn zero_time() -> String {
    "0001-01-01T00:00:00Z".to_string()
}

impl SessionMessage {
    /// A message with the current time and no metadata.
    pub fn new(role: Role, content: Vec<Block>) -> Self {
        Self {
            role,
            content,
            time: crate::time::now_rfc3339(),
            meta: None,
            added_tool_names: Vec::new(),
        }
    }

    /// The value of metadata key `key`.
    pub fn meta_value(&self, key: &str) -> Option<&str> {
        self.meta.as_ref()?.get(key).map(String::as_str)
    }

    /// Whether this is the host's hidden per-turn context (a `developer`
    /// message with `meta.internal_context:"true"`).
    pub fn is_internal_context(&self) -> bool {
        self.role == Role::Developer && self.meta_value("internal_context") == Some("true")
    }

    /// Whether this message has tool calls.
    pub fn has_tool_calls(&self) -> bool {
        self.content
            .iter()
            .any(|b| matches!(b, Block::ToolCall { .. }))
    }

    /// The first non-empty text block.
    pub fn first_text(&self) -> Option<&str> {
        self.content.iter().find_map(|b| match b {
            Block::Text { text, .. } if !text.is_empty() => Some(text.as_str()),
            _ => None,
        })
    }
}

/// One content block.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Block {
    /// Model reasoning (`reasoning_id` / `summary` / `encrypted_content`).
    Reasoning {
        /// Provider reasoning item id.
        #[serde(skip_serializing_if = "String::is_empty")]
        reasoning_id: String,
        /// Human-readable reasoning (zut stores Anthropic thinking text here).
        #[serde(skip_serializing_if = "String::is_empty")]
        summary: String,
        /// Opaque provider payload (zut stores Anthropic's signature here).
        #[serde(skip_serializing_if = "String::is_empty")]
        encrypted_content: String,
    },
    /// A tool call.
    ToolCall {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// The model's original arguments.
        arguments: Value,
        /// Gemini thought signature.
        #[serde(skip_serializing_if = "String::is_empty")]
        thought_signature: String,
    },
    /// A tool result.
    ToolResult {
        /// The answered call.
        call_id: String,
        /// Text and image blocks (never empty).
        content: Vec<Block>,
        /// Whether the tool failed.
        is_error: bool,
        /// Optional `{started_at, completed_at, duration}`.
        #[serde(skip_serializing_if = "Option::is_none")]
        timing: Option<Value>,
    },
    /// An image.
    Image {
        /// MIME type.
        mime_type: String,
        /// Base64 bytes.
        data: String,
        /// Gemini thought signature.
        #[serde(skip_serializing_if = "String::is_empty")]
        thought_signature: String,
    },
    /// Text.
    Text {
        /// The text.
        text: String,
        /// Gemini thought signature.
        #[serde(skip_serializing_if = "String::is_empty")]
        thought_signature: String,
    },
}

impl Block {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text {
            text: text.into(),
            thought_signature: String::new(),
        }
    }

    /// The Gemini `thought_signature` of a text, image or tool-call block
    /// (`""` when it has none; the other kinds never have one).
    pub fn thought_signature(&self) -> &str {
        match self {
            Block::Text {
                thought_signature, ..
            }
            | Block::Image {
                thought_signature, ..
            }
            | Block::ToolCall {
                thought_signature, ..
            } => thought_signature,
            _ => "",
        }
    }
}

/// Every key a block may have; the kind is decided from which are present.
#[derive(Deserialize)]
struct RawBlock {
    reasoning_id: Option<String>,
    summary: Option<String>,
    encrypted_content: Option<String>,
    id: Option<String>,
    name: Option<String>,
    arguments: Option<Value>,
    thought_signature: Option<String>,
    call_id: Option<String>,
    content: Option<Vec<RawBlock>>,
    #[serde(default)]
    is_error: bool,
    timing: Option<Value>,
    mime_type: Option<String>,
    data: Option<String>,
    text: Option<String>,
}

/// The kind of a content block, decided from the keys present (§1.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Reasoning,
    ToolCall,
    ToolResult,
    Image,
    Text,
}

/// Which keys a block has.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Keys {
    pub reasoning: bool,
    pub id: bool,
    pub name: bool,
    pub call_id: bool,
    pub mime_type: bool,
    pub text: bool,
}

/// The [`Keys`] of a block struct with the fields of a session block
/// (`RawBlock` here, `CheckBlock` in the checker).
macro_rules! block_keys {
    ($b:expr) => {
        $crate::message::Keys {
            reasoning: $b.reasoning_id.is_some()
                || $b.summary.is_some()
                || $b.encrypted_content.is_some(),
            id: $b.id.is_some(),
            name: $b.name.is_some(),
            call_id: $b.call_id.is_some(),
            mime_type: $b.mime_type.is_some(),
            text: $b.text.is_some(),
        }
    };
}
pub(crate) use block_keys;

/// The block kind for `keys`, in the order of §1.4 (reasoning, tool call,
/// tool result, image, text). Blocks inside a tool result (`nested`) can
/// only be text or images.
pub(crate) fn classify(keys: Keys, nested: bool) -> Result<Kind, String> {
    if !nested && keys.reasoning {
        return Ok(Kind::Reasoning);
    }
    if !nested && (keys.id || keys.name) {
        if !(keys.id && keys.name) {
            return Err("tool call block needs both \"id\" and \"name\"".into());
        }
        return Ok(Kind::ToolCall);
    }
    if !nested && keys.call_id {
        return Ok(Kind::ToolResult);
    }
    if keys.mime_type {
        return Ok(Kind::Image);
    }
    if keys.text {
        return Ok(Kind::Text);
    }
    Err(if nested {
        "tool result content block is neither text nor image".into()
    } else {
        "content block of unknown kind (no text, image, tool call, tool result or reasoning keys)"
            .into()
    })
}

impl RawBlock {
    fn keys(&self) -> Keys {
        block_keys!(self)
    }

    fn into_block(self, nested: bool) -> Result<Block, String> {
        Ok(match classify(self.keys(), nested)? {
            Kind::Reasoning => Block::Reasoning {
                reasoning_id: self.reasoning_id.unwrap_or_default(),
                summary: self.summary.unwrap_or_default(),
                encrypted_content: self.encrypted_content.unwrap_or_default(),
            },
            Kind::ToolCall => Block::ToolCall {
                id: self.id.unwrap_or_default(),
                name: self.name.unwrap_or_default(),
                arguments: self.arguments.unwrap_or(Value::Null),
                thought_signature: self.thought_signature.unwrap_or_default(),
            },
            Kind::ToolResult => {
                let content = self
                    .content
                    .ok_or("tool result block has no \"content\"")?
                    .into_iter()
                    .map(|b| b.into_block(true))
                    .collect::<Result<Vec<_>, _>>()?;
                if content.is_empty() {
                    return Err("tool result block has empty \"content\"".into());
                }
                Block::ToolResult {
                    call_id: self.call_id.unwrap_or_default(),
                    content,
                    is_error: self.is_error,
                    timing: self.timing,
                }
            }
            Kind::Image => Block::Image {
                mime_type: self.mime_type.unwrap_or_default(),
                data: self.data.unwrap_or_default(),
                thought_signature: self.thought_signature.unwrap_or_default(),
            },
            Kind::Text => Block::Text {
                text: self.text.unwrap_or_default(),
                thought_signature: self.thought_signature.unwrap_or_default(),
            },
        })
    }
}

impl<'de> Deserialize<'de> for Block {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        RawBlock::deserialize(d)?
            .into_block(false)
            .map_err(serde::de::Error::custom)
    }
}
