//! Resolving flags, environment and files into [`Settings`].
//!
//! Precedence, highest first, for every setting: command-line flag, then
//! environment variable, then file (`config.json`, `models.json`,
//! `auth.json`), then zut's default. See `docs/config.md` for the table.

use std::path::Path;

use zut_providers::{KeySource, ProviderConfig, ProviderOptions, Reasoning};

use crate::config_file::ConfigFile;
use crate::error::ConfigError;
use crate::models_file::{CustomModel, ModelsFile, ProviderEntry};
use crate::settings::{Origin, Setting, Settings};

/// The flags that take part in resolution (`None`: not given).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Flags {
    /// `--provider`.
    pub provider: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--api-key`.
    pub api_key: Option<String>,
    /// `--reasoning`.
    pub reasoning: Option<String>,
    /// `--temperature`.
    pub temperature: Option<f32>,
    /// `--context-window`.
    pub context_window: Option<u64>,
    /// `--auto-compact` (share of the window, 0 disables).
    pub auto_compact: Option<f64>,
    /// `--insecure`: skip TLS certificate checks for an explicit base URL.
    pub insecure: bool,
}

/// The environment variable that overrides a preset's base URL:
/// `ANTHROPIC_BASE_URL` for `anthropic`, `OPENAI_BASE_URL` for `openai` and
/// `openai-compatible`.
pub fn base_url_env(preset: &str) -> Option<&'static str> {
    match preset {
        "anthropic" => Some("ANTHROPIC_BASE_URL"),
        "openai" | "openai-compatible" => Some("OPENAI_BASE_URL"),
        _ => None,
    }
}

/// Reads `$ZUT_HOME/config.json` and `$ZUT_HOME/models.json` and resolves
/// every setting. A broken file or a bad flag value is an error naming the
/// file and key (or the flag); a provider that cannot be configured is kept
/// in [`Settings::provider`] as an error for the caller to report when it
/// needs the model.
pub fn load(
    flags: &Flags,
    env: &dyn Fn(&str) -> Option<String>,
    zut_home: &Path,
) -> Result<Settings, ConfigError> {
    let config = ConfigFile::load(&ConfigFile::path_in(zut_home))?;
    let models = ModelsFile::load(&ModelsFile::path_in(zut_home))?;
    resolve(flags, env, zut_home, config, models)
}

/// Like [`load`], with the files already read.
pub fn resolve(
    flags: &Flags,
    env: &dyn Fn(&str) -> Option<String>,
    zut_home: &Path,
    config: Option<ConfigFile>,
    models: Option<ModelsFile>,
) -> Result<Settings, ConfigError> {
    let env = |k: &str| env(k).filter(|v| !v.trim().is_empty());
    let flag = |v: &Option<String>| v.clone().filter(|v| !v.trim().is_empty());
    let cfg_origin = |key: &str| {
        Origin::File(
            config.as_ref().map(|c| c.path.clone()).unwrap_or_default(),
            key.to_string(),
        )
    };

    // Provider name and model as asked.
    let asked_provider: Option<Setting<String>> = if let Some(p) = flag(&flags.provider) {
        Some(Setting::new(p, Origin::Flag("--provider")))
    } else if let Some(p) = env("ZUT_PROVIDER") {
        Some(Setting::new(p, Origin::Env("ZUT_PROVIDER".into())))
    } else {
        config
            .as_ref()
            .and_then(|c| c.provider.clone())
            .map(|p| Setting::new(p, cfg_origin("provider")))
    };
    let config_model_applies = match (
        &asked_provider,
        config.as_ref().and_then(|c| c.provider.as_ref()),
    ) {
        (_, None) => true,
        (Some(asked), Some(cp)) => same_provider(&asked.value, cp),
        (None, Some(_)) => true,
    };
    let asked_model: Option<Setting<String>> = if let Some(m) = flag(&flags.model) {
        Some(Setting::new(m, Origin::Flag("--model")))
    } else if let Some(m) = env("ZUT_MODEL") {
        Some(Setting::new(m, Origin::Env("ZUT_MODEL".into())))
    } else if config_model_applies {
        config
            .as_ref()
            .and_then(|c| c.model.clone())
            .map(|m| Setting::new(m, cfg_origin("model")))
    } else {
        None
    };

    // Reasoning and temperature.
    let reasoning = if let Some(r) = flag(&flags.reasoning) {
        let level = zut_providers::parse_reasoning(&r).map_err(|_| {
            ConfigError::other(format!(
                "--reasoning {r:?}: expected off, minimum, low, medium, high, xhigh or max"
            ))
        })?;
        Setting::new(level, Origin::Flag("--reasoning"))
    } else if let Some(r) = config.as_ref().and_then(|c| c.reasoning.clone()) {
        // Checked when the file was read.
        let level = zut_providers::parse_reasoning(&r).unwrap_or(Reasoning::Off);
        Setting::new(level, cfg_origin("reasoning"))
    } else {
        Setting::new(Reasoning::Off, Origin::Default(String::new()))
    };
    let temperature = if let Some(t) = flags.temperature {
        if !(0.0..=2.0).contains(&t) {
            return Err(ConfigError::other(format!(
                "--temperature {t}: expected a number from 0 to 2"
            )));
        }
        Setting::new(Some(t), Origin::Flag("--temperature"))
    } else if let Some(t) = config.as_ref().and_then(|c| c.temperature) {
        Setting::new(Some(t), cfg_origin("temperature"))
    } else {
        Setting::new(None, Origin::Default("the provider's".into()))
    };

    let custom = asked_provider.as_ref().and_then(|p| {
        models
            .as_ref()
            .and_then(|m| m.provider(&p.value))
            .filter(|e| !e.is_preset)
    });
    let mut out = match custom {
        Some(entry) => custom_provider(
            flags,
            &env,
            zut_home,
            models
                .as_ref()
                .map(|m| m.path.as_path())
                .unwrap_or(Path::new("")),
            entry,
            asked_provider
                .clone()
                .unwrap_or_else(|| Setting::new(String::new(), Origin::Default(String::new()))),
            asked_model.clone(),
        ),
        None => preset_provider(
            flags,
            &env,
            zut_home,
            models.as_ref(),
            asked_provider.clone(),
            asked_model.clone(),
        ),
    };
    if let Ok(p) = &mut out.provider {
        p.reasoning = reasoning.value;
        p.temperature = temperature.value;
        add_discovered_prices(p, zut_home);
    }
    let mut warnings = Vec::new();
    let insecure = crate::insecure::resolve(
        flags.insecure,
        config
            .as_ref()
            .and_then(|c| c.insecure.map(|i| (i, cfg_origin("insecure")))),
        &out.base_url,
        &mut warnings,
    );
    if let Ok(p) = &mut out.provider {
        p.insecure_tls = insecure.value;
    }

    let context_window = if let Some(n) = flags.context_window {
        Setting::new(Some(n), Origin::Flag("--context-window"))
    } else if let Some((n, origin)) = out.model_entry_window.clone() {
        Setting::new(Some(n), origin)
    } else {
        Setting::new(
            None,
            Origin::Default("the model's known window, else 64000".into()),
        )
    };
    let max_output = match out.model_entry_max.clone() {
        Some((n, origin)) => Setting::new(Some(n), origin),
        None => Setting::new(None, Origin::Default("16384".into())),
    };
    let auto_compact = if let Some(s) = flags.auto_compact {
        Setting::new(Some(s), Origin::Flag("--auto-compact"))
    } else if let Some(p) = config.as_ref().and_then(|c| c.auto_compact_threshold) {
        Setting::new(
            Some(f64::from(p) / 100.0),
            cfg_origin("auto_compact_threshold"),
        )
    } else {
        Setting::new(None, Origin::Default("80% of the context window".into()))
    };
    let theme = match config.as_ref().and_then(|c| c.theme.clone()) {
        Some(t) => Setting::new(t, cfg_origin("theme")),
        None => Setting::new("auto".to_string(), Origin::Default(String::new())),
    };
    let terminal_alerts_enabled = match config.as_ref().and_then(|c| c.terminal_alerts_enabled) {
        Some(b) => Setting::new(b, cfg_origin("terminal_alerts_enabled")),
        None => Setting::new(true, Origin::Default(String::new())),
    };
    let mut warnings: Vec<String> = models
        .as_ref()
        .map(|m| m.warnings.clone())
        .unwrap_or_default()
        .into_iter()
        .chain(warnings)
        .collect();
    warnings.dedup();
    Ok(Settings {
        config_file: config,
        models_file: models,
        provider: out.provider,
        provider_name: out.provider_name,
        model: out.model,
        base_url: out.base_url,
        api_key: out.api_key,
        reasoning,
        temperature,
        context_window,
        max_output,
        auto_compact,
        theme,
        terminal_alerts_enabled,
        warnings,
        insecure_tls: insecure,
    })
}

fn same_provider(a: &str, b: &str) -> bool {
    match (zut_providers::preset(a), zut_providers::preset(b)) {
        (Some(x), Some(y)) => x.id == y.id,
        _ => a == b,
    }
}

/// The provider part of the resolution.
struct ProviderPart {
    provider: Result<ProviderConfig, ConfigError>,
    provider_name: Setting<String>,
    model: Setting<String>,
    base_url: Setting<String>,
    api_key: Setting<String>,
    model_entry_window: Option<(u64, Origin)>,
    model_entry_max: Option<(u32, Origin)>,
}

fn key_origin(src: &KeySource, provider: &str) -> Origin {
    match src {
        KeySource::Flag => Origin::Flag("--api-key"),
        KeySource::Env(n) => Origin::Env(n.clone()),
        KeySource::AuthFile(p) => Origin::File(p.clone(), format!("{provider}.api_key")),
        KeySource::None => Origin::Default("no key".into()),
    }
}

/// A model entry's `contextWindow` and `maxTokens`, with their origins.
type Limits = (Option<(u64, Origin)>, Option<(u32, Origin)>);

fn entry_limits(
    entry: Option<(&ProviderEntry, &CustomModel, usize)>,
    models_path: &Path,
) -> Limits {
    let Some((p, m, i)) = entry else {
        return (None, None);
    };
    let at = |k: &str| {
        Origin::File(
            models_path.to_path_buf(),
            format!("providers.{}.models[{i}].{k}", p.name),
        )
    };
    (
        m.context_window.map(|n| (n, at("contextWindow"))),
        m.max_tokens.map(|n| (n, at("maxTokens"))),
    )
}

fn custom_provider(
    flags: &Flags,
    env: &dyn Fn(&str) -> Option<String>,
    zut_home: &Path,
    models_path: &Path,
    entry: &ProviderEntry,
    asked: Setting<String>,
    asked_model: Option<Setting<String>>,
) -> ProviderPart {
    let mp = models_path.to_path_buf();
    let at = |k: String| Origin::File(mp.clone(), k);
    let model = asked_model.or_else(|| {
        entry.models.first().map(|m| {
            Setting::new(
                m.id.clone(),
                at(format!("providers.{}.models[0].id", entry.name)),
            )
        })
    });
    let mut part = ProviderPart {
        provider: Err(ConfigError::other("")),
        provider_name: asked.clone(),
        model: model
            .clone()
            .unwrap_or_else(|| Setting::new(String::new(), Origin::Default("none".into()))),
        base_url: Setting::new(String::new(), Origin::Default("none".into())),
        api_key: Setting::new("none".into(), Origin::Default("no key".into())),
        model_entry_window: None,
        model_entry_max: None,
    };
    let Some(wire) = entry.api.wire() else {
        part.provider = Err(ConfigError::key(
            models_path,
            format!("providers.{}.api", entry.name),
            format!("{:?} is not a wire zut speaks", entry.api.as_str()),
        ));
        return part;
    };
    let Some(model) = model else {
        part.provider = Err(ConfigError::key(
            models_path,
            format!("providers.{}.models", entry.name),
            format!(
                "provider {:?} lists no model: add one, or pass --model",
                entry.name
            ),
        ));
        return part;
    };
    let idx = entry.models.iter().position(|m| m.id == model.value);
    let model_entry = idx.map(|i| (entry, &entry.models[i], i));
    (part.model_entry_window, part.model_entry_max) = entry_limits(model_entry, models_path);
    let base = if let Some(u) = flags.base_url.clone().filter(|u| !u.trim().is_empty()) {
        Setting::new(u, Origin::Flag("--base-url"))
    } else if let Some((_, m, i)) = model_entry.filter(|(_, m, _)| m.base_url.is_some()) {
        Setting::new(
            m.base_url.clone().unwrap_or_default(),
            at(format!("providers.{}.models[{i}].baseUrl", entry.name)),
        )
    } else if let Some(u) = &entry.base_url {
        Setting::new(u.clone(), at(format!("providers.{}.baseUrl", entry.name)))
    } else {
        part.provider = Err(ConfigError::key(
            models_path,
            format!("providers.{}.baseUrl", entry.name),
            format!(
                "model {:?} is not listed for provider {:?} and the provider has no baseUrl",
                model.value, entry.name
            ),
        ));
        return part;
    };
    part.base_url = base.clone();
    // Key: --api-key, then <NAME>_API_KEY, then auth.json; none with "auth": "none".
    let key_env = entry.key_env();
    let (key, origin) = if let Some(k) = flags.api_key.clone().filter(|k| !k.trim().is_empty()) {
        (Some(k), Origin::Flag("--api-key"))
    } else if entry.no_auth {
        (None, at(format!("providers.{}.auth", entry.name)))
    } else if let Some(k) = env(&key_env) {
        (Some(k), Origin::Env(key_env.clone()))
    } else {
        match zut_providers::credentials::stored_key(zut_home, &entry.name) {
            Ok(Some((k, path))) => (
                Some(k),
                Origin::File(path, format!("{}.api_key", entry.name)),
            ),
            Ok(None) => (
                None,
                Origin::Default(format!("no key; set {key_env} if the server needs one")),
            ),
            Err(e) => {
                part.provider = Err(ConfigError::other(e.to_string()));
                return part;
            }
        }
    };
    part.api_key = Setting::new(
        if key.is_some() {
            "set".into()
        } else {
            "none".into()
        },
        origin.clone(),
    );
    let cfg = ProviderConfig::new(
        "openai-compatible",
        &base.value,
        key.as_deref(),
        &model.value,
    );
    part.provider = cfg
        .map(|mut c| {
            c.provider = entry.name.clone();
            c.wire = wire;
            c.max_completion_tokens = false;
            c.headers = entry.headers.clone();
            c.reasoning_map = model_entry
                .map(|(_, m, _)| m.reasoning_level_map.clone())
                .unwrap_or_default();
            c.prices = entry_prices(entry);
            c.key_source = match &origin {
                Origin::Flag(_) => KeySource::Flag,
                Origin::Env(n) => KeySource::Env(n.clone()),
                Origin::File(p, _) if key.is_some() => KeySource::AuthFile(p.clone()),
                _ => KeySource::None,
            };
            c
        })
        .map_err(|e| ConfigError::other(e.to_string()));
    part.model = model;
    part
}

fn preset_provider(
    flags: &Flags,
    env: &dyn Fn(&str) -> Option<String>,
    zut_home: &Path,
    models: Option<&ModelsFile>,
    asked: Option<Setting<String>>,
    asked_model: Option<Setting<String>>,
) -> ProviderPart {
    let models_path = models.map(|m| m.path.clone()).unwrap_or_default();
    let flag_base = flags.base_url.clone().filter(|u| !u.trim().is_empty());
    // A base URL from the environment or models.json, for a known preset.
    let base_for = |preset: &str, model: Option<&str>| -> Option<Setting<String>> {
        if let Some(var) = base_url_env(preset) {
            if let Some(u) = env(var) {
                return Some(Setting::new(u, Origin::Env(var.into())));
            }
        }
        let entry = models?.provider(preset)?;
        if let Some((i, m)) =
            model.and_then(|id| entry.models.iter().enumerate().find(|(_, m)| m.id == id))
        {
            if let Some(u) = &m.base_url {
                return Some(Setting::new(
                    u.clone(),
                    Origin::File(
                        models_path.clone(),
                        format!("providers.{}.models[{i}].baseUrl", entry.name),
                    ),
                ));
            }
        }
        entry.base_url.as_ref().map(|u| {
            Setting::new(
                u.clone(),
                Origin::File(
                    models_path.clone(),
                    format!("providers.{}.baseUrl", entry.name),
                ),
            )
        })
    };
    let known_preset = asked
        .as_ref()
        .and_then(|a| zut_providers::preset(&a.value))
        .map(|p| p.id);
    let pre_base = match (&flag_base, known_preset) {
        (Some(u), _) => Some(Setting::new(u.clone(), Origin::Flag("--base-url"))),
        (None, Some(id)) => base_for(id, asked_model.as_ref().map(|m| m.value.as_str())),
        (None, None) => None,
    };
    let opts = ProviderOptions {
        provider: asked.as_ref().map(|a| a.value.clone()),
        model: asked_model.as_ref().map(|m| m.value.clone()),
        base_url: pre_base.as_ref().map(|b| b.value.clone()),
        api_key: flags.api_key.clone(),
        reasoning: None,
        ..Default::default()
    };
    let resolved = zut_providers::resolve(&opts, &|k: &str| env(k), zut_home);
    let mut part = ProviderPart {
        provider: Err(ConfigError::other("")),
        provider_name: asked
            .clone()
            .unwrap_or_else(|| Setting::new(String::new(), Origin::Default("detected".into()))),
        model: asked_model.clone().unwrap_or_else(|| {
            Setting::new(String::new(), Origin::Default("the provider's".into()))
        }),
        base_url: pre_base.clone().unwrap_or_else(|| {
            Setting::new(String::new(), Origin::Default("the provider's".into()))
        }),
        api_key: Setting::new("none".into(), Origin::Default("no key".into())),
        model_entry_window: None,
        model_entry_max: None,
    };
    let mut cfg = match resolved {
        Ok(c) => c,
        Err(e) => {
            let mut msg = e.to_string();
            if let Some(a) = &asked {
                if zut_providers::preset(&a.value).is_none() {
                    let custom: Vec<&str> = models
                        .map(|m| {
                            m.providers
                                .iter()
                                .filter(|p| !p.is_preset)
                                .map(|p| p.name.as_str())
                                .collect()
                        })
                        .unwrap_or_default();
                    msg = format!(
                        "{msg}; custom providers from {}: {}",
                        ModelsFile::path_in(zut_home).display(),
                        if custom.is_empty() {
                            "none".to_string()
                        } else {
                            custom.join(", ")
                        }
                    );
                    if let Origin::File(p, k) = &a.origin {
                        msg = format!("{}: {k}: {msg}", p.display());
                    }
                }
            }
            part.provider = Err(ConfigError::other(msg));
            return part;
        }
    };
    if asked.is_none() {
        part.provider_name = Setting::new(
            cfg.provider.clone(),
            Origin::Default(
                "first provider with a key in the environment or auth.json, else anthropic".into(),
            ),
        );
        if flag_base.is_none() {
            // Detected preset: its base URL variable or models.json entry.
            if let Some(b) = base_for(&cfg.provider, Some(&cfg.model)) {
                cfg.base_url = b.value.trim_end_matches('/').to_string();
                part.base_url = b;
            }
        }
    }
    if part.base_url.value.is_empty() {
        part.base_url = Setting::new(
            cfg.base_url.clone(),
            Origin::Default("the provider's".into()),
        );
    }
    if asked_model.is_none() {
        part.model = Setting::new(
            cfg.model.clone(),
            Origin::Default(format!("{}'s default", cfg.provider)),
        );
    }
    part.api_key = Setting::new(
        if cfg.api_key.is_some() {
            "set".into()
        } else {
            "none".into()
        },
        key_origin(&cfg.key_source, &cfg.provider),
    );
    if let Some(entry) = models.and_then(|m| m.provider(&cfg.provider)) {
        if entry.api_given {
            match entry.api.wire() {
                Some(w) => {
                    cfg.wire = w;
                    // An explicit api wins over the preset's per-model routing.
                    cfg.responses_models.clear();
                }
                None => {
                    part.provider = Err(ConfigError::key(
                        &models_path,
                        format!("providers.{}.api", entry.name),
                        format!("{:?} is not a wire zut speaks", entry.api.as_str()),
                    ));
                    return part;
                }
            }
        }
        cfg.headers = entry.headers.clone();
        cfg.prices = entry_prices(entry);
        let idx = entry.models.iter().position(|m| m.id == cfg.model);
        if let Some(i) = idx {
            cfg.reasoning_map = entry.models[i].reasoning_level_map.clone();
        }
        (part.model_entry_window, part.model_entry_max) =
            entry_limits(idx.map(|i| (entry, &entry.models[i], i)), &models_path);
    }
    part.provider = Ok(cfg);
    part
}

/// Adds the discovery cache's prices (a live model list that carries them,
/// as OpenRouter's does) for the provider's models that neither models.json
/// nor the catalog prices: models.json first, then the catalog, then the
/// discovered list. The cache is read only when the model in use has no
/// price otherwise, so a priced run's start-up never reads it.
fn add_discovered_prices(p: &mut zut_providers::ProviderConfig, zut_home: &Path) {
    if zut_home.as_os_str().is_empty() || p.prices_for(&p.model).is_some() {
        return;
    }
    for (id, price) in zut_providers::model_list::cached_prices(zut_home, &p.provider) {
        if p.prices_for(&id).is_none() {
            p.prices.push((id, price));
        }
    }
}

/// The models.json prices of a provider's models (`priceInput`...).
fn entry_prices(entry: &ProviderEntry) -> Vec<(String, zut_providers::Prices)> {
    entry
        .models
        .iter()
        .filter_map(|m| m.prices.map(|p| (m.id.clone(), p)))
        .collect()
}
