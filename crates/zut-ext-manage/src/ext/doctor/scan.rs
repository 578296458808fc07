//! The static scan of `zut ext doctor` (cli.md §2.2 step 1): every
//! extension directory, whether or not it would load, with what is wrong
//! with its manifest — before anything is started.

use std::path::{Path, PathBuf};

use serde_json::Value;
use zut_ext_host::discovery::scan_scope;
use zut_ext_host::manifest::{Manifest, ManifestError, MANIFEST_FILE};
use zut_ext_host::{Scope, ZutHome};

/// What doctor looks at.
#[derive(Debug, Clone)]
pub struct ScanInput {
    /// Absolute project directory.
    pub cwd: PathBuf,
    /// `$ZUT_HOME`.
    pub home: ZutHome,
    /// Absolute `--ext` directories, in command-line order.
    pub ext: Vec<PathBuf>,
    /// `--no-ext`.
    pub no_ext: bool,
}

/// One extension directory as found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaticRow {
    /// Where it was found.
    pub scope: Scope,
    /// Absolute directory.
    pub dir: PathBuf,
    /// Manifest name, or the directory name when the manifest has none.
    pub name: String,
    /// Manifest version (may be empty).
    pub version: String,
    /// `false` only when the manifest says `"enabled": false`.
    pub enabled: bool,
    /// `exec` as written (may be empty).
    pub exec: String,
    /// Theme files present (`theme.json`, `themes/theme.json`).
    pub themes: Vec<PathBuf>,
    /// What makes the manifest unusable, if anything.
    pub error: Option<String>,
    /// The higher-priority directory with the same name that hides this one.
    pub shadowed_by: Option<PathBuf>,
    /// `$ZUT_HOME/logs/ext-<name>.log`.
    pub log: PathBuf,
    /// Size of that log before doctor started anything (to show only what
    /// this run appended).
    pub log_len_before: u64,
}

impl StaticRow {
    /// No `exec` and a theme file: registered without a process.
    pub fn theme_only(&self) -> bool {
        self.exec.trim().is_empty() && !self.themes.is_empty()
    }
}

/// Scans `--ext` directories (scope `cli`), then, unless `--no-ext`, the
/// project scope and the global scope, each sorted by directory name.
/// Directories starting with `.` and symlinks are skipped like discovery
/// does; directories without a usable manifest are reported, not skipped.
pub fn scan(input: &ScanInput) -> Vec<StaticRow> {
    let mut rows: Vec<StaticRow> = input
        .ext
        .iter()
        .map(|dir| row(&input.home, Scope::Cli, dir))
        .collect();
    if input.no_ext {
        return rows;
    }
    let project = scan_scope(
        &zut_ext_host::home::project_extensions_dir(&input.cwd),
        false,
    );
    // Recommended rule of cli.md §2.2: only a directory that has an
    // `extension.json` shadows, exactly like discovery.
    let shadowing: Vec<&PathBuf> = project
        .iter()
        .filter(|d| d.join(MANIFEST_FILE).is_file())
        .collect();
    rows.extend(project.iter().map(|d| row(&input.home, Scope::Project, d)));
    for dir in scan_scope(&input.home.extensions_dir(), false) {
        let mut r = row(&input.home, Scope::Global, &dir);
        r.shadowed_by = shadowing
            .iter()
            .find(|p| p.file_name() == dir.file_name())
            .map(|p| p.to_path_buf());
        rows.push(r);
    }
    rows
}

fn row(home: &ZutHome, scope: Scope, dir: &Path) -> StaticRow {
    let dir_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string());
    let themes: Vec<PathBuf> = [
        dir.join("theme.json"),
        dir.join("themes").join("theme.json"),
    ]
    .into_iter()
    .filter(|p| p.is_file())
    .collect();
    let (fields, error) = inspect(dir);
    let name = fields
        .name
        .filter(|n| !n.trim().is_empty())
        .unwrap_or(dir_name);
    let log = home.log_path(&name);
    let log_len_before = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
    StaticRow {
        scope,
        dir: dir.to_path_buf(),
        name,
        version: fields.version,
        enabled: fields.enabled,
        exec: fields.exec,
        themes,
        error,
        shadowed_by: None,
        log,
        log_len_before,
    }
}

/// The fields doctor shows, read leniently so that a manifest with a
/// wrong-typed field still shows its name.
#[derive(Debug)]
struct Fields {
    name: Option<String>,
    version: String,
    enabled: bool,
    exec: String,
}

