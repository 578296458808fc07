//! What a web runtime is allowed to do: the search backend, the hosts the
//! user lets pages reach although they are not public, and the fetch caps.

use std::time::Duration;

use crate::limits;

/// Where `web_search` sends queries (`"web": {"search": {"backend": …}}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SearchBackend {
    /// DuckDuckGo's keyless HTML page (the Go original's backend;
    /// best-effort: it may answer with a challenge page).
    #[default]
    DuckDuckGo,
    /// A SearXNG instance's JSON API (`url` required).
    Searxng,
    /// Brave Search API (key `BRAVE_API_KEY` or auth.json `brave`).
    Brave,
    /// Tavily (key `TAVILY_API_KEY` or auth.json `tavily`).
    Tavily,
    /// Exa (key `EXA_API_KEY` or auth.json `exa`).
    Exa,
    /// The model provider's own server-side search tool (Anthropic
    /// Messages, OpenAI Responses), run by the agent through
    /// [`crate::ServerSearch`].
    Provider,
}

impl SearchBackend {
    /// The backend named `name` (case-insensitive), if any.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "duckduckgo" | "ddg" => Self::DuckDuckGo,
            "searxng" => Self::Searxng,
            "brave" => Self::Brave,
            "tavily" => Self::Tavily,
            "exa" => Self::Exa,
            "provider" => Self::Provider,
            _ => return None,
        })
    }

    /// The config name.
    pub fn name(self) -> &'static str {
        match self {
            Self::DuckDuckGo => "duckduckgo",
            Self::Searxng => "searxng",
            Self::Brave => "brave",
            Self::Tavily => "tavily",
            Self::Exa => "exa",
            Self::Provider => "provider",
        }
    }

    /// The name shown to the model and the user.
    pub fn label(self) -> &'static str {
        match self {
            Self::DuckDuckGo => "DuckDuckGo HTML",
            Self::Searxng => "SearXNG",
            Self::Brave => "Brave Search",
            Self::Tavily => "Tavily",
            Self::Exa => "Exa",
            Self::Provider => "the model provider",
        }
    }

    /// Environment variable holding this backend's API key, for the keyed
    /// backends.
    pub fn key_env(self) -> Option<&'static str> {
        match self {
            Self::Brave => Some("BRAVE_API_KEY"),
            Self::Tavily => Some("TAVILY_API_KEY"),
            Self::Exa => Some("EXA_API_KEY"),
            _ => None,
        }
    }

    /// The id of this backend's key in `auth.json`, for the keyed backends.
    pub fn auth_id(self) -> Option<&'static str> {
        self.key_env().map(|_| self.name())
    }
}

/// The search settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchConfig {
    /// The backend.
    pub backend: SearchBackend,
    /// Endpoint override (required for SearXNG: the instance's base URL;
    /// for the others the public endpoint is the default). The configured
    /// backend is trusted: it may be a private or local address.
    pub url: Option<String>,
    /// API key of a keyed backend.
    pub api_key: Option<String>,
}

/// A host (and optionally one port) pages may reach although it is not a
/// public address (`"web": {"allow_hosts": ["127.0.0.1", "docs.internal:8443"]}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedHost {
    /// Lower-cased host name or IP literal (IPv6 without brackets).
    pub host: String,
    /// The only port allowed; `None`: any port.
    pub port: Option<u16>,
}

impl AllowedHost {
    /// Parses `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6
    /// address. Errors say what is wrong.
    pub fn parse(entry: &str) -> Result<Self, String> {
        let e = entry.trim();
        if e.is_empty() {
            return Err("an empty host".into());
        }
        if e.contains("://") || e.contains('/') || e.contains('@') {
            return Err(format!(
                "{e:?} is not a host or host:port (no scheme, path or user)"
            ));
        }
        let (host, port) = if let Some(rest) = e.strip_prefix('[') {
            let Some((h, tail)) = rest.split_once(']') else {
                return Err(format!("{e:?}: unclosed '['"));
            };
            let port = match tail {
                "" => None,
                t => Some(
                    t.strip_prefix(':')
                        .ok_or_else(|| format!("{e:?}: bad port"))?,
                ),
            };
            (h, port)
        } else if e.matches(':').count() > 1 {
            (e, None) // a bare IPv6 address
        } else {
            match e.split_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (e, None),
            }
        };
        let port = match port {
            None => None,
            Some(p) => Some(
                p.parse::<u16>()
                    .ok()
                    .filter(|p| *p > 0)
                    .ok_or_else(|| format!("{e:?}: {p:?} is not a port"))?,
            ),
        };
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        if host.is_empty() {
            return Err(format!("{e:?}: no host"));
        }
        Ok(Self { host, port })
    }

    /// Whether this entry covers `host` (lower-cased, IPv6 unbracketed) on `port`.
    pub fn covers(&self, host: &str, port: u16) -> bool {
        self.host == host && self.port.is_none_or(|p| p == port)
    }
}

/// Everything a [`crate::WebRuntime`] needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebConfig {
    /// Search backend settings.
    pub search: SearchConfig,
    /// Hosts exempt from the public-address rule.
    pub allow_hosts: Vec<AllowedHost>,
    /// Whole-fetch time cap (connect, redirects, body).
    pub timeout: Duration,
    /// Longest wait for the next piece of a response (cuts slow drips
    /// before the whole-fetch cap when a server stalls).
    pub read_timeout: Duration,
    /// Largest (decoded) body read; the rest is cut with a note.
    pub max_body_bytes: usize,
}

impl Default for WebConfig {
    fn default() -> Self {
        Self {
            search: SearchConfig::default(),
            allow_hosts: Vec::new(),
            timeout: limits::FETCH_TIMEOUT,
            read_timeout: limits::READ_TIMEOUT,
            max_body_bytes: limits::MAX_BODY_BYTES,
        }
    }
}

impl WebConfig {
    /// Whether `host:port` is on the allow-list.
    pub fn allowed(&self, host: &str, port: u16) -> bool {
        self.allow_hosts.iter().any(|a| a.covers(host, port))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn allow_entries_parse() {
        let a = AllowedHost::parse("127.0.0.1").unwrap();
        assert!(a.covers("127.0.0.1", 8080) && a.covers("127.0.0.1", 1));
        let a = AllowedHost::parse("Docs.Internal:8443").unwrap();
        assert!(a.covers("docs.internal", 8443) && !a.covers("docs.internal", 443));
        let a = AllowedHost::parse("[::1]:9000").unwrap();
        assert_eq!((a.host.as_str(), a.port), ("::1", Some(9000)));
        let a = AllowedHost::parse("::1").unwrap();
        assert_eq!((a.host.as_str(), a.port), ("::1", None));
        for bad in ["", "http://x", "x:0", "x:http", "a@b", "[::1"] {
            assert!(AllowedHost::parse(bad).is_err(), "{bad}");
        }
    }

    /// Every name `zut-config` accepts for `web.search.backend` is a
    /// backend here, and names itself back.
    #[test]
    fn backends_parse_by_name() {
        for &n in zut_config::web_keys::WEB_SEARCH_BACKENDS {
            assert_eq!(SearchBackend::parse(n).unwrap().name(), n);
        }
        assert!(SearchBackend::parse("google").is_none());
    }
}
