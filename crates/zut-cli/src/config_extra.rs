//! `zut config` rows for the network settings: the HTTP proxy in effect
//! (environment or config.json `http_proxy`, its password never shown)
//! and whether language servers are on (config.json `lsp_enabled`).

use std::fmt::Write as _;

use zut_config::Settings;

/// `http proxy  <url>  [origin]` and `lsp  on|off  [origin]` (language
/// servers).
pub fn proxy_row(out: &mut String, s: &Settings) {
    let file = s
        .config_file
        .as_ref()
        .map(|c| (c.path.display().to_string(), c.http_proxy.clone()));
    let env = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"]
        .into_iter()
        .find_map(|k| {
            std::env::var(k)
                .ok()
                .filter(|v| !v.trim().is_empty())
                .map(|v| (k, v))
        });
    let line = match (env, file) {
        (Some((_, v)), Some((path, Some(p)))) if crate::settings::proxy_from_config() && v == p => {
            format!("{}  [file {path} (http_proxy)]", masked(&p))
        }
        (Some((k, v)), _) => format!("{}  [environment {k}]", masked(&v)),
        (None, Some((path, Some(p)))) => format!("{}  [file {path} (http_proxy)]", masked(&p)),
        _ => "none  [default]".to_string(),
    };
    let _ = writeln!(out, "{:<16}{line}", "http proxy");
    let lsp = match s
        .config_file
        .as_ref()
        .and_then(|c| c.lsp_enabled.map(|b| (b, &c.path)))
    {
        Some((on, path)) => format!(
            "{}  [file {} (lsp_enabled)]",
            if on { "on" } else { "off" },
            path.display()
        ),
        None => "on  [default; --no-lsp turns it off]".into(),
    };
    let _ = writeln!(out, "{:<16}{lsp}", "lsp");
}

/// `url` with the password of `user:password@` replaced by `***`.
pub fn masked(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let Some((auth, host)) = rest.rsplit_once('@') else {
        return url.to_string();
    };
    let user = auth.split(':').next().unwrap_or("");
    let prefix = if scheme.is_empty() {
        String::new()
    } else {
        format!("{scheme}://")
    };
    format!("{prefix}{user}:***@{host}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_masked() {
        assert_eq!(masked("http://u:secret@p:3128"), "http://u:***@p:3128");
        assert_eq!(masked("p:3128"), "p:3128");
        assert_eq!(masked("https://p.example"), "https://p.example");
    }
}
