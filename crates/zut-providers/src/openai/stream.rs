//! Decoding streamed chat completion chunks.

use std::borrow::Cow;

use serde::Deserialize;

use crate::assemble::{Assembler, Emit};
use crate::decode::Flow;
use crate::error::{error_type_retryable, ProviderError};
use crate::sse::SseEvent;
use crate::types::StopReason;

#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(default, borrow)]
    choices: Option<Vec<Choice<'a>>>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(default, borrow)]
    delta: Option<Delta<'a>>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(default, borrow)]
    content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    reasoning_content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    reasoning: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    refusal: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    tool_calls: Option<Vec<ToolDelta<'a>>>,
}

#[derive(Deserialize)]
struct ToolDelta<'a> {
    #[serde(default)]
    index: Option<usize>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default, borrow)]
    function: Option<FunctionDelta<'a>>,
}

#[derive(Deserialize)]
struct FunctionDelta<'a> {
    #[serde(default)]
    name: Option<String>,
    #[serde(default, borrow)]
    arguments: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
    #[serde(default)]
    completion_tokens_details: Option<CompletionDetails>,
    /// DeepSeek's cache hits.
    #[serde(default)]
    prompt_cache_hit_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct CompletionDetails {
    #[serde(default)]
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

    /// Handle one SSE event.
    pub(crate) fn event(
        &mut self,
        provider: &str,
        sse: &SseEvent,
        asm: &mut Assembler,
        emit: &mut Emit<'_>,
    ) -> Result<Flow, ProviderError> {
        let data = sse.data.trim();
        if data == "[DONE]" {
            self.close(asm, emit);
            return Ok(Flow::Done);
        }
        if data.is_empty() {
            return Ok(Flow::Continue);
        }
        let chunk: Chunk<'_> = serde_json::from_str(data).map_err(|e| ProviderError::Protocol {
            provider: provider.to_string(),
            message: format!("invalid JSON in chunk: {e}"),
        })?;
        if let Some(error) = chunk.error {
            let message = error
                .get("message")
                .and_then(|m| m.as_str())
                .map(str::to_string)
                .or_else(|| error.as_str().map(str::to_string))
                .unwrap_or_else(|| error.to_string());
            let kind = error
                .get("type")
                .or_else(|| error.get("code"))
                .and_then(|k| k.as_str())
                .unwrap_or("error")
                .to_string();
            let retryable = error_type_retryable(&kind, &message);
            return Err(ProviderError::Api {
                provider: provider.to_string(),
                kind,
                message,
                retryable,
            });
        }
        if let Some(usage) = chunk.usage {
            let cached = usage
                .prompt_tokens_details
                .and_then(|d| d.cached_tokens)
                .or(usage.prompt_cache_hit_tokens)
                .unwrap_or(0);
            asm.usage.input = usage.prompt_tokens.saturating_sub(cached);
            asm.usage.cache_read = cached;
            asm.usage.output = usage.completion_tokens;
            asm.usage.reasoning = usage
                .completion_tokens_details
                .and_then(|d| d.reasoning_tokens);
        }
        // Only the first choice matters (zut never asks for n > 1).
        let Some(choice) = chunk.choices.and_then(|c| c.into_iter().next()) else {
            return Ok(Flow::Continue);
        };
        if let Some(delta) = choice.delta {
            for thinking in [&delta.reasoning_content, &delta.reasoning]
                .into_iter()
                .flatten()
            {
                if !thinking.is_empty() {
                    let slot = asm
                        .last_thinking()
                        .unwrap_or_else(|| asm.open_thinking(None));
                    asm.thinking(slot, thinking, emit);
                }
            }
            for text in [&delta.content, &delta.refusal].into_iter().flatten() {
                if !text.is_empty() {
                    let slot = asm.last_text().unwrap_or_else(|| asm.open_text());
                    asm.text(slot, text, emit);
                }
            }
            for (position, call) in delta.tool_calls.into_iter().flatten().enumerate() {
                self.tool_delta(position, call, asm, emit);
            }
        }
        if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
            self.finish = Some(reason);
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
