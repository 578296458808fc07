//! `$ZUT_HOME/models.json`: custom providers and models, in the Go
//! original's format:
//!
//! ```json
//! {"providers": {"my-company": {
//!     "baseUrl": "https://llm.example.com/v1", "api": "openai",
//!     "models": [{"id": "company-llm-v2", "contextWindow": 128000, "maxTokens": 32000}]}}}
//! ```
//!
//! A provider whose name is a preset (`anthropic`, `openai`, ...) adjusts
//! that preset (its base URL, its models' context windows); any other name
//! is a custom provider and needs a `baseUrl` (provider-level, or on every
//! model). `headers` (provider level) adds request headers;
//! `reasoningLevelMap` (model level, e.g. `{"max": "xhigh", "minimum": "low"}`)
//! remaps zut's reasoning levels for that model. `priceInput`,
//! `priceOutput`, `priceCacheRead`, `priceCacheWrite` (model level, US
//! dollars per million tokens) price the model's usage. Keys zut does not
//! use (`name`, `reasoning`, ...) are ignored.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use zut_providers::{Reasoning, Wire};

use crate::error::ConfigError;
use crate::read::{kind, read_object};

/// A provider's `api`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `openai` (also `openai-completions`, `openai-chat`, `chat`): chat completions.
    OpenAi,
    /// `anthropic` (also `anthropic-messages`, `messages`).
    Anthropic,
    /// `openai-responses` (also `responses`): the OpenAI Responses API.
    OpenAiResponses,
}

impl Api {
    /// Parses an `api` value (case-insensitive, with the Go aliases).
    pub fn parse(v: &str) -> Option<Self> {
        match v.trim().to_ascii_lowercase().as_str() {
            "openai" | "openai-completions" | "openai-chat" | "chat" => Some(Self::OpenAi),
            "anthropic" | "anthropic-messages" | "messages" => Some(Self::Anthropic),
            "openai-responses" | "responses" => Some(Self::OpenAiResponses),
            _ => None,
        }
    }

    /// The wire zut speaks for it (`None`: a wire zut does not speak).
    pub fn wire(self) -> Option<Wire> {
        match self {
            Self::OpenAi => Some(Wire::OpenAi),
            Self::Anthropic => Some(Wire::Anthropic),
            Self::OpenAiResponses => Some(Wire::Responses),
        }
    }

    /// The canonical name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Anthropic => "anthropic",
            Self::OpenAiResponses => "openai-responses",
        }
    }
}

/// One model entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CustomModel {
    /// `id` (required).
    pub id: String,
    /// `contextWindow` in tokens (0 or absent: unknown).
    pub context_window: Option<u64>,
    /// `maxTokens`: output cap in tokens (0 or absent: zut's default).
    pub max_tokens: Option<u32>,
    /// `baseUrl` for this model only.
    pub base_url: Option<String>,
    /// `reasoningLevelMap`: zut level → level sent (unknown names are
    /// skipped with a warning, as the Go original does).
    pub reasoning_level_map: Vec<(Reasoning, Reasoning)>,
    /// `priceInput`, `priceOutput`, `priceCacheRead`, `priceCacheWrite`
    /// (US dollars per million tokens; absent keys are 0). `None` when
    /// none is given: the catalog's prices apply, if any.
    pub prices: Option<zut_providers::Prices>,
}

/// One provider entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderEntry {
    /// The key under `providers`.
    pub name: String,
    /// `baseUrl`.
    pub base_url: Option<String>,
    /// `api` (default `openai`).
    pub api: Api,
    /// Whether `api` was written.
    pub api_given: bool,
    /// `"auth": "none"`: never send a key.
    pub no_auth: bool,
    /// `models`, in file order.
    pub models: Vec<CustomModel>,
    /// Whether the name is one of zut's presets.
    pub is_preset: bool,
    /// `headers`: extra request headers, in file order.
    pub headers: Vec<(String, String)>,
    /// `"discover": true`: zut asks the provider's model list in the
    /// background and offers what it lists (cached for 24 hours).
    pub discover: bool,
}

impl ProviderEntry {
    /// The model entry with this id.
    pub fn model(&self, id: &str) -> Option<&CustomModel> {
        self.models.iter().find(|m| m.id == id)
    }

    /// The environment variable holding its key: the name upper-cased with
    /// every other character `_`, plus `_API_KEY` (`my-company` →
    /// `MY_COMPANY_API_KEY`).
    pub fn key_env(&self) -> String {
        key_env_for(&self.name)
    }
}

/// `my-company` → `MY_COMPANY_API_KEY`.
pub fn key_env_for(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    s.push_str("_API_KEY");
    s
}

