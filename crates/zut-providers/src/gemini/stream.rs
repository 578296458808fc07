//! Decoding Gemini's `streamGenerateContent?alt=sse` chunks.
//!
//! Every SSE event is a whole `GenerateContentResponse`: the first
//! candidate's parts (text, thought text, function calls, each possibly
//! with a `thoughtSignature`), its `finishReason`, the cumulative
//! `usageMetadata`, `promptFeedback` when the prompt was blocked, or an
//! `error` object. The stream has no final event: it is complete at end of
//! body once a finish reason arrived.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::fast::Counts;
use crate::assemble::{Assembler, Emit};
use crate::decode::{parse_json, Flow, Sink, WireDecoder};
use crate::error::{status_retryable, ProviderError};
use crate::sse::SseEventRef;
use crate::text::Text;
use crate::types::StopReason;

#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(default, borrow)]
    candidates: Vec<Candidate<'a>>,
    #[serde(rename = "usageMetadata")]
    usage: Option<Box<WireUsage>>,
    #[serde(rename = "promptFeedback")]
    prompt_feedback: Option<Box<PromptFeedback>>,
    error: Option<Box<WireError>>,
}

#[derive(Deserialize)]
struct Candidate<'a> {
    #[serde(borrow)]
    content: Option<Content<'a>>,
    #[serde(rename = "finishReason", borrow)]
    finish_reason: Option<Text<'a>>,
    #[serde(rename = "finishMessage")]
    finish_message: Option<String>,
}

#[derive(Deserialize)]
struct Content<'a> {
    #[serde(default, borrow)]
    parts: Vec<WirePart<'a>>,
}

#[derive(Deserialize)]
struct WirePart<'a> {
    #[serde(borrow)]
    text: Option<Text<'a>>,
    #[serde(default)]
    thought: bool,
    #[serde(rename = "thoughtSignature")]
    thought_signature: Option<String>,
    #[serde(rename = "functionCall", borrow)]
    function_call: Option<Box<FunctionCall<'a>>>,
}

