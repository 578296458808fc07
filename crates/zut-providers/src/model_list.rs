//! A provider's model list endpoint: the cheapest authenticated call, used
//! to check a key (`zut auth login`, `/login`) and to discover models.
//!
//! * Anthropic Messages: `GET {base}/v1/models?limit=1000` (`x-api-key`).
//! * OpenAI-compatible and Responses: `GET {base}/models` (bearer; Ollama,
//!   llama.cpp, vLLM, OpenRouter, Groq... all answer it).
//! * Gemini: `GET {base}/v1beta/models?pageSize=1000` (`x-goog-api-key`).
//!
//! Vertex AI and Bedrock have no such endpoint for a key: asking is an error.
//!
//! Prices are read from OpenRouter's `pricing` object (`prompt`,
//! `completion`, `input_cache_read`, `input_cache_write`: US dollars per
//! token, as strings) and turned into dollars per million tokens. Other
//! lists' price fields are not read: their units differ from one service
//! to the next (per token, per million, per hour) and nothing in the
//! answer says which.

use std::time::Duration;

use futures_util::StreamExt as _;
use serde_json::Value;

use crate::catalog::Prices;
use crate::config::ProviderConfig;
use crate::error::{error_body_message, redact, ProviderError};
use crate::presets::{Auth, Wire};

/// Largest model list accepted (10,000 models with metadata are ~5 MB).
const MAX_BODY: usize = 32 << 20;

/// One model of a provider's list.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedModel {
    /// The id requests use.
    pub id: String,
    /// Context window in tokens, when the list says (Gemini
    /// `inputTokenLimit`, OpenRouter `context_length`...).
    pub context_window: Option<u64>,
    /// Output limit in tokens, when the list says.
    pub max_output: Option<u64>,
    /// Prices per million tokens, when the list carries them (OpenRouter's
    /// `pricing`); `None` when absent, negative (OpenRouter's `-1` for a
    /// router whose price varies) or not a number.
    pub prices: Option<Prices>,
}

/// The URL of `config`'s model list, or why there is none.
pub fn models_url(config: &ProviderConfig) -> Result<String, ProviderError> {
    let base = config.base_url.trim_end_matches('/');
    match config.wire {
        Wire::Anthropic => Ok(format!("{base}/v1/models?limit=1000")),
        Wire::OpenAi | Wire::Responses => Ok(format!("{base}/models")),
        Wire::Gemini => Ok(format!("{base}/v1beta/models?pageSize=1000")),
        Wire::Vertex | Wire::Bedrock => Err(ProviderError::Config(format!(
            "provider {} has no model list to ask with a key",
            config.provider
        ))),
    }
}

