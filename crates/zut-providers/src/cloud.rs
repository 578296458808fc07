//! The wires of Google and Amazon: Gemini (`google`), Vertex AI
//! (`google-vertex`) and Bedrock (`amazon-bedrock`) — their credentials,
//! endpoints, request bodies and authentication, called from
//! [`crate::Provider`].

use std::sync::Arc;
use std::time::SystemTime;

use serde_json::Value;

use crate::bedrock::credentials::{BedrockAuth, BedrockCredentials};
use crate::config::ProviderConfig;
use crate::error::ProviderError;
use crate::presets::Wire;
use crate::types::{Reasoning, Request};
use crate::vertex::auth::VertexAuth;
use crate::{anthropic, bedrock, gemini, vertex};

/// Credentials of the cloud providers (kept in [`ProviderConfig::cloud`]).
#[derive(Debug, Clone, PartialEq)]
pub enum CloudAuth {
    /// Vertex AI: project, location, API key or OAuth tokens (cached).
    Vertex(Arc<VertexAuth>),
    /// Amazon Bedrock: API key or access keys, region.
    Bedrock(Arc<BedrockAuth>),
}

impl CloudAuth {
    /// Bedrock credentials given explicitly (tests, embedding).
    pub fn bedrock(credentials: BedrockCredentials, region: &str, source: &str) -> CloudAuth {
        CloudAuth::Bedrock(Arc::new(BedrockAuth {
            credentials,
            source: source.to_string(),
            region: region.to_string(),
        }))
    }
}

impl CloudAuth {
    /// The API key or bearer token in use and where it came from (so that
    /// errors are scrubbed of it like any key).
    pub(crate) fn secret(&self) -> Option<(String, String)> {
        match self {
            CloudAuth::Vertex(v) => v.api_key().map(|k| (k.to_string(), v.source.clone())),
            CloudAuth::Bedrock(b) => match &b.credentials {
                BedrockCredentials::Bearer(token) => Some((token.clone(), b.source.clone())),
                BedrockCredentials::Keys { .. }
                | BedrockCredentials::Process(_)
                | BedrockCredentials::Temporary(_) => None,
            },
        }
    }
}

