//! `config.json` keys of the MCP client and their environment overrides.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

/// Default per-call timeout when neither `mcp_tool_timeout` nor
/// `MCP_TOOL_TIMEOUT` is set: ten minutes.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(600);
/// Default time a server gets to answer `initialize` (`MCP_TIMEOUT`).
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// Default share of the context window the servers' tool definitions may
/// take before they are deferred (`mcp_tool_budget`).
pub const DEFAULT_TOOL_BUDGET: f64 = 0.10;

/// When MCP tools are deferred behind the search tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LazyMode {
    /// Deferred when their definitions exceed the budget (default).
    Auto,
    /// Always deferred.
    Always,
    /// Never deferred.
    Never,
}

/// Client-wide settings.
#[derive(Debug, Clone, PartialEq)]
pub struct McpSettings {
    /// Per-call timeout (`mcp_tool_timeout`, `MCP_TOOL_TIMEOUT`, ms).
    pub tool_timeout: Duration,
    /// Startup (`initialize`) timeout (`mcp_startup_timeout`, `MCP_TIMEOUT`, ms).
    pub startup_timeout: Duration,
    /// Lazy loading (`mcp_tool_search`: `"auto"`, `true`/`"always"`, `false`/`"never"`).
    pub lazy: LazyMode,
    /// Share of the context window (`mcp_tool_budget`, 0–1).
    pub tool_budget: f64,
}

impl Default for McpSettings {
    fn default() -> Self {
        Self {
            tool_timeout: DEFAULT_TOOL_TIMEOUT,
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
            lazy: LazyMode::Auto,
            tool_budget: DEFAULT_TOOL_BUDGET,
        }
    }
}

impl McpSettings {
    /// Reads the keys of `config` (the parsed `config.json`, `Null` when
    /// absent), then the environment overrides. Bad values are warnings and
    /// keep the default.
    pub fn from_config(
        config: &Value,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> (Self, Vec<String>) {
        let mut s = Self::default();
        let mut warnings = Vec::new();
        let ms = |key: &str, warnings: &mut Vec<String>| -> Option<Duration> {
            let v = config.get(key)?;
            match v.as_u64().filter(|n| *n > 0) {
                Some(n) => Some(Duration::from_millis(n)),
                None => {
                    warnings.push(format!(
                        "config.json: {key} must be a positive number of milliseconds"
                    ));
                    None
                }
            }
        };
        if let Some(d) = ms("mcp_tool_timeout", &mut warnings) {
            s.tool_timeout = d;
        }
        if let Some(d) = ms("mcp_startup_timeout", &mut warnings) {
            s.startup_timeout = d;
        }
        match config.get("mcp_tool_search") {
            None => {}
            Some(Value::Bool(true)) => s.lazy = LazyMode::Always,
            Some(Value::Bool(false)) => s.lazy = LazyMode::Never,
            Some(Value::String(v)) if v == "auto" => s.lazy = LazyMode::Auto,
            Some(Value::String(v)) if v == "always" => s.lazy = LazyMode::Always,
            Some(Value::String(v)) if v == "never" => s.lazy = LazyMode::Never,
            Some(_) => warnings.push(
                "config.json: mcp_tool_search must be \"auto\", \"always\", \"never\" or a boolean"
                    .into(),
            ),
        }
        if let Some(v) = config.get("mcp_tool_budget") {
            match v.as_f64().filter(|f| (0.0..=1.0).contains(f)) {
                Some(f) => s.tool_budget = f,
                None => warnings
                    .push("config.json: mcp_tool_budget must be a number from 0 to 1".into()),
            }
        }
        for (var, slot) in [
            ("MCP_TOOL_TIMEOUT", &mut s.tool_timeout),
            ("MCP_TIMEOUT", &mut s.startup_timeout),
        ] {
            if let Some(v) = env(var) {
                match v.trim().parse::<u64>() {
                    Ok(n) if n > 0 => *slot = Duration::from_millis(n),
                    _ => warnings.push(format!("{var}={v}: not a positive number of milliseconds")),
                }
            }
        }
        (s, warnings)
    }
}

/// Reads `$ZUT_HOME/config.json` as JSON (`Null` when absent or unreadable;
/// syntax errors are reported by `zut config`, not here).
pub fn read_config_json(home: &Path) -> Value {
    std::fs::read_to_string(home.join("config.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn config_then_env() {
        let cfg =
            json!({"mcp_tool_timeout": 2000, "mcp_tool_search": "never", "mcp_tool_budget": 0.2});
        let (s, w) = McpSettings::from_config(&cfg, &|_| None);
        assert!(w.is_empty());
        assert_eq!(s.tool_timeout, Duration::from_millis(2000));
        assert_eq!(s.lazy, LazyMode::Never);
        assert_eq!(s.tool_budget, 0.2);
        let (s, _) =
            McpSettings::from_config(&cfg, &|k| (k == "MCP_TOOL_TIMEOUT").then(|| "50".into()));
        assert_eq!(s.tool_timeout, Duration::from_millis(50));
        let (_, w) = McpSettings::from_config(
            &json!({"mcp_tool_timeout": "x", "mcp_tool_budget": 3}),
            &|_| None,
        );
        assert_eq!(w.len(), 2);
    }
}
