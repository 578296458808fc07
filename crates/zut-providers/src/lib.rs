//! zut's LLM providers.
//!
//! Owns the provider-neutral conversation types ([`types`]), the wire formats
//! of the Anthropic Messages API and OpenAI-compatible chat completions, SSE
//! framing, retries and credentials. Knows nothing of extensions, tools'
//! implementations, sessions or the UI.

pub mod types;

pub use types::*;