fn inspect(dir: &Path) -> (Fields, Option<String>) {
    let file = dir.join(MANIFEST_FILE);
    let mut fields = Fields {
        name: None,
        version: String::new(),
        enabled: true,
        exec: String::new(),
    };
    match Manifest::read(dir) {
        Ok(m) => {
            fields = Fields {
                name: Some(m.name.clone()),
                version: m.version.clone(),
                enabled: m.enabled,
                exec: m.exec.clone(),
            };
            let error = m.validate(dir).err().map(|e| describe(&e, dir, &file));
            (fields, error)
        }
        Err(ManifestError::Read(detail)) => {
            let error = if !dir.is_dir() {
                if dir.exists() {
                    "missing extension.json (not a directory)".to_string()
                } else {
                    "missing extension.json (the directory does not exist)".to_string()
                }
            } else if file.exists() {
                format!("missing extension.json (cannot read it: {detail})")
            } else {
                format!("missing extension.json (expected {})", file.display())
            };
            (fields, Some(error))
        }
        Err(e) => {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let value: Option<Value> = serde_json::from_str(&text).ok();
            if let Some(Value::Object(map)) = &value {
                let s = |k: &str| map.get(k).and_then(Value::as_str).map(str::to_string);
                fields.name = s("name");
                fields.version = s("version").unwrap_or_default();
                fields.exec = s("exec").unwrap_or_default();
                fields.enabled = map.get("enabled").and_then(Value::as_bool) != Some(false);
            }
            let mut msg = e.to_string();
            if let Some(hint) = value.as_ref().and_then(field_hint) {
                msg.push_str(&format!(" ({hint})"));
            }
            (fields, Some(msg))
        }
    }
}

/// The manifest error with what to change and where.
fn describe(err: &ManifestError, dir: &Path, file: &Path) -> String {
    let file = file.display();
    match err {
        ManifestError::NameRequired => {
            format!("{err} (set a non-empty \"name\" in {file})")
        }
        ManifestError::ExecRequired => format!(
            "{err} (set \"exec\" in {file} to the program to start, or add theme.json for a theme-only extension)"
        ),
        ManifestError::ExecEscapes(_) => format!(
            "{err} (in {file}; use a path inside {}, an absolute path, or a bare command found on PATH)",
            dir.display()
        ),
        ManifestError::NameWhitespace(_) | ManifestError::InvalidName(_) => {
            format!("{err} (field \"name\" in {file})")
        }
        ManifestError::Permissions(_) => format!(
            "{err} (field \"permissions\" in {file}; see docs/extensions.md#permissions)"
        ),
        ManifestError::Read(_) | ManifestError::Parse(_) => err.to_string(),
    }
}

/// For JSON that parses but does not fit the manifest: which field has the
/// wrong type (serde's own message gives only a line and column).
fn field_hint(value: &Value) -> Option<String> {
    let Value::Object(map) = value else {
        return Some("extension.json must hold a JSON object".to_string());
    };
    let kind = zut_types::text::json_kind;
    for key in ["name", "version", "exec", "language", "description"] {
        if let Some(v) = map.get(key) {
            if !v.is_string() {
                return Some(format!("field {key:?} must be a string, not {}", kind(v)));
            }
        }
    }
    for key in ["args", "skills"] {
        match map.get(key) {
            Some(Value::Array(items)) => {
                if let Some(bad) = items.iter().find(|i| !i.is_string()) {
                    return Some(format!(
                        "field {key:?} must be an array of strings; it contains {}",
                        kind(bad)
                    ));
                }
            }
            Some(v) => {
                return Some(format!(
                    "field {key:?} must be an array of strings, not {}",
                    kind(v)
                ))
            }
            None => {}
        }
    }
    match map.get("enabled") {
        Some(v) if !v.is_boolean() => Some(format!(
            "field \"enabled\" must be true or false, not {}",
            kind(v)
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn field_hints_name_the_field() {
        assert_eq!(
            field_hint(&json!({"name": "x", "args": "a b"})).as_deref(),
            Some("field \"args\" must be an array of strings, not a string")
        );
        assert_eq!(
            field_hint(&json!({"name": 3})).as_deref(),
            Some("field \"name\" must be a string, not a number")
        );
        assert_eq!(
            field_hint(&json!({"enabled": "no"})).as_deref(),
            Some("field \"enabled\" must be true or false, not a string")
        );
        assert!(field_hint(&json!([1])).is_some());
        assert_eq!(field_hint(&json!({"name": "x", "exec": "./r"})), None);
    }
}
