//! `$ZUT_HOME/auth.json`: stored API keys and key commands.
//!
//! Format (the Go original's): one object per provider id, either at the top
//! level or under `additional_api_key_creds`, each with an `api_key` or an
//! `api_key_command` (a program started without a shell that prints the key
//! on its first line; see [`crate::key_command`]):
//!
//! ```json
//! {
//!   "anthropic": {"api_key": "sk-ant-..."},
//!   "openai": {"api_key_command": {"program": "op", "args": ["read", "op://Work/OpenAI/key"]}},
//!   "additional_api_key_creds": {
//!     "openrouter": {"api_key": "sk-or-..."}
//!   }
//! }
//! ```
//!
//! A top-level entry wins over one under `additional_api_key_creds`; an
//! `api_key_command` wins over an `api_key` in the same entry. Other keys
//! are kept as they are when zut saves the file. On Unix the file must not
//! be readable or writable by group or others (mode `0600` or stricter): a
//! looser file is refused with an error telling to `chmod 600` it, because
//! it holds secrets. The file is only read when neither `--api-key` nor the
//! provider's environment variable gave a key.
//!
//! Saving ([`save_key`], [`remove`]) happens under an exclusive lock on
//! `auth.json.lock`, re-reads the file, and replaces it by writing a
//! temporary file (mode 0600) and renaming it, so two zut processes saving
//! at once lose nothing and a crash never leaves half a file. A file that is
//! not JSON is never overwritten.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::error::ProviderError;
use crate::key_command::KeyCommand;

/// The object holding the keys of providers without a dedicated field.
pub const ADDITIONAL: &str = "additional_api_key_creds";

/// Providers the Go original stores at the top level of `auth.json`; the
/// others go under [`ADDITIONAL`] when zut writes a new entry.
const DEDICATED: [&str; 5] = ["anthropic", "openai", "kimi", "google", "deepseek"];

/// What `auth.json` holds for one provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stored {
    /// A literal key.
    Key(String),
    /// A key command (or why its description is invalid).
    Command(Result<KeyCommand, String>),
}

/// The parsed `auth.json` (provider id → credential).
#[derive(Debug, Default)]
pub(crate) struct AuthFile {
    pub(crate) path: PathBuf,
    entries: BTreeMap<String, Stored>,
}

impl AuthFile {
    /// Whether a credential is stored for `provider` (a key command counts
    /// without being run).
    pub(crate) fn has(&self, provider: &str) -> bool {
        self.entries.contains_key(provider)
    }

    /// The key for `provider`: the stored key, or the first line printed by
    /// its key command (run once per process; see [`crate::key_command`]).
    pub(crate) fn key(&self, provider: &str) -> Result<Option<String>, ProviderError> {
        match self.entries.get(provider) {
            None => Ok(None),
            Some(Stored::Key(k)) => Ok(Some(k.clone())),
            Some(Stored::Command(Err(message))) => Err(ProviderError::Config(format!(
                "{}: {message}",
                self.path.display()
            ))),
            Some(Stored::Command(Ok(cmd))) => cmd.resolve().map(Some).map_err(|e| {
                ProviderError::Config(format!(
                    "{}: api_key_command of provider {provider:?}: {e}",
                    self.path.display()
                ))
            }),
        }
    }
}

/// The path of the auth file under `zut_home`.
pub fn auth_file_path(zut_home: &Path) -> PathBuf {
    zut_home.join("auth.json")
}

/// Read `$ZUT_HOME/auth.json`; `Ok(None)` when it does not exist.
pub(crate) fn load(zut_home: &Path) -> Result<Option<AuthFile>, ProviderError> {
    let path = auth_file_path(zut_home);
    let Some(root) = read_root(&path)? else {
        return Ok(None);
    };
    Ok(Some(AuthFile {
        entries: entries(&root),
        path,
    }))
}

/// Every provider with a stored credential, with what is stored (keys are
/// in the values: never print them).
pub fn list(zut_home: &Path) -> Result<Vec<(String, Stored)>, ProviderError> {
    Ok(load(zut_home)?
        .map(|f| f.entries.into_iter().collect())
        .unwrap_or_default())
}

/// The key stored for `provider` in `$ZUT_HOME/auth.json`, with the file's
/// path; `Ok(None)` when there is no file or no key for it. A key command
/// is run (once per process). Errors (loose permissions, invalid JSON, a
/// failing key command) name the file and never hold the key.
pub fn stored_key(
    zut_home: &Path,
    provider: &str,
) -> Result<Option<(String, PathBuf)>, ProviderError> {
    let Some(file) = load(zut_home)? else {
        return Ok(None);
    };
    Ok(file.key(provider)?.map(|k| (k, file.path.clone())))
}

/// Whether `auth.json` holds a credential for `provider` (without running
/// a key command).
pub fn has_stored(zut_home: &Path, provider: &str) -> Result<bool, ProviderError> {
    Ok(load(zut_home)?.is_some_and(|f| f.has(provider)))
}

/// Saves `key` for `provider` (replacing its key command, keeping every
/// other entry and key of the file). Returns the file's path.
pub fn save_key(zut_home: &Path, provider: &str, key: &str) -> Result<PathBuf, ProviderError> {
    let key = key.trim();
    if key.is_empty() {
        return Err(ProviderError::Config("empty API key: nothing saved".into()));
    }
    update(zut_home, |root| {
        let slot = entry_slot(root, provider);
        slot.remove("api_key_command");
        slot.insert("api_key".into(), Value::String(key.to_string()));
        true
    })
}

