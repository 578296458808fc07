//! Resuming a session restores the provider and model it last used (its
//! last `meta` row; a switch mid-session writes one), as the Go original
//! does — unless `--provider`/`--model` (or `ZUT_PROVIDER`/`ZUT_MODEL`)
//! chose them for this run. A stored provider that cannot be used now (no
//! key, unknown) leaves the run's own, with a warning.

use std::path::Path;

use crate::args::GlobalArgs;

/// Whether this run chose its provider or model itself.
pub fn explicit(args: &GlobalArgs) -> bool {
    let set = |k: &str| std::env::var(k).is_ok_and(|v| !v.trim().is_empty());
    args.provider.is_some() || args.model.is_some() || set("ZUT_PROVIDER") || set("ZUT_MODEL")
}

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
