//! `lsp.json`: the built-in servers, overridden and extended by the user's
//! and the project's files (tools.md §4.4).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::builtin::builtin_servers;

/// Project-relative `lsp.json` locations, in increasing precedence (after
/// `$ZUT_HOME/lsp.json`).
pub const PROJECT_FILES: [&str; 5] = [
    ".pi/lsp.json",
    ".omp/lsp.json",
    "lsp.json",
    ".lsp.json",
    ".zut/lsp.json",
];

/// Keys of a flat map that are not server ids.
const RESERVED_KEYS: [&str; 12] = [
    "$schema",
    "servers",
    "lspServers",
    "linters",
    "providers",
    "autoDetect",
    "version",
    "debug",
    "status",
    "lifecycle",
    "excludePaths",
    "idleTimeoutMs",
];

/// Whether a server speaks LSP or is a command-line linter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A language server over stdio.
    Lsp,
    /// A linter run once per check, its output parsed.
    Cli,
}

/// One configured server or linter.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    /// Id (`rust-analyzer`, a key of `lsp.json`).
    pub id: String,
    /// LSP server or CLI linter.
    pub kind: Kind,
    /// Program to run.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Extensions (without dot), basenames or language ids it handles.
    pub file_types: Vec<String>,
    /// Language id sent in `didOpen` (default: from the extension).
    pub language_id: Option<String>,
    /// Files whose presence in an ancestor marks the project root.
    pub root_markers: Vec<String>,
    /// A linter (ordered after language servers; no navigation).
    pub is_linter: bool,
    /// Turned off.
    pub disabled: bool,
    /// CLI output parser (`eslint-json`, `golangci-lint-json`, `ruff-json`,
    /// `sarif`, else `generic`).
    pub parser: String,
    /// CLI mode: `files` or `workspace`.
    pub mode: String,
    /// Extra environment.
    pub env: BTreeMap<String, String>,
    /// Answers to `workspace/configuration`.
    pub settings: Value,
    /// `initializationOptions` of `initialize`.
    pub initialization_options: Value,
    /// How to install the program (shown when it is missing).
    pub install: Option<String>,
    /// Used only when the server with this id cannot be found.
    pub fallback_for: Option<String>,
    /// Named or defined by a configuration file (kept under
    /// `autoDetect: false`).
    pub explicit: bool,
    /// CLI linters: run once over the workspace when the session starts
    /// (`runOnStartup`, default false).
    pub run_on_startup: bool,
    /// CLI linters: run on the changed files after an edit
    /// (`runOnChange`, default true; `false` runs it only when
    /// diagnostics are asked for).
    pub run_on_change: bool,
}

impl ServerConfig {
    /// Whether this server handles `path` (by extension, basename or
    /// language id).
    pub fn handles(&self, path: &Path) -> bool {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let lang = crate::builtin::language_id(ext);
        self.file_types.iter().any(|t| {
            let t = t.trim();
            let t = t
                .strip_prefix("*.")
                .or_else(|| t.strip_prefix('.'))
                .unwrap_or(t);
            (!ext.is_empty() && t.eq_ignore_ascii_case(ext)) || t == name || t == lang
        })
    }

    /// The language id to announce for `path`.
    pub fn language_for(&self, path: &Path) -> String {
        if let Some(id) = &self.language_id {
            return id.clone();
        }
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        crate::builtin::language_id(ext).to_string()
    }
}

/// The merged configuration of one workspace.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Servers by id (disabled ones included).
    pub servers: BTreeMap<String, ServerConfig>,
    /// `autoDetect` (default true): false keeps only servers a file names.
    pub auto_detect: bool,
}

