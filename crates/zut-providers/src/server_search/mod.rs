//! The model API's own web search, as a side request: the current
//! provider and model asked for a search with only the provider's
//! server-side search tool enabled (Anthropic's `web_search` server tool on
//! the Messages API, the `web_search` tool of the OpenAI Responses API),
//! streamed, and the sources it found returned as [`WebSource`]s.
//!
//! The conversation's own requests never enable these tools; this module
//! is what the `web_search` tool's `provider` backend calls.
//!
//! Wire parts: Anthropic `server_tool_use` blocks (the query as
//! `input_json_delta`), `web_search_tool_result` blocks (results or a
//! `web_search_tool_result_error`), `citations_delta` with
//! `web_search_result_location` citations (`anthropic.rs`); Responses
//! `web_search_call` output items (`action.sources`, `status: failed`) and
//! `url_citation` annotations of `output_text` (`responses.rs`).

mod anthropic;
mod responses;

use futures_util::StreamExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::error::{error_body_message, redact, status_retryable, ProviderError};
use crate::presets::{Auth, Wire};
use crate::provider::{describe, responses_url, Provider};
use crate::sse::SseParser;
use crate::types::Usage;

/// One source found by a provider's server-side web search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebSource {
    /// The page's URL, as the provider gave it.
    pub url: String,
    /// Its title (may be empty: Responses sources that were not cited).
    pub title: String,
    /// Text the model cited from it (Anthropic `cited_text`, the span of a
    /// Responses `url_citation`); may be empty.
    pub snippet: String,
    /// How old the page is, when the provider says (Anthropic `page_age`).
    pub page_age: Option<String>,
}

/// What a server-side search returned.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WebSearchOutcome {
    /// The queries the provider ran.
    pub queries: Vec<String>,
    /// The sources, cited ones first, each URL once.
    pub sources: Vec<WebSource>,
    /// The model's text answer (untrusted: it summarises pages).
    pub answer: String,
    /// Token usage of the side request.
    pub usage: Usage,
}

/// Which server-side search a provider offers, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerSearchKind {
    /// Anthropic's `web_search` server tool on the Messages API.
    Anthropic,
    /// The OpenAI Responses API's `web_search` tool.
    Responses,
}

/// Output token cap of the side request (the model lists results; the
/// sources themselves come from the search blocks).
const MAX_TOKENS: u32 = 1024;
/// Largest side-request response read.
const MAX_BODY: usize = 8 * 1024 * 1024;
/// Most bytes of an error body read.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// The instruction of the side request.
const INSTRUCTIONS: &str = "You are a web search helper. Run one web search for the user's query with the web_search tool, then list the most relevant results in one line each, citing them. Do not answer from memory.";

impl Provider {
    /// The server-side search `model` of this provider offers, or why it
    /// has none (a text that names the provider, the model and what to do).
    pub fn server_search_kind(&self, model: &str) -> Result<ServerSearchKind, String> {
        let config = self.config();
        let wire = config.wire_for(model);
        let name = self.name();
        match wire {
            Wire::Anthropic => Ok(ServerSearchKind::Anthropic),
            Wire::Responses => Ok(ServerSearchKind::Responses),
            // OpenAI's own API serves every chat model on Responses too.
            Wire::OpenAi if name == "openai" && config.azure.is_none() => {
                Ok(ServerSearchKind::Responses)
            }
            other => Err(format!(
                "{name} (model {model}) has no server-side web search zut can use: it needs the Anthropic Messages API or the OpenAI Responses API, and {name} speaks {}. Set \"web\": {{\"search\": {{\"backend\": \"duckduckgo\"}}}} (or searxng, brave, tavily, exa) in config.json",
                wire_label(other)
            )),
        }
    }

    /// Searches the web for `query` with the server-side search tool of
    /// `model` (empty: the configured model). One request, streamed, not
    /// retried; cancelling `cancel` stops it.
    pub async fn web_search(
        &self,
        model: &str,
        query: &str,
        cancel: &CancellationToken,
    ) -> Result<WebSearchOutcome, ProviderError> {
        let model = if model.is_empty() {
            self.model()
        } else {
            model
        };
        let kind = self
            .server_search_kind(model)
            .map_err(ProviderError::Config)?;
        let config = self.config();
        let sent_model = match &config.azure {
            Some(azure) => azure.deployment(model),
            None => model,
        };
        let (url, body) = match kind {
            ServerSearchKind::Anthropic => (
                self.endpoint_for(model),
                anthropic::body(sent_model, query, INSTRUCTIONS, MAX_TOKENS),
            ),
            ServerSearchKind::Responses => {
                let url = if config.wire_for(model) == Wire::Responses {
                    self.endpoint_for(model)
                } else {
                    responses_url(&config.base_url)
                };
                (
                    url,
                    responses::body(sent_model, query, INSTRUCTIONS, MAX_TOKENS),
                )
            }
        };
        let key = config.api_key.as_deref();
        let result = self.search_request(kind, &url, &body, cancel).await;
        result.map_err(|e| e.redacted(key))
    }

