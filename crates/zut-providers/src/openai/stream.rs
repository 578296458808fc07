//! Decoding streamed chat completion chunks.

use std::borrow::Cow;

use serde::Deserialize;

use crate::assemble::{Assembler, Emit};
use crate::decode::{parse_json, Flow, Sink, WireDecoder};
use crate::error::{error_type_retryable, status_retryable, ProviderError};
use crate::sse::SseEventRef;
use crate::text::Text;
use crate::types::StopReason;

#[derive(Deserialize)]
struct Chunk<'a> {
    /// Only the first choice matters (zut never asks for n > 1).
    #[serde(default, borrow)]
    choices: FirstChoice<'a>,
    // Rare fields are boxed: this struct is built (and moved) once per
    // chunk, and its size shows in the parsing throughput.
    usage: Option<Box<WireUsage>>,
    error: Option<Box<serde_json::Value>>,
    /// `"error"` in vLLM-style bare error objects (`{"object":"error","message":..}`).
    #[serde(borrow)]
    object: Option<Text<'a>>,
}

/// The first element of `choices` (the others are skipped unparsed);
/// `null` and `[]` give `None`.
#[derive(Default)]
struct FirstChoice<'a>(Option<Choice<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for FirstChoice<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct First;

        impl<'de> serde::de::Visitor<'de> for First {
            type Value = FirstChoice<'de>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of choices")
            }

            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(FirstChoice(None))
            }

            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(FirstChoice(None))
            }

            fn visit_some<D: serde::Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<Self::Value, D::Error> {
                deserializer.deserialize_seq(First)
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let first = seq.next_element::<Choice<'de>>()?;
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(FirstChoice(first))
            }
        }

        deserializer.deserialize_option(First)
    }
}

#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(borrow)]
    delta: Option<Delta<'a>>,
    #[serde(borrow)]
    finish_reason: Option<Text<'a>>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(borrow)]
    content: Option<Text<'a>>,
    /// DeepSeek, vLLM, llama.cpp.
    #[serde(borrow)]
    reasoning_content: Option<Text<'a>>,
    /// OpenRouter, Ollama, newer vLLM (may duplicate `reasoning_content`).
    /// Kept as a raw value: a few servers put an object here.
    reasoning: Option<Box<serde_json::Value>>,
    #[serde(borrow)]
    refusal: Option<Text<'a>>,
    #[serde(borrow)]
    tool_calls: Option<Vec<ToolDelta<'a>>>,
}

#[derive(Deserialize)]
struct ToolDelta<'a> {
    index: Option<usize>,
    id: Option<String>,
    #[serde(borrow)]
    function: Option<FunctionDelta<'a>>,
}

#[derive(Deserialize)]
struct FunctionDelta<'a> {
    name: Option<String>,
    #[serde(borrow)]
    arguments: Option<Text<'a>>,
}

#[derive(Deserialize)]
struct WireUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    prompt_tokens_details: Option<PromptDetails>,
    completion_tokens_details: Option<CompletionDetails>,
    /// DeepSeek's cache hits.
    prompt_cache_hit_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct PromptDetails {
    cached_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct CompletionDetails {
    reasoning_tokens: Option<u64>,
}

/// One streamed tool call, keyed by its `index`.
#[derive(Debug)]
struct Call {
    index: usize,
    id: String,
    name: String,
    slot: Option<usize>,
    pending_args: String,
}

/// Chat completions stream state for one attempt.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    calls: Vec<Call>,
    finish: Option<String>,
}

/// Map a `finish_reason`.
pub(crate) fn map_finish(reason: &str) -> StopReason {
    match reason {
        "tool_calls" | "function_call" => StopReason::ToolUse,
        "length" => StopReason::Length,
        // stop, content_filter and unknown values.
        _ => StopReason::EndTurn,
    }
}

/// An error reported inside the stream: `{"message", "type", "code"}` where
/// `code` may be a string or an HTTP-like number (OpenRouter).
fn stream_error(provider: &str, error: &serde_json::Value) -> ProviderError {
    let message = error
        .get("message")
        .and_then(|m| m.as_str())
        .or_else(|| error.as_str())
        .map(str::to_string)
        .unwrap_or_else(|| error.to_string());
    let code = error.get("code");
    let numeric = code
        .and_then(serde_json::Value::as_u64)
        .and_then(|c| u16::try_from(c).ok());
    let kind = error
        .get("type")
        .and_then(|k| k.as_str())
        .or_else(|| code.and_then(|c| c.as_str()))
        .map(str::to_string)
        .or_else(|| numeric.map(|c| format!("error {c}")))
        .unwrap_or_else(|| "error".to_string());
    let retryable = error_type_retryable(&kind, &message) || numeric.is_some_and(status_retryable);
    ProviderError::api(provider, kind, message, retryable)
}

impl Decoder {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Whether a stream that ended here (without `[DONE]`) is complete.
    pub(crate) fn complete_at_eof(&self) -> bool {
        self.finish.is_some()
    }

