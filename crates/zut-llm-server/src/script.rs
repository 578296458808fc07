//! Scripts: what the server answers to one request.

use serde::{Deserialize, Serialize};

/// The wire format of a scripted reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Anthropic Messages API streaming events.
    Anthropic,
    /// OpenAI chat completions chunks.
    Openai,
    /// Google Gemini `streamGenerateContent?alt=sse` chunks.
    Gemini,
    /// Amazon Bedrock Converse-Stream binary event-stream frames.
    Bedrock,
    /// OpenAI Responses API events (`src/responses.rs`).
    Responses,
}

/// One content block of a scripted assistant reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    /// Assistant text.
    Text {
        /// The text.
        text: String,
    },
    /// Reasoning ("thinking"); the signature is only sent in Anthropic format.
    Thinking {
        /// Reasoning text.
        text: String,
        /// Anthropic signature.
        #[serde(default)]
        signature: String,
    },
    /// A tool call.
    ToolCall {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Raw JSON arguments, streamed as-is (may be invalid on purpose).
        args: String,
    },
}

/// Token usage reported by a scripted reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Input tokens (Anthropic `input_tokens`; OpenAI `prompt_tokens` minus cached).
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Cache reads (Anthropic `cache_read_input_tokens`; OpenAI `cached_tokens`).
    #[serde(default)]
    pub cache_read: u64,
    /// Cache writes (Anthropic `cache_creation_input_tokens`; not sent by OpenAI).
    #[serde(default)]
    pub cache_write: u64,
    /// OpenAI `reasoning_tokens`, when set.
    #[serde(default)]
    pub reasoning: Option<u64>,
}

/// One raw SSE frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SseFrame {
    /// `event:` field, if any.
    #[serde(default)]
    pub event: Option<String>,
    /// `data:` payload (split on `\n` into several `data:` lines).
    pub data: String,
}

/// What a response carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Body {
    /// An assistant reply rendered as an SSE stream in `format`.
    Reply {
        /// Wire format.
        format: Format,
        /// Content blocks, in order.
        blocks: Vec<Block>,
        /// Provider stop reason (`end_turn`, `tool_calls`...); default from the blocks.
        #[serde(default)]
        stop: Option<String>,
        /// Reported usage.
        #[serde(default)]
        usage: Usage,
        /// OpenAI only: stream the argument deltas of several tool calls
        /// round-robin (interleaved by index) instead of one call after the other.
        #[serde(default)]
        interleave: bool,
    },
    /// A JSON error body `{"type":"error","error":{"type","message"}}`, which
    /// both Anthropic and OpenAI clients can read.
    Error {
        /// Error type (`rate_limit_error`, `overloaded_error`, `api_error`...).
        error_type: String,
        /// Human message.
        message: String,
    },
    /// Explicit SSE frames.
    Events {
        /// The frames, in order.
        frames: Vec<SseFrame>,
    },
    /// A raw body sent verbatim (as `text/event-stream`).
    Raw {
        /// Body text.
        text: String,
    },
    /// Explicit binary event-stream frames (Bedrock), sent as
    /// `application/vnd.amazon.eventstream`.
    EventStream {
        /// The frames, in order.
        frames: Vec<crate::bedrock::EventFrame>,
    },
    /// A JSON body sent verbatim as `application/json` (a provider's own
    /// error format).
    Json {
        /// Body text.
        text: String,
    },
}

/// One scripted response. Scripts are queued with [`crate::LlmServer::push`]
/// and consumed one per request, in order.
///
/// As JSON (for the `zut-llm-server` binary) a script is this struct's serde
/// form, e.g. `{"body":{"kind":"reply","format":"anthropic","blocks":[{"type":"text","text":"hi"}]},"delta_bytes":10}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Script {
    /// HTTP status (default 200).
    #[serde(default = "default_status")]
    pub status: u16,
    /// Extra response headers.
    #[serde(default)]
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Body,
    /// Split text, thinking and tool arguments into deltas of at most this
    /// many bytes (on char boundaries). Default: one delta per block.
    #[serde(default)]
    pub delta_bytes: Option<usize>,
    /// Write the body in HTTP chunks of this many bytes (frames may be split
    /// anywhere, even inside a UTF-8 sequence). Default: one write per frame.
    #[serde(default)]
    pub chunk_bytes: Option<usize>,
    /// Drop the connection after this many SSE frames.
    #[serde(default)]
    pub cut_after: Option<usize>,
    /// Stop sending after this many SSE frames and hang until the client goes away.
    #[serde(default)]
    pub hang_after: Option<usize>,
    /// Wait this long before sending the response headers.
    #[serde(default)]
    pub delay_ms: Option<u64>,
    /// Wait this long between frames.
    #[serde(default)]
    pub event_delay_ms: Option<u64>,
    /// Only answer a request whose raw body contains this text (the first
    /// queued script that matches answers; unmatched ones stay queued).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    /// Only answer a request whose raw body does not contain this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unless: Option<String>,
}