    async fn search_request(
        &self,
        kind: ServerSearchKind,
        url: &str,
        body: &Value,
        cancel: &CancellationToken,
    ) -> Result<WebSearchOutcome, ProviderError> {
        let config = self.config();
        let provider = config.provider.as_str();
        let idle = config.idle_timeout;
        let transport = |message: String| ProviderError::Transport {
            provider: provider.to_string(),
            message,
        };
        let client = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .user_agent(concat!("zut/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ProviderError::Config(format!("cannot build HTTP client: {e}")))?;
        let mut builder = client
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "text/event-stream")
            .body(body.to_string());
        if kind == ServerSearchKind::Anthropic {
            builder = builder.header("anthropic-version", crate::anthropic::API_VERSION);
        }
        if let Some(key) = config.api_key.as_deref() {
            builder = match (config.auth, kind) {
                (Auth::ApiKeyHeader, _) => builder.header("api-key", key),
                (Auth::CloudflareGateway, _) => {
                    builder.header("cf-aig-authorization", format!("Bearer {key}"))
                }
                (Auth::WireDefault, ServerSearchKind::Anthropic) => {
                    builder.header("x-api-key", key)
                }
                (Auth::WireDefault, ServerSearchKind::Responses) => builder.bearer_auth(key),
            };
        }
        for (name, value) in &config.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        let response = tokio::select! {
            _ = cancel.cancelled() => return Err(ProviderError::Aborted),
            sent = tokio::time::timeout(idle, builder.send()) => match sent {
                Err(_) => return Err(transport(format!("no response within {}s", idle.as_secs()))),
                Ok(Err(e)) => return Err(transport(format!("request failed: {}", describe(&e)))),
                Ok(Ok(r)) => r,
            },
        };
        let status = response.status();
        let json = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().starts_with("application/json"));
        let limit = if status.is_success() {
            MAX_BODY
        } else {
            MAX_ERROR_BODY
        };
        let mut decoder = Decoder::new(kind);
        let mut parser = SseParser::new();
        let mut raw = Vec::new();
        let mut received = 0usize;
        let mut stream = response.bytes_stream();
        loop {
            let next = tokio::select! {
                _ = cancel.cancelled() => return Err(ProviderError::Aborted),
                next = tokio::time::timeout(idle, stream.next()) => next,
            };
            let chunk = match next {
                Err(_) => {
                    return Err(transport(format!(
                        "stream stalled: no data for {}s",
                        idle.as_secs()
                    )))
                }
                Ok(Some(Err(e))) => {
                    return Err(transport(format!("stream interrupted: {}", describe(&e))))
                }
                Ok(None) => break,
                Ok(Some(Ok(chunk))) => chunk,
            };
            received += chunk.len();
            if received > limit {
                if !status.is_success() {
                    break;
                }
                return Err(ProviderError::Protocol {
                    provider: provider.to_string(),
                    message: format!(
                        "the search response exceeded {} MiB",
                        MAX_BODY / (1024 * 1024)
                    ),
                });
            }
            if !status.is_success() || json {
                raw.extend_from_slice(&chunk);
                continue;
            }
            parser.push(&chunk);
            while let Some(event) = parser.next_event() {
                decoder.event(provider, &event.event, &event.data)?;
            }
        }
        if !status.is_success() {
            let text = String::from_utf8_lossy(&raw);
            let message = redact(error_body_message(&text), config.api_key.as_deref());
            return Err(ProviderError::Http {
                provider: provider.to_string(),
                status: status.as_u16(),
                message: format!(
                    "{message} (model {}; server-side web search)",
                    self.model_of(body)
                ),
                retryable: status_retryable(status.as_u16()),
            });
        }
        if json {
            let text = String::from_utf8_lossy(&raw);
            return Err(ProviderError::Protocol {
                provider: provider.to_string(),
                message: format!(
                    "expected an event stream, got a JSON body: {}",
                    error_body_message(&text)
                ),
            });
        }
        while let Some(event) = parser.finish() {
            decoder.event(provider, &event.event, &event.data)?;
        }
        decoder.finish(provider)
    }

