//! `config.json` keys of the public-web tools: the Go original's
//! `web_search_enabled`, and zut's `web` object:
//!
//! ```json
//! {"web": {"search": {"backend": "searxng", "url": "http://127.0.0.1:8888"},
//!          "allow_hosts": ["127.0.0.1", "docs.internal:8443"],
//!          "timeout_secs": 15}}
//! ```
//!
//! Values are type-checked here; the web crate checks their meaning.

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::ConfigError;
use crate::read::kind;

/// The `web` object (all optional).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebKeys {
    /// `web.search.backend`.
    pub backend: Option<String>,
    /// `web.search.url`.
    pub url: Option<String>,
    /// `web.allow_hosts`.
    pub allow_hosts: Vec<String>,
    /// `web.timeout_secs`: whole-fetch time cap.
    pub timeout_secs: Option<u64>,
}

/// Search backends zut knows (checked here so a typo is an error at start;
/// a test of zut-web checks that its `SearchBackend::parse` takes each).
pub const WEB_SEARCH_BACKENDS: &[&str] = &[
    "duckduckgo",
    "searxng",
    "brave",
    "tavily",
    "exa",
    "provider",
];

impl WebKeys {
    /// Parses `web` from the file's top-level object.
    pub(crate) fn from_map(path: &Path, map: &Map<String, Value>) -> Result<Self, ConfigError> {
        let mut w = WebKeys::default();
        let web = match map.get("web") {
            None | Some(Value::Null) => return Ok(w),
            Some(Value::Object(o)) => o,
            Some(v) => {
                return Err(ConfigError::key(
                    path,
                    "web",
                    format!("expected an object, found {}", kind(v)),
                ))
            }
        };
        let string = |o: &Map<String, Value>,
                      key: &str,
                      dotted: &str|
         -> Result<Option<String>, ConfigError> {
            match o.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
                Some(v) => Err(ConfigError::key(
                    path,
                    dotted,
                    format!("expected a string, found {}", kind(v)),
                )),
            }
        };
        match web.get("search") {
            None | Some(Value::Null) => {}
            Some(Value::Object(s)) => {
                w.backend = string(s, "backend", "web.search.backend")?;
                if let Some(b) = &w.backend {
                    if !WEB_SEARCH_BACKENDS.contains(&b.to_ascii_lowercase().as_str()) {
                        return Err(ConfigError::key(
                            path,
                            "web.search.backend",
                            format!(
                                "{b:?} is not a search backend (expected one of {})",
                                WEB_SEARCH_BACKENDS.join(", ")
                            ),
                        ));
                    }
                }
                w.url = string(s, "url", "web.search.url")?;
            }
            Some(v) => {
                return Err(ConfigError::key(
                    path,
                    "web.search",
                    format!("expected an object, found {}", kind(v)),
                ))
            }
        }
        match web.get("allow_hosts") {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for item in items {
                    match item {
                        Value::String(s) if !s.trim().is_empty() => {
                            w.allow_hosts.push(s.trim().to_string())
                        }
                        v => {
                            return Err(ConfigError::key(
                                path,
                                "web.allow_hosts",
                                format!("expected host or host:port strings, found {}", kind(v)),
                            ))
                        }
                    }
                }
            }
            Some(v) => {
                return Err(ConfigError::key(
                    path,
                    "web.allow_hosts",
                    format!(
                        "expected an array of host or host:port strings, found {}",
                        kind(v)
                    ),
                ))
            }
        }
        match web.get("timeout_secs") {
            None | Some(Value::Null) => {}
            Some(Value::Number(n)) if n.as_u64().is_some_and(|s| (1..=300).contains(&s)) => {
                w.timeout_secs = n.as_u64()
            }
            Some(v) => {
                return Err(ConfigError::key(
                    path,
                    "web.timeout_secs",
                    format!("expected whole seconds from 1 to 300, found {v}"),
                ))
            }
        }
        Ok(w)
    }
}

/// The API key of a keyed search backend: the environment variable
/// `key_env` (read through `env`), else `auth.json`'s `auth_id` entry.
pub fn web_search_key(
    key_env: &str,
    auth_id: &str,
    zut_home: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<String>, ConfigError> {
    if let Some(k) = env(key_env).filter(|k| !k.trim().is_empty()) {
        return Ok(Some(k.trim().to_string()));
    }
    zut_providers::credentials::stored_key(zut_home, auth_id)
        .map(|k| k.map(|(k, _)| k))
        .map_err(|e| ConfigError::other(e.to_string()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<WebKeys, ConfigError> {
        WebKeys::from_map(Path::new("/c.json"), v.as_object().unwrap())
    }

    #[test]
    fn web_keys_parse_and_bad_values_name_the_key() {
        let w = parse(
            json!({"web": {"search": {"backend": "searxng", "url": "http://127.0.0.1:8888"},
            "allow_hosts": ["127.0.0.1", "docs.internal:8443"], "timeout_secs": 5}}),
        )
        .unwrap();
        assert_eq!(w.backend.as_deref(), Some("searxng"));
        assert_eq!(w.allow_hosts, vec!["127.0.0.1", "docs.internal:8443"]);
        assert_eq!(w.timeout_secs, Some(5));
        assert_eq!(parse(json!({})).unwrap(), WebKeys::default());
        for (bad, key) in [
            (json!({"web": 1}), "web"),
            (
                json!({"web": {"search": {"backend": "google"}}}),
                "web.search.backend",
            ),
            (json!({"web": {"allow_hosts": "x"}}), "web.allow_hosts"),
            (json!({"web": {"allow_hosts": [1]}}), "web.allow_hosts"),
            (json!({"web": {"timeout_secs": 0}}), "web.timeout_secs"),
        ] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(e.contains(key), "{e}");
        }
    }

    #[test]
    fn keys_come_from_env_then_auth_file() {
        let dir = tempfile::tempdir().unwrap();
        let none = |_: &str| None;
        assert_eq!(
            web_search_key("BRAVE_API_KEY", "brave", dir.path(), &none).unwrap(),
            None
        );
        let env = |k: &str| (k == "BRAVE_API_KEY").then(|| "env-key".to_string());
        assert_eq!(
            web_search_key("BRAVE_API_KEY", "brave", dir.path(), &env)
                .unwrap()
                .as_deref(),
            Some("env-key")
        );
        let auth = dir.path().join("auth.json");
        std::fs::write(&auth, r#"{"brave": {"api_key": "file-key"}}"#).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&auth, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        assert_eq!(
            web_search_key("BRAVE_API_KEY", "brave", dir.path(), &none)
                .unwrap()
                .as_deref(),
            Some("file-key")
        );
    }
}