#[derive(Deserialize)]
struct FunctionCall<'a> {
    id: Option<String>,
    name: String,
    #[serde(borrow)]
    args: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct WireUsage {
    #[serde(default)]
    prompt_token_count: u64,
    #[serde(default)]
    candidates_token_count: u64,
    #[serde(default)]
    cached_content_token_count: u64,
    thoughts_token_count: Option<u64>,
    #[serde(default)]
    tool_use_prompt_token_count: u64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptFeedback {
    block_reason: Option<String>,
    block_reason_message: Option<String>,
}

#[derive(Deserialize)]
struct WireError {
    code: Option<u16>,
    #[serde(default)]
    message: String,
    status: Option<String>,
}

/// Finish reasons meaning the reply was withheld by a safety or policy filter.
const BLOCKED: &[&str] = &[
    "SAFETY",
    "RECITATION",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "IMAGE_SAFETY",
    "IMAGE_PROHIBITED_CONTENT",
    "LANGUAGE",
];

/// Gemini stream state for one attempt.
#[derive(Debug)]
pub(crate) struct Decoder {
    finished: bool,
    calls: u32,
    call_prefix: u32,
    warned_unknown: bool,
}

impl Decoder {
    pub(crate) fn new() -> Self {
        Self {
            finished: false,
            calls: 0,
            call_prefix: fastrand::u32(..),
            warned_unknown: false,
        }
    }

    /// Whether a stream that ended here is complete (a finish reason came).
    pub(crate) fn complete_at_eof(&self) -> bool {
        self.finished
    }
}

impl WireDecoder for Decoder {
    /// Handle one SSE event.
    fn event(&mut self, sse: &SseEventRef<'_>, out: Sink<'_, '_>) -> Result<Flow, ProviderError> {
        let Sink(provider, asm, emit) = out;
        let data = sse.data.trim_start();
        if data.is_empty() {
            return Ok(Flow::Continue);
        }
        if let Some(fast) = super::fast::text_chunk(data) {
            if let Some(usage) = fast.usage {
                apply_usage(asm, usage);
            }
            let slot = match asm.last_text() {
                Some(slot) => slot,
                None => asm.open_text(),
            };
            asm.text(slot, fast.text, emit);
            if let Some(reason) = fast.finish {
                self.finish_reason(provider, &reason, None, asm)?;
            }
            return Ok(Flow::Continue);
        }
        let chunk: Chunk<'_> = parse_json(provider, data, "a Gemini stream chunk")?;
        if let Some(error) = chunk.error {
            return Err(api_error(provider, &error));
        }
        if let Some(usage) = &chunk.usage {
            apply_usage(
                asm,
                Counts {
                    prompt: usage.prompt_token_count,
                    candidates: usage.candidates_token_count,
                    cached: usage.cached_content_token_count,
                    thoughts: usage.thoughts_token_count,
                    tool_use_prompt: usage.tool_use_prompt_token_count,
                },
            );
        }
        let Some(candidate) = chunk.candidates.into_iter().next() else {
            if let Some(feedback) = chunk.prompt_feedback {
                if let Some(reason) = feedback.block_reason {
                    let detail = feedback
                        .block_reason_message
                        .map(|m| format!(": {m}"))
                        .unwrap_or_default();
                    return Err(ProviderError::Api {
                        provider: provider.to_string(),
                        kind: "prompt_blocked".into(),
                        message: format!(
                            "Gemini blocked the prompt ({reason}){detail}; rephrase the request"
                        ),
                        retryable: false,
                    });
                }
            }
            return Ok(Flow::Continue);
        };
        if let Some(content) = candidate.content {
            for part in content.parts {
                self.part(part, asm, emit);
            }
        }
        if let Some(reason) = candidate.finish_reason {
            self.finish_reason(provider, &reason, candidate.finish_message, asm)?;
        }
        Ok(Flow::Continue)
    }
}

impl Decoder {
    /// Act on a candidate's `finishReason`.
    fn finish_reason(
        &mut self,
        provider: &str,
        reason: &str,
        message: Option<String>,
        asm: &mut Assembler,
    ) -> Result<(), ProviderError> {
        {
            if BLOCKED.contains(&reason) {
                let detail = message.map(|m| format!(": {m}")).unwrap_or_default();
                return Err(ProviderError::Api {
                    provider: provider.to_string(),
                    kind: "response_blocked".into(),
                    message: format!(
                        "Gemini withheld the reply (finish reason {reason}: safety or policy filter){detail}"
                    ),
                    retryable: false,
                });
            }
            if reason == "MALFORMED_FUNCTION_CALL" || reason == "UNEXPECTED_TOOL_CALL" {
                let detail = message.unwrap_or_default();
                return Err(ProviderError::Api {
                    provider: provider.to_string(),
                    kind: "malformed_function_call".into(),
                    message: format!(
                        "Gemini produced an invalid function call ({reason}) {detail}"
                    )
                    .trim_end()
                    .to_string(),
                    retryable: true,
                });
            }
            if !reason.is_empty() && reason != "FINISH_REASON_UNSPECIFIED" {
                self.finished = true;
                asm.stop = Some(match reason {
                    "MAX_TOKENS" => StopReason::Length,
                    _ if asm.has_tool_calls() => StopReason::ToolUse,
                    _ => StopReason::EndTurn,
                });
            }
        }
        Ok(())
    }

    fn part(&mut self, part: WirePart<'_>, asm: &mut Assembler, emit: &mut Emit<'_>) {
        if part.thought {
            let slot = match asm.last_thinking() {
                Some(slot) => slot,
                None => asm.open_thinking(None),
            };
            if let Some(text) = part.text {
                asm.thinking(slot, text.0, emit);
            }
            if let Some(sig) = &part.thought_signature {
                asm.signature(slot, sig);
            }
            return;
        }
        if let Some(sig) = part.thought_signature.filter(|s| !s.is_empty()) {
            // A signature on a text or call part: kept as an empty
            // thinking part right before it (sent back on that part).
            asm.open_thinking(Some(sig));
        }
        if let Some(call) = part.function_call {
            self.calls += 1;
            let id = call
                .id
                .filter(|id| !id.is_empty())
                .unwrap_or_else(|| format!("call_{:08x}_{}", self.call_prefix, self.calls));
            let slot = asm.open_tool(id, call.name, emit);
            if let Some(args) = call.args {
                asm.args(slot, args.get(), emit);
            }
            asm.end_tool(slot, emit);
            return;
        }
        if let Some(text) = part.text {
            let slot = match asm.last_text() {
                Some(slot) => slot,
                None => asm.open_text(),
            };
            asm.text(slot, text.0, emit);
            return;
        }
        if !self.warned_unknown {
            self.warned_unknown = true;
            tracing::debug!("gemini: ignoring a part of an unknown kind (logged once)");
        }
    }
}

/// Apply a chunk's cumulative usage.
fn apply_usage(asm: &mut Assembler, usage: Counts) {
    asm.usage.input = (usage.prompt + usage.tool_use_prompt).saturating_sub(usage.cached);
    asm.usage.cache_read = usage.cached;
    asm.usage.output = usage.candidates + usage.thoughts.unwrap_or(0);
    asm.usage.reasoning = usage.thoughts;
}

/// A Gemini error object (`{"code", "message", "status"}`).
fn api_error(provider: &str, error: &WireError) -> ProviderError {
    let status = error.status.clone().unwrap_or_else(|| "error".to_string());
    let retryable = error.code.is_some_and(status_retryable)
        || matches!(
            status.as_str(),
            "RESOURCE_EXHAUSTED" | "UNAVAILABLE" | "INTERNAL" | "DEADLINE_EXCEEDED"
        );
    ProviderError::api(provider, status, error.message.clone(), retryable)
}