fn default_status() -> u16 {
    200
}

impl Script {
    /// A script with status 200 and the given body.
    pub fn new(body: Body) -> Self {
        Self {
            status: 200,
            headers: Vec::new(),
            body,
            delta_bytes: None,
            chunk_bytes: None,
            cut_after: None,
            hang_after: None,
            delay_ms: None,
            event_delay_ms: None,
            when: None,
            unless: None,
        }
    }

    /// Answers only requests whose raw body contains `text` (see
    /// [`Script::when`]).
    pub fn when(mut self, text: impl Into<String>) -> Self {
        self.when = Some(text.into());
        self
    }

    /// Answers only requests whose raw body does not contain `text`.
    pub fn unless(mut self, text: impl Into<String>) -> Self {
        self.unless = Some(text.into());
        self
    }

    /// Whether this script may answer a request with this raw body.
    pub fn matches(&self, raw_body: &str) -> bool {
        self.when.as_deref().is_none_or(|w| raw_body.contains(w))
            && self.unless.as_deref().is_none_or(|u| !raw_body.contains(u))
    }

    /// A reply in `format` made of `blocks`.
    pub fn reply(format: Format, blocks: Vec<Block>) -> Self {
        Self::new(Body::Reply {
            format,
            blocks,
            stop: None,
            usage: Usage {
                input: 10,
                output: 5,
                ..Usage::default()
            },
            interleave: false,
        })
    }

    /// An Anthropic text reply.
    pub fn anthropic_text(text: impl Into<String>) -> Self {
        Self::reply(Format::Anthropic, vec![Block::text(text)])
    }

    /// An Anthropic reply with one tool call (`args` is raw JSON text).
    pub fn anthropic_tool_call(
        id: impl Into<String>,
        name: impl Into<String>,
        args: impl Into<String>,
    ) -> Self {
        Self::reply(Format::Anthropic, vec![Block::tool_call(id, name, args)])
    }

    /// An OpenAI text reply.
    pub fn openai_text(text: impl Into<String>) -> Self {
        Self::reply(Format::Openai, vec![Block::text(text)])
    }

    /// An OpenAI reply with one tool call (`args` is raw JSON text).
    pub fn openai_tool_call(
        id: impl Into<String>,
        name: impl Into<String>,
        args: impl Into<String>,
    ) -> Self {
        Self::reply(Format::Openai, vec![Block::tool_call(id, name, args)])
    }

    /// An HTTP error with a JSON error body whose type and message suit the
    /// status (429 `rate_limit_error`, 529 `overloaded_error`, 5xx `api_error`...).
    pub fn status(status: u16) -> Self {
        let (error_type, message) = match status {
            400 => ("invalid_request_error", "invalid request"),
            401 => ("authentication_error", "invalid x-api-key"),
            403 => ("permission_error", "permission denied"),
            404 => ("not_found_error", "not found"),
            429 => ("rate_limit_error", "rate limited"),
            529 => ("overloaded_error", "Overloaded"),
            _ => ("api_error", "internal server error"),
        };
        let mut script = Self::new(Body::Error {
            error_type: error_type.to_string(),
            message: message.to_string(),
        });
        script.status = status;
        script
    }

    /// An Anthropic stream (status 200) that fails with an `error` event
    /// right after `message_start`.
    pub fn anthropic_error_event(error_type: &str, message: &str) -> Self {
        let start = crate::render::anthropic_message_start(&Usage::default());
        let error = serde_json::json!({
            "type": "error",
            "error": {"type": error_type, "message": message},
        });
        Self::events(vec![start, SseFrame::named("error", error.to_string())])
    }

    /// A stream of explicit SSE frames.
    pub fn events(frames: Vec<SseFrame>) -> Self {
        Self::new(Body::Events { frames })
    }

