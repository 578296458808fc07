//! Keys in `$ZUT_HOME/auth.json` as users manage them (`zut auth`, the
//! TUI's `/login` and `/logout`): where each provider's key comes from,
//! checking a key with the provider's model list before saving it, and
//! removing one. Nothing here prints; errors and messages never hold a key.
//! Details: docs/config.md.

use std::path::Path;
use std::time::Duration;

use zut_providers::credentials::{self, Stored};
use zut_providers::ProviderError;

/// How long the key check may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(15);

/// One row of `zut auth list`.
pub struct Row {
    /// Provider id.
    pub provider: String,
    /// Where its key comes from (`auth.json`, `auth.json command (op)`,
    /// `env OPENAI_API_KEY`, `not needed`, `none`).
    pub source: String,
    /// Whether zut has a key for it (or needs none).
    pub ready: bool,
}

/// Every preset, every models.json provider and every other auth.json
/// entry, with where its key would come from. No key command is run.
pub fn rows(home: &Path) -> Result<Vec<Row>, String> {
    let stored = credentials::list(home).map_err(|e| e.to_string())?;
    let models = zut_config::ModelsFile::load(&zut_config::ModelsFile::path_in(home))
        .map_err(|e| e.to_string())?;
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let from_file = |id: &str| {
        stored.iter().find(|(p, _)| p == id).map(|(_, s)| match s {
            Stored::Key(_) => "auth.json".to_string(),
            Stored::Command(Ok(c)) => format!("auth.json command ({})", c.program),
            Stored::Command(Err(_)) => "auth.json command (invalid)".to_string(),
        })
    };
    let mut out = Vec::new();
    for p in zut_providers::PRESETS {
        let by_env = [p.key_env, p.alt_key_env]
            .into_iter()
            .flatten()
            .find(|v| env(v).is_some());
        let (source, ready) = if let Some(var) = by_env {
            (format!("env {var}"), true)
        } else if let Some(s) = from_file(p.id) {
            (s, true)
        } else if matches!(p.id, "google-vertex" | "amazon-bedrock") {
            ("cloud credentials (see docs/providers)".to_string(), false)
        } else if !p.key_required {
            ("not needed".to_string(), true)
        } else {
            ("none".to_string(), false)
        };
        out.push(Row {
            provider: p.id.to_string(),
            source,
            ready,
        });
    }
    if let Some(m) = &models {
        for p in m.providers.iter().filter(|p| !p.is_preset) {
            let var = p.key_env();
            let (source, ready) = if p.no_auth {
                ("not needed (\"auth\": \"none\")".to_string(), true)
            } else if env(&var).is_some() {
                (format!("env {var}"), true)
            } else if let Some(s) = from_file(&p.name) {
                (s, true)
            } else {
                ("none".to_string(), false)
            };
            out.push(Row {
                provider: p.name.clone(),
                source,
                ready,
            });
        }
    }
    for (id, _) in &stored {
        if !out.iter().any(|r| &r.provider == id) {
            out.push(Row {
                provider: id.clone(),
                source: from_file(id).unwrap_or_default(),
                ready: true,
            });
        }
    }
    Ok(out)
}

/// Whether `provider` is a preset or a models.json provider; its canonical id.
fn known_provider(home: &Path, provider: &str) -> Result<(String, bool), String> {
    if let Some(p) = zut_providers::preset(provider) {
        return Ok((p.id.to_string(), true));
    }
    let models = zut_config::ModelsFile::load(&zut_config::ModelsFile::path_in(home))
        .map_err(|e| e.to_string())?;
    if let Some(p) = models.as_ref().and_then(|m| m.provider(provider)) {
        return Ok((p.name.clone(), false));
    }
    Err(format!(
        "unknown provider {provider:?}: one of {}, or a provider of models.json",
        zut_providers::presets::preset_names()
    ))
}

