//! Compact-and-retry (issue 24): a request that overflows the model's
//! context window is answered by compacting the conversation (the existing
//! compaction, [`crate::compaction`]) and sending the request once more,
//! visibly (`context_recovery`, then `compact_done`). An overflow that
//! persists after compaction ends the prompt with a clear message: there is
//! no second compaction for the same request, so no loop.
//!
//! Each wire words the error differently; [`is_context_overflow`] knows
//! the bodies the providers send (kept in the tests below and in
//! `tests/context_recovery.rs`, which replays them through the local LLM
//! server).

use tokio_util::sync::CancellationToken;
use zut_providers::{Completion, ProviderError, Request, StreamEvent, Wire};

use crate::agent::{Agent, EventSink};
use crate::event::AgentEvent;
use crate::stream_map::map_stream_event;

/// Lower-cased phrases that mark a context-length error, per wire:
/// Anthropic and Claude on Bedrock (`prompt is too long: N tokens > M
/// maximum`), OpenAI chat (`maximum context length is N tokens`, code
/// `context_length_exceeded`), the Responses API (`exceeds the context
/// window`), Gemini (`The input token count (N) exceeds the maximum number
/// of tokens allowed (M)`), Bedrock (`Input is too long for requested
/// model`, `too many input tokens`), and the wordings of common
/// OpenAI-compatible servers (vLLM, llama.cpp, Ollama, OpenRouter, Mistral).
const PHRASES: &[&str] = &[
    "prompt is too long",
    "maximum context length",
    "context_length_exceeded",
    "context length exceeded",
    "exceeds the context window",
    "context window exceeded",
    "exceeds the maximum number of tokens",
    "input is too long",
    "too many input tokens",
    "input token count",
    "exceed context window",
    "exceeds context length",
    "exceeds the available context size",
    "reduce the length of the messages",
    "too many tokens in the prompt",
    "prompt too long",
];

/// Whether `e` says the request did not fit the model's context window.
/// Retryable failures (429 rate limits mention tokens too) never count.
pub fn is_context_overflow(e: &ProviderError) -> bool {
    let (kind, message) = match e {
        ProviderError::Http {
            status,
            message,
            retryable: false,
            ..
        } => {
            // 413: the body itself is too large (Anthropic
            // `request_too_large`); compaction shrinks it too.
            if *status == 413 {
                return true;
            }
            ("", message.as_str())
        }
        ProviderError::Api {
            kind,
            message,
            retryable: false,
            ..
        } => (kind.as_str(), message.as_str()),
        _ => return false,
    };
    let kind = kind.to_ascii_lowercase();
    if kind == "context_length_exceeded" || kind == "request_too_large" {
        return true;
    }
    let message = message.to_ascii_lowercase();
    PHRASES.iter().any(|p| message.contains(p))
}

/// The message a prompt fails with when the request still overflows after
/// compaction.
pub(crate) fn still_too_long(error: &ProviderError) -> String {
    format!(
        "the request is still too long for the model's context window after compaction \
         ({error}); start a new session, or lower --context-window so compaction keeps less"
    )
}

impl Agent {
    /// Streams `request` (rebuilt by `build` after a compaction), mapping
    /// stream events to the sink. On a context-length error: compacts and
    /// retries once (`context_recovery`, `compact_done`); a second overflow
    /// or a failed compaction is returned as `Err(message)` via
    /// [`Recovery::Failed`].
    pub(crate) async fn stream_with_recovery(
        &mut self,
        step: u64,
        mut request: Request,
        build: &(dyn Fn(&Agent) -> Request + Sync),
        cancel: &CancellationToken,
        sink: EventSink<'_>,
    ) -> Result<Completion, Recovery> {
        let mut recovered = false;
        loop {
            match self.stream_once(step, &request, cancel, sink).await {
                Ok(c) => return Ok(c),
                Err(e) if is_context_overflow(&e) && !cancel.is_cancelled() => {
                    if recovered {
                        return Err(Recovery::Failed(still_too_long(&e)));
                    }
                    recovered = true;
                    sink(AgentEvent::ContextRecovery {
                        step,
                        error: e.to_string(),
                    });
                    let mut quiet = |_: AgentEvent| {};
                    match self.compact_for_overflow(cancel, &mut quiet).await {
                        Ok(summary) => sink(AgentEvent::CompactDone { summary }),
                        Err(_) if cancel.is_cancelled() => {
                            return Err(Recovery::Provider(ProviderError::Aborted))
                        }
                        Err(c) => {
                            return Err(Recovery::Failed(format!(
                                "the request overflowed the model's context window ({e}) \
                                 and compaction failed: {c}"
                            )))
                        }
                    }
                    request = build(self);
                }
                Err(e) => return Err(Recovery::Provider(e)),
            }
        }
    }

