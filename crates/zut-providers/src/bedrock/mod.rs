//! Amazon Bedrock's Converse-Stream API (`amazon-bedrock`): JSON requests
//! signed with SigV4 (or a Bedrock API key as bearer), answered with a
//! binary `application/vnd.amazon.eventstream`.

pub(crate) mod container;
pub(crate) mod credentials;
pub(crate) mod eventstream;
pub(crate) mod process;
pub(crate) mod profile;
pub(crate) mod request;
pub mod sign;
pub(crate) mod sso;
pub(crate) mod stream;
pub(crate) mod sts;
pub mod temporary;

/// The default endpoint of a region.
pub(crate) fn default_base_url(region: &str) -> String {
    format!("https://bedrock-runtime.{region}.amazonaws.com")
}

/// `POST {base}/model/{modelId}/converse-stream`, the model id (which may
/// hold `:` or, for ARNs, `/`) percent-encoded.
pub(crate) fn endpoint(base: &str, model: &str) -> String {
    format!(
        "{}/model/{}/converse-stream",
        base.trim_end_matches('/'),
        percent_encode(model)
    )
}

/// Percent-encode everything but RFC 3986's unreserved characters.
pub(crate) fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A clearer message for Bedrock's HTTP errors: signatures rejected for
/// clock skew say to fix the clock; 401/403 name the credentials' source.
pub(crate) fn explain_http_error(status: u16, message: &str, source: &str) -> String {
    let lower = message.to_ascii_lowercase();
    if lower.contains("signature expired")
        || lower.contains("not yet current")
        || lower.contains("clock skew")
        || lower.contains("request time too skewed")
    {
        return format!(
            "{message} — the request signature was rejected because this machine's clock is off; \
             fix the system time (e.g. enable NTP with `timedatectl set-ntp true`) and retry"
        );
    }
    if matches!(status, 401 | 403) {
        return format!(
            "{message} — check the AWS credentials from {source} (wrong, expired or without Bedrock access in this region)"
        );
    }
    message.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_encodes_model_ids() {
        assert_eq!(
            endpoint(
                "https://bedrock-runtime.us-east-1.amazonaws.com/",
                "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
            ),
            "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"
        );
    }
}