    /// A raw SSE body sent verbatim.
    pub fn raw_sse(text: impl Into<String>) -> Self {
        Self::new(Body::Raw { text: text.into() })
    }

    /// A stream in `format` whose second frame carries invalid JSON.
    pub fn malformed(format: Format) -> Self {
        match format {
            Format::Anthropic => Self::events(vec![
                crate::render::anthropic_message_start(&Usage::default()),
                SseFrame::named("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}"),
            ]),
            Format::Openai => Self::events(vec![
                SseFrame::data("{\"id\":\"chatcmpl-zut\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}"),
                SseFrame::data("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"oops"),
            ]),
            Format::Gemini => Self::events(vec![
                SseFrame::data("{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ok\"}],\"role\":\"model\"},\"index\":0}]}"),
                SseFrame::data("{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"oops"),
            ]),
            Format::Bedrock => Self::event_stream(vec![
                crate::bedrock::EventFrame::event("messageStart", "{\"role\":\"assistant\"}"),
                crate::bedrock::EventFrame::event("contentBlockDelta", "{\"contentBlockIndex\":0,\"delta\":{\"text\":\"oops"),
            ]),
            Format::Responses => Self::responses_malformed(),
        }
    }

    /// A Gemini text reply.
    pub fn gemini_text(text: impl Into<String>) -> Self {
        Self::reply(Format::Gemini, vec![Block::text(text)])
    }

    /// A Bedrock text reply.
    pub fn bedrock_text(text: impl Into<String>) -> Self {
        Self::reply(Format::Bedrock, vec![Block::text(text)])
    }

    /// A Gemini stream (status 200) whose only chunk blocks the prompt
    /// (`promptFeedback.blockReason`, e.g. `SAFETY`).
    pub fn gemini_prompt_blocked(reason: &str) -> Self {
        Self::events(vec![crate::gemini::prompt_blocked(reason)])
    }

    /// A Gemini error object: as the body of an HTTP error (`status` not
    /// 200) or, with status 200, as one SSE event of the stream.
    pub fn gemini_error(status: u16, code: u16, grpc_status: &str, message: &str) -> Self {
        let text = crate::gemini::error_json(code, grpc_status, message);
        if status == 200 {
            Self::events(vec![SseFrame::data(text)])
        } else {
            Self::new(Body::Json { text }).with_status(status)
        }
    }

    /// A Bedrock HTTP error: `{"message": ..}` with `x-amzn-errortype`.
    pub fn bedrock_error(status: u16, error_type: &str, message: &str) -> Self {
        Self::new(Body::Json {
            text: serde_json::json!({ "message": message }).to_string(),
        })
        .with_status(status)
        .header(
            "x-amzn-errortype",
            format!("{error_type}:http://internal.amazon.com/coral/com.amazon.bedrock/"),
        )
    }

    /// A stream of explicit event-stream frames (Bedrock).
    pub fn event_stream(frames: Vec<crate::bedrock::EventFrame>) -> Self {
        Self::new(Body::EventStream { frames })
    }

    /// A JSON body sent as `application/json` with `status`.
    pub fn json(status: u16, text: impl Into<String>) -> Self {
        Self::new(Body::Json { text: text.into() }).with_status(status)
    }

    /// Hang before sending any response (until the client goes away).
    pub fn hang() -> Self {
        let mut script = Self::events(Vec::new());
        script.hang_after = Some(0);
        script
    }

    /// Set the HTTP status.
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = status;
        self
    }

    /// Set the error message of an [`Body::Error`] script.
    pub fn message(mut self, text: impl Into<String>) -> Self {
        if let Body::Error { message, .. } = &mut self.body {
            *message = text.into();
        }
        self
    }

    /// Add a `retry-after: <secs>` header.
    pub fn retry_after(self, secs: u64) -> Self {
        self.header("retry-after", secs.to_string())
    }

    /// Add a response header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Split streamed text/arguments into deltas of at most `n` bytes.
    pub fn delta_bytes(mut self, n: usize) -> Self {
        self.delta_bytes = Some(n.max(1));
        self
    }

    /// Write the body in HTTP chunks of `n` bytes.
    pub fn chunk_bytes(mut self, n: usize) -> Self {
        self.chunk_bytes = Some(n.max(1));
        self
    }

    /// Drop the connection after `n` SSE frames.
    pub fn cut_after(mut self, n: usize) -> Self {
        self.cut_after = Some(n);
        self
    }

    /// Hang (until the client goes away) after `n` SSE frames.
    pub fn hang_after(mut self, n: usize) -> Self {
        self.hang_after = Some(n);
        self
    }

    /// Delay the response headers by `ms` milliseconds.
    pub fn delay_ms(mut self, ms: u64) -> Self {
        self.delay_ms = Some(ms);
        self
    }

    /// Wait `ms` milliseconds between frames.
    pub fn event_delay_ms(mut self, ms: u64) -> Self {
        self.event_delay_ms = Some(ms);
        self
    }

    /// Set the provider stop reason of a reply (`max_tokens`, `length`, `refusal`...).
    pub fn stop(mut self, reason: impl Into<String>) -> Self {
        if let Body::Reply { stop, .. } = &mut self.body {
            *stop = Some(reason.into());
        }
        self
    }

    /// Set the reported usage of a reply.
    pub fn usage(mut self, value: Usage) -> Self {
        if let Body::Reply { usage, .. } = &mut self.body {
            *usage = value;
        }
        self
    }

    /// OpenAI replies: interleave the argument deltas of several tool calls.
    pub fn interleave(mut self) -> Self {
        if let Body::Reply { interleave, .. } = &mut self.body {
            *interleave = true;
        }
        self
    }

    /// The SSE frames (or raw text) this script streams, before cut/hang.
    pub fn frames(&self) -> Vec<String> {
        crate::render::frames(self)
    }

    /// The frames' bytes as sent (binary for Bedrock event streams).
    pub fn frame_bytes(&self) -> Vec<bytes::Bytes> {
        crate::render::wire_frames(self, true)
    }

    /// The whole body as sent (binary for Bedrock event streams).
    pub fn render_bytes(&self) -> Vec<u8> {
        self.frame_bytes().concat()
    }

    /// The full body text this script would send (all frames concatenated).
    /// Useful to pre-render a large reply once and replay it with [`Script::raw_sse`].
    pub fn render_body(&self) -> String {
        self.frames().concat()
    }

    /// This script with its reply or frames rendered once into a
    /// [`Body::Raw`] body (same status, headers, chunking and delay), so the
    /// server does not render it again for every request and sends it in
    /// one write. Scripts whose playback counts or paces frames
    /// (`cut_after`, `hang_after`, `event_delay_ms`) and error bodies are
    /// returned unchanged. OpenAI replies are rendered as for a request that
    /// asked for `stream_options.include_usage` (zut's client does).
    pub fn prerendered(&self) -> Script {
        let counts_frames =
            self.cut_after.is_some() || self.hang_after.is_some() || self.event_delay_ms.is_some();
        let binary = matches!(
            self.body,
            Body::Reply {
                format: Format::Bedrock,
                ..
            } | Body::EventStream { .. }
        );
        if counts_frames || binary || !matches!(self.body, Body::Reply { .. } | Body::Events { .. })
        {
            return self.clone();
        }
        Script {
            body: Body::Raw {
                text: self.render_body(),
            },
            delta_bytes: None,
            ..self.clone()
        }
    }
}

impl Block {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Block::Text { text: text.into() }
    }

    /// A thinking block with an Anthropic signature.
    pub fn thinking(text: impl Into<String>, signature: impl Into<String>) -> Self {
        Block::Thinking {
            text: text.into(),
            signature: signature.into(),
        }
    }

    /// A tool call with raw JSON arguments.
    pub fn tool_call(
        id: impl Into<String>,
        name: impl Into<String>,
        args: impl Into<String>,
    ) -> Self {
        Block::ToolCall {
            id: id.into(),
            name: name.into(),
            args: args.into(),
        }
    }
}

impl SseFrame {
    /// A frame with an `event:` name.
    pub fn named(event: impl Into<String>, data: impl Into<String>) -> Self {
        Self {
            event: Some(event.into()),
            data: data.into(),
        }
    }

    /// A data-only frame.
    pub fn data(data: impl Into<String>) -> Self {
        Self {
            event: None,
            data: data.into(),
        }
    }

    /// The frame's wire text, ending with a blank line.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(self.data.len() + 32);
        if let Some(event) = &self.event {
            out.push_str("event: ");
            out.push_str(event);
            out.push('\n');
        }
        for line in self.data.split('\n') {
            out.push_str("data: ");
            out.push_str(line);
            out.push('\n');
        }
        out.push('\n');
        out
    }
}
