//! Amazon Bedrock's Converse-Stream answer, from AWS's public API
//! reference: an `application/vnd.amazon.eventstream` body of binary
//! frames (prelude with total and headers lengths and a CRC-32, string
//! headers `:event-type` / `:content-type` / `:message-type`, a JSON
//! payload, a CRC-32 of the whole message), encoded here from the
//! documented layout.
//!
//! Events: `messageStart`; per block `contentBlockStart` (tool calls
//! only), `contentBlockDelta` (`text`, `toolUse.input` pieces,
//! `reasoningContent.text` then `.signature`), `contentBlockStop`;
//! `messageStop` (`stopReason`); `metadata` (usage, metrics).

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::render::pieces;
use crate::script::{Block, Usage};

/// One event-stream frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventFrame {
    /// `:message-type`: `event`, `exception` or `error`.
    #[serde(default = "event_type_default")]
    pub message_type: String,
    /// `:event-type` (events) or `:exception-type` (exceptions).
    pub event_type: String,
    /// The JSON payload.
    pub payload: String,
    /// Flip a bit of the message CRC (a corrupt frame).
    #[serde(default)]
    pub corrupt: bool,
}

fn event_type_default() -> String {
    "event".to_string()
}

impl EventFrame {
    /// An event frame.
    pub fn event(event_type: impl Into<String>, payload: impl Into<String>) -> Self {
        Self {
            message_type: "event".into(),
            event_type: event_type.into(),
            payload: payload.into(),
            corrupt: false,
        }
    }

    /// An exception frame (`throttlingException`, `modelStreamErrorException`...)
    /// with `{"message": ..}`.
    pub fn exception(exception_type: impl Into<String>, message: &str) -> Self {
        Self {
            message_type: "exception".into(),
            event_type: exception_type.into(),
            payload: json!({ "message": message }).to_string(),
            corrupt: false,
        }
    }

    /// The same frame with a wrong message CRC.
    pub fn corrupted(mut self) -> Self {
        self.corrupt = true;
        self
    }

    /// The frame's bytes.
    pub fn encode(&self) -> Bytes {
        let type_header = if self.message_type == "exception" {
            ":exception-type"
        } else {
            ":event-type"
        };
        let mut headers = Vec::new();
        for (name, value) in [
            (type_header, self.event_type.as_str()),
            (":content-type", "application/json"),
            (":message-type", self.message_type.as_str()),
        ] {
            headers.push(name.len() as u8);
            headers.extend_from_slice(name.as_bytes());
            headers.push(7); // string
            headers.extend_from_slice(&(value.len() as u16).to_be_bytes());
            headers.extend_from_slice(value.as_bytes());
        }
        let total = 12 + headers.len() + self.payload.len() + 4;
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(&(total as u32).to_be_bytes());
        out.extend_from_slice(&(headers.len() as u32).to_be_bytes());
        let prelude_crc = crc32fast::hash(&out);
        out.extend_from_slice(&prelude_crc.to_be_bytes());
        out.extend_from_slice(&headers);
        out.extend_from_slice(self.payload.as_bytes());
        let mut crc = crc32fast::hash(&out);
        if self.corrupt {
            crc ^= 1;
        }
        out.extend_from_slice(&crc.to_be_bytes());
        Bytes::from(out)
    }
}

/// The frames of a reply.
pub(crate) fn frames(
    blocks: &[Block],
    stop: Option<&str>,
    usage: &Usage,
    n: usize,
) -> Vec<EventFrame> {
    let mut out = vec![EventFrame::event("messageStart", r#"{"role":"assistant"}"#)];
    let delta = |index: usize, delta: serde_json::Value| {
        EventFrame::event(
            "contentBlockDelta",
            json!({"contentBlockIndex": index, "delta": delta}).to_string(),
        )
    };
    for (index, block) in blocks.iter().enumerate() {
        match block {
            Block::Text { text } => {
                for piece in pieces(text, n) {
                    out.push(delta(index, json!({ "text": piece })));
                }
            }
            Block::Thinking { text, signature } => {
                for piece in pieces(text, n) {
                    out.push(delta(index, json!({"reasoningContent": {"text": piece}})));
                }
                if !signature.is_empty() {
                    out.push(delta(
                        index,
                        json!({"reasoningContent": {"signature": signature}}),
                    ));
                }
            }
            Block::ToolCall { id, name, args } => {
                out.push(EventFrame::event(
                    "contentBlockStart",
                    json!({"contentBlockIndex": index, "start": {"toolUse": {"toolUseId": id, "name": name}}})
                        .to_string(),
                ));
                for piece in pieces(args, n) {
                    out.push(delta(index, json!({"toolUse": {"input": piece}})));
                }
            }
        }
        out.push(EventFrame::event(
            "contentBlockStop",
            json!({ "contentBlockIndex": index }).to_string(),
        ));
    }
    let has_tools = blocks.iter().any(|b| matches!(b, Block::ToolCall { .. }));
    let stop = stop.unwrap_or(if has_tools { "tool_use" } else { "end_turn" });
    out.push(EventFrame::event(
        "messageStop",
        json!({ "stopReason": stop }).to_string(),
    ));
    out.push(EventFrame::event(
        "metadata",
        json!({
            "usage": {
                "inputTokens": usage.input,
                "outputTokens": usage.output,
                "totalTokens": usage.input + usage.output + usage.cache_read + usage.cache_write,
                "cacheReadInputTokens": usage.cache_read,
                "cacheWriteInputTokens": usage.cache_write,
            },
            "metrics": {"latencyMs": 1},
        })
        .to_string(),
    ));
    out
}