/// Checks `key` for `provider` with its model list (unless `probe` is
/// false) and saves it to `auth.json` (mode 0600) only when the provider
/// accepted it. Returns what happened, for the user; errors never hold
/// the key.
pub async fn login(
    home: &Path,
    provider: &str,
    key: &str,
    base_url: Option<&str>,
    probe: bool,
) -> Result<String, String> {
    let (id, preset) = known_provider(home, provider)?;
    let key = key.trim();
    if key.is_empty() {
        return Err("empty key: nothing saved".into());
    }
    let mut verified = String::from("not checked (--no-probe)");
    let mut listed = None;
    if probe {
        let config = probe_config(home, &id, key, base_url)?;
        match zut_providers::model_list::list_models(&config, PROBE_TIMEOUT).await {
            Ok(models) => {
                verified = format!("checked: the model list answered with {} models", models.len());
                listed = Some((config, models));
            }
            Err(ProviderError::Http { status: 401 | 403, message, .. }) => {
                return Err(format!(
                    "{id} rejected the key ({message}); nothing saved"
                ))
            }
            Err(ProviderError::Http { status: 404 | 405, .. }) if !preset => {
                verified = "not checked: the provider has no model list".into();
            }
            Err(e) => {
                return Err(format!(
                    "could not check the key with {id}'s model list ({e}); nothing saved (`--no-probe` saves without checking)"
                ))
            }
        }
    }
    let path = credentials::save_key(home, &id, key).map_err(|e| e.to_string())?;
    if let Some((config, models)) = listed {
        crate::discovery::after_login(home, &config, models);
    }
    let mut message = format!("saved the key for {id} to {} ({verified})", path.display());
    if let Some(var) = env_key_var(&id) {
        if std::env::var(&var).is_ok_and(|v| !v.trim().is_empty()) {
            message.push_str(&format!("; note: {var} is set and takes precedence"));
        }
    }
    Ok(message)
}

/// The provider configuration used to ask the model list with `key`.
fn probe_config(
    home: &Path,
    id: &str,
    key: &str,
    base_url: Option<&str>,
) -> Result<zut_providers::ProviderConfig, String> {
    let env = |k: &str| std::env::var(k).ok();
    let mut last = String::new();
    // A model is needed to resolve some providers but not to list models.
    for model in [None, Some("probe")] {
        let flags = zut_config::Flags {
            provider: Some(id.to_string()),
            api_key: Some(key.to_string()),
            base_url: base_url.map(str::to_string),
            model: model.map(str::to_string),
            ..zut_config::Flags::default()
        };
        let settings = zut_config::load(&flags, &env, home).map_err(|e| e.to_string())?;
        match settings.provider {
            // A key is only ever sent over a checked connection
            // (config.json `insecure` is for model calls).
            Ok(c) => {
                return Ok(zut_providers::ProviderConfig {
                    insecure_tls: false,
                    ..c
                })
            }
            Err(e) => last = e.to_string(),
        }
    }
    Err(last.replace(key, "[key]"))
}

fn env_key_var(id: &str) -> Option<String> {
    match zut_providers::preset(id) {
        Some(p) => p.key_env.map(str::to_string),
        None => Some(zut_config::key_env_for(id)),
    }
}

/// Removes `provider`'s key or key command from `auth.json`.
pub fn logout(home: &Path, provider: &str) -> Result<String, String> {
    let id = zut_providers::preset(provider)
        .map(|p| p.id.to_string())
        .unwrap_or_else(|| provider.trim().to_string());
    match credentials::remove(home, &id) {
        Ok(true) => {
            let mut m = format!("removed the key for {id} from auth.json");
            if let Some(var) = env_key_var(&id) {
                if std::env::var(&var).is_ok_and(|v| !v.trim().is_empty()) {
                    m.push_str(&format!("; {var} is still set"));
                }
            }
            Ok(m)
        }
        Ok(false) => Ok(format!("no key stored for {id}")),
        Err(e) => Err(e.to_string()),
    }
}
