//! Decoding the Responses API event stream.
//!
//! Output items are tracked by `output_index`: a `message` item becomes a
//! text part (`output_text` and `refusal` deltas), a `reasoning` item a
//! thinking part (summary deltas, parts separated by a blank line; its id
//! and `encrypted_content` from `response.output_item.done` become the
//! signature), a `function_call` item a tool call (`call_id`, `name`,
//! streamed `arguments`). `response.completed` / `response.incomplete`
//! end the stream with the usage; `response.failed` and `error` events are
//! errors. Other events are ignored (an unknown type is logged once).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use super::fast::{self, DeltaKind};
use crate::assemble::{Assembler, Emit};
use crate::decode::{parse_json, Flow, Sink, WireDecoder};
use crate::error::{error_type_retryable, ProviderError};
use crate::sse::SseEventRef;
use crate::text::Text;
use crate::types::StopReason;

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Text<'a>>,
    output_index: Option<usize>,
    summary_index: Option<usize>,
    #[serde(borrow)]
    delta: Option<Text<'a>>,
    arguments: Option<String>,
    item: Option<Box<Item>>,
    response: Option<Box<ResponseObject>>,
    /// `error` events: `code`, `message` (sometimes nested in `error`).
    code: Option<Value>,
    message: Option<String>,
    error: Option<Box<Value>>,
}

#[derive(Deserialize, Default)]
struct Item {
    #[serde(default, rename = "type")]
    kind: String,
    id: Option<String>,
    call_id: Option<String>,
    name: Option<String>,
    arguments: Option<String>,
    encrypted_content: Option<String>,
    summary: Option<Vec<TextPart>>,
    content: Option<Vec<TextPart>>,
}

#[derive(Deserialize)]
struct TextPart {
    text: Option<String>,
    refusal: Option<String>,
}

#[derive(Deserialize)]
struct ResponseObject {
    status: Option<String>,
    usage: Option<WireUsage>,
    incomplete_details: Option<Value>,
    error: Option<Value>,
}

#[derive(Deserialize)]
struct WireUsage {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    input_tokens_details: Option<InputDetails>,
    output_tokens_details: Option<OutputDetails>,
}

#[derive(Deserialize)]
struct InputDetails {
    cached_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct OutputDetails {
    reasoning_tokens: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Message,
    Reasoning,
    FunctionCall,
    Other,
}

/// One output item of the reply.
#[derive(Debug)]
struct OutputItem {
    index: usize,
    kind: Kind,
    slot: usize,
    /// Whether any delta (text, summary, arguments) arrived for it.
    streamed: bool,
    /// The last reasoning summary part seen (parts are joined by a blank line).
    summary_part: usize,
}

/// Responses stream state for one attempt.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    items: Vec<OutputItem>,
    finished: bool,
    unknown: Vec<String>,
}

/// Error codes worth a retry besides [`error_type_retryable`]'s.
fn code_retryable(code: &str, message: &str) -> bool {
    matches!(
        code,
        "rate_limit_exceeded" | "server_is_overloaded" | "slow_down" | "internal_error"
    ) || error_type_retryable(code, message)
}

