//! The `goals` object of `config.json` (issue 24): the Go original's
//! `goals.max_token_budget` (tokens a new goal may spend; `0`: no token
//! budget) and zut's `goals.max_minutes` (wall time of one prompt's
//! continuation turns; `0`: no time budget).
//!
//! ```json
//! {"goals": {"max_token_budget": 200000, "max_minutes": 20}}
//! ```

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::ConfigError;
use crate::read::kind;

/// The `goals` object (all optional).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoalsKeys {
    /// `goals.max_token_budget`.
    pub max_token_budget: Option<u64>,
    /// `goals.max_minutes`.
    pub max_minutes: Option<u64>,
}

impl GoalsKeys {
    /// Parses `goals` from the file's top-level object.
    pub(crate) fn from_map(path: &Path, map: &Map<String, Value>) -> Result<Self, ConfigError> {
        let mut g = GoalsKeys::default();
        let goals = match map.get("goals") {
            None | Some(Value::Null) => return Ok(g),
            Some(Value::Object(o)) => o,
            Some(v) => {
                return Err(ConfigError::key(
                    path,
                    "goals",
                    format!("expected an object, found {}", kind(v)),
                ))
            }
        };
        let whole = |key: &str| -> Result<Option<u64>, ConfigError> {
            match goals.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Number(n)) if n.as_u64().is_some() => Ok(n.as_u64()),
                Some(v) => Err(ConfigError::key(
                    path,
                    format!("goals.{key}"),
                    format!(
                        "expected a whole number, 0 or more; found {}",
                        match v {
                            Value::Number(n) => n.to_string(),
                            other => kind(other).to_string(),
                        }
                    ),
                )),
            }
        };
        g.max_token_budget = whole("max_token_budget")?;
        g.max_minutes = whole("max_minutes")?;
        Ok(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<GoalsKeys, ConfigError> {
        let v: Value = serde_json::from_str(text).unwrap();
        GoalsKeys::from_map(Path::new("/c.json"), v.as_object().unwrap())
    }

    #[test]
    fn keys_and_errors() {
        assert_eq!(parse("{}").unwrap(), GoalsKeys::default());
        let g = parse(r#"{"goals":{"max_token_budget":5000,"max_minutes":0}}"#).unwrap();
        assert_eq!(g.max_token_budget, Some(5000));
        assert_eq!(g.max_minutes, Some(0));
        let e = parse(r#"{"goals":{"max_token_budget":-1}}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("goals.max_token_budget"), "{e}");
        assert!(e.contains("-1"), "{e}");
        assert!(parse(r#"{"goals":3}"#).is_err());
    }
}
