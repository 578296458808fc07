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
    })
}

/// Resolves flags, the process environment and the files of `zut_home`.
pub fn load(args: &GlobalArgs, zut_home: &Path) -> anyhow::Result<zut_config::Settings> {
    let flags = flags(args)?;
    let env = |k: &str| std::env::var(k).ok();
    Ok(zut_config::load(&flags, &env, zut_home)?)
}