/// Resolve the credentials of `google-vertex` and `amazon-bedrock`
/// (`None` for the other presets).
pub(crate) fn resolve(
    preset: &str,
    api_key: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<CloudAuth>, ProviderError> {
    match preset {
        "google-vertex" => Ok(Some(CloudAuth::Vertex(Arc::new(vertex::auth::resolve(
            api_key, env,
        )?)))),
        "amazon-bedrock" => Ok(Some(CloudAuth::Bedrock(Arc::new(
            bedrock::credentials::resolve(api_key, env)?,
        )))),
        _ => Ok(None),
    }
}

/// The default base URL of a cloud provider (from its region).
pub(crate) fn default_base_url(auth: &CloudAuth) -> String {
    match auth {
        CloudAuth::Vertex(v) => vertex::default_base_url(&v.location),
        CloudAuth::Bedrock(b) => bedrock::default_base_url(&b.region),
    }
}

fn missing(config: &ProviderConfig) -> ProviderError {
    ProviderError::Config(format!(
        "{}: no credentials configured (resolve the provider through zut_providers::resolve, or use ProviderConfig::with_cloud)",
        config.provider
    ))
}

fn vertex_auth(config: &ProviderConfig) -> Result<&VertexAuth, ProviderError> {
    match &config.cloud {
        Some(CloudAuth::Vertex(v)) => Ok(v),
        _ => Err(missing(config)),
    }
}

/// The wire whose stream format a request of `model` gets back (Vertex
/// serves Claude in Anthropic's format).
pub(crate) fn stream_wire(wire: Wire, model: &str) -> Wire {
    match wire {
        Wire::Vertex if vertex::is_anthropic(model) => Wire::Anthropic,
        Wire::Vertex => Wire::Gemini,
        other => other,
    }
}

/// The endpoint of `model` on a cloud wire.
pub(crate) fn endpoint(config: &ProviderConfig, model: &str) -> String {
    match config.wire {
        Wire::Gemini => gemini::endpoint(&config.base_url, model),
        Wire::Bedrock => bedrock::endpoint(&config.base_url, model),
        _ => match &config.cloud {
            Some(CloudAuth::Vertex(v)) => {
                vertex::endpoint(&config.base_url, &v.project, &v.location, model)
            }
            _ => vertex::endpoint(&config.base_url, "-", "-", model),
        },
    }
}

/// The request body of a cloud wire.
///
/// `reasoning` is the request's level already clamped to the model's
/// levels ([`ProviderConfig::clamp_reasoning_for`]).
pub(crate) fn body(
    config: &ProviderConfig,
    req: &Request,
    model: &str,
    reasoning: Reasoning,
) -> Result<Value, ProviderError> {
    match stream_wire(config.wire, model) {
        Wire::Bedrock => Ok(bedrock::request::body(
            req,
            model,
            config.temperature,
            reasoning,
        )),
        Wire::Anthropic => {
            // Claude on Vertex: the Messages body with the model in the URL.
            let mut body = anthropic::request::body_with(req, model, reasoning);
            if let Some(obj) = body.as_object_mut() {
                obj.remove("model");
                obj.insert("anthropic_version".into(), vertex::ANTHROPIC_VERSION.into());
                if let (Some(t), false) = (config.temperature, obj.contains_key("thinking")) {
                    obj.insert("temperature".into(), serde_json::json!(t));
                }
            }
            Ok(body)
        }
        _ => gemini::request::body(&config.provider, req, model, config.temperature, reasoning),
    }
}

/// Authenticate a request of a cloud wire: Gemini's `x-goog-api-key`,
/// Vertex's API key or OAuth token, Bedrock's bearer key or SigV4
/// signature (over `url`, `content-type` and `body`).
pub(crate) async fn authorize(
    config: &ProviderConfig,
    client: &reqwest::Client,
    builder: reqwest::RequestBuilder,
    url: &str,
    body: &[u8],
) -> Result<reqwest::RequestBuilder, ProviderError> {
    match config.wire {
        Wire::Gemini => Ok(match config.api_key.as_deref() {
            Some(key) => builder.header("x-goog-api-key", key),
            None => builder,
        }),
        Wire::Vertex => {
            let auth = vertex_auth(config)?;
            if let Some(key) = auth.api_key() {
                return Ok(builder.header("x-goog-api-key", key));
            }
            match auth.token(client, &config.provider).await? {
                Some(token) => Ok(builder.bearer_auth(token)),
                None => Ok(builder),
            }
        }
        Wire::Bedrock => {
            let Some(CloudAuth::Bedrock(auth)) = &config.cloud else {
                return Err(missing(config));
            };
            if let BedrockCredentials::Bearer(token) = &auth.credentials {
                return Ok(builder.bearer_auth(token));
            }
            // Cached keys, or fetched: a `credential_process` runs off the
            // runtime's threads, STS and the SSO portal over HTTP.
            let keys = bedrock::temporary::signing_keys(&auth.credentials, client)
                .await
                .map_err(|e| ProviderError::Config(format!("{}: {e}", config.provider)))?
                .ok_or_else(|| missing(config))?;
            let headers = bedrock::sign::sigv4_headers(
                "POST",
                url,
                &[("content-type", "application/json")],
                body,
                &keys.access_key_id,
                &keys.secret_access_key,
                keys.session_token.as_deref(),
                &auth.region,
                "bedrock",
                SystemTime::now(),
            )
            .map_err(|e| ProviderError::Config(format!("{}: {e}", config.provider)))?;
            let mut builder = builder;
            for (name, value) in headers {
                builder = builder.header(name, value);
            }
            Ok(builder)
        }
        _ => Ok(builder),
    }
}

/// The message of `[{"error": {"message": ..}}]`, Google's error body for
/// some streaming failures.
fn google_error_array(body: &str) -> Option<String> {
    if !body.trim_start().starts_with('[') {
        return None;
    }
    let value: Value = serde_json::from_str(body).ok()?;
    value
        .pointer("/0/error/message")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// The `accept` header of a cloud wire's streaming request.
pub(crate) fn accept(wire: Wire) -> &'static str {
    match wire {
        Wire::Bedrock => "application/vnd.amazon.eventstream",
        _ => "text/event-stream",
    }
}

/// A cloud wire's HTTP error message made actionable: Google's error
/// arrays, Bedrock clock skew, and for refused Vertex or Bedrock
/// credentials where they came from. (A refused Gemini key is named by
/// the provider's `credential_hint`, as on every key-based wire.)
pub(crate) fn explain_http_error(config: &ProviderConfig, status: u16, message: String) -> String {
    // Google answers some errors with a JSON array of error objects.
    let message = match config.wire {
        Wire::Gemini | Wire::Vertex => google_error_array(&message).unwrap_or(message),
        _ => message,
    };
    match (&config.cloud, config.wire) {
        (Some(CloudAuth::Bedrock(b)), _) => {
            bedrock::explain_http_error(status, &message, &b.source)
        }
        (Some(CloudAuth::Vertex(v)), _) if matches!(status, 401 | 403) => {
            format!("{message} — check the credentials from {}", v.source)
        }
        _ => message,
    }
}
