//! Vertex AI (`google-vertex`): Gemini models through
//! `streamGenerateContent` and Anthropic Claude models through
//! `streamRawPredict`, authenticated with an API key or Google OAuth
//! access tokens ([`auth`]).

pub(crate) mod auth;

/// Anthropic's API version on Vertex (sent in the body).
pub(crate) const ANTHROPIC_VERSION: &str = "vertex-2023-10-16";

/// The default base URL of a location (`global` has no regional host).
pub(crate) fn default_base_url(location: &str) -> String {
    if location == "global" {
        "https://aiplatform.googleapis.com".to_string()
    } else {
        format!("https://{location}-aiplatform.googleapis.com")
    }
}

/// Whether a Vertex model is Anthropic's (served by `streamRawPredict`).
pub(crate) fn is_anthropic(model: &str) -> bool {
    model.starts_with("claude")
}

/// The streaming endpoint of `model`.
pub(crate) fn endpoint(base: &str, project: &str, location: &str, model: &str) -> String {
    let base = base.trim_end_matches('/');
    let prefix = format!("{base}/v1/projects/{project}/locations/{location}");
    if is_anthropic(model) {
        format!("{prefix}/publishers/anthropic/models/{model}:streamRawPredict")
    } else {
        format!("{prefix}/publishers/google/models/{model}:streamGenerateContent?alt=sse")
    }
}
