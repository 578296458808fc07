//! Switching a live conversation to another provider's model, resolved as
//! `zut --provider P --model M` would (key, base URL, headers; the
//! conversation is kept), and the hooks that give the controller this
//! knowledge of settings files ([`install`]): `/model <provider>/<id>` and
//! RPC `set_model`, RPC `get_models`, the session model restorer.
//!
//! Resuming a session restores the provider and model it last used (its
//! last `meta` row; a switch mid-session writes one), as the Go original
//! does — unless `--provider`/`--model` (or `ZUT_PROVIDER`/`ZUT_MODEL`)
//! chose them for this run (the front end decides; it then does not call
//! [`restore`]). A stored provider that cannot be used now (no key,
//! unknown) leaves the run's own, with a warning.

use std::path::Path;

/// Switches `ctrl` to `meta`'s provider and model when they differ from
/// the ones in use. `Ok(Some(label))` when it switched, `Err(warning)` when
/// the stored one is not available.
pub fn restore(
    ctrl: &zut_agent::Controller,
    meta: &zut_session::Meta,
    home: &Path,
) -> Result<Option<String>, String> {
    restore_ids(ctrl, &meta.provider, &meta.model, home)
}

/// [`restore`] given the session's provider and model.
pub fn restore_ids(
    ctrl: &zut_agent::Controller,
    provider: &str,
    model: &str,
    home: &Path,
) -> Result<Option<String>, String> {
    let (provider, model) = (provider.trim(), model.trim());
    if provider.is_empty() || model.is_empty() {
        return Ok(None);
    }
    let st = ctrl.state();
    if st.provider == provider && st.model == model {
        return Ok(None);
    }
    let start = ctrl.start_config();
    let config = if start.provider == provider {
        let mut c = start;
        c.model = model.to_string();
        c
    } else {
        let flags = zut_config::Flags {
            provider: Some(provider.to_string()),
            model: Some(model.to_string()),
            ..zut_config::Flags::default()
        };
        let env = |k: &str| std::env::var(k).ok();
        let unavailable = |e: String| {
            format!(
                "the session last used {provider}/{model}, not available now ({e}); going on with {}/{}",
                st.provider, st.model
            )
        };
        let settings =
            zut_config::load(&flags, &env, home).map_err(|e| unavailable(e.to_string()))?;
        settings.provider.map_err(|e| unavailable(e.to_string()))?
    };
    ctrl.switch_provider(config).map(Some)
}

/// What `/model <provider>/<id>` switches to, given the run's starting
/// configuration and the one in use: `None` when `args` is not
/// `<provider>/<id>` of a known provider, or is a model of the provider in
/// use (`anthropic/claude-…` on OpenRouter) — the controller's own
/// `/model <id>` handles it. Another provider is resolved as `zut
/// --provider P --model M` would (the run's own flags when it is the run's
/// provider).
pub fn target_config(
    home: &Path,
    start: &zut_providers::ProviderConfig,
    current: &zut_providers::ProviderConfig,
    args: &str,
) -> Option<Result<zut_providers::ProviderConfig, String>> {
    let args = args.trim();
    let (prefix, model) = args.split_once('/')?;
    let models = zut_config::ModelsFile::load(&zut_config::ModelsFile::path_in(home))
        .ok()
        .flatten();
    let listed_here = crate::table::all(models.as_ref(), Some(&crate::discovery::load(home)))
        .iter()
        .any(|r| r.provider == current.provider && r.id == args);
    if listed_here {
        return None;
    }
    let provider = match zut_providers::preset(prefix) {
        Some(p) => p.id.to_string(),
        None => models.as_ref()?.provider(prefix)?.name.clone(),
    };
    let model = model.trim();
    if model.is_empty() {
        return Some(Err(format!("/model {args}: no model id after {provider}/")));
    }
    let from = |c: &zut_providers::ProviderConfig| {
        let mut c = c.clone();
        c.model = model.to_string();
        Ok(c)
    };
    if provider == current.provider {
        // Any model of the provider in use (catalog, discovered, typed).
        return Some(from(current));
    }
    if provider == start.provider {
        return Some(from(start));
    }
    let flags = zut_config::Flags {
        provider: Some(provider.clone()),
        model: Some(model.to_string()),
        ..zut_config::Flags::default()
    };
    let env = |k: &str| std::env::var(k).ok();
    Some(
        zut_config::load(&flags, &env, home)
            .map_err(|e| e.to_string())
            .and_then(|s| {
                s.provider
                    .map_err(|e| format!("cannot switch to {provider}/{model}: {e}"))
            }),
    )
}

/// Installs [`target_config`] in `ctrl`, so `/model <provider>/<id>` and
/// RPC `set_model` switch provider in every mode; with it the model lister
/// of RPC `get_models` (every provider with credentials,
/// [`crate::table::available`]) and the session model restorer of
/// RPC `switch_session` ([`restore_ids`]).
pub fn install(ctrl: &zut_agent::Controller, home: &Path) {
    let (home, start) = (home.to_path_buf(), ctrl.start_config());
    let resolver_home = home.clone();
    ctrl.set_model_resolver(std::sync::Arc::new(move |current, arg| {
        target_config(&resolver_home, &start, current, arg)
    }));
    let lister_home = home.clone();
    ctrl.set_model_lister(std::sync::Arc::new(move |current| {
        crate::table::rpc_models(&lister_home, current)
    }));
    ctrl.set_session_model_restorer(std::sync::Arc::new(move |ctrl, provider, model| {
        restore_ids(ctrl, provider, model, &home)
    }));
}
