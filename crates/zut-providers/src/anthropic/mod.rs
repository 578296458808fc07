//! Anthropic Messages API: request body and streamed event decoding.

pub(crate) mod request;
pub(crate) mod request_bytes;
pub(crate) mod stream;

/// `anthropic-version` header value.
pub(crate) const API_VERSION: &str = "2023-06-01";
