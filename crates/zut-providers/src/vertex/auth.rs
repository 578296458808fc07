//! Vertex AI credentials and access tokens.
//!
//! Order (as the Go original): `GOOGLE_CLOUD_API_KEY` (sent as
//! `x-goog-api-key`); else the JSON file named by
//! `GOOGLE_APPLICATION_CREDENTIALS`, else gcloud's application-default
//! credentials (`$CLOUDSDK_CONFIG` or `~/.config/gcloud`, file
//! `application_default_credentials.json`). A `service_account` file
//! gives an RS256-signed JWT exchanged at its `token_uri` for an access
//! token; an `authorized_user` file (from `gcloud auth
//! application-default login`) gives one from its refresh token. Tokens
//! are cached and refreshed five minutes before they expire.
//! Project: `GOOGLE_CLOUD_PROJECT`, else the file's `project_id` /
//! `quota_project_id`; location: `GOOGLE_CLOUD_LOCATION`, default
//! `us-central1`.

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_util::StreamExt;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde::{Deserialize, Serialize};

use crate::error::{error_body_message, status_retryable, ProviderError};

/// OAuth scope asked for.
const SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";
/// Google's token endpoint (when a file has none).
const TOKEN_URI: &str = "https://oauth2.googleapis.com/token";
/// A cached token is renewed this long before it expires.
const REFRESH_MARGIN: Duration = Duration::from_secs(300);

#[derive(Clone)]
enum Kind {
    ApiKey(String),
    ServiceAccount {
        email: String,
        key: EncodingKey,
        key_id: Option<String>,
        token_uri: String,
    },
    AuthorizedUser {
        client_id: String,
        client_secret: String,
        refresh_token: String,
        token_uri: String,
    },
}

struct Cached {
    token: String,
    renew_at: Instant,
}

/// Resolved Vertex AI settings and the token cache.
pub struct VertexAuth {
    /// Google Cloud project id.
    pub project: String,
    /// Region (`us-central1`, `global`...).
    pub location: String,
    /// Where the credentials came from (a variable or a file), for errors.
    pub source: String,
    kind: Kind,
    cache: tokio::sync::Mutex<Option<Cached>>,
}

impl std::fmt::Debug for VertexAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VertexAuth")
            .field("project", &self.project)
            .field("location", &self.location)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

impl PartialEq for VertexAuth {
    fn eq(&self, other: &Self) -> bool {
        self.project == other.project
            && self.location == other.location
            && self.source == other.source
    }
}

#[derive(Deserialize)]
struct CredentialsFile {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    client_email: String,
    #[serde(default)]
    private_key: String,
    #[serde(default)]
    private_key_id: Option<String>,
    #[serde(default)]
    token_uri: Option<String>,
    #[serde(default)]
    client_id: String,
    #[serde(default)]
    client_secret: String,
    #[serde(default)]
    refresh_token: String,
    #[serde(default)]
    project_id: Option<String>,
    #[serde(default)]
    quota_project_id: Option<String>,
}

fn config(message: String) -> ProviderError {
    ProviderError::Config(format!("google-vertex: {message}"))
}

