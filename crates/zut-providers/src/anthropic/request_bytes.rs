//! The Anthropic request body written straight to bytes from the
//! [`Request`], without building a `serde_json::Value` tree first (issue
//! 24: a long session's request is mostly its history, and the tree cost
//! more than everything else of building a request).
//!
//! The bytes are those of `serde_json::to_vec` of
//! [`super::request::body_with`] with every object's keys sorted (what the
//! tree gives when serde_json's `preserve_order` feature is off; the zut
//! binary has it on through agent-client-protocol, so there the tree's
//! order differs, but every Anthropic request goes through this path and
//! the prompt cache sees one order). `tests/providers/anthropic_bytes.rs` checks the
//! two against each other with the tree's keys sorted.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

use crate::assemble::REDACTED_THINKING_PREFIX;
use crate::types::{Message, Part, Reasoning, Request, Role, ToolSpec};

/// The body of [`super::request::body_with`] with `temperature` (a JSON
/// value, as the provider adds it), as bytes.
pub(crate) fn body_bytes(
    req: &Request,
    model: &str,
    reasoning: Reasoning,
    temperature: Option<&Value>,
) -> Result<Vec<u8>, serde_json::Error> {
    let mut out = Vec::with_capacity(4096);
    Body {
        req,
        model,
        reasoning,
        temperature,
    }
    .serialize(&mut serde_json::Serializer::new(&mut out))?;
    Ok(out)
}

struct Body<'a> {
    req: &'a Request,
    model: &'a str,
    reasoning: Reasoning,
    temperature: Option<&'a Value>,
}

struct Ephemeral;

impl Serialize for Ephemeral {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry("type", "ephemeral")?;
        m.end()
    }
}

impl Serialize for Body<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let req = self.req;
        let budget = super::request::thinking_budget(self.reasoning);
        let mut max_tokens = req.max_tokens.max(1);
        if let Some(b) = budget {
            if max_tokens <= b {
                max_tokens = max_tokens.saturating_add(b);
            }
        }
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("max_tokens", &max_tokens)?;
        m.serialize_entry("messages", &Messages(&req.messages))?;
        m.serialize_entry("model", self.model)?;
        m.serialize_entry("stream", &true)?;
        if !req.system.is_empty() {
            m.serialize_entry("system", &[System(&req.system)])?;
        }
        if let Some(t) = self.temperature {
            m.serialize_entry("temperature", t)?;
        }
        if let Some(b) = budget {
            m.serialize_entry("thinking", &Thinking(b))?;
        }
        if !req.tools.is_empty() {
            m.serialize_entry("tools", &Tools(&req.tools))?;
        }
        m.end()
    }
}

struct System<'a>(&'a str);

impl Serialize for System<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("cache_control", &Ephemeral)?;
        m.serialize_entry("text", self.0)?;
        m.serialize_entry("type", "text")?;
        m.end()
    }
}

struct Thinking(u32);

impl Serialize for Thinking {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("budget_tokens", &self.0)?;
        m.serialize_entry("type", "enabled")?;
        m.end()
    }
}

struct Tools<'a>(&'a [ToolSpec]);

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for (i, t) in self.0.iter().enumerate() {
            seq.serialize_element(&Tool {
                spec: t,
                cache: i + 1 == self.0.len(),
            })?;
        }
        seq.end()
    }
}

struct Tool<'a> {
    spec: &'a ToolSpec,
    cache: bool,
}

impl Serialize for Tool<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if self.cache {
            m.serialize_entry("cache_control", &Ephemeral)?;
        }
        m.serialize_entry("description", &self.spec.description)?;
        m.serialize_entry("input_schema", self.spec.input_schema.as_ref())?;
        m.serialize_entry("name", &self.spec.name)?;
        m.end()
    }
}

/// A block the body sends, borrowed from a part.
#[derive(Clone, Copy)]
enum Block<'a> {
    Text(&'a str),
    Image(&'a str, &'a str),
    Redacted(&'a str),
    Thinking(&'a str, &'a str),
    ToolUse(&'a str, &'a str, &'a Value),
    ToolResult(&'a str, bool, &'a [Part]),
}

impl<'a> Block<'a> {
    fn of(part: &'a Part, role: Role) -> Option<Self> {
        Some(match part {
            Part::Text { text } if text.is_empty() => return None,
            Part::Text { text } => Self::Text(text),
            Part::Image { mime_type, data } => Self::Image(mime_type, data),
            Part::Thinking { text, signature } => {
                let signature = super::request::replayable(role, signature.as_deref())?;
                match signature.strip_prefix(REDACTED_THINKING_PREFIX) {
                    Some(data) => Self::Redacted(data),
                    None => Self::Thinking(text, signature),
                }
            }
            Part::ToolCall { id, name, args } => Self::ToolUse(id, name, args),
            Part::ToolResult {
                call_id,
                is_error,
                content,
            } => Self::ToolResult(call_id, *is_error, content),
        })
    }

    fn cacheable(self) -> bool {
        !matches!(self, Self::Redacted(_) | Self::Thinking(..))
    }
}

/// A block, with the cache breakpoint when it is the body's last.
struct Out<'a>(Block<'a>, bool);

struct Image<'a>(&'a str, &'a str);

impl Serialize for Image<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("data", self.1)?;
        m.serialize_entry("media_type", self.0)?;
        m.serialize_entry("type", "base64")?;
        m.end()
    }
}

