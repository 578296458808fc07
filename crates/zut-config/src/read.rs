//! Reading a JSON settings file: bounded, with errors naming the file.

use std::io::Read;
use std::path::Path;

use serde_json::{Map, Value};

use crate::error::ConfigError;

/// Largest settings file read.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The top-level object of `path`; `Ok(None)` when the file does not exist.
pub fn read_object(path: &Path) -> Result<Option<Map<String, Value>>, ConfigError> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ConfigError::file(path, format!("cannot read: {e}"))),
    };
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ConfigError::file(path, format!("cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(ConfigError::file(
            path,
            format!(
                "larger than {} MiB; not read",
                MAX_FILE_BYTES / (1024 * 1024)
            ),
        ));
    }
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
        ConfigError::file(
            path,
            format!("not valid JSON: {e} (nothing in it was used)"),
        )
    })?;
    match value {
        Value::Object(map) => Ok(Some(map)),
        other => Err(ConfigError::file(
            path,
            format!("expected a JSON object at the top, found {}", kind(&other)),
        )),
    }
}

/// A JSON value's kind, for error messages.
pub use zut_types::text::json_kind as kind;
