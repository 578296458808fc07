//! The public-web tools of a run: whether they are on (`--tools web_search`,
//! `--no-tools`, config.json `web_search_enabled`) and their settings
//! (config.json `web`, search API keys from the environment or auth.json).

use std::path::Path;
use std::time::Duration;

use anyhow::anyhow;
use zut_agent::web::{self, AllowedHost, SearchBackend, WebConfig};

use crate::args::GlobalArgs;

/// `builtins` plus the four web tools when the run has them: an explicit
/// `--tools` list must name `web_search`; otherwise `web_search_enabled`
/// decides (missing: on). `--no-tools` never has them.
pub fn with_web(
    mut builtins: Vec<String>,
    args: &GlobalArgs,
    settings: &zut_config::Settings,
) -> Vec<String> {
    let on = if args.no_tools {
        false
    } else if let Some(list) = &args.tools {
        list.iter().any(|t| t.trim() == web::SELECTOR)
    } else {
        settings
            .config_file
            .as_ref()
            .and_then(|c| c.web_search_enabled)
            .unwrap_or(true)
    };
    if on {
        builtins.extend(web::TOOL_NAMES.iter().map(|s| s.to_string()));
    }
    builtins
}

/// The web settings from config.json's `web` object; the key of a keyed
/// search backend from its environment variable or auth.json.
pub fn web_config(settings: &zut_config::Settings, zut_home: &Path) -> anyhow::Result<WebConfig> {
    let mut cfg = WebConfig::default();
    let Some(file) = &settings.config_file else {
        return Ok(cfg);
    };
    let keys = &file.web;
    for h in &keys.allow_hosts {
        let entry = AllowedHost::parse(h)
            .map_err(|e| anyhow!("{}: web.allow_hosts: {e}", file.path.display()))?;
        cfg.allow_hosts.push(entry);
    }
    if let Some(b) = &keys.backend {
        cfg.search.backend = SearchBackend::parse(b).ok_or_else(|| {
            anyhow!(
                "{}: web.search.backend: unknown backend {b:?}",
                file.path.display()
            )
        })?;
    }
    cfg.search.url = keys.url.clone();
    if let Some(s) = keys.timeout_secs {
        cfg.timeout = Duration::from_secs(s);
        cfg.read_timeout = cfg.read_timeout.min(cfg.timeout);
    }
    let b = cfg.search.backend;
    if let (Some(env), Some(id)) = (b.key_env(), b.auth_id()) {
        let env_fn = |k: &str| std::env::var(k).ok();
        cfg.search.api_key = zut_config::web_search_key(env, id, zut_home, &env_fn)?;
    }
    Ok(cfg)
}
