//! A local scripted LLM server for zut's tests and benchmarks.
//!
//! [`LlmServer`] is a real HTTP/1.1 server on `127.0.0.1` (random port). Each
//! request it receives is recorded ([`RecordedRequest`]) and answered with the
//! next queued [`Script`]: an SSE stream in the exact wire format of the
//! Anthropic Messages API, of OpenAI chat completions or of the OpenAI
//! Responses API, or an injected
//! failure (HTTP error status with `retry-after`, a stream cut in the middle,
//! malformed SSE, a delay or a hang).
//!
//! The server answers every path the same way: the script decides the
//! response, the recorded request tells the test what the client sent.
//! Anthropic clients use [`LlmServer::url`] as base URL (they post to
//! `/v1/messages`); OpenAI clients use [`LlmServer::openai_base_url`] (they
//! post to `/v1/chat/completions`).

mod bedrock;
mod body;
mod gemini;
mod render;
mod responses;
mod script;
mod server;
mod web_search;

pub use bedrock::EventFrame;
pub use script::{Block, Body, Format, Script, SseFrame, Usage};
pub use server::{LlmServer, RecordedRequest};
pub use web_search::{Citation, WebResult, WebSearchReply};
