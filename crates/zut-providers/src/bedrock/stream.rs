//! Decoding Converse-Stream events (one JSON payload per event-stream
//! frame, named by its `:event-type`).
//!
//! `messageStart`; `contentBlockStart` (a `toolUse` with id and name);
//! `contentBlockDelta` with `text`, `toolUse.input` (a JSON fragment),
//! `reasoningContent.text` / `.signature` / `.redactedContent`;
//! `contentBlockStop`; `messageStop` (`stopReason`); `metadata` (usage,
//! then the stream ends). Exceptions (`throttlingException`,
//! `modelStreamErrorException`, ...) become errors; unknown events are
//! ignored (logged once).

use std::borrow::Cow;

use serde::Deserialize;

use crate::anthropic::stream::{map_stop, BlockKind};
use crate::assemble::{Assembler, REDACTED_THINKING_PREFIX};
use crate::decode::{parse_json, Flow, Sink, WireDecoder};
use crate::error::ProviderError;
use crate::sse::SseEventRef;
use crate::text::Text;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Event<'a> {
    content_block_index: Option<usize>,
    #[serde(borrow)]
    delta: Option<Delta<'a>>,
    start: Option<Box<Start>>,
    #[serde(borrow)]
    stop_reason: Option<Text<'a>>,
    usage: Option<Box<WireUsage>>,
    message: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Delta<'a> {
    #[serde(borrow)]
    text: Option<Text<'a>>,
    #[serde(borrow)]
    tool_use: Option<ToolUseDelta<'a>>,
    #[serde(borrow)]
    reasoning_content: Option<ReasoningDelta<'a>>,
}

#[derive(Deserialize)]
struct ToolUseDelta<'a> {
    #[serde(borrow)]
    input: Option<Text<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReasoningDelta<'a> {
    #[serde(borrow)]
    text: Option<Text<'a>>,
    #[serde(borrow)]
    signature: Option<Text<'a>>,
    #[serde(borrow)]
    redacted_content: Option<Text<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Start {
    tool_use: Option<ToolUseStart>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolUseStart {
    tool_use_id: String,
    name: String,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct WireUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    cache_read_input_tokens: u64,
    #[serde(default)]
    cache_write_input_tokens: u64,
}

/// Bedrock stream state for one attempt.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    /// Bedrock block index → (assembler slot, kind).
    blocks: Vec<Option<(usize, BlockKind)>>,
    stopped: bool,
    warned_unknown: bool,
}

/// Exceptions worth a retry (before any output).
fn exception_retryable(kind: &str) -> bool {
    matches!(
        kind,
        "throttlingException"
            | "serviceUnavailableException"
            | "internalServerException"
            | "modelStreamErrorException"
            | "modelNotReadyException"
    )
}

impl Decoder {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Whether a stream that ended here is complete (`messageStop` came;
    /// `metadata` may be missing).
    pub(crate) fn complete_at_eof(&self) -> bool {
        self.stopped
    }

    fn slot(
        &mut self,
        index: usize,
        kind: BlockKind,
        asm: &mut Assembler,
    ) -> Option<(usize, BlockKind)> {
        if index > 4096 {
            return None;
        }
        if self.blocks.len() <= index {
            self.blocks.resize(index + 1, None);
        }
        if let Some(existing) = self.blocks[index] {
            return Some(existing);
        }
        let slot = match kind {
            BlockKind::Text => asm.open_text(),
            BlockKind::Thinking => asm.open_thinking(None),
            // A tool block opens at `contentBlockStart`.
            BlockKind::Tool => return None,
        };
        self.blocks[index] = Some((slot, kind));
        Some((slot, kind))
    }
}

impl WireDecoder for Decoder {
    /// Handle one SSE event.
    fn event(&mut self, sse: &SseEventRef<'_>, out: Sink<'_, '_>) -> Result<Flow, ProviderError> {
        let Sink(provider, asm, emit) = out;
        let kind = sse.event;
        let known = matches!(
            kind,
            "messageStart"
                | "contentBlockStart"
                | "contentBlockDelta"
                | "contentBlockStop"
                | "messageStop"
                | "metadata"
        );
        let is_error = kind == "error" || kind.ends_with("Exception") || kind == "exception";
        if !known && !is_error {
            if !self.warned_unknown {
                self.warned_unknown = true;
                tracing::debug!(
                    event = kind,
                    "bedrock: ignoring an unknown event (logged once)"
                );
            }
            return Ok(Flow::Continue);
        }
        let event: Event<'_> = parse_json(provider, sse.data, format_args!("a {kind} event"))?;
        if is_error {
            let message = event.message.unwrap_or_else(|| sse.data.to_string());
            return Err(ProviderError::Api {
                provider: provider.to_string(),
                kind: kind.to_string(),
                retryable: exception_retryable(kind),
                message,
            });
        }
        match kind {
            "contentBlockStart" => {
                if let (Some(index), Some(tool)) = (
                    event.content_block_index,
                    event.start.and_then(|s| s.tool_use),
                ) {
                    if index <= 4096 {
                        if self.blocks.len() <= index {
                            self.blocks.resize(index + 1, None);
                        }
                        let slot = asm.open_tool(tool.tool_use_id, tool.name, emit);
                        self.blocks[index] = Some((slot, BlockKind::Tool));
                    }
                }
            }
            "contentBlockDelta" => {
                let (Some(index), Some(delta)) = (event.content_block_index, event.delta) else {
                    return Ok(Flow::Continue);
                };
                if let Some(text) = delta.text {
                    if let Some((slot, BlockKind::Text)) = self.slot(index, BlockKind::Text, asm) {
                        asm.text(slot, text.0, emit);
                    }
                } else if let Some(tool) = delta.tool_use {
                    if let (Some((slot, BlockKind::Tool)), Some(input)) =
                        (self.blocks.get(index).copied().flatten(), tool.input)
                    {
                        asm.args(slot, &input, emit);
                    }
                } else if let Some(reasoning) = delta.reasoning_content {
                    if let Some((slot, BlockKind::Thinking)) =
                        self.slot(index, BlockKind::Thinking, asm)
                    {
                        if let Some(text) = reasoning.text {
                            asm.thinking(slot, text.0, emit);
                        }
                        if let Some(sig) = reasoning.signature {
                            asm.signature(slot, &sig);
                        }
                        if let Some(data) = reasoning.redacted_content {
                            let mut sig = String::from(REDACTED_THINKING_PREFIX);
                            sig.push_str(&data);
                            asm.signature(slot, &sig);
                        }
                    }
                }
            }
            "contentBlockStop" => {
                if let Some((slot, BlockKind::Tool)) = event
                    .content_block_index
                    .and_then(|i| self.blocks.get(i).copied().flatten())
                {
                    asm.end_tool(slot, emit);
                }
            }
            "messageStop" => {
                self.stopped = true;
                let reason: Cow<'_, str> = event.stop_reason.map(|t| t.0).unwrap_or_default();
                asm.stop = Some(map_stop(&reason));
                if reason == "guardrail_intervened" || reason == "content_filtered" {
                    tracing::debug!(%reason, "bedrock: reply stopped by a filter");
                }
            }
            "metadata" => {
                if let Some(usage) = event.usage {
                    asm.usage.input = usage.input_tokens;
                    asm.usage.output = usage.output_tokens;
                    asm.usage.cache_read = usage.cache_read_input_tokens;
                    asm.usage.cache_write = usage.cache_write_input_tokens;
                }
                if self.stopped {
                    return Ok(Flow::Done);
                }
            }
            _ => {}
        }
        Ok(Flow::Continue)
    }
}
