//! [`Provider`]: one configured model endpoint, streaming requests with retries.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::anthropic;
use crate::assemble::Assembler;
use crate::config::{KeySource, ProviderConfig};
use crate::decode::{Decoder, Flow};
use crate::error::{error_body_message, redact, status_retryable, ProviderError};
use crate::framing::Framer;
use crate::openai;
use crate::presets::{Auth, Wire};
use crate::rate_gate::RateGate;
use crate::responses;
use crate::retry::retry_after_from_headers;
use crate::types::{Completion, Request, StreamEvent};

/// Most bytes of an error response body read (its message is in the
/// first few hundred; the rest is dropped unread).
const MAX_ERROR_BODY: usize = 64 * 1024;
/// Most bytes of a non-streamed JSON response (a server that ignored
/// `"stream": true`) read before the request fails.
const MAX_JSON_BODY: usize = 32 * 1024 * 1024;

/// Largest single SSE event (or unterminated line) accepted; real events
/// are a few hundred bytes, a whole tool input at most some MiB.
const MAX_SSE_EVENT: usize = 16 * 1024 * 1024;
/// Largest whole SSE response accepted (a reply is bounded by `max_tokens`;
/// a 1 MB reply in 10-byte deltas is about 12.5 MB of SSE).
const MAX_STREAM: usize = 512 * 1024 * 1024;

