//! The URL rules a page fetch checks before any connection (and again for
//! every redirect target): scheme, credentials, length, IP literals.
//! Host names are checked after resolution by [`crate::fetch`]'s resolver.

use std::net::IpAddr;

use url::{Host, Url};

use crate::address;
use crate::config::WebConfig;
use crate::limits::MAX_URL_BYTES;

/// A URL that passed the checks.
#[derive(Debug, Clone)]
pub struct Destination {
    /// The URL, fragment removed.
    pub url: Url,
    /// Lower-cased host (IPv6 without brackets).
    pub host: String,
    /// Port (the scheme's default when absent).
    pub port: u16,
    /// On the user's allow-list: resolved addresses are not checked.
    pub allowed: bool,
}

/// Checks `raw` (absolute, or relative to `base`). The error is the reason
/// it is refused.
pub fn check(raw: &str, base: Option<&Url>, cfg: &WebConfig) -> Result<Destination, String> {
    let raw = raw.trim();
    if raw.len() > MAX_URL_BYTES {
        return Err(format!("the URL is longer than {MAX_URL_BYTES} bytes"));
    }
    let parsed = match base {
        Some(b) => b.join(raw),
        None => Url::parse(raw),
    };
    let mut url = parsed.map_err(|e| format!("{raw:?} is not a valid absolute URL ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "only http and https URLs are fetched, not {}:",
            url.scheme()
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("URLs with credentials (user:password@) are never fetched".into());
    }
    url.set_fragment(None);
    let port = url
        .port_or_known_default()
        .ok_or_else(|| "the URL has no port".to_string())?;
    let (host, ip) = match url.host() {
        None => return Err("the URL has no host".into()),
        Some(Host::Domain(d)) => (d.trim_end_matches('.').to_ascii_lowercase(), None),
        Some(Host::Ipv4(v4)) => (v4.to_string(), Some(IpAddr::V4(v4))),
        Some(Host::Ipv6(v6)) => (v6.to_string(), Some(IpAddr::V6(v6))),
    };
    if host.is_empty() {
        return Err("the URL has no host".into());
    }
    let allowed = cfg.allowed(&host, port);
    if let (Some(ip), false) = (ip, allowed) {
        if let Some(why) = address::refusal(ip) {
            return Err(format!(
                "{host} is {why}; add it to \"web\": {{\"allow_hosts\": [...]}} in config.json to allow it"
            ));
        }
    }
    Ok(Destination {
        url,
        host,
        port,
        allowed,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::config::AllowedHost;

    fn cfg(allow: &[&str]) -> WebConfig {
        WebConfig {
            allow_hosts: allow
                .iter()
                .map(|a| AllowedHost::parse(a).unwrap())
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn bad_urls_are_refused_with_a_reason() {
        let c = cfg(&[]);
        let cases = [
            ("file:///etc/passwd", "only http and https"),
            ("ftp://example.com/", "only http and https"),
            ("https://user:pw@example.com/", "credentials"),
            ("https://user@example.com/", "credentials"),
            ("http://127.0.0.1/", "loopback"),
            ("http://2130706433/", "loopback"),
            ("http://0x7f.0.0.1/", "loopback"),
            ("http://[::1]:8080/", "loopback"),
            ("http://[::ffff:169.254.169.254]/", "metadata"),
            ("http://169.254.169.254/latest/meta-data/", "metadata"),
            ("http://[fd00:ec2::254]/", "metadata"),
            ("http://10.0.0.1/", "private"),
            ("not a url", "not a valid absolute URL"),
        ];
        for (u, want) in cases {
            let e = check(u, None, &c).unwrap_err();
            assert!(e.contains(want), "{u}: {e}");
        }
        let long = format!("https://example.com/{}", "a".repeat(5000));
        assert!(check(&long, None, &c).unwrap_err().contains("longer"));
    }

    #[test]
    fn public_and_allowed_urls_pass() {
        let d = check("https://Example.COM/a#frag", None, &cfg(&[])).unwrap();
        assert_eq!(d.url.as_str(), "https://example.com/a");
        assert_eq!(
            (d.host.as_str(), d.port, d.allowed),
            ("example.com", 443, false)
        );
        let c = cfg(&["127.0.0.1:8080", "docs.internal"]);
        assert!(check("http://127.0.0.1:8080/x", None, &c).unwrap().allowed);
        assert!(check("http://127.0.0.1:8081/x", None, &c).is_err());
        assert!(
            check("https://docs.internal:9/x", None, &c)
                .unwrap()
                .allowed
        );
        let base = Url::parse("https://example.com/a/b").unwrap();
        let d = check("../c?q=1", Some(&base), &c).unwrap();
        assert_eq!(d.url.as_str(), "https://example.com/c?q=1");
    }
}