/// The parsed `models.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelsFile {
    /// The file.
    pub path: PathBuf,
    /// Providers, sorted by name.
    pub providers: Vec<ProviderEntry>,
    /// Problems that do not stop zut (shown by `zut config`).
    pub warnings: Vec<String>,
}

impl ModelsFile {
    /// `$ZUT_HOME/models.json`.
    pub fn path_in(zut_home: &Path) -> PathBuf {
        zut_home.join("models.json")
    }

    /// The entry of `provider` (exact name, or a preset's alias).
    pub fn provider(&self, name: &str) -> Option<&ProviderEntry> {
        let canonical = zut_providers::preset(name).map(|p| p.id);
        self.providers.iter().find(|p| {
            p.name == name
                || (canonical.is_some()
                    && zut_providers::preset(&p.name).map(|x| x.id) == canonical)
        })
    }

    /// Reads `path`; `Ok(None)` when it does not exist. Not JSON, a wrong
    /// type, an unknown `api`, a model without `id` or a custom provider
    /// without `baseUrl` is an error naming the file and key.
    pub fn load(path: &Path) -> Result<Option<Self>, ConfigError> {
        let Some(map) = read_object(path)? else {
            return Ok(None);
        };
        let mut file = ModelsFile {
            path: path.to_path_buf(),
            ..Default::default()
        };
        let providers = match map.get("providers") {
            None | Some(Value::Null) => return Ok(Some(file)),
            Some(Value::Object(p)) => p,
            Some(v) => {
                return Err(ConfigError::key(
                    path,
                    "providers",
                    format!("expected an object of providers, found {}", kind(v)),
                ))
            }
        };
        for (name, value) in providers {
            let key = format!("providers.{name}");
            if name.trim().is_empty() {
                return Err(ConfigError::key(path, key, "a provider needs a name"));
            }
            let Value::Object(obj) = value else {
                return Err(ConfigError::key(
                    path,
                    key,
                    format!("expected an object, found {}", kind(value)),
                ));
            };
            file.providers
                .push(parse_provider(path, name, obj, &mut file.warnings)?);
        }
        file.providers.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Some(file))
    }
}

fn opt_string(
    path: &Path,
    obj: &Map<String, Value>,
    key: &str,
    at: &str,
) -> Result<Option<String>, ConfigError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
        Some(v) => Err(ConfigError::key(
            path,
            format!("{at}.{key}"),
            format!("expected a string, found {}", kind(v)),
        )),
    }
}

fn opt_count(
    path: &Path,
    obj: &Map<String, Value>,
    key: &str,
    at: &str,
) -> Result<Option<u64>, ConfigError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) if n.as_u64().is_some() => Ok(n.as_u64().filter(|n| *n > 0)),
        Some(v) => Err(ConfigError::key(
            path,
            format!("{at}.{key}"),
            format!(
                "expected a whole number of tokens, found {}",
                match v {
                    Value::Number(n) => n.to_string(),
                    other => kind(other).to_string(),
                }
            ),
        )),
    }
}

/// The price keys of a model entry, in dollars per million tokens.
const PRICE_KEYS: [&str; 4] = [
    "priceInput",
    "priceOutput",
    "priceCacheRead",
    "priceCacheWrite",
];

/// A model's prices: `None` when no price key is given; a negative or
/// non-numeric price is an error naming the file and key.
fn opt_prices(
    path: &Path,
    obj: &Map<String, Value>,
    at: &str,
) -> Result<Option<zut_providers::Prices>, ConfigError> {
    let mut found = [None; 4];
    for (slot, key) in found.iter_mut().zip(PRICE_KEYS) {
        *slot = match obj.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) if n.as_f64().is_some_and(|f| f.is_finite() && f >= 0.0) => {
                n.as_f64()
            }
            Some(v) => {
                return Err(ConfigError::key(
                    path,
                    format!("{at}.{key}"),
                    format!(
                        "expected a non-negative number of US dollars per million tokens, found {}",
                        match v {
                            Value::Number(n) => n.to_string(),
                            other => kind(other).to_string(),
                        }
                    ),
                ))
            }
        };
    }
    if found.iter().all(Option::is_none) {
        return Ok(None);
    }
    let [input, output, cache_read, cache_write] = found.map(|p| p.unwrap_or(0.0));
    Ok(Some(zut_providers::Prices {
        input,
        output,
        cache_read,
        cache_write,
    }))
}