/// Asks `config`'s model list endpoint (with its key and headers) and
/// parses the answer. A non-success status is [`ProviderError::Http`] (401
/// and 403: the key was rejected); a body that is not a JSON model list is
/// [`ProviderError::Protocol`]. Nothing returned holds the key.
pub async fn list_models(
    config: &ProviderConfig,
    timeout: Duration,
) -> Result<Vec<ListedModel>, ProviderError> {
    let provider = config.provider.clone();
    let key = config.api_key.as_deref();
    let url = models_url(config)?;
    let transport = |message: String| ProviderError::Transport {
        provider: provider.clone(),
        message: redact(message, key),
    };
    let client = reqwest::Client::builder()
        .connect_timeout(config.connect_timeout.min(timeout))
        .timeout(timeout)
        .user_agent(concat!("zut/", env!("CARGO_PKG_VERSION")))
        .danger_accept_invalid_certs(config.insecure_tls)
        .build()
        .map_err(|e| ProviderError::Config(format!("cannot build HTTP client: {e}")))?;
    let mut builder = client.get(&url).header("accept", "application/json");
    if config.wire == Wire::Anthropic {
        builder = builder.header("anthropic-version", crate::anthropic::API_VERSION);
    }
    if let Some(key) = key {
        builder = match (config.auth, config.wire) {
            (_, Wire::Gemini) => builder.header("x-goog-api-key", key),
            (Auth::ApiKeyHeader, _) => builder.header("api-key", key),
            (Auth::CloudflareGateway, _) => {
                builder.header("cf-aig-authorization", format!("Bearer {key}"))
            }
            (Auth::WireDefault, Wire::Anthropic) => builder.header("x-api-key", key),
            (Auth::WireDefault, _) => builder.bearer_auth(key),
        };
    }
    for (name, value) in &config.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    let response = builder
        .send()
        .await
        .map_err(|e| transport(format!("GET {url}: {}", crate::provider::describe(&e))))?;
    let status = response.status();
    let mut bytes = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk
            .map_err(|e| transport(format!("GET {url}: {}", crate::provider::describe(&e))))?;
        bytes.extend_from_slice(&chunk);
        if bytes.len() > MAX_BODY {
            return Err(ProviderError::Protocol {
                provider: provider.clone(),
                message: format!("model list larger than {} MiB", MAX_BODY >> 20),
            });
        }
    }
    let text = String::from_utf8_lossy(&bytes);
    if !status.is_success() {
        let message = redact(error_body_message(&text), key);
        return Err(ProviderError::Http {
            provider,
            status: status.as_u16(),
            message,
            retryable: false,
        });
    }
    parse_models(&text).map_err(|message| ProviderError::Protocol { provider, message })
}

/// Parses an OpenAI/Anthropic (`data[].id`), Gemini (`models[].name`) or
/// Ollama (`models[].name`) model list.
pub fn parse_models(text: &str) -> Result<Vec<ListedModel>, String> {
    let value: Value = serde_json::from_str(text).map_err(|_| {
        let start: String = text.trim_start().chars().take(40).collect();
        format!("the model list is not JSON (it starts with {start:?})")
    })?;
    let items = value
        .get("data")
        .or_else(|| value.get("models"))
        .and_then(Value::as_array)
        .ok_or("the model list has no `data` or `models` array")?;
    let num = |v: &Value, keys: &[&str]| keys.iter().find_map(|k| v.get(*k)?.as_u64());
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let id = item
            .get("id")
            .or_else(|| item.get("name"))
            .or_else(|| item.get("model"))
            .and_then(Value::as_str);
        let Some(id) = id else { continue };
        let id = id.strip_prefix("models/").unwrap_or(id).trim();
        if id.is_empty() {
            continue;
        }
        out.push(ListedModel {
            id: id.to_string(),
            context_window: num(
                item,
                &[
                    "context_window",
                    "context_length",
                    "inputTokenLimit",
                    "max_context_length",
                ],
            ),
            max_output: num(
                item,
                &["max_output_tokens", "outputTokenLimit", "max_tokens"],
            )
            .or_else(|| {
                item.get("top_provider")
                    .and_then(|t| t.get("max_completion_tokens"))
                    .and_then(Value::as_u64)
            }),
            prices: item.get("pricing").and_then(openrouter_prices),
        });
    }
    Ok(out)
}

/// The discovery cache under `$ZUT_HOME` (written by the CLI's background
/// discovery and by a login's key check).
pub const CACHE_FILE: &str = "models-cache.json";

/// The prices the discovery cache holds for `provider`'s models (read
/// from `home`'s [`CACHE_FILE`]; empty when it is missing, unreadable or
/// lists none). Only the fields needed are decoded.
pub fn cached_prices(home: &std::path::Path, provider: &str) -> Vec<(String, Prices)> {
    #[derive(serde::Deserialize)]
    struct Cache {
        #[serde(default)]
        providers: std::collections::BTreeMap<String, Entry>,
    }
    #[derive(serde::Deserialize)]
    struct Entry {
        #[serde(default)]
        models: Vec<Model>,
    }
    #[derive(serde::Deserialize)]
    struct Model {
        id: String,
        #[serde(default)]
        prices: Option<Prices>,
    }
    let Ok(text) = std::fs::read_to_string(home.join(CACHE_FILE)) else {
        return Vec::new();
    };
    let Ok(mut cache) = serde_json::from_str::<Cache>(&text) else {
        return Vec::new();
    };
    cache
        .providers
        .remove(provider)
        .map(|e| e.models)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|m| Some((m.id, m.prices.filter(Prices::is_valid)?)))
        .collect()
}