/// Removes every credential of `provider` (key and key command). Returns
/// whether there was one.
pub fn remove(zut_home: &Path, provider: &str) -> Result<bool, ProviderError> {
    let mut removed = false;
    update(zut_home, |root| {
        removed = root.remove(provider).is_some();
        if let Some(Value::Object(extra)) = root.get_mut(ADDITIONAL) {
            removed |= extra.remove(provider).is_some();
            if extra.is_empty() {
                root.remove(ADDITIONAL);
            }
        }
        removed
    })?;
    Ok(removed)
}

/// The object to write `provider`'s credential into: its existing entry
/// (top level, then [`ADDITIONAL`]), else a new one where the Go original
/// keeps it.
fn entry_slot<'a>(root: &'a mut Map<String, Value>, provider: &str) -> &'a mut Map<String, Value> {
    let top = root.get(provider).is_some_and(Value::is_object);
    let extra = root
        .get(ADDITIONAL)
        .and_then(|v| v.get(provider))
        .is_some_and(Value::is_object);
    let table = if top || (!extra && DEDICATED.contains(&provider)) {
        root
    } else {
        let extra = root
            .entry(ADDITIONAL)
            .or_insert_with(|| Value::Object(Map::new()));
        if !extra.is_object() {
            *extra = Value::Object(Map::new());
        }
        match extra {
            Value::Object(m) => m,
            _ => unreachable!("made an object above"),
        }
    };
    let slot = table
        .entry(provider)
        .or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    match slot {
        Value::Object(m) => m,
        _ => unreachable!("made an object above"),
    }
}

/// Locks, re-reads, applies `change` and (when it returns true) replaces
/// the file atomically.
fn update(
    zut_home: &Path,
    change: impl FnOnce(&mut Map<String, Value>) -> bool,
) -> Result<PathBuf, ProviderError> {
    let path = auth_file_path(zut_home);
    let fail = |what: &str, e: std::io::Error| {
        ProviderError::Config(format!("cannot {what} {}: {e}", path.display()))
    };
    create_private_dir(zut_home).map_err(|e| fail("create the directory of", e))?;
    let lock_path = zut_home.join("auth.json.lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| fail("lock", e))?;
    lock.lock().map_err(|e| fail("lock", e))?;
    let mut root = match read_root(&path)? {
        Some(Value::Object(m)) => m,
        Some(_) => {
            return Err(ProviderError::Config(format!(
                "{} is not a JSON object; fix or remove it (nothing was written)",
                path.display()
            )))
        }
        None => Map::new(),
    };
    if change(&mut root) {
        let mut text = serde_json::to_string_pretty(&Value::Object(root))
            .map_err(|e| ProviderError::Config(format!("cannot encode auth.json: {e}")))?;
        text.push('\n');
        write_private(&path, text.as_bytes()).map_err(|e| fail("write", e))?;
    }
    drop(lock);
    Ok(path)
}

/// Writes `bytes` to a temporary file of mode 0600 beside `path`, syncs it
/// and renames it over `path`.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(
        ".auth.json.{}.{}.tmp",
        std::process::id(),
        fastrand::u64(..)
    ));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let result = (|| {
        let mut file = options.open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Reads and parses the file; `Ok(None)` when it does not exist. Errors
/// (loose mode, unreadable, not JSON) name the file.
fn read_root(path: &Path) -> Result<Option<Value>, ProviderError> {
    let metadata = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(ProviderError::Config(format!(
                "cannot read {}: {e}",
                path.display()
            )))
        }
    };
    check_mode(path, &metadata)?;
    let text = std::fs::read_to_string(path)
        .map_err(|e| ProviderError::Config(format!("cannot read {}: {e}", path.display())))?;
    let root: Value = serde_json::from_str(&text).map_err(|e| {
        ProviderError::Config(format!(
            "{} is not valid JSON (expected {{\"<provider>\": {{\"api_key\": \"...\"}}}}): {}; fix or remove it",
            path.display(),
            // serde_json messages quote no input text, so no secret leaks here.
            e
        ))
    })?;
    Ok(Some(root))
}

/// The credentials of the top level, then of [`ADDITIONAL`].
fn entries(root: &Value) -> BTreeMap<String, Stored> {
    let mut out = BTreeMap::new();
    let Some(top) = root.as_object() else {
        return out;
    };
    for (provider, value) in top {
        if provider == ADDITIONAL {
            continue;
        }
        if let Some(s) = stored(value, provider) {
            out.insert(provider.clone(), s);
        }
    }
    if let Some(extra) = top.get(ADDITIONAL).and_then(Value::as_object) {
        for (provider, value) in extra {
            if out.contains_key(provider) {
                continue;
            }
            if let Some(s) = stored(value, &format!("{ADDITIONAL}.{provider}")) {
                out.insert(provider.clone(), s);
            }
        }
    }
    out
}

fn stored(value: &Value, at: &str) -> Option<Stored> {
    let obj = value.as_object()?;
    if let Some(cmd) = obj.get("api_key_command").filter(|v| !v.is_null()) {
        return Some(Stored::Command(KeyCommand::from_json(
            cmd,
            &format!("{at}.api_key_command"),
        )));
    }
    obj.get("api_key")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(|k| Stored::Key(k.to_string()))
}

#[cfg(unix)]
fn check_mode(path: &Path, metadata: &std::fs::Metadata) -> Result<(), ProviderError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = metadata.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(ProviderError::Config(format!(
            "{} has mode {mode:04o}, readable by other users; it holds API keys: run `chmod 600 {}`",
            path.display(),
            path.display()
        )));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_mode(_path: &Path, _metadata: &std::fs::Metadata) -> Result<(), ProviderError> {
    Ok(())
}