fn parse_provider(
    path: &Path,
    name: &str,
    obj: &Map<String, Value>,
    warnings: &mut Vec<String>,
) -> Result<ProviderEntry, ConfigError> {
    let at = format!("providers.{name}");
    let base_url = opt_string(path, obj, "baseUrl", &at)?;
    let api_text = opt_string(path, obj, "api", &at)?;
    let api = match &api_text {
        None => Api::OpenAi,
        Some(v) => Api::parse(v).ok_or_else(|| {
            ConfigError::key(
                path,
                format!("{at}.api"),
                format!("unknown api {v:?} (expected openai, anthropic or openai-responses)"),
            )
        })?,
    };
    let no_auth = match opt_string(path, obj, "auth", &at)? {
        None => false,
        Some(a) if a.eq_ignore_ascii_case("none") => true,
        Some(a) => {
            warnings.push(format!(
                "{}: {at}.auth: unknown value {a:?} (only \"none\" is recognised); credentials are used when available",
                path.display()
            ));
            false
        }
    };
    let mut models = Vec::new();
    match obj.get("models") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let mat = format!("{at}.models[{i}]");
                let Value::Object(m) = item else {
                    return Err(ConfigError::key(
                        path,
                        mat,
                        format!("expected an object, found {}", kind(item)),
                    ));
                };
                let Some(id) = opt_string(path, m, "id", &mat)? else {
                    return Err(ConfigError::key(
                        path,
                        format!("{mat}.id"),
                        "a model needs an id",
                    ));
                };
                let mut reasoning_level_map = Vec::new();
                for (from, to) in string_map(path, m, "reasoningLevelMap", &mat)? {
                    match (
                        zut_providers::parse_reasoning(&from),
                        zut_providers::parse_reasoning(&to),
                    ) {
                        (Ok(f), Ok(t)) => reasoning_level_map.push((f, t)),
                        _ => warnings.push(format!(
                            "{}: {mat}.reasoningLevelMap: {from:?} → {to:?} is not a pair of reasoning levels (off, minimum, low, medium, high, xhigh, max); entry ignored",
                            path.display()
                        )),
                    }
                }
                models.push(CustomModel {
                    id,
                    context_window: opt_count(path, m, "contextWindow", &mat)?,
                    max_tokens: opt_count(path, m, "maxTokens", &mat)?
                        .map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
                    base_url: opt_string(path, m, "baseUrl", &mat)?,
                    reasoning_level_map,
                    prices: opt_prices(path, m, &mat)?,
                });
            }
        }
        Some(v) => {
            return Err(ConfigError::key(
                path,
                format!("{at}.models"),
                format!("expected an array of models, found {}", kind(v)),
            ))
        }
    }
    let is_preset = zut_providers::preset(name).is_some();
    if !is_preset
        && base_url.is_none()
        && (models.is_empty() || models.iter().any(|m| m.base_url.is_none()))
    {
        return Err(ConfigError::key(
            path,
            format!("{at}.baseUrl"),
            format!(
                "custom provider {name:?} has no baseUrl (set one on the provider, or on each model), so zut does not know where to send requests"
            ),
        ));
    }
    let headers = string_map(path, obj, "headers", &at)?;
    let discover = match obj.get("discover") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(v) => {
            return Err(ConfigError::key(
                path,
                format!("{at}.discover"),
                format!("expected true or false, found {}", kind(v)),
            ))
        }
    };
    Ok(ProviderEntry {
        name: name.to_string(),
        base_url,
        api,
        api_given: api_text.is_some(),
        no_auth,
        models,
        is_preset,
        headers,
        discover,
    })
}

