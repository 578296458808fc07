//! OpenAI-compatible chat completions: request body and streamed chunk decoding.

pub(crate) mod request;
pub(crate) mod stream;