/// Reads at most `max` bytes of `response`'s body as (lossy) text; a
/// failed read ends it early.
async fn read_prefix(response: reqwest::Response, max: usize) -> String {
    let mut bytes = Vec::new();
    let mut stream = response.bytes_stream();
    while bytes.len() < max {
        match stream.next().await {
            Some(Ok(chunk)) => bytes.extend_from_slice(&chunk),
            _ => break,
        }
    }
    bytes.truncate(max);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A configured provider (Anthropic Messages or OpenAI-compatible chat
/// completions). Cheap to share behind an `Arc`; `stream` takes `&self`.
/// Clones (and [`Provider::with_model`]) share the HTTP connection pool and
/// the rate-limit pause: a 429 for one request holds the others back too.
#[derive(Debug, Clone)]
pub struct Provider {
    config: ProviderConfig,
    client: reqwest::Client,
    rate: Arc<RateGate>,
}

/// A failed attempt, with the delay the server asked for.
struct Failure {
    error: ProviderError,
    retry_after: Option<Duration>,
}

impl From<ProviderError> for Failure {
    fn from(error: ProviderError) -> Self {
        Failure {
            error,
            retry_after: None,
        }
    }
}

impl Provider {
    /// Build the HTTP client for `config`.
    pub fn new(config: ProviderConfig) -> Result<Provider, ProviderError> {
        let client = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .user_agent(concat!("zut/", env!("CARGO_PKG_VERSION")))
            .danger_accept_invalid_certs(config.insecure_tls)
            .build()
            .map_err(|e| ProviderError::Config(format!("cannot build HTTP client: {e}")))?;
        Ok(Provider {
            config,
            client,
            rate: Arc::default(),
        })
    }

    /// The same provider for another model: the connection pool and the
    /// rate-limit pause stay shared.
    pub fn with_model(&self, model: &str) -> Provider {
        let mut config = self.config.clone();
        config.model = model.to_string();
        Provider {
            config,
            client: self.client.clone(),
            rate: self.rate.clone(),
        }
    }

    /// Provider name (the preset id, e.g. `anthropic`, `ollama`).
    pub fn name(&self) -> &str {
        &self.config.provider
    }

    /// Default model id (what a [`Request`] should carry).
    pub fn model(&self) -> &str {
        &self.config.model
    }

    /// The resolved configuration.
    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    /// The endpoint URL requests are posted to (for the configured model).
    ///
    /// Anthropic: `{base}/v1/messages` (or `{base}/messages` when the base
    /// URL already ends with `/v1`); OpenAI-compatible: `{base}/chat/completions`;
    /// Responses: `{base}/responses` (see [`responses_url`]); Azure: the
    /// deployment's URL with `api-version`.
    pub fn endpoint(&self) -> String {
        self.endpoint_for(&self.config.model)
    }

    /// The endpoint URL of a request for `model` (Gemini, Vertex and
    /// Bedrock put the model in the URL; see [`crate::cloud`]).
    pub fn endpoint_for(&self, model: &str) -> String {
        let base = self.config.base_url.trim_end_matches('/');
        let wire = self.config.wire_for(model);
        if let Some(azure) = &self.config.azure {
            let version = &azure.api_version;
            let root = base
                .trim_end_matches("/responses")
                .trim_end_matches("/v1")
                .trim_end_matches("/openai");
            return match wire {
                Wire::Responses => format!("{root}/openai/v1/responses?api-version={version}"),
                _ => format!(
                    "{root}/openai/deployments/{}/chat/completions?api-version={version}",
                    azure.deployment(model)
                ),
            };
        }
        match wire {
            Wire::Anthropic if base.ends_with("/v1") => format!("{base}/messages"),
            Wire::Anthropic => format!("{base}/v1/messages"),
            Wire::OpenAi => format!("{base}/chat/completions"),
            Wire::Responses => responses_url(base),
            Wire::Gemini | Wire::Vertex | Wire::Bedrock => {
                crate::cloud::endpoint(&self.config, model)
            }
        }
    }

    /// The JSON body that [`Provider::stream`] would send for `req` (for a
    /// request the wire cannot express, such as a tool schema Gemini
    /// cannot take, an object `{"error": ..}`; see
    /// [`Provider::try_request_body`]).
    ///
    /// The reasoning level is first clamped to the model's levels
    /// ([`ProviderConfig::clamp_reasoning_for`]); Azure requests name the
    /// deployment as the model.
    pub fn request_body(&self, req: &Request) -> Value {
        self.try_request_body(req)
            .unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }))
    }

    /// The JSON body that [`Provider::stream`] sends for `req`, or why the
    /// wire cannot express it.
    pub fn try_request_body(&self, req: &Request) -> Result<Value, ProviderError> {
        let model = if req.model.is_empty() {
            &self.config.model
        } else {
            &req.model
        };
        let wire = self.config.wire_for(model);
        let reasoning = self.config.clamp_reasoning_for(model, req.reasoning).level;
        let sent_model = match &self.config.azure {
            Some(azure) => azure.deployment(model),
            None => model,
        };
        let mut body = match wire {
            Wire::Anthropic => anthropic::request::body_with(req, sent_model, reasoning),
            Wire::OpenAi => openai::request::body_with(
                req,
                sent_model,
                self.config.max_completion_tokens,
                reasoning,
            ),
            Wire::Responses => responses::request::body(req, sent_model, reasoning),
            // Temperature included by the wire's own body.
            Wire::Gemini | Wire::Vertex | Wire::Bedrock => {
                return crate::cloud::body(&self.config, req, model, reasoning)
            }
        };
        if let (Some(t), Some(obj)) = (self.config.temperature, body.as_object_mut()) {
            // Anthropic refuses a temperature while extended thinking is
            // on, OpenAI's reasoning models while reasoning is.
            let thinking = obj.contains_key("thinking") || obj.contains_key("reasoning");
            if !(wire != Wire::OpenAi && thinking) {
                obj.insert("temperature".into(), serde_json::json!(t));
            }
        }
        Ok(body)
    }

    /// The bytes [`Provider::stream`] sends for `req`: those of
    /// [`Provider::try_request_body`], written straight from the request
    /// on the Anthropic wire (no JSON tree in between: a long session's
    /// history is most of a request).
    pub fn request_bytes(&self, req: &Request) -> Result<Vec<u8>, ProviderError> {
        let model = if req.model.is_empty() {
            &self.config.model
        } else {
            &req.model
        };
        let encoded = if self.config.wire_for(model) == Wire::Anthropic
            && self.config.azure.is_none()
        {
            let reasoning = self.config.clamp_reasoning_for(model, req.reasoning).level;
            let temperature = self
                .config
                .temperature
                .filter(|_| crate::anthropic::request::thinking_budget(reasoning).is_none())
                .map(|t| serde_json::json!(t));
            crate::anthropic::request_bytes::body_bytes(req, model, reasoning, temperature.as_ref())
        } else {
            serde_json::to_vec(&self.try_request_body(req)?)
        };
        encoded.map_err(|e| ProviderError::Config(format!("cannot encode request: {e}")))
    }

    /// What an HTTP error adds to the provider's message: the model, and for
    /// a refused credential where the key came from.
    fn error_context(&self, status: u16, message: &str, model: &str) -> String {
        let mut out = format!("model {model}");
        if self.about_credentials(status, message) {
            out.push_str("; ");
            out.push_str(&self.credential_hint());
        }
        out
    }

    /// Whether an HTTP error is about the key: 401/403, and Gemini's 400
    /// "API key not valid". Vertex and Bedrock say where their credentials
    /// came from themselves (`cloud::explain_http_error`).
    fn about_credentials(&self, status: u16, message: &str) -> bool {
        if self.config.cloud.is_some() {
            return false;
        }
        matches!(status, 401 | 403)
            || (status == 400
                && self.config.wire == Wire::Gemini
                && message.to_ascii_lowercase().contains("api key"))
    }

    /// Where to fix a refused credential.
    fn credential_hint(&self) -> String {
        match &self.config.key_source {
            KeySource::Env(name) => format!("check {name}"),
            KeySource::Flag => "check --api-key".to_string(),
            KeySource::AuthFile(path) => format!(
                "check the \"{}\" key in {}",
                self.config.provider,
                path.display()
            ),
            KeySource::None => {
                match crate::presets::preset(&self.config.provider).and_then(|p| p.key_env) {
                    Some(name) => format!("no key was sent: set {name} or pass --api-key"),
                    None => "no key was sent: pass --api-key".to_string(),
                }
            }
        }
    }

    /// Stream one request.
    ///
    /// Events are delivered to `on_event` as they arrive: `RequestStarted`
    /// per attempt, `RetryScheduled` before each retry, then
    /// `AssistantStart` (before the first content, or at the end for an empty
    /// reply), text/thinking deltas and tool-use events. Failures before any
    /// content are retried per the retry policy; once content has been
    /// emitted a failure is returned as is. Cancelling `cancel` returns
    /// [`ProviderError::Aborted`] promptly, also mid-stream.
    pub async fn stream(
        &self,
        req: &Request,
        cancel: &CancellationToken,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Completion, ProviderError> {
        let model = if req.model.is_empty() {
            self.config.model.as_str()
        } else {
            req.model.as_str()
        };
        let wire = self.config.wire_for(model);
        let target = Target {
            url: self.endpoint_for(model),
            wire,
            stream_wire: crate::cloud::stream_wire(wire, model),
        };
        let body = bytes::Bytes::from(self.request_bytes(req)?);
        let max_attempts = self.config.retry.max_attempts.max(1);
        let mut attempt = 1;
        loop {
            if cancel.is_cancelled() {
                return Err(ProviderError::Aborted);
            }
            if let Some(wait) = self.rate.remaining() {
                // Another request of this provider was rate-limited.
                on_event(StreamEvent::RateLimited {
                    delay_ms: u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                });
                tokio::select! {
                    _ = cancel.cancelled() => return Err(ProviderError::Aborted),
                    _ = tokio::time::sleep(wait) => {}
                }
            }
            on_event(StreamEvent::RequestStarted {
                attempt,
                max_attempts,
            });
            let mut asm = Assembler::new();
            let outcome = self
                .attempt(&target, &body, cancel, &mut asm, on_event)
                .await;
            let key = self.config.api_key.as_deref();
            let failure = match outcome {
                Ok(()) => {
                    return asm
                        .finish(&self.config.provider, on_event)
                        .map_err(|e| e.redacted(key))
                }
                Err(failure) => failure,
            };
            let error = self.with_context(failure.error, model).redacted(key);
            let delay = self.config.retry.delay(attempt, failure.retry_after);
            if matches!(error, ProviderError::Http { status: 429, .. }) {
                self.rate.hold(delay);
            }
            if error.is_aborted()
                || asm.started()
                || !error.is_retryable()
                || attempt >= max_attempts
            {
                return Err(error);
            }
            tracing::debug!(provider = %self.config.provider, attempt, ?delay, %error, "retrying");
            on_event(StreamEvent::RetryScheduled {
                attempt,
                max_attempts,
                delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                reason: error.to_string(),
            });
            tokio::select! {
                _ = cancel.cancelled() => return Err(ProviderError::Aborted),
                _ = tokio::time::sleep(delay) => {}
            }
            attempt += 1;
        }
    }

    /// An HTTP error with the model (and, for 401/403, where the key came
    /// from) added to its message.
    fn with_context(&self, mut error: ProviderError, model: &str) -> ProviderError {
        if let ProviderError::Http {
            status, message, ..
        } = &mut error
        {
            let context = self.error_context(*status, message, model);
            *message = format!("{message} ({context})");
        }
        error
    }

    fn transport(&self, message: String) -> ProviderError {
        ProviderError::Transport {
            provider: self.config.provider.clone(),
            message: redact(message, self.config.api_key.as_deref()),
        }
    }

    /// One HTTP attempt: send, check the status, decode the stream into `asm`.
    async fn attempt(
        &self,
        target: &Target,
        body: &bytes::Bytes,
        cancel: &CancellationToken,
        asm: &mut Assembler,
        emit: &mut (dyn FnMut(StreamEvent) + Send + '_),
    ) -> Result<(), Failure> {
        let provider = self.config.provider.as_str();
        let idle = self.config.idle_timeout;
        let mut builder = self
            .client
            .post(target.url.as_str())
            .header("content-type", "application/json")
            .header("accept", crate::cloud::accept(target.wire))
            .body(body.clone());
        let key = self.config.api_key.as_deref();
        let wire = target.wire;
        if wire == Wire::Anthropic {
            builder = builder.header("anthropic-version", anthropic::API_VERSION);
        }
        if matches!(wire, Wire::Gemini | Wire::Vertex | Wire::Bedrock) {
            let authorized =
                crate::cloud::authorize(&self.config, &self.client, builder, &target.url, body);
            builder = tokio::select! {
                _ = cancel.cancelled() => return Err(ProviderError::Aborted.into()),
                authorized = authorized => authorized?,
            };
        } else if let Some(key) = key {
            builder = match (self.config.auth, wire) {
                (Auth::ApiKeyHeader, _) => builder.header("api-key", key),
                (Auth::CloudflareGateway, _) => {
                    builder.header("cf-aig-authorization", format!("Bearer {key}"))
                }
                (Auth::WireDefault, Wire::Anthropic) => builder.header("x-api-key", key),
                (Auth::WireDefault, _) => builder.bearer_auth(key),
            };
        }
        for (name, value) in &self.config.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        let response = tokio::select! {
            _ = cancel.cancelled() => return Err(ProviderError::Aborted.into()),
            sent = tokio::time::timeout(idle, builder.send()) => match sent {
                Err(_) => return Err(self.transport(format!("no response within {}s", idle.as_secs())).into()),
                Ok(Err(e)) => return Err(self.transport(format!("request failed: {}", describe(&e))).into()),
                Ok(Ok(response)) => response,
            },
        };
        let status = response.status();
        if !status.is_success() {
            let retry_after = retry_after_from_headers(response.headers());
            let text = tokio::select! {
                _ = cancel.cancelled() => return Err(ProviderError::Aborted.into()),
                text = tokio::time::timeout(idle, read_prefix(response, MAX_ERROR_BODY)) => {
                    text.unwrap_or_default()
                }
            };
            let mut message = error_body_message(&text);
            if status.as_u16() == 529 || message.to_ascii_lowercase().contains("overloaded") {
                message = format!("overloaded: {message}");
            }
            let message = crate::cloud::explain_http_error(&self.config, status.as_u16(), message);
            let message = redact(message, key);
            return Err(Failure {
                error: ProviderError::Http {
                    provider: provider.to_string(),
                    status: status.as_u16(),
                    message,
                    retryable: status_retryable(status.as_u16()),
                },
                retry_after,
            });
        }

        let is_json = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().starts_with("application/json"));
        let mut decoder = Decoder::new(target.stream_wire);
        let mut parser = Framer::new(target.stream_wire);
        let mut stream = response.bytes_stream();
        if is_json {
            // Not an event stream: a server that ignored `"stream": true`, or
            // an error object sent with status 200. Read it whole.
            let mut text = Vec::new();
            loop {
                let next = tokio::select! {
                    _ = cancel.cancelled() => return Err(ProviderError::Aborted.into()),
                    next = tokio::time::timeout(idle, stream.next()) => next,
                };
                match next {
                    Ok(Some(Ok(chunk))) => {
                        text.extend_from_slice(&chunk);
                        if text.len() > MAX_JSON_BODY {
                            return Err(ProviderError::Protocol {
                                provider: provider.to_string(),
                                message: format!(
                                    "non-streamed JSON response larger than {} MiB",
                                    MAX_JSON_BODY / (1024 * 1024)
                                ),
                            }
                            .into());
                        }
                    }
                    Ok(None) => break,
                    Ok(Some(Err(e))) => {
                        return Err(self
                            .transport(format!("response interrupted: {}", describe(&e)))
                            .into())
                    }
                    Err(_) => {
                        return Err(self
                            .transport(format!("no data for {}s", idle.as_secs()))
                            .into())
                    }
                }
            }
            let text = String::from_utf8_lossy(&text);
            if text.trim_start().starts_with('{') {
                return Err(json_instead_of_stream(provider, &text).into());
            }
            parser.push(text.as_bytes());
            return self.end_of_stream(&mut parser, &mut decoder, asm, emit);
        }
        let mut received = 0usize;
        loop {
            let next = tokio::select! {
                _ = cancel.cancelled() => return Err(ProviderError::Aborted.into()),
                next = tokio::time::timeout(idle, stream.next()) => next,
            };
            match next {
                Err(_) => {
                    return Err(self
                        .transport(format!("stream stalled: no data for {}s", idle.as_secs()))
                        .into())
                }
                Ok(Some(Err(e))) => {
                    return Err(self
                        .transport(format!("stream interrupted: {}", describe(&e)))
                        .into())
                }
                Ok(Some(Ok(chunk))) => {
                    received += chunk.len();
                    parser.push(&chunk);
                    while let Some(event) = parser.next_event(provider)? {
                        if decoder.event(provider, &event, asm, emit)? == Flow::Done {
                            return Ok(());
                        }
                    }
                    let too_big = if parser.pending_bytes() > MAX_SSE_EVENT {
                        Some(format!(
                            "an SSE event larger than {} MiB",
                            MAX_SSE_EVENT / (1024 * 1024)
                        ))
                    } else if received > MAX_STREAM {
                        Some(format!(
                            "the stream exceeded {} MiB",
                            MAX_STREAM / (1024 * 1024)
                        ))
                    } else {
                        None
                    };
                    if let Some(message) = too_big {
                        return Err(ProviderError::Protocol {
                            provider: provider.to_string(),
                            message,
                        }
                        .into());
                    }
                }
                Ok(None) => return self.end_of_stream(&mut parser, &mut decoder, asm, emit),
            }
        }
    }

    /// The body ended: flush the parser; the reply must be complete.
    fn end_of_stream(
        &self,
        parser: &mut Framer,
        decoder: &mut Decoder,
        asm: &mut Assembler,
        emit: &mut (dyn FnMut(StreamEvent) + Send + '_),
    ) -> Result<(), Failure> {
        let provider = self.config.provider.as_str();
        while let Some(event) = parser.drain(provider)? {
            if decoder.event(provider, &event, asm, emit)? == Flow::Done {
                return Ok(());
            }
        }
        if decoder.complete_at_eof(asm, emit) {
            return Ok(());
        }
        Err(self
            .transport("stream ended before the reply was complete".to_string())
            .into())
    }
}

/// Where one request goes, the wire it speaks and the stream format that
/// comes back (Claude on Vertex answers in Anthropic's format).
struct Target {
    url: String,
    wire: Wire,
    stream_wire: Wire,
}

/// A JSON object received where an event stream was expected: the
/// provider's error when it holds one, else a protocol error.
fn json_instead_of_stream(provider: &str, text: &str) -> ProviderError {
    let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let error = value.get("error").filter(|e| !e.is_null());
    if error.is_some() || value.get("type").and_then(Value::as_str) == Some("error") {
        let kind = value
            .pointer("/error/type")
            .or_else(|| value.pointer("/error/code"))
            .and_then(Value::as_str)
            .unwrap_or("error")
            .to_string();
        let message = error_body_message(text);
        let retryable = crate::error::error_type_retryable(&kind, &message);
        return ProviderError::api(provider, kind, message, retryable);
    }
    ProviderError::Protocol {
        provider: provider.to_string(),
        message: format!(
            "expected an event stream, got a JSON body: {}",
            error_body_message(text)
        ),
    }
}

/// The Responses endpoint of a base URL (the Go original's rule): a URL
/// ending in `/responses` is used as is; one ending in a version segment
/// (`/v1`, `/v4`...) gets `/responses`; any other gets `/v1/responses`.
pub fn responses_url(base: &str) -> String {
    let base = base.trim_end_matches('/');
    if base.ends_with("/responses") {
        return base.to_string();
    }
    let last = base.rsplit('/').next().unwrap_or("");
    let versioned =
        last.len() > 1 && last.starts_with('v') && last[1..].bytes().all(|b| b.is_ascii_digit());
    if versioned {
        format!("{base}/responses")
    } else {
        format!("{base}/v1/responses")
    }
}

/// A reqwest error with its sources (reqwest's top-level text is terse).
pub(crate) fn describe(error: &reqwest::Error) -> String {
    let mut out = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        let text = inner.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = inner.source();
    }
    out
}