    /// Close open tool calls and settle the stop reason (end of stream).
    pub(crate) fn close(&mut self, asm: &mut Assembler, emit: &mut Emit<'_>) {
        for i in 0..self.calls.len() {
            self.open_call(i, asm, emit);
        }
        asm.end_all_tools(emit);
        let stop = self.finish.as_deref().map(map_finish);
        asm.stop = match stop {
            // Some servers say "stop" even when they called tools.
            Some(StopReason::EndTurn) | None if asm.has_tool_calls() => Some(StopReason::ToolUse),
            other => other,
        };
    }

    fn open_call(&mut self, i: usize, asm: &mut Assembler, emit: &mut Emit<'_>) {
        let call = &mut self.calls[i];
        if call.slot.is_none() {
            let id = if call.id.is_empty() {
                format!("call_{}", call.index)
            } else {
                call.id.clone()
            };
            let slot = asm.open_tool(id, call.name.clone(), emit);
            call.slot = Some(slot);
            let pending = std::mem::take(&mut call.pending_args);
            asm.args(slot, &pending, emit);
        }
    }

    fn tool_delta(
        &mut self,
        position: usize,
        delta: ToolDelta<'_>,
        asm: &mut Assembler,
        emit: &mut Emit<'_>,
    ) {
        let existing = match (delta.index, delta.id.as_deref()) {
            (Some(index), _) => self.calls.iter().position(|c| c.index == index),
            // No index (some servers): match by id, else continue the last call.
            (None, Some(id)) if !id.is_empty() => self.calls.iter().position(|c| c.id == id),
            (None, _) => self.calls.len().checked_sub(1),
        };
        let i = match existing {
            Some(i) => i,
            None => {
                let index = delta.index.unwrap_or(self.calls.len().max(position));
                self.calls.push(Call {
                    index,
                    id: String::new(),
                    name: String::new(),
                    slot: None,
                    pending_args: String::new(),
                });
                self.calls.len() - 1
            }
        };
        let function = delta.function;
        {
            let call = &mut self.calls[i];
            if let Some(id) = delta.id.filter(|id| !id.is_empty()) {
                if call.slot.is_none() {
                    call.id = id;
                }
            }
            if let Some(name) = function.as_ref().and_then(|f| f.name.as_deref()) {
                if call.slot.is_none() {
                    call.name.push_str(name);
                }
            }
        }
        let args = function.and_then(|f| f.arguments);
        if !self.calls[i].name.is_empty() {
            self.open_call(i, asm, emit);
        }
        if let Some(args) = args {
            match self.calls[i].slot {
                Some(slot) => asm.args(slot, &args, emit),
                None => self.calls[i].pending_args.push_str(&args),
            }
        }
    }
}

impl WireDecoder for Decoder {
    /// Handle one SSE event.
    fn event(&mut self, sse: &SseEventRef<'_>, out: Sink<'_, '_>) -> Result<Flow, ProviderError> {
        let Sink(provider, asm, emit) = out;
        let data = sse.data.trim();
        if data == "[DONE]" {
            self.close(asm, emit);
            return Ok(Flow::Done);
        }
        if data.is_empty() {
            return Ok(Flow::Continue);
        }
        let chunk: Chunk<'_> = parse_json(provider, data, "chunk")?;
        if let Some(error) = chunk.error.filter(|e| !e.is_null()) {
            return Err(stream_error(provider, &error));
        }
        if chunk.object.as_deref() == Some("error") {
            let error: serde_json::Value = serde_json::from_str(data).unwrap_or_default();
            return Err(stream_error(provider, &error));
        }
        if let Some(usage) = chunk.usage {
            let cached = usage.prompt_tokens_details.and_then(|d| d.cached_tokens);
            let output = usage.completion_tokens_details;
            asm.usage.set_openai(
                usage.prompt_tokens,
                cached.or(usage.prompt_cache_hit_tokens),
                usage.completion_tokens,
                output.and_then(|d| d.reasoning_tokens),
            );
        }
        let Some(choice) = chunk.choices.0 else {
            return Ok(Flow::Continue);
        };
        if let Some(delta) = choice.delta {
            // Servers that send both fields send the same text twice: take one.
            let thinking = match (delta.reasoning_content, delta.reasoning) {
                (Some(text), _) if !text.is_empty() => Some(text.0),
                (_, Some(value)) => match *value {
                    serde_json::Value::String(text) => Some(Cow::Owned(text)),
                    _ => None,
                },
                _ => None,
            };
            if let Some(thinking) = thinking.filter(|t| !t.is_empty()) {
                let slot = asm
                    .last_thinking()
                    .unwrap_or_else(|| asm.open_thinking(None));
                asm.thinking(slot, thinking, emit);
            }
            for text in [delta.content, delta.refusal].into_iter().flatten() {
                if !text.is_empty() {
                    let slot = asm.last_text().unwrap_or_else(|| asm.open_text());
                    asm.text(slot, text.0, emit);
                }
            }
            for (position, call) in delta.tool_calls.into_iter().flatten().enumerate() {
                self.tool_delta(position, call, asm, emit);
            }
        }
        if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
            self.finish = Some(reason.to_string());
            self.close(asm, emit);
        }
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finish_reasons() {
        assert_eq!(map_finish("stop"), StopReason::EndTurn);
        assert_eq!(map_finish("tool_calls"), StopReason::ToolUse);
        assert_eq!(map_finish("length"), StopReason::Length);
        assert_eq!(map_finish("content_filter"), StopReason::EndTurn);
    }
}
