//! `--insecure` and config.json `insecure` (the Go original's): TLS
//! certificates are not checked, but only for an **explicit** base URL —
//! `--base-url`, or a models.json `baseUrl` (provider or model). A preset's
//! own endpoint (api.anthropic.com, api.openai.com, ...) and a base URL
//! from an environment variable keep full verification: asking for it
//! there is a warning, never a weaker connection.

use crate::settings::{Origin, Setting};

/// Whether TLS checks are skipped for a provider reached at `base_url`.
pub fn resolve(
    flag: bool,
    config: Option<(bool, Origin)>,
    base_url: &Setting<String>,
    warnings: &mut Vec<String>,
) -> Setting<bool> {
    let asked = if flag {
        Some(Origin::Flag("--insecure"))
    } else {
        config.and_then(|(on, origin)| on.then_some(origin))
    };
    let Some(origin) = asked else {
        return Setting::new(false, Origin::Default(String::new()));
    };
    if explicit(base_url) {
        return Setting::new(true, origin);
    }
    let why = if base_url.value.is_empty() {
        "no base URL".to_string()
    } else {
        format!("{} ({})", base_url.value, base_url.origin)
    };
    warnings.push(format!(
        "{} ignored: TLS checks are only skipped for an explicit --base-url or models.json baseUrl, not for {why}",
        match &origin {
            Origin::Flag(f) => (*f).to_string(),
            other => format!("insecure ({other})"),
        }
    ));
    Setting::new(
        false,
        Origin::Default("asked for, but the base URL is not explicit".into()),
    )
}

/// A base URL set by `--base-url` or a models.json `baseUrl`.
fn explicit(base_url: &Setting<String>) -> bool {
    if base_url.value.is_empty() {
        return false;
    }
    match &base_url.origin {
        Origin::Flag(_) => true,
        Origin::File(_, key) => key.ends_with("baseUrl"),
        Origin::Env(_) | Origin::Default(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn url(origin: Origin) -> Setting<String> {
        Setting::new("https://x.example/v1".to_string(), origin)
    }

    #[test]
    fn only_an_explicit_base_url_is_insecure() {
        let mut w = Vec::new();
        assert!(resolve(true, None, &url(Origin::Flag("--base-url")), &mut w).value);
        let models = Origin::File(PathBuf::from("m.json"), "providers.co.baseUrl".into());
        let cfg = Some((
            true,
            Origin::File(PathBuf::from("c.json"), "insecure".into()),
        ));
        assert!(resolve(false, cfg.clone(), &url(models), &mut w).value);
        assert!(w.is_empty());
        assert!(!resolve(false, None, &url(Origin::Flag("--base-url")), &mut w).value);
        let off = Some((
            false,
            Origin::File(PathBuf::from("c.json"), "insecure".into()),
        ));
        assert!(!resolve(false, off, &url(Origin::Flag("--base-url")), &mut w).value);
        assert!(w.is_empty());
        // A preset's own endpoint or an environment variable: refused.
        assert!(!resolve(true, None, &url(Origin::Default("preset".into())), &mut w).value);
        assert!(
            !resolve(
                false,
                cfg,
                &url(Origin::Env("OPENAI_BASE_URL".into())),
                &mut w
            )
            .value
        );
        assert_eq!(w.len(), 2);
        assert!(
            w[0].starts_with("--insecure ignored: TLS checks are only skipped"),
            "{w:?}"
        );
        assert!(w[1].contains("OPENAI_BASE_URL"), "{w:?}");
    }
}