impl Config {
    /// Loads the built-ins, then `$ZUT_HOME/lsp.json` (`user_file`), then
    /// the project files under `cwd`. A missing file is fine; invalid JSON
    /// or a bad server entry is an error naming the file.
    pub fn load(user_file: Option<&Path>, cwd: &Path) -> Result<Config, String> {
        let mut layers: Vec<PathBuf> = Vec::new();
        if let Some(u) = user_file {
            layers.push(u.to_path_buf());
        }
        layers.extend(PROJECT_FILES.iter().map(|f| cwd.join(f)));
        let mut texts = Vec::new();
        for path in layers {
            match std::fs::read_to_string(&path) {
                Ok(t) => texts.push((path, t)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(format!("{}: {e}", path.display())),
            }
        }
        Self::from_layers(&texts)
    }

    /// Whether any configuration file exists (`$ZUT_HOME/lsp.json` or a
    /// project file under `cwd`). Without one the configuration is the
    /// built-ins, none of which runs on start-up, so start-up need not
    /// parse them.
    pub fn any_file(user_file: Option<&Path>, cwd: &Path) -> bool {
        user_file.is_some_and(|u| u.exists()) || PROJECT_FILES.iter().any(|f| cwd.join(f).exists())
    }

    /// Builds the configuration from `(file, text)` layers in increasing
    /// precedence.
    pub fn from_layers(layers: &[(PathBuf, String)]) -> Result<Config, String> {
        let mut merged: BTreeMap<String, Value> = builtin_servers()
            .into_iter()
            .map(|(id, v)| (id.to_string(), v))
            .collect();
        let mut explicit: Vec<String> = Vec::new();
        let mut auto_detect = true;
        for (path, text) in layers {
            let shown = path.display();
            let root: Value =
                serde_json::from_str(text).map_err(|e| format!("{shown}: invalid JSON: {e}"))?;
            let Value::Object(root) = root else {
                return Err(format!("{shown}: expected a JSON object"));
            };
            if let Some(v) = root.get("autoDetect") {
                auto_detect = v.as_bool().unwrap_or(true);
            }
            let mut entries: Vec<(String, Value)> = Vec::new();
            for section in ["servers", "lspServers", "linters"] {
                if let Some(v) = root.get(section) {
                    let Value::Object(map) = v else {
                        return Err(format!("{shown}: `{section}` must be an object"));
                    };
                    entries.extend(map.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
            }
            for (k, v) in &root {
                if !RESERVED_KEYS.contains(&k.as_str()) {
                    entries.push((k.clone(), v.clone()));
                }
            }
            if let Some(v) = root.get("providers") {
                let Value::Array(items) = v else {
                    return Err(format!("{shown}: `providers` must be an array"));
                };
                for item in items {
                    match item {
                        Value::String(id) => {
                            if !merged.contains_key(id) {
                                return Err(format!("{shown}: unknown built-in provider {id:?}"));
                            }
                            explicit.push(id.clone());
                        }
                        Value::Object(o) => {
                            let Some(id) = o.get("id").and_then(Value::as_str) else {
                                return Err(format!("{shown}: a provider object needs an `id`"));
                            };
                            entries.push((id.to_string(), provider_to_server(o)));
                        }
                        _ => return Err(format!("{shown}: providers must be ids or objects")),
                    }
                }
            }
            for (id, v) in entries {
                let v = match v {
                    Value::String(cmd) => serde_json::json!({ "command": cmd }),
                    Value::Object(_) => v,
                    _ => {
                        return Err(format!(
                            "{shown}: server {id:?} must be an object or a command string"
                        ))
                    }
                };
                explicit.push(id.clone());
                let slot = merged
                    .entry(id)
                    .or_insert_with(|| Value::Object(Map::new()));
                deep_merge(slot, &v);
            }
        }
        let mut servers = BTreeMap::new();
        for (id, v) in merged {
            let mut s = parse_server(&id, &v)?;
            s.explicit = explicit.contains(&id);
            servers.insert(id, s);
        }
        Ok(Config {
            servers,
            auto_detect,
        })
    }

    /// Enabled servers (LSP and CLI) that apply to `path` given the found
    /// markers, before fallback resolution. Order: language servers, LSP
    /// linters, CLI linters, then id.
    pub fn candidates(&self, path: &Path) -> Vec<&ServerConfig> {
        let mut out: Vec<&ServerConfig> = self
            .servers
            .values()
            .filter(|s| !s.disabled && (self.auto_detect || s.explicit) && s.handles(path))
            .collect();
        out.sort_by_key(|s| {
            let rank = match (s.kind, s.is_linter) {
                (Kind::Lsp, false) => 0,
                (Kind::Lsp, true) => 1,
                (Kind::Cli, _) => 2,
            };
            (rank, s.id.clone())
        });
        out
    }
}

/// Deep merge: objects key-wise (recursively), anything else replaces.
fn deep_merge(into: &mut Value, from: &Value) {
    match (into, from) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                match a.get_mut(k) {
                    Some(slot) if slot.is_object() && v.is_object() => deep_merge(slot, v),
                    _ => {
                        a.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (slot, v) => *slot = v.clone(),
    }
}

/// A `providers` object mapped onto the server shape.
fn provider_to_server(o: &Map<String, Value>) -> Value {
    let mut out = o.clone();
    out.remove("id");
    if !out.contains_key("command") {
        if let Some(first) = o
            .get("commandCandidates")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
        {
            out.insert("command".into(), first.clone());
        }
    }
    let mut types: Vec<Value> = Vec::new();
    if let Some(sel) = o.get("selectors").and_then(Value::as_array) {
        for s in sel {
            for key in ["extensions", "filenames"] {
                if let Some(a) = s.get(key).and_then(Value::as_array) {
                    types.extend(a.iter().cloned());
                }
            }
            if let Some(l) = s.get("languageId") {
                types.push(l.clone());
                out.entry("languageId").or_insert(l.clone());
            }
        }
    }
    if let Some(exts) = o
        .get("detect")
        .and_then(|d| d.get("fileExtensionsAny"))
        .and_then(Value::as_array)
    {
        types.extend(exts.iter().cloned());
    }
    if !types.is_empty() && !out.contains_key("fileTypes") {
        out.insert("fileTypes".into(), Value::Array(types));
    }
    let mut markers: Vec<Value> = Vec::new();
    for key in ["repoFilesAny", "configFilesAny"] {
        if let Some(a) = o
            .get("detect")
            .and_then(|d| d.get(key))
            .and_then(Value::as_array)
        {
            markers.extend(a.iter().cloned());
        }
    }
    if let Some(a) = o.get("configMarkers").and_then(Value::as_array) {
        markers.extend(a.iter().cloned());
    }
    if !markers.is_empty() && !out.contains_key("rootMarkers") {
        out.insert("rootMarkers".into(), Value::Array(markers));
    }
    if let Some(io) = o.get("lsp").and_then(|l| l.get("initializationOptions")) {
        out.insert("initializationOptions".into(), io.clone());
    }
    if let Some(Value::Object(cli)) = o.get("cli") {
        for (k, v) in cli {
            out.insert(k.clone(), v.clone());
        }
        out.entry("kind").or_insert(Value::String("cli".into()));
    }
    Value::Object(out)
}

fn strings(v: Option<&Value>, id: &str, key: &str) -> Result<Vec<String>, String> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| {
                x.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("server {id:?}: `{key}` must hold strings"))
            })
            .collect(),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(_) => Err(format!(
            "server {id:?}: `{key}` must be an array of strings"
        )),
    }
}