/// An `error` event or a failed response's `error` object.
fn api_error(provider: &str, code: Option<&Value>, message: Option<&str>) -> ProviderError {
    let kind = code
        .and_then(|c| match c {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
        .unwrap_or_else(|| "error".to_string());
    let message = message
        .filter(|m| !m.is_empty())
        .unwrap_or("the response failed without a message")
        .to_string();
    let retryable = code_retryable(&kind, &message)
        || kind
            .parse::<u16>()
            .is_ok_and(crate::error::status_retryable);
    ProviderError::api(provider, kind, message, retryable)
}

impl Decoder {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// A Responses stream is only complete with its final event.
    pub(crate) fn complete_at_eof(&self) -> bool {
        self.finished
    }

    fn find(&self, index: Option<usize>) -> Option<usize> {
        match index {
            Some(index) => self.items.iter().rposition(|i| i.index == index),
            None => self.items.len().checked_sub(1),
        }
    }

    /// The item a delta belongs to; a delta for an item never announced
    /// gets one (lenient servers skip `output_item.added`).
    fn item_for(&mut self, kind: Kind, index: Option<usize>, asm: &mut Assembler) -> Option<usize> {
        if let Some(i) = self.find(index).filter(|i| self.items[*i].kind == kind) {
            return Some(i);
        }
        let slot = match kind {
            Kind::Message => asm.open_text(),
            Kind::Reasoning => asm.open_thinking(None),
            // Arguments for a call never announced: no name, no id.
            Kind::FunctionCall | Kind::Other => return None,
        };
        self.items.push(OutputItem {
            index: index.unwrap_or(self.items.len()),
            kind,
            slot,
            streamed: false,
            summary_part: 0,
        });
        Some(self.items.len() - 1)
    }

    fn delta(
        &mut self,
        kind: DeltaKind,
        index: Option<usize>,
        delta: Cow<'_, str>,
        asm: &mut Assembler,
        emit: &mut Emit<'_>,
    ) {
        let item_kind = match kind {
            DeltaKind::Text | DeltaKind::Refusal => Kind::Message,
            DeltaKind::Summary | DeltaKind::ReasoningText => Kind::Reasoning,
            DeltaKind::Arguments => Kind::FunctionCall,
        };
        let Some(i) = self.item_for(item_kind, index, asm) else {
            return;
        };
        let item = &mut self.items[i];
        item.streamed = true;
        match item_kind {
            Kind::Message => asm.text(item.slot, delta, emit),
            Kind::Reasoning => asm.thinking(item.slot, delta, emit),
            _ => asm.args(item.slot, &delta, emit),
        }
    }

    fn added(
        &mut self,
        index: Option<usize>,
        item: &Item,
        asm: &mut Assembler,
        emit: &mut Emit<'_>,
    ) {
        let index = index.unwrap_or(self.items.len());
        let (kind, slot) = match item.kind.as_str() {
            "message" => (Kind::Message, asm.open_text()),
            "reasoning" => (Kind::Reasoning, asm.open_thinking(None)),
            "function_call" => {
                let id = item
                    .call_id
                    .clone()
                    .or_else(|| item.id.clone())
                    .unwrap_or_else(|| format!("call_{index}"));
                let slot = asm.open_tool(id, item.name.clone().unwrap_or_default(), emit);
                (Kind::FunctionCall, slot)
            }
            _ => (Kind::Other, usize::MAX),
        };
        let mut entry = OutputItem {
            index,
            kind,
            slot,
            streamed: false,
            summary_part: 0,
        };
        if kind == Kind::FunctionCall {
            if let Some(args) = item.arguments.as_deref().filter(|a| !a.is_empty()) {
                asm.args(slot, args, emit);
                entry.streamed = true;
            }
        }
        self.items.push(entry);
    }

    /// `response.output_item.done`: the whole item; fills in what was not
    /// streamed and keeps a reasoning item's id and encrypted content.
    fn item_done(
        &mut self,
        index: Option<usize>,
        item: &Item,
        asm: &mut Assembler,
        emit: &mut Emit<'_>,
    ) {
        let i = match self.find(index) {
            Some(i) => i,
            None => {
                self.added(index, item, asm, emit);
                self.items.len() - 1
            }
        };
        let entry = &mut self.items[i];
        match entry.kind {
            Kind::Message if !entry.streamed => {
                for part in item.content.iter().flatten() {
                    if let Some(text) = part.text.as_deref().or(part.refusal.as_deref()) {
                        asm.text(entry.slot, Cow::Borrowed(text), emit);
                    }
                }
            }
            Kind::Reasoning => {
                if !entry.streamed {
                    let texts: Vec<&str> = item
                        .summary
                        .iter()
                        .flatten()
                        .filter_map(|p| p.text.as_deref())
                        .collect();
                    let text = texts.join("\n\n");
                    asm.thinking(entry.slot, Cow::Owned(text), emit);
                }
                if let Some(id) = item.id.as_deref() {
                    let encrypted = item.encrypted_content.as_deref().unwrap_or("");
                    asm.signature(entry.slot, &super::signature(id, encrypted));
                }
            }
            Kind::FunctionCall => {
                if !entry.streamed {
                    if let Some(args) = item.arguments.as_deref() {
                        asm.args(entry.slot, args, emit);
                    }
                }
                entry.streamed = true;
                asm.end_tool(entry.slot, emit);
            }
            _ => {}
        }
    }

    fn finish(
        &mut self,
        provider: &str,
        response: Option<&ResponseObject>,
        asm: &mut Assembler,
        emit: &mut Emit<'_>,
    ) -> Result<Flow, ProviderError> {
        if let Some(usage) = response.and_then(|r| r.usage.as_ref()) {
            let input = usage.input_tokens_details.as_ref();
            let output = usage.output_tokens_details.as_ref();
            asm.usage.set_openai(
                usage.input_tokens,
                input.and_then(|d| d.cached_tokens),
                usage.output_tokens,
                output.and_then(|d| d.reasoning_tokens),
            );
        }
        let status = response
            .and_then(|r| r.status.as_deref())
            .unwrap_or("completed");
        if status == "failed" {
            let error = response.and_then(|r| r.error.as_ref());
            return Err(api_error(
                provider,
                error.and_then(|e| e.get("code")),
                error.and_then(|e| e.get("message")).and_then(Value::as_str),
            ));
        }
        let reason = response
            .and_then(|r| r.incomplete_details.as_ref())
            .and_then(|d| d.get("reason"))
            .and_then(Value::as_str);
        asm.end_all_tools(emit);
        asm.stop = Some(match (status, reason) {
            ("incomplete", Some("max_output_tokens")) => StopReason::Length,
            _ if asm.has_tool_calls() => StopReason::ToolUse,
            _ => StopReason::EndTurn,
        });
        self.finished = true;
        Ok(Flow::Done)
    }
}

impl WireDecoder for Decoder {
    /// Handle one SSE event.
    fn event(&mut self, sse: &SseEventRef<'_>, out: Sink<'_, '_>) -> Result<Flow, ProviderError> {
        let Sink(provider, asm, emit) = out;
        let data = sse.data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(Flow::Continue);
        }
        if let Some(d) = fast::delta(data) {
            self.delta(d.kind, d.output_index, d.delta, asm, emit);
            return Ok(Flow::Continue);
        }
        let event: Event<'_> = parse_json(provider, data, format_args!("event {:?}", sse.event))?;
        let kind = event.kind.as_deref().unwrap_or(sse.event);
        if let Some(delta_kind) = DeltaKind::of(kind) {
            if let Some(delta) = event.delta {
                self.delta(delta_kind, event.output_index, delta.0, asm, emit);
            }
            return Ok(Flow::Continue);
        }
        match kind {
            "response.output_item.added" => {
                if let Some(item) = &event.item {
                    self.added(event.output_index, item, asm, emit);
                }
            }
            "response.output_item.done" => {
                if let Some(item) = &event.item {
                    self.item_done(event.output_index, item, asm, emit);
                }
            }
            "response.reasoning_summary_part.added" => {
                let part = event.summary_index.unwrap_or(0);
                if let Some(i) = self.item_for(Kind::Reasoning, event.output_index, asm) {
                    let item = &mut self.items[i];
                    if part > item.summary_part && item.streamed {
                        asm.thinking(item.slot, Cow::Borrowed("\n\n"), emit);
                    }
                    item.summary_part = part;
                }
            }
            "response.function_call_arguments.done" => {
                if let Some(i) = self.find(event.output_index) {
                    let item = &mut self.items[i];
                    if item.kind == Kind::FunctionCall && !item.streamed {
                        if let Some(args) = event.arguments.as_deref() {
                            asm.args(item.slot, args, emit);
                        }
                        item.streamed = true;
                    }
                }
            }
            "response.completed" | "response.incomplete" | "response.failed" | "response.done" => {
                return self.finish(provider, event.response.as_deref(), asm, emit);
            }
            "error" => {
                let nested = event.error.as_deref();
                let code = event
                    .code
                    .as_ref()
                    .filter(|c| !c.is_null())
                    .or_else(|| nested.and_then(|e| e.get("code")).filter(|c| !c.is_null()))
                    .or_else(|| nested.and_then(|e| e.get("type")));
                let message = event.message.as_deref().or_else(|| {
                    nested
                        .and_then(|e| e.get("message"))
                        .and_then(Value::as_str)
                });
                return Err(api_error(provider, code, message));
            }
            "response.created"
            | "response.in_progress"
            | "response.queued"
            | "response.content_part.added"
            | "response.content_part.done"
            | "response.output_text.done"
            | "response.output_text.annotation.added"
            | "response.refusal.done"
            | "response.reasoning_summary_text.done"
            | "response.reasoning_summary_part.done"
            | "response.reasoning_text.done" => {}
            other => {
                if !self.unknown.iter().any(|u| u == other) {
                    tracing::debug!(
                        provider,
                        event = other,
                        "ignoring an unknown Responses event"
                    );
                    self.unknown.push(other.to_string());
                }
            }
        }
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_and_serde_paths_agree() {
        let samples = [
            r#"{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"a\"b\u00e9","logprobs":[]}"#,
            r#"{"type":"response.function_call_arguments.delta","item_id":"fc","output_index":3,"delta":"{\"x\":"}"#,
            r#"{"type":"response.reasoning_summary_text.delta","item_id":"rs","output_index":1,"summary_index":0,"delta":"think"}"#,
        ];
        for data in samples {
            let fast = fast::delta(data).unwrap();
            let event: Event<'_> = serde_json::from_str(data).unwrap();
            assert_eq!(
                DeltaKind::of(event.kind.as_deref().unwrap()),
                Some(fast.kind)
            );
            assert_eq!(event.output_index, fast.output_index);
            assert_eq!(event.delta.unwrap().0, fast.delta);
        }
    }
}
