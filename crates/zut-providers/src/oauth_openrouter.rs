//! OpenRouter's OAuth PKCE flow, which OpenRouter publishes for
//! third-party applications (<https://openrouter.ai/docs/use-cases/oauth-pkce>):
//! the user authorizes zut in the browser at `{base}/auth?callback_url=…&
//! code_challenge=…&code_challenge_method=S256`, OpenRouter redirects to the
//! local callback with `?code=…`, and zut exchanges the code and its
//! verifier for a user-controlled API key at `{base}/api/v1/auth/keys`.
//! zut presents itself as zut: no other application's client id or
//! headers. `ZUT_OPENROUTER_AUTH_URL` overrides `{base}` (tests).

use std::io::Read as _;
use std::time::Duration;

use base64::Engine as _;
use sha2::Digest as _;

use crate::error::ProviderError;

/// OpenRouter's site.
pub const DEFAULT_BASE: &str = "https://openrouter.ai";

/// The base URL of the flow (`ZUT_OPENROUTER_AUTH_URL`, else OpenRouter).
pub fn base(env: &dyn Fn(&str) -> Option<String>) -> String {
    env("ZUT_OPENROUTER_AUTH_URL")
        .filter(|u| !u.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_BASE.to_string())
        .trim_end_matches('/')
        .to_string()
}

/// A PKCE verifier and its S256 challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pkce {
    /// The secret kept by zut (43 characters, base64url).
    pub verifier: String,
    /// `base64url(sha256(verifier))`, sent in the browser URL.
    pub challenge: String,
}

/// A fresh verifier from the system's random source.
pub fn pkce() -> Result<Pkce, ProviderError> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| ProviderError::Config(format!("no random source for OAuth: {e}")))?;
    let verifier = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    Ok(Pkce {
        challenge: challenge(&verifier),
        verifier,
    })
}

/// The S256 challenge of `verifier`.
pub fn challenge(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(sha2::Sha256::digest(verifier.as_bytes()))
}

/// The page the user opens to authorize zut.
pub fn authorize_url(base: &str, callback: &str, challenge: &str) -> String {
    format!(
        "{base}/auth?callback_url={}&code_challenge={challenge}&code_challenge_method=S256",
        encode(callback)
    )
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Exchanges the callback's `code` (and the verifier) for an API key.
/// Errors never hold the key.
pub async fn exchange(
    base: &str,
    code: &str,
    verifier: &str,
    timeout: Duration,
) -> Result<String, ProviderError> {
    let url = format!("{base}/api/v1/auth/keys");
    let client = reqwest::Client::builder()
        .timeout(timeout)
        .user_agent(concat!("zut/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| ProviderError::Config(format!("cannot build HTTP client: {e}")))?;
    let fail = |message: String| ProviderError::Transport {
        provider: "openrouter".into(),
        message,
    };
    let response = client
        .post(&url)
        .header("content-type", "application/json")
        .body(
            serde_json::json!({
                "code": code,
                "code_verifier": verifier,
                "code_challenge_method": "S256",
            })
            .to_string(),
        )
        .send()
        .await
        .map_err(|e| fail(format!("POST {url}: {e}")))?;
    let status = response.status();
    let text = response
        .text()
        .await
        .map_err(|e| fail(format!("POST {url}: {e}")))?;
    if !status.is_success() {
        return Err(ProviderError::Http {
            provider: "openrouter".into(),
            status: status.as_u16(),
            message: crate::error::error_body_message(&text),
            retryable: false,
        });
    }
    serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("key")?.as_str().map(str::to_string))
        .filter(|k| !k.trim().is_empty())
        .ok_or_else(|| ProviderError::Protocol {
            provider: "openrouter".into(),
            message: "the key exchange answered without a \"key\"".into(),
        })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn s256_challenge_and_url() {
        // RFC 7636 appendix B.
        assert_eq!(
            challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        let p = pkce().unwrap();
        assert_eq!(p.verifier.len(), 43);
        assert_eq!(p.challenge, challenge(&p.verifier));
        let u = authorize_url(
            "https://openrouter.ai",
            "http://localhost:3000/callback",
            "abc",
        );
        assert_eq!(
            u,
            "https://openrouter.ai/auth?callback_url=http%3A%2F%2Flocalhost%3A3000%2Fcallback&code_challenge=abc&code_challenge_method=S256"
        );
    }
}