/// An optional object of strings (`headers`, `reasoningLevelMap`), in file order.
fn string_map(
    path: &Path,
    obj: &Map<String, Value>,
    key: &str,
    at: &str,
) -> Result<Vec<(String, String)>, ConfigError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                other => Err(ConfigError::key(
                    path,
                    format!("{at}.{key}.{k}"),
                    format!("expected a string, found {}", kind(other)),
                )),
            })
            .collect(),
        Some(v) => Err(ConfigError::key(
            path,
            format!("{at}.{key}"),
            format!("expected an object of strings, found {}", kind(v)),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Option<ModelsFile>, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("models.json");
        std::fs::write(&p, text).unwrap();
        ModelsFile::load(&p)
    }

    #[test]
    fn go_format() {
        let f = load(
            r#"{"providers": {
                "my-company": {"baseUrl": "https://llm.example.com/v1", "api": "openai",
                   "models": [{"id": "m2", "name": "M2", "contextWindow": 128000, "maxTokens": 32000,
                               "priceInput": 1.5, "reasoning": true},
                              {"id": "m3", "baseUrl": "http://other/v1"}]},
                "gw": {"api": "Anthropic-Messages", "auth": "none",
                   "models": [{"id": "c", "baseUrl": "http://gw"}]},
                "anthropic": {"models": [{"id": "claude-x", "contextWindow": 500000}]}
            }}"#,
        )
        .unwrap()
        .unwrap();
        let names: Vec<&str> = f.providers.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, vec!["anthropic", "gw", "my-company"]);
        let mc = f.provider("my-company").unwrap();
        assert_eq!(mc.api, Api::OpenAi);
        assert_eq!(mc.key_env(), "MY_COMPANY_API_KEY");
        assert_eq!(
            mc.model("m2").unwrap(),
            &CustomModel {
                id: "m2".into(),
                context_window: Some(128_000),
                max_tokens: Some(32_000),
                base_url: None,
                reasoning_level_map: Vec::new(),
                prices: Some(zut_providers::Prices {
                    input: 1.5,
                    ..Default::default()
                }),
            }
        );
        let gw = f.provider("gw").unwrap();
        assert_eq!(
            (gw.api, gw.no_auth, gw.is_preset),
            (Api::Anthropic, true, false)
        );
        assert!(f.provider("anthropic").unwrap().is_preset);
        assert!(f.warnings.is_empty());
    }

    #[test]
    fn errors_name_file_and_key() {
        let cases = [
            ("not json", "models.json: not valid JSON"),
            (r#"{"providers": []}"#, "models.json: providers: expected an object of providers, found an array"),
            (r#"{"providers": {"x": 1}}"#, "providers.x: expected an object, found a number"),
            (
                r#"{"providers": {"x": {"baseUrl": "http://a", "api": "grpc"}}}"#,
                "providers.x.api: unknown api \"grpc\" (expected openai, anthropic or openai-responses)",
            ),
            (
                r#"{"providers": {"x": {"models": [{"id": "m"}]}}}"#,
                "providers.x.baseUrl: custom provider \"x\" has no baseUrl",
            ),
            (r#"{"providers": {"x": {"baseUrl": 5}}}"#, "providers.x.baseUrl: expected a string, found a number"),
            (
                r#"{"providers": {"x": {"baseUrl": "http://a", "models": [{"name": "n"}]}}}"#,
                "providers.x.models[0].id: a model needs an id",
            ),
            (
                r#"{"providers": {"x": {"baseUrl": "http://a", "models": [{"id": "m", "contextWindow": "big"}]}}}"#,
                "providers.x.models[0].contextWindow: expected a whole number of tokens, found a string",
            ),
            (
                r#"{"providers": {"x": {"baseUrl": "http://a", "models": [{"id": "m", "maxTokens": -1}]}}}"#,
                "providers.x.models[0].maxTokens: expected a whole number of tokens, found -1",
            ),
            (r#"{"providers": {"x": {"baseUrl": "http://a", "models": {}}}}"#, "providers.x.models: expected an array"),
        ];
        for (text, want) in cases {
            let e = load(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
        let f = load(r#"{"providers": {"x": {"baseUrl": "http://a", "auth": "bearer"}}}"#)
            .unwrap()
            .unwrap();
        assert!(f.warnings[0].contains("providers.x.auth: unknown value \"bearer\""));
        let f = load(r#"{"providers": {"r": {"baseUrl": "http://a", "api": "responses"}}}"#)
            .unwrap()
            .unwrap();
        assert_eq!(f.providers[0].api, Api::OpenAiResponses);
        assert_eq!(Api::OpenAiResponses.wire(), Some(Wire::Responses));
        let f = load(
            r#"{"providers": {"r": {"baseUrl": "http://a", "headers": {"X-Title": "zut", "HTTP-Referer": "https://x"},
                "models": [{"id": "m", "reasoningLevelMap": {"max": "xhigh", "minimum": "LOW", "huge": "high"}}]}}}"#,
        )
        .unwrap()
        .unwrap();
        let r = &f.providers[0];
        let mut headers = r.headers.clone();
        headers.sort();
        assert_eq!(
            headers,
            vec![
                ("HTTP-Referer".to_string(), "https://x".to_string()),
                ("X-Title".to_string(), "zut".to_string())
            ]
        );
        assert_eq!(
            r.models[0].reasoning_level_map,
            vec![
                (Reasoning::Max, Reasoning::XHigh),
                (Reasoning::Minimum, Reasoning::Low)
            ]
        );
        assert!(f.warnings[0].contains("\"huge\""), "{:?}", f.warnings);
        let e = load(r#"{"providers": {"r": {"baseUrl": "http://a", "headers": {"X": 1}}}}"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("providers.r.headers.X: expected a string, found a number"),
            "{e}"
        );
    }
}