/// Resolve Vertex credentials, project and location from the environment
/// and the credentials file.
pub(crate) fn resolve(
    api_key: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<VertexAuth, ProviderError> {
    let location = env("GOOGLE_CLOUD_LOCATION").unwrap_or_else(|| "us-central1".to_string());
    let project = env("GOOGLE_CLOUD_PROJECT");
    let need_project = |project: Option<String>| {
        project.ok_or_else(|| {
            config("no project: set GOOGLE_CLOUD_PROJECT to your Google Cloud project id".into())
        })
    };
    let key = api_key
        .map(str::to_string)
        .map(|k| (k, "--api-key"))
        .or_else(|| env("GOOGLE_CLOUD_API_KEY").map(|k| (k, "GOOGLE_CLOUD_API_KEY")));
    if let Some((key, source)) = key {
        return Ok(VertexAuth {
            project: need_project(project)?,
            location,
            source: source.to_string(),
            kind: Kind::ApiKey(key),
            cache: tokio::sync::Mutex::new(None),
        });
    }
    let (path, via) = match env("GOOGLE_APPLICATION_CREDENTIALS") {
        Some(p) => (PathBuf::from(p), "GOOGLE_APPLICATION_CREDENTIALS"),
        None => {
            let dir = env("CLOUDSDK_CONFIG")
                .map(PathBuf::from)
                .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".config").join("gcloud")));
            let Some(path) = dir.map(|d| d.join("application_default_credentials.json")) else {
                return Err(no_credentials());
            };
            if !path.is_file() {
                return Err(no_credentials());
            }
            (path, "gcloud application-default credentials")
        }
    };
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(&path)
        .map_err(|e| config(format!("cannot read {shown} ({via}): {e}")))?;
    let file: CredentialsFile = serde_json::from_str(&text).map_err(|e| {
        config(format!(
            "{shown} ({via}) is not a credentials JSON file: line {}, column {}",
            e.line(),
            e.column()
        ))
    })?;
    let source = format!("{shown} ({via})");
    let project = project
        .or(file.project_id.clone())
        .or(file.quota_project_id.clone());
    let kind = match file.kind.as_str() {
        "service_account" => {
            if file.client_email.is_empty() || file.private_key.is_empty() {
                return Err(config(format!(
                    "{source}: a service_account file needs client_email and private_key"
                )));
            }
            let key = EncodingKey::from_rsa_pem(file.private_key.as_bytes()).map_err(|e| {
                config(format!("{source}: private_key is not an RSA PEM key: {e}"))
            })?;
            Kind::ServiceAccount {
                email: file.client_email,
                key,
                key_id: file.private_key_id,
                token_uri: file.token_uri.unwrap_or_else(|| TOKEN_URI.to_string()),
            }
        }
        "authorized_user" => {
            if file.client_id.is_empty()
                || file.client_secret.is_empty()
                || file.refresh_token.is_empty()
            {
                return Err(config(format!(
                    "{source}: an authorized_user file needs client_id, client_secret and refresh_token \
                     (run `gcloud auth application-default login` again)"
                )));
            }
            Kind::AuthorizedUser {
                client_id: file.client_id,
                client_secret: file.client_secret,
                refresh_token: file.refresh_token,
                token_uri: file.token_uri.unwrap_or_else(|| TOKEN_URI.to_string()),
            }
        }
        other => {
            return Err(config(format!(
                "{source}: unsupported credentials type {other:?} (expected service_account or authorized_user)"
            )))
        }
    };
    Ok(VertexAuth {
        project: need_project(project)?,
        location,
        source,
        kind,
        cache: tokio::sync::Mutex::new(None),
    })
}

fn no_credentials() -> ProviderError {
    config(
        "no credentials: set GOOGLE_CLOUD_API_KEY, or GOOGLE_APPLICATION_CREDENTIALS to a service-account \
         JSON file, or run `gcloud auth application-default login`"
            .into(),
    )
}

#[derive(Serialize)]
struct Claims<'a> {
    iss: &'a str,
    scope: &'a str,
    aud: &'a str,
    iat: u64,
    exp: u64,
}

#[derive(Deserialize)]
struct TokenResponse {
    access_token: String,
    #[serde(default)]
    expires_in: Option<u64>,
}

/// `application/x-www-form-urlencoded` value encoding.
fn form(pairs: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        out.push_str(k);
        out.push('=');
        out.push_str(&crate::bedrock::percent_encode(v));
    }
    out
}

impl VertexAuth {
    /// The API key, when requests use one (`x-goog-api-key`).
    pub(crate) fn api_key(&self) -> Option<&str> {
        match &self.kind {
            Kind::ApiKey(key) => Some(key),
            _ => None,
        }
    }

