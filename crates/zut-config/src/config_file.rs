//! `$ZUT_HOME/config.json`: the Go original's user settings, for the keys
//! zut supports. Unsupported keys are ignored and listed (`zut config`).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::error::ConfigError;
use crate::read::{kind, read_object};

/// Keys of the Go original that zut reads.
pub const SUPPORTED_KEYS: &[&str] = &[
    "provider",
    "model",
    "reasoning",
    "temperature",
    "theme",
    "auto_compact_threshold",
    "terminal_alerts_enabled",
    "python_interpreter",
    "web_search_enabled",
    "web",
    "jail_by_default",
    "extension_sandbox",
    "sandbox",
    "goals",
    "quick_model_shortcuts",
    "subagents",
    "http_proxy",
    "insecure",
    "lsp_enabled",
];

/// Keys read by `zut-mcp` (docs/mcp.md), not by this crate: never
/// reported as ignored.
pub const MCP_KEYS: &[&str] = &[
    "mcpServers",
    "mcp_tool_timeout",
    "mcp_startup_timeout",
    "mcp_tool_search",
    "mcp_tool_budget",
];

/// Keys of the Go original that zut does not read, each with the reason
/// `zut config` prints (docs/config.md lists them).
pub const GO_ONLY_KEYS: &[(&str, &str)] = &[
    (
        "fast_mode",
        "not read: zut does not ask OpenAI for its priority (fast) service tier, which is billed higher",
    ),
    (
        "tool_render",
        "not read: a layout of the Go original's TUI; zut's TUI has one layout (its look is the theme: /theme)",
    ),
    (
        "compact_input",
        "not read: a layout of the Go original's TUI; zut's TUI has one layout (its look is the theme: /theme)",
    ),
    (
        "compact_mode",
        "not read: a layout of the Go original's TUI; zut's TUI has one layout (its look is the theme: /theme)",
    ),
    (
        "tui_input_style",
        "not read: a layout of the Go original's TUI; zut's TUI has one layout (its look is the theme: /theme)",
    ),
    (
        "tui_status_position",
        "not read: a layout of the Go original's TUI; zut's status line is always below the input",
    ),
    (
        "tui_working_position",
        "not read: a layout of the Go original's TUI; zut's activity line is always above the input",
    ),
    (
        "inline_images_enabled",
        "not read: zut's TUI draws no images inline (it names attached images)",
    ),
    (
        "terminal_title_enabled",
        "not read: zut never sets the terminal title nor asks a model for one, so there is nothing to turn off",
    ),
    (
        "auto_subagents_enabled",
        "not read: zut's equivalent is the --orchestrate flag (docs/subagents.md)",
    ),
    (
        "ponytail_enabled",
        "not read: zut's system prompt has no such coding-guidance addendum",
    ),
    (
        "subagent_lsp_enabled",
        "not read: sub-agents follow the parent's lsp_enabled and --no-lsp",
    ),
    (
        "lsp_diagnostics_on_write",
        "not read: zut attaches diagnostics after every write and edit while LSP is on (lsp_enabled: false or --no-lsp turns both off)",
    ),
    (
        "lsp_diagnostics_on_edit",
        "not read: zut attaches diagnostics after every write and edit while LSP is on (lsp_enabled: false or --no-lsp turns both off)",
    ),
    (
        "recursive_file_suggest",
        "not read: zut's @ file picker always searches the whole project tree",
    ),
    (
        "respect_gitignore",
        "not read: zut's @ file picker always leaves out what .gitignore ignores",
    ),
    (
        "show_instructions_at_startup",
        "not read: zut shows its extensions with /info and its skills with /skills, not at start-up",
    ),
    (
        "last_changelog_shown",
        "not read: zut never fetches release notes (the key is kept as the Go original wrote it)",
    ),
];

/// An ignored key and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredKey {
    /// The key.
    pub key: String,
    /// Why: the reason for a key of the Go original ([`GO_ONLY_KEYS`]),
    /// else `unknown key`.
    pub why: &'static str,
}

