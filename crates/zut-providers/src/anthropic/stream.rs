//! Decoding Anthropic Messages streaming events.

use std::borrow::Cow;

use serde::Deserialize;

use crate::assemble::{Assembler, Emit, REDACTED_THINKING_PREFIX};
use crate::decode::{parse_json, Flow, Sink, WireDecoder};
use crate::error::{error_type_retryable, ProviderError};
use crate::scan::Cursor;
use crate::sse::SseEventRef;
use crate::text::Text;
use crate::types::StopReason;

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    index: Option<usize>,
    #[serde(borrow)]
    delta: Option<Delta<'a>>,
    // Rare fields are boxed: this struct is built (and moved) once per event,
    // and its size shows in the parsing throughput.
    #[serde(borrow)]
    content_block: Option<Box<BlockStart<'a>>>,
    message: Option<Box<MessageStart>>,
    usage: Option<Box<WireUsage>>,
    error: Option<Box<WireError>>,
}

#[derive(Deserialize, Default)]
struct Delta<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Text<'a>>,
    #[serde(borrow)]
    text: Option<Text<'a>>,
    #[serde(borrow)]
    partial_json: Option<Text<'a>>,
    #[serde(borrow)]
    thinking: Option<Text<'a>>,
    #[serde(borrow)]
    signature: Option<Text<'a>>,
    #[serde(borrow)]
    stop_reason: Option<Text<'a>>,
}

#[derive(Deserialize)]
struct BlockStart<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    id: Option<String>,
    name: Option<String>,
    text: Option<String>,
    thinking: Option<String>,
    signature: Option<String>,
    data: Option<String>,
    input: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct MessageStart {
    usage: Option<WireUsage>,
}

#[derive(Deserialize, Default)]
struct WireUsage {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct WireError {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    message: String,
}

/// What an open content block holds (Anthropic and Bedrock Converse
/// number their blocks the same way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockKind {
    Text,
    Thinking,
    Tool,
}

/// Anthropic stream state for one attempt.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    /// Anthropic block index → (assembler slot, kind); `None` for ignored blocks.
    blocks: Vec<Option<(usize, BlockKind)>>,
    saw_stop_reason: bool,
}

/// Map an Anthropic `stop_reason` (Bedrock's `stopReason` uses the same
/// values).
pub(crate) fn map_stop(reason: &str) -> StopReason {
    match reason {
        "tool_use" => StopReason::ToolUse,
        "max_tokens" | "model_context_window_exceeded" => StopReason::Length,
        // end_turn, stop_sequence, refusal, pause_turn and unknown values.
        _ => StopReason::EndTurn,
    }
}

fn apply_usage(asm: &mut Assembler, usage: &WireUsage) {
    if let Some(v) = usage.input_tokens {
        asm.usage.input = v;
    }
    if let Some(v) = usage.output_tokens {
        asm.usage.output = v;
    }
    if let Some(v) = usage.cache_creation_input_tokens {
        asm.usage.cache_write = v;
    }
    if let Some(v) = usage.cache_read_input_tokens {
        asm.usage.cache_read = v;
    }
}

impl Decoder {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Whether a stream that ended here (without `message_stop`) is complete.
    pub(crate) fn complete_at_eof(&self) -> bool {
        self.saw_stop_reason
    }

    fn block(&self, index: Option<usize>) -> Option<(usize, BlockKind)> {
        index.and_then(|i| self.blocks.get(i).copied().flatten())
    }
}