    /// An access token (cached; exchanged when missing or about to
    /// expire). `None` with an API key.
    pub(crate) async fn token(
        &self,
        client: &reqwest::Client,
        provider: &str,
    ) -> Result<Option<String>, ProviderError> {
        if matches!(self.kind, Kind::ApiKey(_)) {
            return Ok(None);
        }
        let mut cache = self.cache.lock().await;
        if let Some(c) = cache.as_ref() {
            if Instant::now() < c.renew_at {
                return Ok(Some(c.token.clone()));
            }
        }
        let (token, lifetime) = self.exchange(client, provider).await?;
        // A token living less than the margin is used once, not cached.
        *cache = Some(Cached {
            token: token.clone(),
            renew_at: Instant::now() + lifetime.saturating_sub(REFRESH_MARGIN),
        });
        Ok(Some(token))
    }

    async fn exchange(
        &self,
        client: &reqwest::Client,
        provider: &str,
    ) -> Result<(String, Duration), ProviderError> {
        let (uri, body) = match &self.kind {
            Kind::ApiKey(_) => return Err(config("an API key has no token".into())),
            Kind::ServiceAccount {
                email,
                key,
                key_id,
                token_uri,
            } => {
                let now = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map(|d| d.as_secs())
                    .unwrap_or(0);
                let claims = Claims {
                    iss: email,
                    scope: SCOPE,
                    aud: token_uri,
                    iat: now,
                    exp: now + 3600,
                };
                let mut header = Header::new(Algorithm::RS256);
                header.kid = key_id.clone();
                let jwt = jsonwebtoken::encode(&header, &claims, key)
                    .map_err(|e| config(format!("{}: cannot sign a JWT: {e}", self.source)))?;
                (
                    token_uri,
                    form(&[
                        ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
                        ("assertion", &jwt),
                    ]),
                )
            }
            Kind::AuthorizedUser {
                client_id,
                client_secret,
                refresh_token,
                token_uri,
            } => (
                token_uri,
                form(&[
                    ("grant_type", "refresh_token"),
                    ("client_id", client_id),
                    ("client_secret", client_secret),
                    ("refresh_token", refresh_token),
                ]),
            ),
        };
        let transport = |message: String| ProviderError::Transport {
            provider: provider.to_string(),
            message,
        };
        let response = client
            .post(uri.as_str())
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .map_err(|e| transport(format!("token exchange at {uri} failed: {e}")))?;
        let status = response.status().as_u16();
        let mut bytes = Vec::new();
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk =
                chunk.map_err(|e| transport(format!("token exchange at {uri} failed: {e}")))?;
            bytes.extend_from_slice(&chunk);
            if bytes.len() > 1024 * 1024 {
                break;
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if !(200..300).contains(&status) {
            let detail = match serde_json::from_str::<serde_json::Value>(&text) {
                Ok(v) if v.get("error").is_some_and(serde_json::Value::is_string) => {
                    let error = v["error"].as_str().unwrap_or_default();
                    match v.get("error_description").and_then(|d| d.as_str()) {
                        Some(d) => format!("{error}: {d}"),
                        None => error.to_string(),
                    }
                }
                _ => error_body_message(&text),
            };
            return Err(ProviderError::Http {
                provider: provider.to_string(),
                status,
                message: format!(
                    "token exchange at {uri} refused the credentials ({detail}); fix or renew {}",
                    self.source
                ),
                retryable: status_retryable(status),
            });
        }
        let parsed: TokenResponse =
            serde_json::from_str(&text).map_err(|e| ProviderError::Protocol {
                provider: provider.to_string(),
                message: format!("token exchange at {uri}: unexpected answer: {e}"),
            })?;
        Ok((
            parsed.access_token,
            Duration::from_secs(parsed.expires_in.unwrap_or(3600).max(1)),
        ))
    }
}