    /// The compaction of a recovery: as the automatic one, but when the
    /// recent messages alone are all there is, everything is summarised
    /// (as `/compact` does) rather than giving up.
    async fn compact_for_overflow(
        &mut self,
        cancel: &CancellationToken,
        sink: EventSink<'_>,
    ) -> Result<String, String> {
        self.compact_inner(None, cancel, sink, true).await
    }

    async fn stream_once(
        &self,
        step: u64,
        request: &Request,
        cancel: &CancellationToken,
        sink: EventSink<'_>,
    ) -> Result<Completion, ProviderError> {
        let provider_name = self.provider.name().to_string();
        let model = self.provider.model().to_string();
        let reasoning = self.config.reasoning_events;
        let mode = match self.provider.config().wire {
            Wire::Anthropic | Wire::Bedrock => "explicit",
            Wire::OpenAi | Wire::Responses | Wire::Gemini | Wire::Vertex => "automatic",
        };
        let mcp = self.mcp.as_ref();
        let mut on_event = |ev| {
            let first = matches!(ev, StreamEvent::RequestStarted { attempt: 1, .. });
            if first {
                // MCP servers held for `-p` start while this request goes
                // out (zut_mcp::McpManager::start_default_held).
                if let Some(m) = mcp {
                    m.release_starts();
                }
            }
            if let Some(a) = map_stream_event(ev, &provider_name, &model, reasoning) {
                sink(a);
            }
            if first {
                sink(AgentEvent::CacheDiagnostics {
                    eligible: true,
                    mode,
                    transport: "http-sse",
                    continuation: step > 1,
                });
            }
        };
        self.provider.stream(request, cancel, &mut on_event).await
    }
}

/// Why [`Agent::stream_with_recovery`] gave up.
pub(crate) enum Recovery {
    /// The provider's own error (not an overflow, or cancelled).
    Provider(ProviderError),
    /// Recovery was tried and did not help; the prompt's failure message.
    Failed(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16, message: &str) -> ProviderError {
        ProviderError::Http {
            provider: "p".into(),
            status,
            message: message.into(),
            retryable: retryable(status),
        }
    }

    fn retryable(status: u16) -> bool {
        matches!(status, 408 | 409 | 429) || status >= 500
    }

    #[test]
    fn each_wire_overflow_is_recognised() {
        for m in [
            "prompt is too long: 208310 tokens > 200000 maximum",
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.",
            "Your input exceeds the context window of this model. Please adjust your input and try again.",
            "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).",
            "Input is too long for requested model.",
        ] {
            assert!(is_context_overflow(&http(400, m)), "{m}");
        }
        assert!(is_context_overflow(&http(413, "request too large")));
        assert!(is_context_overflow(&ProviderError::Api {
            provider: "p".into(),
            kind: "context_length_exceeded".into(),
            message: "x".into(),
            retryable: false,
        }));
    }

    #[test]
    fn other_errors_are_not_overflows() {
        assert!(!is_context_overflow(&http(
            429,
            "Rate limit reached: too many input tokens per minute"
        )));
        assert!(!is_context_overflow(&http(400, "invalid tool schema")));
        assert!(!is_context_overflow(&http(401, "invalid x-api-key")));
        assert!(!is_context_overflow(&ProviderError::Aborted));
    }
}
