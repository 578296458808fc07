//! `$ZUT_HOME/auth.json`: stored API keys.
//!
//! Format: one object per `--provider` id, each with an `api_key`:
//!
//! ```json
//! {
//!   "anthropic": {"api_key": "sk-ant-..."},
//!   "openrouter": {"api_key": "sk-or-..."}
//! }
//! ```
//!
//! Other keys are ignored. On Unix the file must not be readable or writable
//! by group or others (mode `0600` or stricter): a looser file is refused with
//! an error telling to `chmod 600` it, because it holds secrets. The file is
//! only read when neither `--api-key` nor the provider's environment variable
//! gave a key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::ProviderError;

#[derive(Debug, Deserialize)]
struct Entry {
    #[serde(default)]
    api_key: Option<String>,
}

/// The parsed `auth.json` (provider id → key).
#[derive(Debug, Default)]
pub(crate) struct AuthFile {
    pub(crate) path: PathBuf,
    keys: BTreeMap<String, String>,
}

impl AuthFile {
    /// The key stored for `provider`.
    pub(crate) fn key(&self, provider: &str) -> Option<&str> {
        self.keys
            .get(provider)
            .map(String::as_str)
            .filter(|k| !k.trim().is_empty())
    }
}

/// The path of the auth file under `zut_home`.
pub fn auth_file_path(zut_home: &Path) -> PathBuf {
    zut_home.join("auth.json")
}

/// Read `$ZUT_HOME/auth.json`; `Ok(None)` when it does not exist.
pub(crate) fn load(zut_home: &Path) -> Result<Option<AuthFile>, ProviderError> {
    let path = auth_file_path(zut_home);
    let metadata = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(ProviderError::Config(format!(
                "cannot read {}: {e}",
                path.display()
            )))
        }
    };
    check_mode(&path, &metadata)?;
    let text = std::fs::read_to_string(&path)
        .map_err(|e| ProviderError::Config(format!("cannot read {}: {e}", path.display())))?;
    let entries: BTreeMap<String, serde_json::Value> =
        serde_json::from_str(&text).map_err(|e| {
            ProviderError::Config(format!(
                "{} is not valid JSON (expected {{\"<provider>\": {{\"api_key\": \"...\"}}}}): {}",
                path.display(),
                // serde_json messages quote no input text, so no secret leaks here.
                e
            ))
        })?;
    let mut keys = BTreeMap::new();
    for (provider, value) in entries {
        if let Ok(Entry { api_key: Some(key) }) = serde_json::from_value::<Entry>(value) {
            keys.insert(provider, key);
        }
    }
    Ok(Some(AuthFile { path, keys }))
}

/// The key stored for `provider` in `$ZUT_HOME/auth.json`, with the file's
/// path; `Ok(None)` when there is no file or no key for it. Errors (loose
/// permissions, invalid JSON) name the file.
pub fn stored_key(
    zut_home: &Path,
    provider: &str,
) -> Result<Option<(String, PathBuf)>, ProviderError> {
    Ok(load(zut_home)?.and_then(|f| f.key(provider).map(|k| (k.to_string(), f.path.clone()))))
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
