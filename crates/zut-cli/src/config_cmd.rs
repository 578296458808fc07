//! `zut config` (the effective settings and where each came from) and
//! `zut --list-models` (presets and the models of `models.json`).
//! Details: docs/config.md.

use std::fmt::Write as _;

use zut_config::{Setting, Settings};
use zut_ext_host::ZutHome;

use crate::args::GlobalArgs;

/// Runs `zut config [flags]`: the flags are the global ones, so their
/// effect on the settings can be checked. Returns the exit status.
pub fn run(argv: &[String]) -> i32 {
    if argv
        .iter()
        .any(|a| a == "-h" || a == "--help" || a == "help")
    {
        crate::stdio::line("usage: zut config [--provider P] [--model M] [--base-url U] [--api-key K] [--reasoning R] [--temperature T] ...");
        crate::stdio::line("shows the effective settings and where each value came from (flag, environment, file, default)");
        return 0;
    }
    let args = match crate::args::parse(argv) {
        Ok(a) => a,
        Err(e) => {
            let text = e.to_string();
            crate::errln!(
                "zut: {}",
                text.lines()
                    .next()
                    .unwrap_or("invalid arguments")
                    .trim_start_matches("error: ")
            );
            return 1;
        }
    };
    let home = home_root();
    match crate::settings::load(&args, &home) {
        Ok(s) => {
            crate::stdio::text(&render(&s, &home));
            0
        }
        Err(e) => {
            crate::errln!("zut: {e:#}");
            1
        }
    }
}

pub(crate) fn home_root() -> std::path::PathBuf {
    let home = ZutHome::from_env();
    if home.root().is_absolute() {
        home.root().to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_default()
            .join(home.root())
    }
}

fn row<T>(out: &mut String, name: &str, s: &Setting<T>, show: impl Fn(&T) -> String) {
    let _ = writeln!(out, "{name:<16}{}  [{}]", show(&s.value), s.origin);
}

/// The `zut config` text.
pub fn render(s: &Settings, home: &std::path::Path) -> String {
    let mut out = String::new();
    let found = |p: &std::path::Path, present: bool| {
        format!(
            "{} ({})",
            p.display(),
            if present { "read" } else { "not present" }
        )
    };
    let _ = writeln!(
        out,
        "{:<16}{}",
        "config file",
        found(
            &zut_config::ConfigFile::path_in(home),
            s.config_file.is_some()
        )
    );
    let _ = writeln!(
        out,
        "{:<16}{}",
        "models file",
        found(
            &zut_config::ModelsFile::path_in(home),
            s.models_file.is_some()
        )
    );
    out.push('\n');
    row(&mut out, "provider", &s.provider_name, |v| v.clone());
    row(&mut out, "model", &s.model, |v| v.clone());
    row(&mut out, "base url", &s.base_url, |v| v.clone());
    row(&mut out, "api key", &s.api_key, |v| v.clone());
    row(&mut out, "reasoning", &s.reasoning, |v| {
        format!("{v:?}").to_lowercase()
    });
    row(&mut out, "temperature", &s.temperature, |v| {
        v.map_or("default".into(), |t| t.to_string())
    });
    row(&mut out, "context window", &s.context_window, |v| {
        v.map_or("default".into(), |n| n.to_string())
    });
    row(&mut out, "max output", &s.max_output, |v| {
        v.map_or("default".into(), |n| n.to_string())
    });
    row(&mut out, "auto compact", &s.auto_compact, |v| match v {
        None => "default".into(),
        Some(x) if *x <= 0.0 => "off".into(),
        Some(x) => format!("{:.0}%", x * 100.0),
    });
    row(&mut out, "theme", &s.theme, |v| v.clone());
    row(
        &mut out,
        "terminal alerts",
        &s.terminal_alerts_enabled,
        |v| if *v { "on".into() } else { "off".into() },
    );
    row(&mut out, "insecure tls", &s.insecure_tls, |v| {
        if *v {
            "on".into()
        } else {
            "off".into()
        }
    });
    crate::config_extra::proxy_row(&mut out, s);
    if let Err(e) = &s.provider {
        let _ = writeln!(out, "\nprovider error: {e}");
    }
    if let Some(c) = &s.config_file {
        if !c.ignored.is_empty() {
            let _ = writeln!(out, "\nignored keys in {}:", c.path.display());
            for k in &c.ignored {
                let _ = writeln!(out, "  {}: {}", k.key, k.why);
            }
        }
    }
    if !s.warnings.is_empty() {
        out.push_str("\nwarnings:\n");
        for w in &s.warnings {
            let _ = writeln!(out, "  {w}");
        }
    }
    out
}

/// `zut --list-models`: every model of every provider — the embedded
/// catalog, each preset's default, models.json — with context window,
/// output limit, list prices and reasoning, then the selected one.
pub fn list_models(args: &GlobalArgs) -> i32 {
    let home = home_root();
    let settings = match crate::settings::load(args, &home) {
        Ok(s) => s,
        Err(e) => {
            crate::errln!("zut: {e:#}");
            return 1;
        }
    };
    let cache = zut_models::discovery::load(&home);
    let rows = zut_models::table::all(settings.models_file.as_ref(), Some(&cache));
    let mut out = zut_models::table::table(&rows);
    if let Ok(p) = &settings.provider {
        let _ = writeln!(
            out,
            "\nselected: {} {}  [{}]",
            p.provider, p.model, settings.provider_name.origin
        );
    }
    crate::stdio::text(&out);
    0
}