/// The parsed `config.json`. `None` fields were absent (or `null`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConfigFile {
    /// The file.
    pub path: PathBuf,
    /// `provider`.
    pub provider: Option<String>,
    /// `model`.
    pub model: Option<String>,
    /// `reasoning` (checked: off, minimum, low, medium, high, xhigh, max).
    pub reasoning: Option<String>,
    /// `temperature` (0 to 2).
    pub temperature: Option<f32>,
    /// `theme`.
    pub theme: Option<String>,
    /// `auto_compact_threshold`: percent of the context window (0 disables).
    pub auto_compact_threshold: Option<u32>,
    /// `terminal_alerts_enabled`.
    pub terminal_alerts_enabled: Option<bool>,
    /// `python_interpreter`: the executable the `python` tool runs
    /// (relative paths resolve against the session directory).
    pub python_interpreter: Option<String>,
    /// `web_search_enabled`: the web tools in a default run (missing: on).
    pub web_search_enabled: Option<bool>,
    /// `web`: search backend, allowed hosts, fetch time cap.
    pub web: crate::web_keys::WebKeys,
    /// `jail_by_default`: start sessions jailed.
    pub jail_by_default: Option<bool>,
    /// `extension_sandbox`: `"strict"` confines extensions that declare no
    /// permissions to the minimal policy.
    pub extension_sandbox_strict: Option<bool>,
    /// `sandbox`: the jail's additions.
    pub sandbox: Option<crate::sandbox::SandboxConfig>,
    /// Keys present but not used, sorted.
    pub ignored: Vec<IgnoredKey>,
    /// `goals`: budgets of autonomous goals.
    pub goals: crate::goals_keys::GoalsKeys,
    /// `subagents`: the children's limits.
    pub subagents: crate::subagents_keys::SubagentsKeys,
    /// `http_proxy`: the proxy of zut's HTTP requests (and of the commands
    /// it runs) when `HTTP_PROXY`/`HTTPS_PROXY` are not set.
    pub http_proxy: Option<String>,
    /// `insecure`: skip TLS certificate checks for an explicit base URL
    /// (`--base-url`, models.json `baseUrl`), never a preset's own.
    pub insecure: Option<bool>,
    /// `lsp_enabled`: `false` works as `--no-lsp`.
    pub lsp_enabled: Option<bool>,
}

impl ConfigFile {
    /// `$ZUT_HOME/config.json`.
    pub fn path_in(zut_home: &Path) -> PathBuf {
        zut_home.join("config.json")
    }

    /// Reads `path`; `Ok(None)` when it does not exist. A file that is not
    /// JSON, or a key of the wrong type or out of range, is an error naming
    /// the file and the key.
    pub fn load(path: &Path) -> Result<Option<Self>, ConfigError> {
        let Some(map) = read_object(path)? else {
            return Ok(None);
        };
        Self::from_map(path, &map).map(Some)
    }