fn parse_server(id: &str, v: &Value) -> Result<ServerConfig, String> {
    let get = |k: &str| v.get(k);
    let str_of = |k: &str| get(k).and_then(Value::as_str).map(str::to_string);
    let bool_of = |k: &str| get(k).and_then(Value::as_bool).unwrap_or(false);
    let (command, args) = match get("command") {
        Some(Value::String(s)) => (s.clone(), Vec::new()),
        Some(Value::Array(a)) => {
            let parts = strings(Some(&Value::Array(a.clone())), id, "command")?;
            let mut it = parts.into_iter();
            (it.next().unwrap_or_default(), it.collect())
        }
        None | Some(Value::Null) => (String::new(), Vec::new()),
        Some(_) => {
            return Err(format!(
                "server {id:?}: `command` must be a string or an array"
            ))
        }
    };
    let (command, mut args) = if args.is_empty() && command.trim().contains(char::is_whitespace) {
        // `"id": "cmd --flag"` shorthand: split into program and arguments.
        let mut it = command.split_whitespace().map(str::to_string);
        (it.next().unwrap_or_default(), it.collect())
    } else {
        (command, args)
    };
    args.extend(strings(get("args"), id, "args")?);
    let parser = str_of("parser");
    let mode = str_of("mode");
    let kind = match str_of("kind").as_deref() {
        Some("cli") => Kind::Cli,
        Some("lsp") | None if parser.is_none() && mode.is_none() => Kind::Lsp,
        None => Kind::Cli,
        Some("lsp") => Kind::Lsp,
        Some(_) => return Err(format!("server {id:?}: kind must be lsp or cli")),
    };
    let disabled = bool_of("disabled");
    if command.trim().is_empty() && !disabled {
        return Err(format!("server {id:?}: `command` is required"));
    }
    let mut env = BTreeMap::new();
    if let Some(Value::Object(m)) = get("env") {
        for (k, val) in m {
            if let Some(s) = val.as_str() {
                env.insert(k.clone(), s.to_string());
            }
        }
    }
    Ok(ServerConfig {
        id: id.to_string(),
        kind,
        command,
        args,
        file_types: strings(get("fileTypes"), id, "fileTypes")?,
        language_id: str_of("languageId"),
        root_markers: strings(get("rootMarkers"), id, "rootMarkers")?,
        is_linter: bool_of("isLinter") || kind == Kind::Cli,
        disabled,
        parser: parser.unwrap_or_else(|| "generic".into()),
        mode: mode.unwrap_or_else(|| "files".into()),
        env,
        settings: get("settings").cloned().unwrap_or(Value::Null),
        initialization_options: get("initializationOptions")
            .or_else(|| get("initOptions"))
            .cloned()
            .unwrap_or(Value::Null),
        install: str_of("install"),
        fallback_for: str_of("fallbackFor"),
        explicit: false,
        run_on_startup: bool_of("runOnStartup"),
        run_on_change: get("runOnChange").and_then(Value::as_bool).unwrap_or(true),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layers(texts: &[&str]) -> Result<Config, String> {
        let l: Vec<(PathBuf, String)> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| (PathBuf::from(format!("/l{i}/lsp.json")), t.to_string()))
            .collect();
        Config::from_layers(&l)
    }

    #[test]
    fn builtins_load() {
        let c = layers(&[]).unwrap();
        let ra = &c.servers["rust-analyzer"];
        assert_eq!(ra.command, "rust-analyzer");
        assert!(ra.handles(Path::new("/x/src/main.rs")));
        assert_eq!(c.servers["ruff"].kind, Kind::Cli);
        let ids: Vec<&str> = c
            .candidates(Path::new("a.ts"))
            .iter()
            .map(|s| s.id.as_str())
            .collect();
        assert_eq!(ids, ["typescript-language-server", "eslint"]);
        // `LspManager::lint_on_startup` skips the built-ins when no file
        // exists (`Config::any_file`): none of them may run on start-up.
        assert!(c.servers.values().all(|s| !s.run_on_startup));
    }

    #[test]
    fn shapes_merge_onto_builtins() {
        let c = layers(&[
            r#"{"servers": {"rust-analyzer": {"args": ["--log"], "settings": {"a": {"b": 1}}}}}"#,
            r#"{"rust-analyzer": {"settings": {"a": {"c": 2}}}, "mylsp": "my-lsp --stdio", "$schema": "x"}"#,
            r#"{"providers": ["gopls", {"id": "zls", "commandCandidates": ["zls"], "selectors": [{"languageId": "zig", "extensions": ["zig"]}]}]}"#,
        ])
        .unwrap();
        let ra = &c.servers["rust-analyzer"];
        assert_eq!(ra.args, ["--log"]);
        assert_eq!(ra.settings, serde_json::json!({"a": {"b": 1, "c": 2}}));
        assert_eq!(c.servers["mylsp"].command, "my-lsp");
        assert_eq!(c.servers["mylsp"].args, ["--stdio"]);
        let zls = &c.servers["zls"];
        assert_eq!(zls.command, "zls");
        assert!(zls.handles(Path::new("main.zig")));
        assert!(!c.servers.contains_key("$schema"));
    }

    #[test]
    fn linter_run_keys() {
        let c = layers(&[
            r#"{"linters": {"flakes": {"command": ["python3", "-m", "pyflakes"], "fileTypes": ["py"], "runOnStartup": true, "runOnChange": false}}}"#,
            r#"{"providers": [{"id": "lint2", "command": "l2", "cli": {"parser": "sarif", "runOnStartup": true}}]}"#,
        ])
        .unwrap();
        let f = &c.servers["flakes"];
        assert_eq!(f.kind, Kind::Lsp, "no parser or mode: an LSP server");
        assert!(f.run_on_startup && !f.run_on_change);
        let l2 = &c.servers["lint2"];
        assert_eq!(l2.kind, Kind::Cli);
        assert!(l2.run_on_startup && l2.run_on_change);
        assert!(!c.servers["ruff"].run_on_startup && c.servers["ruff"].run_on_change);
    }

    #[test]
    fn bad_files_name_the_file() {
        let e = layers(&["{nope"]).unwrap_err();
        assert!(e.starts_with("/l0/lsp.json: invalid JSON"), "{e}");
        let e = layers(&[r#"{"x": {"command": "x", "kind": "tcp"}}"#]).unwrap_err();
        assert!(e.contains("kind must be lsp or cli"), "{e}");
    }

    #[test]
    fn auto_detect_false_keeps_named_servers() {
        let c =
            layers(&[r#"{"autoDetect": false, "servers": {"pyright-langserver": {}}}"#]).unwrap();
        let ids: Vec<&str> = c
            .candidates(Path::new("a.py"))
            .iter()
            .map(|s| s.id.as_str())
            .collect();
        assert_eq!(ids, ["pyright-langserver"]);
    }
}
