//! The global flags as `zut-config` inputs: every mode (and `zut config`,
//! `--list-models`) resolves its settings through [`load`].

use std::path::Path;

use anyhow::bail;

use crate::args::GlobalArgs;

/// The flags that take part in settings resolution.
pub fn flags(args: &GlobalArgs) -> anyhow::Result<zut_config::Flags> {
    let temperature = match args.temperature.as_deref().map(str::trim) {
        None => None,
        Some(t) => match t.parse::<f32>() {
            Ok(v) if (0.0..=2.0).contains(&v) => Some(v),
            _ => bail!("--temperature {t:?}: expected a number from 0 to 2"),
        },
    };
    let auto_compact = args
        .auto_compact
        .as_deref()
        .and_then(|s| s.trim().parse::<f64>().ok());
    Ok(zut_config::Flags {
        provider: args.provider.clone(),
        model: args.model.clone(),
        base_url: args.base_url.clone(),
        api_key: args.api_key.clone(),
        reasoning: args.reasoning.clone(),
        temperature,
        context_window: args.context_window,
        auto_compact,
        insecure: args.insecure,
    })
}

/// Resolves flags, the process environment and the files of `zut_home`.
pub fn load(args: &GlobalArgs, zut_home: &Path) -> anyhow::Result<zut_config::Settings> {
    let flags = flags(args)?;
    let env = |k: &str| std::env::var(k).ok();
    Ok(zut_config::load(&flags, &env, zut_home)?)
}

/// config.json `http_proxy` (the Go original's): when neither
/// `HTTP_PROXY` nor `HTTPS_PROXY` (or their lower-case forms) is set, they
/// are set to it for this process — so every HTTP client of zut (model
/// calls, model lists, logins, web search) and the commands it runs use
/// the proxy, as the Go original does. The environment wins over the file.
/// Called first thing in `main`, while zut has one thread. A file that
/// cannot be read or a bad value is left for the settings load to report.
pub fn apply_http_proxy(zut_home: &Path) {
    let Some(proxy) = configured_proxy(zut_home) else {
        return;
    };
    let set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
    for (upper, lower) in [("HTTP_PROXY", "http_proxy"), ("HTTPS_PROXY", "https_proxy")] {
        if !set(upper) && !set(lower) {
            std::env::set_var(upper, &proxy);
            let _ = PROXY_FROM_CONFIG.set(true);
        }
    }
}

static PROXY_FROM_CONFIG: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

/// Whether [`apply_http_proxy`] set a proxy variable from config.json.
pub fn proxy_from_config() -> bool {
    PROXY_FROM_CONFIG.get().copied().unwrap_or(false)
}

/// The checked `http_proxy` of `config.json`, if any.
fn configured_proxy(zut_home: &Path) -> Option<String> {
    let path = zut_config::ConfigFile::path_in(zut_home);
    let text = std::fs::read_to_string(path).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    let proxy = value.get("http_proxy")?.as_str()?.trim().to_string();
    (!proxy.is_empty() && zut_config::config_file::check_proxy(&proxy).is_ok()).then_some(proxy)
}