    fn from_map(path: &Path, map: &Map<String, Value>) -> Result<Self, ConfigError> {
        let mut c = ConfigFile {
            path: path.to_path_buf(),
            ..Default::default()
        };
        let string = |key: &str| -> Result<Option<String>, ConfigError> {
            match map.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
                Some(v) => Err(ConfigError::key(
                    path,
                    key,
                    format!("expected a string, found {}", kind(v)),
                )),
            }
        };
        c.provider = string("provider")?;
        c.model = string("model")?;
        c.theme = string("theme")?;
        c.reasoning = string("reasoning")?;
        c.python_interpreter = string("python_interpreter")?;
        if let Some(r) = &c.reasoning {
            zut_providers::parse_reasoning(r).map_err(|_| {
                ConfigError::key(
                    path,
                    "reasoning",
                    format!("{r:?} is not a reasoning level (expected off, minimum, low, medium, high, xhigh or max)"),
                )
            })?;
        }
        match map.get("temperature") {
            None | Some(Value::Null) => {}
            Some(Value::Number(n)) => {
                let t = n.as_f64().unwrap_or(f64::NAN);
                if !(0.0..=2.0).contains(&t) {
                    return Err(ConfigError::key(
                        path,
                        "temperature",
                        format!("{n} is out of range (expected 0 to 2)"),
                    ));
                }
                c.temperature = Some(t as f32);
            }
            Some(v) => {
                return Err(ConfigError::key(
                    path,
                    "temperature",
                    format!("expected a number, found {}", kind(v)),
                ))
            }
        }
        match map.get("auto_compact_threshold") {
            None | Some(Value::Null) => {}
            Some(Value::Number(n)) if n.as_u64().is_some_and(|p| p < 100) => {
                c.auto_compact_threshold = n.as_u64().map(|p| p as u32);
            }
            Some(v) => {
                return Err(ConfigError::key(
                    path,
                    "auto_compact_threshold",
                    format!(
                        "expected a whole percentage from 0 (off) to 99, such as 85; found {}",
                        match v {
                            Value::Number(n) => n.to_string(),
                            other => kind(other).to_string(),
                        }
                    ),
                ))
            }
        }
        match map.get("terminal_alerts_enabled") {
            None | Some(Value::Null) => {}
            Some(Value::Bool(b)) => c.terminal_alerts_enabled = Some(*b),
            Some(v) => {
                return Err(ConfigError::key(
                    path,
                    "terminal_alerts_enabled",
                    format!("expected true or false, found {}", kind(v)),
                ))
            }
        }
        match map.get("web_search_enabled") {
            None | Some(Value::Null) => {}
            Some(Value::Bool(b)) => c.web_search_enabled = Some(*b),
            Some(v) => {
                return Err(ConfigError::key(
                    path,
                    "web_search_enabled",
                    format!("expected true or false, found {}", kind(v)),
                ))
            }
        }
        c.web = crate::web_keys::WebKeys::from_map(path, map)?;
        c.jail_by_default = crate::sandbox::parse_jail(path, map)?;
        c.extension_sandbox_strict = crate::sandbox::parse_extension_sandbox(path, map)?;
        c.sandbox = crate::sandbox::parse(path, map)?;
        c.goals = crate::goals_keys::GoalsKeys::from_map(path, map)?;
        c.http_proxy = string("http_proxy")?;
        if let Some(p) = &c.http_proxy {
            check_proxy(p).map_err(|e| ConfigError::key(path, "http_proxy", e))?;
        }
        let boolean = |key: &str| -> Result<Option<bool>, ConfigError> {
            match map.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Bool(b)) => Ok(Some(*b)),
                Some(v) => Err(ConfigError::key(
                    path,
                    key,
                    format!("expected true or false, found {}", kind(v)),
                )),
            }
        };
        c.insecure = boolean("insecure")?;
        c.lsp_enabled = boolean("lsp_enabled")?;
        let mut ignored: Vec<IgnoredKey> = map
            .keys()
            .filter(|k| !SUPPORTED_KEYS.contains(&k.as_str()))
            .filter(|k| !MCP_KEYS.contains(&k.as_str()))
            .map(|k| IgnoredKey {
                key: k.clone(),
                why: GO_ONLY_KEYS
                    .iter()
                    .find(|(g, _)| *g == k.as_str())
                    .map_or("unknown key", |(_, why)| why),
            })
            .collect();
        c.subagents = crate::subagents_keys::SubagentsKeys::from_map(path, map, &mut ignored)?;
        ignored.sort_by(|a, b| a.key.cmp(&b.key));
        c.ignored = ignored;
        Ok(c)
    }
}

