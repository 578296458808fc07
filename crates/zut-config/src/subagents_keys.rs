//! The `subagents` object of `config.json` (issue 25): the Go original's
//! `subagents.max_concurrent` (children's turns running at once),
//! `queue_timeout` (how long a turn may wait for a slot: a Go duration
//! such as `"90s"` or `"2m"`, or whole seconds), `allowed_tools` (the
//! tools a child may ever get) and `allowed_roots` (the directories a
//! child may work from), and zut's `timeout` (seconds one child turn may
//! run).
//!
//! ```json
//! {"subagents": {"max_concurrent": 4, "timeout": 900, "queue_timeout": "2m",
//!                "allowed_tools": ["read", "grep"], "allowed_roots": ["~/src"]}}
//! ```

use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::config_file::IgnoredKey;
use crate::error::ConfigError;
use crate::read::kind;

/// The keys zut reads.
const KNOWN: &[&str] = &[
    "max_concurrent",
    "timeout",
    "queue_timeout",
    "allowed_tools",
    "allowed_roots",
];

/// The `subagents` object (all optional).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubagentsKeys {
    /// `subagents.max_concurrent` (at least 1).
    pub max_concurrent: Option<u64>,
    /// `subagents.timeout`, seconds (at least 1).
    pub timeout_secs: Option<u64>,
    /// `subagents.queue_timeout`: longest wait for a concurrency slot.
    pub queue_timeout: Option<Duration>,
    /// `subagents.allowed_tools`: the tools a child may get (`None`: any).
    pub allowed_tools: Option<Vec<String>>,
    /// `subagents.allowed_roots`: the directories a child may work in,
    /// as written (`~/` not yet expanded; `None`: anywhere).
    pub allowed_roots: Option<Vec<String>>,
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
        s.queue_timeout = match obj.get("queue_timeout") {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) if n.as_u64().is_some_and(|n| n > 0) => {
                n.as_u64().map(Duration::from_secs)
            }
            Some(Value::String(t)) => Some(
                go_duration(t).map_err(|e| ConfigError::key(path, "subagents.queue_timeout", e))?,
            ),
            Some(v) => {
                return Err(ConfigError::key(
                    path,
                    "subagents.queue_timeout",
                    format!(
                        "expected a duration such as \"90s\" or \"2m\", or whole seconds; found {}",
                        kind(v)
                    ),
                ))
            }
        };
        let names = |key: &str| -> Result<Option<Vec<String>>, ConfigError> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|v| match v.as_str().map(str::trim) {
                        Some(t) if !t.is_empty() => Ok(t.to_string()),
                        _ => Err(ConfigError::key(
                            path,
                            format!("subagents.{key}"),
                            format!("expected a list of non-empty strings; found {}", kind(v)),
                        )),
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map(Some),
                Some(v) => Err(ConfigError::key(
                    path,
                    format!("subagents.{key}"),
                    format!("expected a list of strings, found {}", kind(v)),
                )),
            }
        };
        // An empty list is the Go original's "no limit".
        s.allowed_tools = names("allowed_tools")?.filter(|l| !l.is_empty());
        s.allowed_roots = names("allowed_roots")?.filter(|l| !l.is_empty());
        for key in obj.keys() {
            if KNOWN.contains(&key.as_str()) {
                continue;
            }
            ignored.push(IgnoredKey {
                key: format!("subagents.{key}"),
                why: "unknown key",
            });
        }
        Ok(s)
    }
}

/// A Go duration (`"90s"`, `"1m30s"`, `"1.5h"`, `"500ms"`), more than zero.
pub fn go_duration(text: &str) -> Result<Duration, String> {
    let bad = || {
        format!("{text:?} is not a duration such as \"90s\", \"2m\" or \"1h30m\" (more than zero)")
    };
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(bad());
    }
    let mut total = 0f64;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let n: f64 = rest[..num_len].parse().map_err(|_| bad())?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err(bad()),
        };
        total += n * scale;
        rest = &rest[unit_len..];
    }
    if !(total > 0.0 && total.is_finite()) {
        return Err(bad());
    }
    Duration::try_from_secs_f64(total).map_err(|_| bad())
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
            r#"{"subagents":{"max_concurrent":3,"timeout":60,"allowed_roots":["/x"],"wat":1,
                "queue_timeout":"1m30s","allowed_tools":["read", "grep"]}}"#,
        )
        .unwrap();
        assert_eq!(s.max_concurrent, Some(3));
        assert_eq!(s.timeout_secs, Some(60));
        assert_eq!(s.queue_timeout, Some(Duration::from_secs(90)));
        assert_eq!(s.allowed_roots, Some(vec!["/x".to_string()]));
        assert_eq!(
            s.allowed_tools,
            Some(vec!["read".to_string(), "grep".to_string()])
        );
        let keys: Vec<(&str, &str)> = ignored.iter().map(|k| (k.key.as_str(), k.why)).collect();
        assert_eq!(keys, vec![("subagents.wat", "unknown key")]);
        let (s, _) = parse(r#"{"subagents":{"queue_timeout":5,"allowed_tools":[]}}"#).unwrap();
        assert_eq!(s.queue_timeout, Some(Duration::from_secs(5)));
        assert_eq!(s.allowed_tools, None, "an empty list is no limit");
        for bad in [
            r#"{"subagents":{"queue_timeout":"soon"}}"#,
            r#"{"subagents":{"queue_timeout":"0s"}}"#,
            r#"{"subagents":{"queue_timeout":true}}"#,
            r#"{"subagents":{"allowed_tools":"read"}}"#,
            r#"{"subagents":{"allowed_roots":[""]}}"#,
        ] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(e.contains("subagents."), "{bad}: {e}");
        }
        assert_eq!(go_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(go_duration("1.5h"), Ok(Duration::from_secs(5400)));
        assert!(go_duration("5").is_err());
        assert!(go_duration("5x").is_err());
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
