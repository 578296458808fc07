//! The `subagents` object of `config.json` (issue 25): the Go original's
//! `subagents.max_concurrent` (children's turns running at once) and zut's
//! `subagents.timeout` (seconds one child turn may run). The Go original's
//! other keys (`queue_timeout`, `allowed_roots`, `allowed_tools`) are
//! listed as ignored.
//!
//! ```json
//! {"subagents": {"max_concurrent": 4, "timeout": 900}}
//! ```

use std::path::Path;

use serde_json::{Map, Value};

use crate::config_file::IgnoredKey;
use crate::error::ConfigError;
use crate::read::kind;

/// Keys of the Go original's `subagents` object that zut does not read.
const GO_ONLY: &[&str] = &["queue_timeout", "allowed_roots", "allowed_tools"];

/// The `subagents` object (all optional).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubagentsKeys {
    /// `subagents.max_concurrent` (at least 1).
    pub max_concurrent: Option<u64>,
    /// `subagents.timeout`, seconds (at least 1).
    pub timeout_secs: Option<u64>,
}

impl SubagentsKeys {
    /// Parses `subagents` from the file's top-level object; its keys zut
    /// does not read are added to `ignored`.
    pub(crate) fn from_map(
        path: &Path,
        map: &Map<String, Value>,
        ignored: &mut Vec<IgnoredKey>,
    ) -> Result<Self, ConfigError> {
        let mut s = SubagentsKeys::default();
        let obj = match map.get("subagents") {
            None | Some(Value::Null) => return Ok(s),
            Some(Value::Object(o)) => o,
            Some(v) => {
                return Err(ConfigError::key(
                    path,
                    "subagents",
                    format!("expected an object, found {}", kind(v)),
                ))
            }
        };
        let positive = |key: &str| -> Result<Option<u64>, ConfigError> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Number(n)) if n.as_u64().is_some_and(|n| n > 0) => Ok(n.as_u64()),
                Some(v) => Err(ConfigError::key(
                    path,
                    format!("subagents.{key}"),
                    format!(
                        "expected a whole number, 1 or more; found {}",
                        match v {
                            Value::Number(n) => n.to_string(),
                            other => kind(other).to_string(),
                        }
                    ),
                )),
            }
        };
        s.max_concurrent = positive("max_concurrent")?;
        s.timeout_secs = positive("timeout")?;
        for key in obj.keys() {
            if key == "max_concurrent" || key == "timeout" {
                continue;
            }
            ignored.push(IgnoredKey {
                key: format!("subagents.{key}"),
                why: if GO_ONLY.contains(&key.as_str()) {
                    "not supported by zut yet"
                } else {
                    "unknown key"
                },
            });
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<(SubagentsKeys, Vec<IgnoredKey>), ConfigError> {
        let v: Value = serde_json::from_str(text).unwrap();
        let mut ignored = Vec::new();
        let s =
            SubagentsKeys::from_map(Path::new("/c.json"), v.as_object().unwrap(), &mut ignored)?;
        Ok((s, ignored))
    }

    #[test]
    fn keys_and_errors() {
        assert_eq!(parse("{}").unwrap().0, SubagentsKeys::default());
        let (s, ignored) = parse(
            r#"{"subagents":{"max_concurrent":3,"timeout":60,"allowed_roots":["/x"],"wat":1}}"#,
        )
        .unwrap();
        assert_eq!(s.max_concurrent, Some(3));
        assert_eq!(s.timeout_secs, Some(60));
        let keys: Vec<(&str, &str)> = ignored.iter().map(|k| (k.key.as_str(), k.why)).collect();
        assert_eq!(
            keys,
            vec![
                ("subagents.allowed_roots", "not supported by zut yet"),
                ("subagents.wat", "unknown key")
            ]
        );
        let e = parse(r#"{"subagents":{"max_concurrent":0}}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("subagents.max_concurrent"), "{e}");
        assert!(e.contains("1 or more; found 0"), "{e}");
        let e = parse(r#"{"subagents":{"timeout":"1h"}}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("subagents.timeout"), "{e}");
        assert!(parse(r#"{"subagents":true}"#).is_err());
    }
}
