//! Provider errors. Messages name the provider and never contain the API key.

use thiserror::Error;

/// Why a provider request (or provider configuration) failed.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ProviderError {
    /// The request was cancelled through its cancellation token.
    #[error("request aborted")]
    Aborted,
    /// Bad or incomplete configuration (unknown provider, missing key, bad auth.json...).
    #[error("{0}")]
    Config(String),
    /// The provider answered with a non-success HTTP status.
    #[error("{provider}: HTTP {status}: {message}")]
    Http {
        /// Provider name.
        provider: String,
        /// HTTP status code.
        status: u16,
        /// The provider's error message (from its JSON error body when it has one).
        message: String,
        /// Whether this failure is worth retrying (429, 5xx, 529).
        retryable: bool,
    },
    /// The provider reported an error inside the stream (e.g. an Anthropic `error` event).
    #[error("{provider}: {kind}: {message}")]
    Api {
        /// Provider name.
        provider: String,
        /// Error type (`overloaded_error`...).
        kind: String,
        /// Error message.
        message: String,
        /// Whether this failure is worth retrying.
        retryable: bool,
    },
    /// Connecting or sending failed, or the stream broke (dropped connection,
    /// idle timeout, ended without its final event).
    #[error("{provider}: {message}")]
    Transport {
        /// Provider name.
        provider: String,
        /// What happened.
        message: String,
    },
    /// The stream could not be understood (malformed SSE or JSON).
    #[error("{provider}: malformed stream: {message}")]
    Protocol {
        /// Provider name.
        provider: String,
        /// What was wrong.
        message: String,
    },
    /// The model's tool-call arguments are not valid JSON. (No longer
    /// returned by [`crate::Provider::stream`]: such a call is kept with its
    /// raw text, see [`crate::invalid_args_message`].)
    #[error("{provider}: tool call {id} ({name}): arguments are not valid JSON: {message}")]
    InvalidToolArgs {
        /// Provider name.
        provider: String,
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Parser message.
        message: String,
    },
}

impl ProviderError {
    /// Whether a retry may help (only meaningful before any output was streamed).
    pub fn is_retryable(&self) -> bool {
        match self {
            ProviderError::Http { retryable, .. } | ProviderError::Api { retryable, .. } => {
                *retryable
            }
            ProviderError::Transport { .. } => true,
            _ => false,
        }
    }

    /// Whether this is [`ProviderError::Aborted`].
    pub fn is_aborted(&self) -> bool {
        matches!(self, ProviderError::Aborted)
    }

    /// An error the provider reported inside the stream ([`ProviderError::Api`]).
    pub(crate) fn api(
        provider: &str,
        kind: impl Into<String>,
        message: impl Into<String>,
        retryable: bool,
    ) -> ProviderError {
        ProviderError::Api {
            provider: provider.to_string(),
            kind: kind.into(),
            message: message.into(),
            retryable,
        }
    }
}

/// Whether an HTTP status is retryable: 408, 409, 429 and every 5xx (incl. 529).
pub(crate) fn status_retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || (500..600).contains(&status)
}

/// Whether an in-stream error type is retryable.
pub(crate) fn error_type_retryable(kind: &str, message: &str) -> bool {
    matches!(
        kind,
        "overloaded_error" | "rate_limit_error" | "api_error" | "server_error" | "timeout_error"
    ) || message.to_ascii_lowercase().contains("overloaded")
}

/// Extract a human message from a provider's JSON error body
/// (`{"error":{"message":..}}`, `{"error":"..."}`, `{"message":..}`), else the
/// trimmed body text (truncated).
pub(crate) fn error_body_message(body: &str) -> String {
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(body) {
        let candidates = [
            value.pointer("/error/message"),
            value.get("error").filter(|e| e.is_string()),
            value.get("message"),
            value.pointer("/detail"),
        ];
        for candidate in candidates.into_iter().flatten() {
            if let Some(text) = candidate.as_str() {
                if !text.is_empty() {
                    return clip_chars(text, MAX_MESSAGE_CHARS);
                }
            }
        }
    }
    let trimmed = body.trim();
    if trimmed.is_empty() {
        return "(empty response body)".to_string();
    }
    clip_chars(trimmed, 500)
}

/// Longest provider error message shown (a proxy or a broken server may
/// put anything there).
const MAX_MESSAGE_CHARS: usize = 2000;

/// At most `max` characters of `text`, with `…` when cut.
fn clip_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((idx, _)) => format!("{}…", &text[..idx]),
    }
}

/// Remove every occurrence of `secret` from `text`.
pub(crate) fn redact(text: String, secret: Option<&str>) -> String {
    match secret {
        Some(secret) if secret.len() >= 4 && text.contains(secret) => {
            text.replace(secret, "[redacted]")
        }
        _ => text,
    }
}

impl ProviderError {
    /// The same error with every occurrence of `secret` removed from its texts.
    pub(crate) fn redacted(self, secret: Option<&str>) -> ProviderError {
        let r = |text: String| redact(text, secret);
        match self {
            ProviderError::Config(m) => ProviderError::Config(r(m)),
            ProviderError::Http {
                provider,
                status,
                message,
                retryable,
            } => ProviderError::Http {
                provider,
                status,
                message: r(message),
                retryable,
            },
            ProviderError::Api {
                provider,
                kind,
                message,
                retryable,
            } => ProviderError::Api {
                provider,
                kind: r(kind),
                message: r(message),
                retryable,
            },
            ProviderError::Transport { provider, message } => ProviderError::Transport {
                provider,
                message: r(message),
            },
            ProviderError::Protocol { provider, message } => ProviderError::Protocol {
                provider,
                message: r(message),
            },
            ProviderError::InvalidToolArgs {
                provider,
                id,
                name,
                message,
            } => ProviderError::InvalidToolArgs {
                provider,
                id,
                name,
                message: r(message),
            },
            ProviderError::Aborted => ProviderError::Aborted,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_messages_from_bodies() {
        assert_eq!(
            error_body_message(r#"{"type":"error","error":{"type":"x","message":"boom"}}"#),
            "boom"
        );
        assert_eq!(error_body_message(r#"{"error":"flat"}"#), "flat");
        assert_eq!(error_body_message("  plain text "), "plain text");
        assert_eq!(error_body_message(""), "(empty response body)");
    }

    #[test]
    fn redacts_secret() {
        assert_eq!(
            redact("key sk-12345 bad".into(), Some("sk-12345")),
            "key [redacted] bad"
        );
    }
}