/// Checks an `http_proxy` value: `http://`, `https://` (optionally with
/// `user:password@`), or a bare `host:port` (taken as `http://`).
pub fn check_proxy(value: &str) -> Result<(), String> {
    let rest = match value.split_once("://") {
        Some(("http" | "https", rest)) => rest,
        Some((scheme, _)) => {
            return Err(format!(
                "{scheme:?} proxies are not supported (expected an http:// or https:// URL)"
            ))
        }
        None => value,
    };
    let host = rest.rsplit('@').next().unwrap_or(rest);
    let host = host.split('/').next().unwrap_or(host);
    if host.is_empty() || host.contains(char::is_whitespace) {
        return Err(format!(
            "{value:?} is not a proxy URL (expected e.g. http://proxy.example:3128)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Option<ConfigFile>, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.json");
        std::fs::write(&p, text).unwrap();
        ConfigFile::load(&p)
    }

    #[test]
    fn keys_types_and_ignored() {
        let c = load(
            r#"{"provider":"my-co","model":"m1","reasoning":"HIGH","temperature":0.2,
               "theme":"dark","auto_compact_threshold":85,"terminal_alerts_enabled":false,
               "fast_mode":true,"wat":1,"model_x":null,"lsp_enabled":false,
               "http_proxy":"http://proxy.example:3128","insecure":true}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(c.provider.as_deref(), Some("my-co"));
        assert_eq!(c.reasoning.as_deref(), Some("HIGH"));
        assert_eq!(c.temperature, Some(0.2));
        assert_eq!(c.auto_compact_threshold, Some(85));
        assert_eq!(c.terminal_alerts_enabled, Some(false));
        assert_eq!(c.lsp_enabled, Some(false));
        assert_eq!(c.insecure, Some(true));
        assert_eq!(c.http_proxy.as_deref(), Some("http://proxy.example:3128"));
        let ignored: Vec<(&str, &str)> =
            c.ignored.iter().map(|i| (i.key.as_str(), i.why)).collect();
        assert_eq!(
            ignored,
            vec![
                ("fast_mode", GO_ONLY_KEYS[0].1),
                ("model_x", "unknown key"),
                ("wat", "unknown key")
            ]
        );
    }

    #[test]
    fn errors_name_file_and_key() {
        let e = load(r#"{"temperature":"hot"}"#).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("temperature"));
        assert!(
            e.to_string()
                .ends_with("config.json: temperature: expected a number, found a string"),
            "{e}"
        );
        let e = load(r#"{"model": 3}"#).unwrap_err();
        assert!(e
            .to_string()
            .contains("model: expected a string, found a number"));
        let e = load(r#"{"reasoning": "extreme"}"#).unwrap_err();
        assert!(e
            .to_string()
            .contains("reasoning: \"extreme\" is not a reasoning level"));
        let e = load(r#"{"auto_compact_threshold": 150}"#).unwrap_err();
        assert!(
            e.to_string()
                .contains("auto_compact_threshold: expected a whole percentage"),
            "{e}"
        );
        let e = load(r#"{"temperature": 9}"#).unwrap_err();
        assert!(e.to_string().contains("out of range"));
        let e = load(r#"{"http_proxy": "socks5://p:1080"}"#).unwrap_err();
        assert!(
            e.to_string()
                .contains("http_proxy: \"socks5\" proxies are not supported"),
            "{e}"
        );
        let e = load(r#"{"http_proxy": "http://"}"#).unwrap_err();
        assert!(e.to_string().contains("is not a proxy URL"), "{e}");
        let e = load(r#"{"insecure": "yes"}"#).unwrap_err();
        assert!(e.to_string().contains("insecure: expected true or false"));
        let e = load(r#"{"terminal_alerts_enabled": "yes"}"#).unwrap_err();
        assert!(e
            .to_string()
            .contains("expected true or false, found a string"));
        let e = load("{\"provider\": ").unwrap_err();
        assert!(
            e.to_string().contains("config.json: not valid JSON: "),
            "{e}"
        );
        let e = load("[1]").unwrap_err();
        assert!(e
            .to_string()
            .contains("expected a JSON object at the top, found an array"));
        assert_eq!(
            ConfigFile::load(Path::new("/nonexistent/config.json")),
            Ok(None)
        );
    }
}