struct Inner<'a>(&'a [Part]);

impl Serialize for Inner<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for p in self.0 {
            match p {
                Part::Text { text } if !text.is_empty() => {
                    seq.serialize_element(&Out(Block::Text(text), false))?;
                }
                Part::Image { mime_type, data } => {
                    seq.serialize_element(&Out(Block::Image(mime_type, data), false))?;
                }
                _ => {}
            }
        }
        seq.end()
    }
}

fn has_inner(content: &[Part]) -> bool {
    content.iter().any(|p| match p {
        Part::Text { text } => !text.is_empty(),
        Part::Image { .. } => true,
        _ => false,
    })
}

static EMPTY_OBJECT: std::sync::LazyLock<Value> =
    std::sync::LazyLock::new(|| Value::Object(serde_json::Map::new()));

impl Serialize for Out<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if self.1 {
            m.serialize_entry("cache_control", &Ephemeral)?;
        }
        match self.0 {
            Block::Text(text) => {
                m.serialize_entry("text", text)?;
                m.serialize_entry("type", "text")?;
            }
            Block::Image(mime, data) => {
                m.serialize_entry("source", &Image(mime, data))?;
                m.serialize_entry("type", "image")?;
            }
            Block::Redacted(data) => {
                m.serialize_entry("data", data)?;
                m.serialize_entry("type", "redacted_thinking")?;
            }
            Block::Thinking(text, signature) => {
                m.serialize_entry("signature", signature)?;
                m.serialize_entry("thinking", text)?;
                m.serialize_entry("type", "thinking")?;
            }
            Block::ToolUse(id, name, args) => {
                m.serialize_entry("id", id)?;
                let input = if args.is_object() {
                    args
                } else {
                    &*EMPTY_OBJECT
                };
                m.serialize_entry("input", input)?;
                m.serialize_entry("name", name)?;
                m.serialize_entry("type", "tool_use")?;
            }
            Block::ToolResult(call_id, is_error, content) => {
                if has_inner(content) {
                    m.serialize_entry("content", &Inner(content))?;
                }
                if is_error {
                    m.serialize_entry("is_error", &true)?;
                }
                m.serialize_entry("tool_use_id", call_id)?;
                m.serialize_entry("type", "tool_result")?;
            }
        }
        m.end()
    }
}

/// The blocks of a message in the order the body sends them: tool results
/// first (Anthropic wants them first in a user message), then the rest.
fn blocks<'a>(msg: &'a Message) -> impl Iterator<Item = Block<'a>> + 'a {
    let role = msg.role;
    let of = move |p: &'a Part| Block::of(p, role);
    let results = msg
        .content
        .iter()
        .filter(|p| matches!(p, Part::ToolResult { .. }))
        .filter_map(of);
    let others = msg
        .content
        .iter()
        .filter(|p| !matches!(p, Part::ToolResult { .. }))
        .filter_map(of);
    results.chain(others)
}

struct Messages<'a>(&'a [Message]);

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // The last message that sends anything carries the breakpoint on
        // its last block (when that block may be cached).
        let last = self.0.iter().rposition(|m| blocks(m).next().is_some());
        let mut seq = s.serialize_seq(None)?;
        for (i, msg) in self.0.iter().enumerate() {
            if blocks(msg).next().is_none() {
                continue;
            }
            seq.serialize_element(&One {
                msg,
                last: Some(i) == last,
            })?;
        }
        seq.end()
    }
}

struct One<'a> {
    msg: &'a Message,
    last: bool,
}

struct Content<'a> {
    msg: &'a Message,
    last: bool,
}

impl Serialize for Content<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = blocks(self.msg).count();
        let mut seq = s.serialize_seq(Some(n))?;
        for (j, b) in blocks(self.msg).enumerate() {
            let cache = self.last && j + 1 == n && b.cacheable();
            seq.serialize_element(&Out(b, cache))?;
        }
        seq.end()
    }
}

impl Serialize for One<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry(
            "content",
            &Content {
                msg: self.msg,
                last: self.last,
            },
        )?;
        let role = match self.msg.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        m.serialize_entry("role", role)?;
        m.end()
    }
}
