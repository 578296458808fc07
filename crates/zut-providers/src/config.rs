//! Resolving command-line options, environment and `auth.json` into a
//! [`ProviderConfig`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::credentials;
use crate::error::ProviderError;
use crate::presets::{preset, preset_names, Auth, Preset, Wire};
use crate::reasoning::parse_reasoning;
use crate::retry::RetryPolicy;
use crate::types::Reasoning;

/// Provider-related command-line options (`--provider`, `--model`,
/// `--base-url`, `--api-key`, `--reasoning`...). `None` means "not given".
#[derive(Clone, Default, PartialEq)]
pub struct ProviderOptions {
    /// `--provider`.
    pub provider: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--api-key`.
    pub api_key: Option<String>,
    /// `--reasoning` (`off`/`none`, `minimal`/`low`, `medium`, `high`).
    pub reasoning: Option<String>,
    /// Maximum attempts per request (default 4).
    pub max_attempts: Option<u32>,
    /// TCP/TLS connect timeout (default 10 s).
    pub connect_timeout: Option<Duration>,
    /// Longest silence tolerated while waiting for response headers or the
    /// next stream bytes (default 120 s).
    pub idle_timeout: Option<Duration>,
}

impl std::fmt::Debug for ProviderOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderOptions")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("reasoning", &self.reasoning)
            .field("max_attempts", &self.max_attempts)
            .field("connect_timeout", &self.connect_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .finish()
    }
}

/// Where the API key came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// `--api-key`.
    Flag,
    /// An environment variable (its name).
    Env(String),
    /// `$ZUT_HOME/auth.json` (its path).
    AuthFile(PathBuf),
    /// No key (local servers).
    None,
}

/// A fully resolved provider configuration. `Debug` never shows the key.
#[derive(Clone, PartialEq)]
pub struct ProviderConfig {
    /// Preset id (`anthropic`, `openai`, `ollama`...); the provider's name.
    pub provider: String,
    /// Wire format.
    pub wire: Wire,
    /// Base URL without trailing slash.
    pub base_url: String,
    /// API key, if any.
    pub api_key: Option<String>,
    /// Where the key came from.
    pub key_source: KeySource,
    /// Model id.
    pub model: String,
    /// Reasoning effort (`--reasoning`, default off).
    pub reasoning: Reasoning,
    /// Retry policy.
    pub retry: RetryPolicy,
    /// Connect timeout.
    pub connect_timeout: Duration,
    /// Idle timeout (headers and between stream chunks).
    pub idle_timeout: Duration,
    /// OpenAI wire: send `max_completion_tokens` rather than `max_tokens`.
    pub max_completion_tokens: bool,
    /// Sampling temperature sent with every request (`--temperature`,
    /// `config.json`); `None` leaves the provider's default. Not sent to
    /// Anthropic while extended thinking is on (the API refuses it).
    pub temperature: Option<f32>,
    /// Credentials, project and region of `google-vertex` and
    /// `amazon-bedrock` (`None` for the other providers).
    pub cloud: Option<crate::cloud::CloudAuth>,
    /// How the key is sent (the preset's; Azure with an Entra ID token: the
    /// wire's bearer header).
    pub auth: Auth,
    /// Extra request headers (models.json `headers`). Values are never
    /// shown by `Debug`: they may hold credentials.
    pub headers: Vec<(String, String)>,
    /// Per-model `reasoningLevelMap` (models.json): level → level sent.
    pub reasoning_map: Vec<(Reasoning, Reasoning)>,
    /// Azure OpenAI addressing, for the Azure presets.
    pub azure: Option<Azure>,
    /// Models sent to the Responses API although `wire` is chat
    /// completions (the preset's Responses-only models; empty when
    /// models.json chose the `api` explicitly).
    pub responses_models: Vec<String>,
    /// Prices given in models.json (`priceInput`...) per model id; for a
    /// model not listed, [`ProviderConfig::prices_for`] asks the catalog.
    pub prices: Vec<(String, crate::catalog::Prices)>,
    /// Skip TLS certificate checks (`--insecure`, config.json `insecure`).
    /// zut-config sets it only for an explicit base URL (`--base-url`,
    /// models.json `baseUrl`), never for a preset's own endpoint.
    pub insecure_tls: bool,
}

/// Azure OpenAI addressing: deployments and `api-version`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Azure {
    /// `api-version` query value (`AZURE_OPENAI_API_VERSION`; default `v1`
    /// for Responses, `2024-10-21` for chat completions).
    pub api_version: String,
    /// Model id → deployment name (`AZURE_OPENAI_DEPLOYMENT_NAME_MAP`,
    /// `model=deployment` pairs separated by commas); unmapped models are
    /// their own deployment.
    pub deployments: Vec<(String, String)>,
}

impl Azure {
    /// The deployment serving `model`.
    pub fn deployment<'a>(&'a self, model: &'a str) -> &'a str {
        self.deployments
            .iter()
            .find(|(m, _)| m == model)
            .map_or(model, |(_, d)| d.as_str())
    }

    /// Parses `AZURE_OPENAI_DEPLOYMENT_NAME_MAP` (`gpt-5=prod-gpt5,o3=o3`);
    /// malformed pairs are skipped.
    pub fn parse_deployments(text: &str) -> Vec<(String, String)> {
        text.split(',')
            .filter_map(|pair| {
                let (model, deployment) = pair.split_once('=')?;
                let (model, deployment) = (model.trim(), deployment.trim());
                (!model.is_empty() && !deployment.is_empty())
                    .then(|| (model.to_string(), deployment.to_string()))
            })
            .collect()
    }
}

impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("provider", &self.provider)
            .field("wire", &self.wire)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("key_source", &self.key_source)
            .field("model", &self.model)
            .field("reasoning", &self.reasoning)
            .field("retry", &self.retry)
            .field("connect_timeout", &self.connect_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("temperature", &self.temperature)
            .field("cloud", &self.cloud)
            .field("auth", &self.auth)
            .field(
                "headers",
                &self.headers.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .field("reasoning_map", &self.reasoning_map)
            .field("azure", &self.azure)
            .field("responses_models", &self.responses_models)
            .field("prices", &self.prices)
            .field("insecure_tls", &self.insecure_tls)
            .finish()
    }
}

impl ProviderConfig {
    /// A configuration for `preset` with explicit values and defaults
    /// elsewhere (handy in tests; no environment or file is read).
    pub fn new(
        preset_id: &str,
        base_url: &str,
        api_key: Option<&str>,
        model: &str,
    ) -> Result<Self, ProviderError> {
        let p = lookup(preset_id)?;
        Ok(Self {
            provider: p.id.to_string(),
            wire: p.wire,
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key: api_key.map(str::to_string),
            key_source: if api_key.is_some() {
                KeySource::Flag
            } else {
                KeySource::None
            },
            model: model.to_string(),
            reasoning: Reasoning::Off,
            retry: RetryPolicy::default(),
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
            max_completion_tokens: p.max_completion_tokens,
            temperature: None,
            cloud: None,
            auth: p.auth,
            headers: Vec::new(),
            reasoning_map: Vec::new(),
            azure: p.azure.then(|| Azure {
                api_version: default_azure_version(p.wire).to_string(),
                deployments: Vec::new(),
            }),
            responses_models: p.responses_models.iter().map(|m| m.to_string()).collect(),
            prices: Vec::new(),
            insecure_tls: false,
        })
    }

    /// The prices of `model` on this provider: models.json's when given,
    /// else the catalog's (`None`: unknown).
    pub fn prices_for(&self, model: &str) -> Option<crate::catalog::Prices> {
        match self.prices.iter().find(|(id, _)| id == model) {
            Some((_, p)) => Some(*p),
            None => crate::catalog::catalog_prices(&self.provider, model),
        }
    }

    /// The wire a request for `model` goes to: `wire`, except for the
    /// preset's Responses-only models.
    pub fn wire_for(&self, model: &str) -> Wire {
        if self.wire == Wire::OpenAi && self.responses_models.iter().any(|m| m == model) {
            Wire::Responses
        } else {
            self.wire
        }
    }
}

fn default_azure_version(wire: Wire) -> &'static str {
    match wire {
        Wire::Responses => "v1",
        _ => "2024-10-21",
    }
}

impl ProviderConfig {
    /// The same configuration with another retry policy (tests use short delays).
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// The same configuration with a sampling temperature.
    pub fn with_temperature(mut self, temperature: Option<f32>) -> Self {
        self.temperature = temperature;
        self
    }

    /// The same configuration with another reasoning effort.
    pub fn with_reasoning(mut self, reasoning: Reasoning) -> Self {
        self.reasoning = reasoning;
        self
    }

    /// The same configuration with cloud credentials (`google-vertex`,
    /// `amazon-bedrock`).
    pub fn with_cloud(mut self, cloud: crate::cloud::CloudAuth) -> Self {
        self.cloud = Some(cloud);
        self
    }

    /// The same configuration with other connect and idle timeouts.
    pub fn with_timeouts(mut self, connect: Duration, idle: Duration) -> Self {
        self.connect_timeout = connect;
        self.idle_timeout = idle;
        self
    }
}

fn lookup(name: &str) -> Result<&'static Preset, ProviderError> {
    preset(name).ok_or_else(|| {
        ProviderError::Config(format!(
            "unknown provider {name:?} (expected one of: {})",
            preset_names()
        ))
    })
}

fn non_empty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

/// Resolve options into a configuration.
///
/// * Provider: `--provider`, else `$ZUT_PROVIDER`, else `openai-compatible`
///   when `--base-url` is given, else the first of anthropic, openai,
///   openrouter, groq, deepseek whose key is in the environment, else the
///   first of those with a key in `auth.json`, else `anthropic`.
/// * Model: `--model`, else `$ZUT_MODEL`, else the preset's default
///   (`openai-compatible` and `vllm` have none: `--model` is then required).
/// * Base URL: `--base-url`, else the preset's (required for `openai-compatible`).
/// * Key: `--api-key`, else the preset's environment variable, else
///   `$ZUT_HOME/auth.json` (see [`crate::credentials`]). Hosted providers
///   without a key are an error; local ones (ollama, llamacpp, vllm,
///   openai-compatible) send no auth header.
/// * Reasoning: `--reasoning`, default off.
pub fn resolve(
    opts: &ProviderOptions,
    env: &dyn Fn(&str) -> Option<String>,
    zut_home: &Path,
) -> Result<ProviderConfig, ProviderError> {
    let env = |name: &str| non_empty(env(name));
    let base_url = non_empty(opts.base_url.clone());
    let mut auth: Option<Option<credentials::AuthFile>> = None;
    let load_auth = |auth: &mut Option<Option<credentials::AuthFile>>| {
        if auth.is_none() {
            *auth = Some(credentials::load(zut_home)?);
        }
        Ok::<_, ProviderError>(())
    };

    let preset = match non_empty(opts.provider.clone()).or_else(|| env("ZUT_PROVIDER")) {
        Some(name) => lookup(&name)?,
        None if base_url.is_some() => lookup("openai-compatible")?,
        None => {
            const HOSTED: [&str; 5] = ["anthropic", "openai", "openrouter", "groq", "deepseek"];
            let hosted = || HOSTED.iter().filter_map(|id| preset(id));
            let by_env = hosted().find(|p| p.key_env.and_then(env).is_some());
            match by_env {
                Some(p) => p,
                None if opts.api_key.is_some() => lookup("anthropic")?,
                None => {
                    load_auth(&mut auth)?;
                    let file = auth.as_ref().and_then(|a| a.as_ref());
                    hosted()
                        .find(|p| file.is_some_and(|f| f.has(p.id)))
                        .map_or_else(|| lookup("anthropic"), Ok)?
                }
            }
        }
    };

    // Vertex and Bedrock: credentials, project and region (their base URL
    // depends on the region).
    let cloud = crate::cloud::resolve(preset.id, non_empty(opts.api_key.clone()).as_deref(), &env)?;
    let keyed = preset.key_env.and_then(env).is_some();
    let base_url = base_url
        .or_else(|| preset.azure.then(|| env("AZURE_OPENAI_BASE_URL")).flatten())
        .or_else(|| preset.keyed_base_url.filter(|_| keyed).map(str::to_string))
        .or(preset.base_url.map(str::to_string))
        .or_else(|| cloud.as_ref().map(crate::cloud::default_base_url));
    let base_url = match base_url {
        Some(url) => fill_placeholders(preset.id, &url, &env)?
            .trim_end_matches('/')
            .to_string(),
        None => {
            return Err(ProviderError::Config(format!(
                "provider {} needs --base-url (e.g. http://localhost:8080/v1)",
                preset.id
            )))
        }
    };

    let model = match non_empty(opts.model.clone())
        .or_else(|| env("ZUT_MODEL"))
        .or(preset.default_model.map(str::to_string))
    {
        Some(model) => model,
        None => {
            return Err(ProviderError::Config(format!(
                "provider {} has no default model: pass --model",
                preset.id
            )))
        }
    };

    let (api_key, key_source) = if let Some(key) = non_empty(opts.api_key.clone()) {
        (Some(key), KeySource::Flag)
    } else if let Some((name, key)) = [preset.key_env, preset.alt_key_env]
        .into_iter()
        .flatten()
        .find_map(|name| env(name).map(|key| (name, key)))
    {
        (Some(key), KeySource::Env(name.to_string()))
    } else {
        load_auth(&mut auth)?;
        match auth.as_ref().and_then(|a| a.as_ref()) {
            Some(file) => match file.key(preset.id)? {
                Some(key) => (
                    Some(key.to_string()),
                    KeySource::AuthFile(file.path.clone()),
                ),
                None => (None, KeySource::None),
            },
            None => (None, KeySource::None),
        }
    };
    // Vertex and Bedrock: their API key or bearer token is the key (so
    // errors are scrubbed of it).
    let (api_key, key_source) = match (api_key, cloud.as_ref().and_then(|c| c.secret())) {
        (None, Some((secret, source))) if source != "--api-key" => {
            (Some(secret), KeySource::Env(source))
        }
        (key, _) => (key, key_source),
    };
    // Azure: an Entra ID token when no resource key was found.
    let mut auth_style = preset.auth;
    let (api_key, key_source) = match (api_key, preset.azure) {
        (None, true) => match env(AZURE_AD_TOKEN_ENV) {
            Some(token) => {
                auth_style = Auth::WireDefault;
                (Some(token), KeySource::Env(AZURE_AD_TOKEN_ENV.to_string()))
            }
            None => (None, key_source),
        },
        (key, _) => (key, key_source),
    };
    if api_key.is_none() && preset.key_required {
        let mut env_hint = preset
            .key_env
            .map(|name| match preset.alt_key_env {
                Some(other) => format!("set {name} (or {other}), "),
                None => format!("set {name}, "),
            })
            .unwrap_or_default();
        if preset.azure {
            env_hint = format!(
                "set AZURE_OPENAI_API_KEY (or an Entra ID token in {AZURE_AD_TOKEN_ENV}), "
            );
        }
        return Err(ProviderError::Config(format!(
            "no API key for provider {}: {env_hint}pass --api-key, run `zut auth login {}`, or add {{\"{}\": {{\"api_key\": \"...\"}}}} to {}",
            preset.id,
            preset.id,
            preset.id,
            credentials::auth_file_path(zut_home).display()
        )));
    }

    let reasoning = match non_empty(opts.reasoning.clone()) {
        Some(value) => parse_reasoning(&value)?,
        None => Reasoning::Off,
    };
    let retry = RetryPolicy {
        max_attempts: opts.max_attempts.unwrap_or(4).max(1),
        ..RetryPolicy::default()
    };
    Ok(ProviderConfig {
        provider: preset.id.to_string(),
        wire: preset.wire,
        base_url,
        api_key,
        key_source,
        model,
        reasoning,
        retry,
        connect_timeout: opts.connect_timeout.unwrap_or(Duration::from_secs(10)),
        idle_timeout: opts.idle_timeout.unwrap_or(Duration::from_secs(120)),
        max_completion_tokens: preset.max_completion_tokens,
        temperature: None,
        cloud,
        auth: auth_style,
        headers: Vec::new(),
        reasoning_map: Vec::new(),
        azure: preset.azure.then(|| Azure {
            api_version: env("AZURE_OPENAI_API_VERSION")
                .unwrap_or_else(|| default_azure_version(preset.wire).to_string()),
            deployments: env("AZURE_OPENAI_DEPLOYMENT_NAME_MAP")
                .map(|m| Azure::parse_deployments(&m))
                .unwrap_or_default(),
        }),
        responses_models: preset
            .responses_models
            .iter()
            .map(|m| m.to_string())
            .collect(),
        prices: Vec::new(),
        insecure_tls: false,
    })
}

/// The variable holding an Azure OpenAI Entra ID (bearer) token, used when
/// no resource key is set.
pub const AZURE_AD_TOKEN_ENV: &str = "AZURE_OPENAI_AD_TOKEN";

/// Replaces each `{VARIABLE}` of a preset's base URL with the variable's
/// value (Cloudflare's account and gateway ids, Azure's resource name); a
/// missing variable is an error naming it.
fn fill_placeholders(
    provider: &str,
    url: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, ProviderError> {
    let mut out = String::with_capacity(url.len());
    let mut rest = url;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let name = &rest[open + 1..open + close];
        let value = env(name).ok_or_else(|| {
            let extra = if name == "AZURE_OPENAI_RESOURCE_NAME" {
                " (or AZURE_OPENAI_BASE_URL)"
            } else {
                ""
            };
            ProviderError::Config(format!(
                "provider {provider} needs {name}{extra} to build its URL ({url}): set it, or pass --base-url"
            ))
        })?;
        out.push_str(&rest[..open]);
        out.push_str(value.trim());
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Whether `preset` exists (re-exported helper for CLI validation).
pub fn is_known_provider(name: &str) -> bool {
    preset(name).is_some()
}