impl WireDecoder for Decoder {
    /// Handle one SSE event.
    fn event(&mut self, sse: &SseEventRef<'_>, out: Sink<'_, '_>) -> Result<Flow, ProviderError> {
        let Sink(provider, asm, emit) = out;
        if let Some((index, field, value)) = exact_block_delta(sse.data) {
            self.delta_value(index, field, value, asm, emit);
            return Ok(Flow::Continue);
        }
        if let Some((index, delta)) = fast_block_delta(sse.data) {
            self.block_delta(index, delta, asm, emit);
            return Ok(Flow::Continue);
        }
        let name = if sse.event.is_empty() {
            "an"
        } else {
            sse.event
        };
        let event: Event<'_> = parse_json(provider, sse.data, format_args!("{name} event"))?;
        match event.kind.as_ref() {
            "message_start" => {
                if let Some(usage) = event.message.as_ref().and_then(|m| m.usage.as_ref()) {
                    apply_usage(asm, usage);
                }
            }
            "content_block_start" => {
                let Some(index) = event.index else {
                    return Ok(Flow::Continue);
                };
                let entry = match event.content_block.map(|b| *b) {
                    Some(block) => match block.kind.as_ref() {
                        "text" => {
                            let slot = asm.open_text();
                            if let Some(text) = block.text {
                                asm.text(slot, Cow::Owned(text), emit);
                            }
                            Some((slot, BlockKind::Text))
                        }
                        "thinking" => {
                            let slot = asm.open_thinking(block.signature.clone());
                            if let Some(text) = block.thinking {
                                asm.thinking(slot, Cow::Owned(text), emit);
                            }
                            Some((slot, BlockKind::Thinking))
                        }
                        "redacted_thinking" => {
                            let data = block.data.unwrap_or_default();
                            let slot = asm
                                .open_thinking(Some(format!("{REDACTED_THINKING_PREFIX}{data}")));
                            Some((slot, BlockKind::Thinking))
                        }
                        "tool_use" => {
                            let id = block.id.unwrap_or_default();
                            let name = block.name.unwrap_or_default();
                            let slot = asm.open_tool(id, name, emit);
                            // A non-empty start input (not the usual `{}`) is the whole input.
                            if let Some(input) = block.input.filter(|v| {
                                !v.as_object().is_some_and(|o| o.is_empty()) && !v.is_null()
                            }) {
                                asm.args(slot, &input.to_string(), emit);
                            }
                            Some((slot, BlockKind::Tool))
                        }
                        _ => None, // server tools, web search results...: not ours
                    },
                    None => None,
                };
                if self.blocks.len() <= index {
                    self.blocks.resize(index + 1, None);
                }
                self.blocks[index] = entry;
            }
            "content_block_delta" => {
                if let Some(delta) = event.delta {
                    self.block_delta(event.index, delta, asm, emit);
                }
            }
            "content_block_stop" => {
                if let Some((slot, BlockKind::Tool)) = self.block(event.index) {
                    asm.end_tool(slot, emit);
                }
            }
            "message_delta" => {
                if let Some(reason) = event.delta.as_ref().and_then(|d| d.stop_reason.as_deref()) {
                    self.saw_stop_reason = true;
                    asm.stop = Some(map_stop(reason));
                }
                if let Some(usage) = &event.usage {
                    apply_usage(asm, usage);
                }
            }
            "message_stop" => return Ok(Flow::Done),
            "error" => {
                let error = event.error.map(|e| *e).unwrap_or(WireError {
                    kind: "error".into(),
                    message: "unknown stream error".into(),
                });
                let retryable = error_type_retryable(&error.kind, &error.message);
                return Err(ProviderError::api(
                    provider,
                    error.kind,
                    error.message,
                    retryable,
                ));
            }
            _ => {} // ping and future event types
        }
        Ok(Flow::Continue)
    }
}

impl Decoder {
    /// A `content_block_delta` event's delta.
    fn block_delta(
        &mut self,
        index: Option<usize>,
        delta: Delta<'_>,
        asm: &mut Assembler,
        emit: &mut Emit<'_>,
    ) {
        let (field, value) = match delta.kind.as_deref() {
            Some("text_delta") => (DeltaField::Text, delta.text),
            Some("thinking_delta") => (DeltaField::Thinking, delta.thinking),
            Some("signature_delta") => (DeltaField::Signature, delta.signature),
            Some("input_json_delta") => (DeltaField::PartialJson, delta.partial_json),
            _ => return, // citations_delta and friends
        };
        if let Some(index) = index {
            self.delta_value(index, field, value.unwrap_or_default().0, asm, emit);
        }
    }

    /// The value of a delta for block `index`, when the block is of the
    /// kind the delta belongs to.
    #[inline]
    fn delta_value(
        &mut self,
        index: usize,
        field: DeltaField,
        value: Cow<'_, str>,
        asm: &mut Assembler,
        emit: &mut Emit<'_>,
    ) {
        let Some((slot, kind)) = self.block(Some(index)) else {
            return;
        };
        match (field, kind) {
            (DeltaField::Text, BlockKind::Text) => asm.text(slot, value, emit),
            (DeltaField::Thinking, BlockKind::Thinking) => asm.thinking(slot, value, emit),
            (DeltaField::Signature, BlockKind::Thinking) => asm.signature(slot, &value),
            (DeltaField::PartialJson, BlockKind::Tool) => asm.args(slot, &value, emit),
            _ => {}
        }
    }
}

/// The field of a `content_block_delta`'s `delta` that carries its value,
/// named by the delta's `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DeltaField {
    /// `text_delta`: `text`.
    Text,
    /// `thinking_delta`: `thinking`.
    Thinking,
    /// `signature_delta`: `signature`.
    Signature,
    /// `input_json_delta`: `partial_json`.
    PartialJson,
}