    fn model_of<'a>(&self, body: &'a Value) -> &'a str {
        body.get("model").and_then(Value::as_str).unwrap_or("")
    }
}

/// The wire's name in messages.
fn wire_label(wire: Wire) -> &'static str {
    match wire {
        Wire::Anthropic => "the Anthropic Messages API",
        Wire::OpenAi => "OpenAI-compatible chat completions",
        Wire::Gemini => "the Gemini API",
        Wire::Vertex => "Vertex AI",
        Wire::Bedrock => "Bedrock Converse",
        Wire::Responses => "the OpenAI Responses API",
    }
}

/// The side request's stream decoder, per wire.
enum Decoder {
    Anthropic(anthropic::Decoder),
    Responses(responses::Decoder),
}

impl Decoder {
    fn new(kind: ServerSearchKind) -> Self {
        match kind {
            ServerSearchKind::Anthropic => Self::Anthropic(anthropic::Decoder::default()),
            ServerSearchKind::Responses => Self::Responses(responses::Decoder::default()),
        }
    }

    fn event(&mut self, provider: &str, name: &str, data: &str) -> Result<(), ProviderError> {
        let data = data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        let value: Value = serde_json::from_str(data).map_err(|e| ProviderError::Protocol {
            provider: provider.to_string(),
            message: format!("invalid JSON in a search event{}: {e}", event_name(name)),
        })?;
        match self {
            Self::Anthropic(d) => d.event(provider, &value),
            Self::Responses(d) => d.event(provider, &value),
        }
    }

    fn finish(self, provider: &str) -> Result<WebSearchOutcome, ProviderError> {
        match self {
            Self::Anthropic(d) => d.finish(provider),
            Self::Responses(d) => d.finish(provider),
        }
    }
}

/// The outcome of `events` (each sent as one SSE data line) through the
/// decoder of `kind`: the wire decoders' unit tests.
#[cfg(test)]
pub(super) fn decode_events(
    kind: ServerSearchKind,
    provider: &str,
    events: &[Value],
) -> Result<WebSearchOutcome, ProviderError> {
    let mut decoder = Decoder::new(kind);
    for e in events {
        decoder.event(provider, "", &e.to_string())?;
    }
    decoder.finish(provider)
}

fn event_name(name: &str) -> String {
    if name.is_empty() {
        String::new()
    } else {
        format!(" ({name})")
    }
}

/// Adds `source` unless its URL is there; a known URL gets the title and
/// snippet it lacked.
fn merge(sources: &mut Vec<WebSource>, source: WebSource) {
    if source.url.trim().is_empty() {
        return;
    }
    if let Some(s) = sources.iter_mut().find(|s| s.url == source.url) {
        if s.title.is_empty() {
            s.title = source.title;
        }
        if s.snippet.is_empty() {
            s.snippet = source.snippet;
        }
        if s.page_age.is_none() {
            s.page_age = source.page_age;
        }
        return;
    }
    sources.push(source);
}

/// Why a search returned nothing, when it ended without sources.
fn no_sources(provider: &str, searched: bool, answer: &str) -> ProviderError {
    let message = if searched {
        "the server-side search found no results".to_string()
    } else {
        let said = answer.trim();
        let said: String = said.chars().take(200).collect();
        if said.is_empty() {
            "the model did not run the server-side search".to_string()
        } else {
            format!("the model did not run the server-side search (it answered: {said:?})")
        }
    };
    ProviderError::Api {
        provider: provider.to_string(),
        kind: "web_search".into(),
        message,
        retryable: false,
    }
}

/// A search step the provider reported as failed.
fn search_failed(provider: &str, code: &str, detail: &str) -> ProviderError {
    let why = match code {
        "too_many_requests" => {
            "the provider is rate-limiting web searches; wait before searching again"
        }
        "max_uses_exceeded" => "the search budget of the request was used up",
        "query_too_long" => "the query is too long for the provider's search; shorten it",
        "invalid_input" | "invalid_tool_input" => "the provider refused the query",
        "unavailable" => "the provider's search is unavailable right now",
        _ => "the provider's search failed",
    };
    let mut message = format!("{why} ({code})");
    if !detail.is_empty() {
        message.push_str(": ");
        message.push_str(detail);
    }
    ProviderError::Api {
        provider: provider.to_string(),
        kind: "web_search".into(),
        message,
        retryable: code == "too_many_requests" || code == "unavailable",
    }
}
