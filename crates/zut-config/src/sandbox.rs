//! The sandbox keys of `config.json`: `jail_by_default` (the Go
//! original's), `extension_sandbox` and `sandbox` (zut's).
//!
//! ```json
//! {"jail_by_default": true,
//!  "extension_sandbox": "strict",
//!  "sandbox": {"deny_read": ["~/work/secrets"], "writable": ["~/.cache"],
//!              "network": ["pypi.org", "files.pythonhosted.org"]}}
//! ```

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::ConfigError;
use crate::read::kind;

/// The jail's network in config: `"none"` (default), `"any"`, or domains.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum SandboxNetwork {
    /// No network.
    #[default]
    None,
    /// Anything.
    Any,
    /// Only these domains, through zut's proxy.
    Domains(Vec<String>),
}

/// `sandbox`: what the jail adds to its defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxConfig {
    /// More secret paths (`~` expands to `$HOME`).
    pub deny_read: Vec<String>,
    /// More writable paths (`~` expands to `$HOME`).
    pub writable: Vec<String>,
    /// The jail's network.
    pub network: SandboxNetwork,
}

/// Reads `sandbox` from `map` (`None` when absent).
pub(crate) fn parse(
    path: &Path,
    map: &Map<String, Value>,
) -> Result<Option<SandboxConfig>, ConfigError> {
    let obj = match map.get("sandbox") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(o)) => o,
        Some(v) => {
            return Err(ConfigError::key(
                path,
                "sandbox",
                format!("expected an object, found {}", kind(v)),
            ))
        }
    };
    let mut c = SandboxConfig::default();
    for (k, v) in obj {
        let key = format!("sandbox.{k}");
        match k.as_str() {
            "deny_read" => c.deny_read = strings(path, &key, v)?,
            "writable" => c.writable = strings(path, &key, v)?,
            "network" => {
                c.network = match v {
                    Value::Null => SandboxNetwork::None,
                    Value::String(s) if s == "none" => SandboxNetwork::None,
                    Value::String(s) if s == "any" => SandboxNetwork::Any,
                    Value::Array(_) => SandboxNetwork::Domains(strings(path, &key, v)?),
                    other => {
                        return Err(ConfigError::key(
                            path,
                            &key,
                            format!(
                                "expected \"none\", \"any\" or a list of domains, found {}",
                                match other {
                                    Value::String(s) => format!("{s:?}"),
                                    o => kind(o).to_string(),
                                }
                            ),
                        ))
                    }
                }
            }
            _ => {
                return Err(ConfigError::key(
                    path,
                    &key,
                    "unknown key (expected deny_read, writable or network)",
                ))
            }
        }
    }
    Ok(Some(c))
}

/// Reads `extension_sandbox`: `"strict"` → `Some(true)`, `"off"` →
/// `Some(false)`.
pub(crate) fn parse_extension_sandbox(
    path: &Path,
    map: &Map<String, Value>,
) -> Result<Option<bool>, ConfigError> {
    match map.get("extension_sandbox") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s == "strict" => Ok(Some(true)),
        Some(Value::String(s)) if s == "off" || s == "declared" => Ok(Some(false)),
        Some(v) => Err(ConfigError::key(
            path,
            "extension_sandbox",
            format!(
                "expected \"strict\" or \"off\", found {}",
                match v {
                    Value::String(s) => format!("{s:?}"),
                    o => kind(o).to_string(),
                }
            ),
        )),
    }
}

/// Reads `jail_by_default`.
pub(crate) fn parse_jail(
    path: &Path,
    map: &Map<String, Value>,
) -> Result<Option<bool>, ConfigError> {
    match map.get("jail_by_default") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(v) => Err(ConfigError::key(
            path,
            "jail_by_default",
            format!("expected true or false, found {}", kind(v)),
        )),
    }
}

fn strings(path: &Path, key: &str, v: &Value) -> Result<Vec<String>, ConfigError> {
    let Value::Array(items) = v else {
        return Err(ConfigError::key(
            path,
            key,
            format!("expected a list of strings, found {}", kind(v)),
        ));
    };
    items
        .iter()
        .map(|i| match i {
            Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
            other => Err(ConfigError::key(
                path,
                key,
                format!("expected non-empty strings, found {}", kind(other)),
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn sandbox_keys_parse_and_bad_values_name_the_key() {
        let p = Path::new("/z/config.json");
        let m = map(serde_json::json!({
            "jail_by_default": true,
            "extension_sandbox": "strict",
            "sandbox": {"deny_read": ["~/x"], "writable": ["/w"], "network": ["pypi.org"]}
        }));
        assert_eq!(parse_jail(p, &m).unwrap(), Some(true));
        assert_eq!(parse_extension_sandbox(p, &m).unwrap(), Some(true));
        let s = parse(p, &m).unwrap().unwrap();
        assert_eq!(s.deny_read, vec!["~/x"]);
        assert_eq!(s.network, SandboxNetwork::Domains(vec!["pypi.org".into()]));
        let bad = map(
            serde_json::json!({"sandbox": {"network": "some"}, "extension_sandbox": 1, "jail_by_default": "yes"}),
        );
        assert!(parse(p, &bad)
            .unwrap_err()
            .to_string()
            .contains("sandbox.network"));
        assert!(parse_extension_sandbox(p, &bad)
            .unwrap_err()
            .to_string()
            .contains("extension_sandbox"));
        assert!(parse_jail(p, &bad)
            .unwrap_err()
            .to_string()
            .contains("jail_by_default"));
        let typo = map(serde_json::json!({"sandbox": {"writeable": []}}));
        assert!(parse(p, &typo)
            .unwrap_err()
            .to_string()
            .contains("sandbox.writeable"));
    }
}
