//! zut's LLM providers.
//!
//! Owns the provider-neutral conversation types ([`types`]), the wire formats
//! of the Anthropic Messages API, OpenAI-compatible chat completions and the
//! OpenAI Responses API, SSE framing, reasoning levels, retries and
//! credentials; Google Gemini, Vertex AI and Amazon Bedrock ([`cloud`]).
//! Knows nothing of extensions, tools'
//! implementations, sessions or the UI.
//!
//! Entry points: [`resolve`] turns [`ProviderOptions`] (flags), the
//! environment and `$ZUT_HOME/auth.json` into a [`ProviderConfig`];
//! [`Provider::new`] builds a provider from it; [`Provider::stream`] runs one
//! request, streaming [`StreamEvent`]s and returning a [`Completion`].
//! [`parse_stream`] decodes a recorded SSE body offline. See the crate's
//! README for presets, credentials and the retry rules.

mod anthropic;
mod assemble;
mod bedrock;
pub mod catalog;
pub mod cloud;
pub mod config;
pub mod credentials;
mod decode;
pub mod error;
mod framing;
mod gemini;
pub mod key_command;
mod levels;
pub mod model_list;
pub mod oauth_openrouter;
mod openai;
pub mod presets;
mod provider;
mod rate_gate;
pub mod reasoning;
mod responses;
pub mod retry;
mod scan;
pub mod server_search;
pub mod sse;
mod text;
pub mod types;
mod vertex;

pub use assemble::{invalid_args_message, REDACTED_THINKING_PREFIX};
pub use bedrock::credentials::{BedrockAuth, BedrockCredentials};
pub use bedrock::process::CredentialProcess;
pub use bedrock::sign::sigv4_headers;
pub use bedrock::temporary::{Fetch as AwsFetch, TemporaryCredentials};
pub use catalog::Prices;
pub use cloud::CloudAuth;
pub use config::{resolve, Azure, KeySource, ProviderConfig, ProviderOptions, AZURE_AD_TOKEN_ENV};
pub use decode::parse_stream;
pub use error::ProviderError;
pub use presets::{preset, Auth, Preset, Wire, PRESETS};
pub use provider::{responses_url, Provider};
pub use reasoning::{parse_reasoning, Clamped};
pub use responses::{
    parse_signature as parse_responses_reasoning, signature as responses_reasoning,
    REASONING_PREFIX as RESPONSES_REASONING_PREFIX,
};
pub use retry::RetryPolicy;
pub use server_search::{ServerSearchKind, WebSearchOutcome, WebSource};
pub use types::*;
pub use vertex::auth::VertexAuth;