/// OpenRouter's `pricing` (dollars per token, strings or numbers) in
/// dollars per million tokens; `None` unless the input and output prices
/// are both there and every price given is a non-negative number.
fn openrouter_prices(pricing: &Value) -> Option<Prices> {
    let per_token = |key: &str| -> Option<Option<f64>> {
        match pricing.get(key) {
            None | Some(Value::Null) => Some(None),
            Some(Value::String(s)) => s.trim().parse::<f64>().ok().map(Some),
            Some(Value::Number(n)) => n.as_f64().map(Some),
            Some(_) => None,
        }
    };
    // Per token → per million, rounded to 1e-9 $/M so that "0.000003"
    // gives 3 and not 2.9999999999999996.
    let million = |v: f64| (v * 1e6 * 1e9).round() / 1e9;
    let prices = Prices {
        input: million(per_token("prompt")??),
        output: million(per_token("completion")??),
        cache_read: million(per_token("input_cache_read")?.unwrap_or(0.0)),
        cache_write: million(per_token("input_cache_write")?.unwrap_or(0.0)),
    };
    prices.is_valid().then_some(prices)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn parses_each_wire_and_refuses_html() {
        let openai =
            parse_models(r#"{"data":[{"id":"gpt-5"},{"id":"o3","context_length":200000}]}"#)
                .unwrap();
        assert_eq!(openai[0].id, "gpt-5");
        assert_eq!(openai[1].context_window, Some(200_000));
        let gemini = parse_models(
            r#"{"models":[{"name":"models/gemini-2.5-pro","inputTokenLimit":1048576,"outputTokenLimit":65536}]}"#,
        )
        .unwrap();
        assert_eq!(gemini[0].id, "gemini-2.5-pro");
        assert_eq!(gemini[0].max_output, Some(65536));
        let e = parse_models("<!doctype html><html>login</html>").unwrap_err();
        assert!(e.contains("not JSON"), "{e}");
        assert!(parse_models(r#"{"error":"x"}"#).is_err());
        assert_eq!(openai[0].prices, None);
    }

    #[test]
    fn openrouter_pricing_becomes_dollars_per_million() {
        let list = parse_models(
            r#"{"data":[
              {"id":"a/b","pricing":{"prompt":"0.000003","completion":"0.000015",
                "input_cache_read":"0.0000003","input_cache_write":"0.00000375","request":"0"}},
              {"id":"free","pricing":{"prompt":"0","completion":"0"}},
              {"id":"openrouter/auto","pricing":{"prompt":"-1","completion":"-1"}},
              {"id":"bad","pricing":{"prompt":"cheap","completion":"0.1"}},
              {"id":"half","pricing":{"prompt":"0.000001"}},
              {"id":"num","pricing":{"prompt":0.000002,"completion":0.000004,"input_cache_read":null}}
            ]}"#,
        )
        .unwrap();
        let p = |id: &str| list.iter().find(|m| m.id == id).unwrap().prices;
        assert_eq!(
            p("a/b"),
            Some(Prices {
                input: 3.0,
                output: 15.0,
                cache_read: 0.3,
                cache_write: 3.75
            })
        );
        assert_eq!(p("free"), Some(Prices::default()));
        assert_eq!(p("openrouter/auto"), None, "negative: unknown");
        assert_eq!(p("bad"), None, "not a number: unknown");
        assert_eq!(p("half"), None, "no output price: unknown");
        assert_eq!(p("num").map(|p| (p.input, p.output)), Some((2.0, 4.0)));
    }
}
