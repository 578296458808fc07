//! The Google Gemini API (`streamGenerateContent?alt=sse`): AI Studio
//! (`google`) and Gemini models on Vertex AI (`google-vertex`).

mod fast;
pub(crate) mod request;
pub(crate) mod schema;
pub(crate) mod stream;

/// `POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`
/// (the API version is not repeated when the base URL already ends with
/// `/v1beta` or `/v1`).
pub(crate) fn endpoint(base: &str, model: &str) -> String {
    let base = base.trim_end_matches('/');
    let model = model.strip_prefix("models/").unwrap_or(model);
    if base.ends_with("/v1beta") || base.ends_with("/v1") {
        format!("{base}/models/{model}:streamGenerateContent?alt=sse")
    } else {
        format!("{base}/v1beta/models/{model}:streamGenerateContent?alt=sse")
    }
}