/// The exact bytes Anthropic's API sends for a delta, up to the value:
/// `{"type":"content_block_delta","index":N,"delta":{"type":"<kind>","<field>":`.
const EXACT_PREFIX: &str = r#"{"type":"content_block_delta","index":"#;
const EXACT_KINDS: [(&str, DeltaField); 4] = [
    (r#","delta":{"type":"text_delta","text":"#, DeltaField::Text),
    (
        r#","delta":{"type":"input_json_delta","partial_json":"#,
        DeltaField::PartialJson,
    ),
    (
        r#","delta":{"type":"thinking_delta","thinking":"#,
        DeltaField::Thinking,
    ),
    (
        r#","delta":{"type":"signature_delta","signature":"#,
        DeltaField::Signature,
    ),
];

/// The fastest path: a `content_block_delta` exactly as Anthropic's API
/// writes it (keys in its order, no whitespace before the value), matched
/// by its literal bytes; only the index and the value string are scanned.
/// `None` for anything else, which then takes [`fast_block_delta`] or
/// `serde_json`. What it accepts decodes to the same index and value as
/// through `serde_json`.
fn exact_block_delta(data: &str) -> Option<(usize, DeltaField, Cow<'_, str>)> {
    let mut c = Cursor::new(data.strip_prefix(EXACT_PREFIX)?);
    let index = c.usize()?;
    let field = EXACT_KINDS
        .iter()
        .find_map(|(lit, field)| c.literal(lit).then_some(*field))?;
    let value = c.string()?;
    if c.eat(b'}') && c.eat(b'}') && c.at_end() {
        Some((index, field, value))
    } else {
        None
    }
}

/// The fast path for the one event that streams the reply,
/// `{"type":"content_block_delta","index":N,"delta":{"type":..,"text":..}}`
/// (keys in any order, as do the other string fields of [`Delta`]): its
/// index and delta, exactly as `serde_json` would decode them into
/// [`Event`]. `None` for anything else (another event type, another key, a
/// repeated key, a `null`, invalid JSON...), which then goes through
/// `serde_json` as usual.
fn fast_block_delta(data: &str) -> Option<(Option<usize>, Delta<'_>)> {
    let mut c = Cursor::new(data);
    let (mut kind, mut index, mut delta) = (None, None, None);
    if !c.eat(b'{') {
        return None;
    }
    loop {
        match c.key()? {
            "type" if kind.is_none() => kind = Some(c.string()?),
            "index" if index.is_none() => index = Some(c.usize()?),
            "delta" if delta.is_none() => delta = Some(fast_delta_object(&mut c)?),
            _ => return None,
        }
        if c.eat(b'}') {
            break;
        }
        if !c.eat(b',') {
            return None;
        }
    }
    if !c.at_end() || kind.as_deref() != Some("content_block_delta") {
        return None;
    }
    Some((index, delta?))
}

/// The `delta` object of [`fast_block_delta`]: string fields only.
fn fast_delta_object<'a>(c: &mut Cursor<'a>) -> Option<Delta<'a>> {
    let mut d = Delta::default();
    if !c.eat(b'{') {
        return None;
    }
    if c.eat(b'}') {
        return Some(d);
    }
    loop {
        let field = match c.key()? {
            "type" => &mut d.kind,
            "text" => &mut d.text,
            "partial_json" => &mut d.partial_json,
            "thinking" => &mut d.thinking,
            "signature" => &mut d.signature,
            "stop_reason" => &mut d.stop_reason,
            _ => return None,
        };
        if field.is_some() {
            return None;
        }
        *field = Some(Text(c.string()?));
        if c.eat(b'}') {
            return Some(d);
        }
        if !c.eat(b',') {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Fields = (Option<usize>, [Option<String>; 6]);

    fn fields(index: Option<usize>, d: &Delta<'_>) -> Fields {
        let f = |t: &Option<Text<'_>>| t.as_ref().map(|t| t.to_string());
        (
            index,
            [
                f(&d.kind),
                f(&d.text),
                f(&d.partial_json),
                f(&d.thinking),
                f(&d.signature),
                f(&d.stop_reason),
            ],
        )
    }

    /// What the serde path makes of a `content_block_delta` event.
    fn via_serde(data: &str) -> Option<Fields> {
        let event: Event<'_> = serde_json::from_str(data).ok()?;
        if event.kind != "content_block_delta" {
            return None;
        }
        Some(fields(event.index, event.delta.as_ref()?))
    }

    #[test]
    fn fast_delta_path_agrees_with_serde() {
        let accepted = [
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}"#,
            r#"{"delta":{"text":"h\u00e9\"llo\\\n\t","type":"text_delta"},"index":12,"type":"content_block_delta"}"#,
            " {\"type\" : \"content_block_delta\" ,\n\"index\":3,\t\"delta\":{ \"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":\"}}\r\n",
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"hm"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"sig"}}"#,
            r#"{"type":"content_block_delta","delta":{}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"→ ✓ \ud83d\ude00"}}"#,
        ];
        for data in accepted {
            let fast = fast_block_delta(data).map(|(i, d)| fields(i, &d));
            assert!(fast.is_some(), "fast path should take {data}");
            assert_eq!(fast, via_serde(data), "{data}");
        }
        let invalid = [
            r#"{"type":"content_block_delta","index":-1,"delta":{"text":"a"}}"#,
            r#"{"type":"content_block_delta","index":0.0,"delta":{"text":"a"}}"#,
            r#"{"type":"content_block_delta","index":01,"delta":{"text":"a"}}"#,
            r#"{"type":"content_block_delta","index":0,"index":1,"delta":{"text":"a"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"text":"a","text":"b"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"text":"a"},}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"text":"a"}} x"#,
            "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"text\":\"a\u{1}\"}}",
            r#"{"type":"content_block_delta","index":0,"delta":{"text":"bad \x escape"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"text":"lone \ud800 surrogate"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"text":"a"}"#,
            "",
            "{}",
        ];
        for data in invalid {
            assert!(
                fast_block_delta(data).is_none(),
                "fast path should decline {data}"
            );
            assert!(serde_json::from_str::<Event<'_>>(data).is_err(), "{data}");
        }
        let other = [
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":0}"#,
            r#"{"type":"content_block_delta","index":null,"delta":{"type":"text_delta","text":"x"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":null}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{}}}"#,
            r#"{"t\u0079pe":"content_block_delta","index":0,"delta":{"text":"a"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"text":"a"},"usage":{}}"#,
        ];
        for data in other {
            assert!(
                fast_block_delta(data).is_none(),
                "fast path should decline {data}"
            );
            assert!(serde_json::from_str::<Event<'_>>(data).is_ok(), "{data}");
        }
    }

    #[test]
    fn exact_delta_path_agrees_with_serde() {
        let accepted = [
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}"#,
            r#"{"type":"content_block_delta","index":12,"delta":{"type":"text_delta","text":"h\u00e9\"llo\\\n\t"}}"#,
            r#"{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"hm"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"sig"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"→ ✓ \ud83d\ude00"}} "#,
            "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\": \"a\" } }\r\n",
        ];
        for data in accepted {
            let (index, field, value) = exact_block_delta(data).unwrap_or_else(|| panic!("{data}"));
            let (serde_index, serde_fields) = via_serde(data).unwrap();
            assert_eq!(Some(index), serde_index, "{data}");
            let slot = match field {
                DeltaField::Text => 1,
                DeltaField::PartialJson => 2,
                DeltaField::Thinking => 3,
                DeltaField::Signature => 4,
            };
            assert_eq!(
                Some(value.as_ref()),
                serde_fields[slot].as_deref(),
                "{data}"
            );
            let kind = serde_fields[0].as_deref().unwrap();
            assert!(kind.starts_with(["text", "input_json", "thinking", "signature"][slot - 1]));
            let others = serde_fields
                .iter()
                .enumerate()
                .filter(|(i, f)| *i != 0 && *i != slot && f.is_some());
            assert_eq!(others.count(), 0, "{data}");
        }
        let declined = [
            // Another key order or extra keys: the general fast path's job.
            r#"{"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"a"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"text":"a","type":"text_delta"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","x":1}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"usage":{}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","thinking":"a"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{}}}"#,
            // Not JSON, or not what serde accepts.
            r#"{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"a"}}"#,
            r#"{"type":"content_block_delta","index":-1,"delta":{"type":"text_delta","text":"a"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}} x"#,
            "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\u{1}\"}}",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lone \ud800"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":null}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"#,
            r#"{"type":"content_block_delta","index":"#,
            "",
        ];
        for data in declined {
            assert!(exact_block_delta(data).is_none(), "{data}");
        }
    }

    #[test]
    fn stop_reasons() {
        assert_eq!(map_stop("end_turn"), StopReason::EndTurn);
        assert_eq!(map_stop("tool_use"), StopReason::ToolUse);
        assert_eq!(map_stop("max_tokens"), StopReason::Length);
        assert_eq!(map_stop("stop_sequence"), StopReason::EndTurn);
        assert_eq!(map_stop("refusal"), StopReason::EndTurn);
        assert_eq!(map_stop("pause_turn"), StopReason::EndTurn);
        assert_eq!(map_stop("something_new"), StopReason::EndTurn);
    }
}
