//! Configuration errors: always the file, the key when there is one.

use std::path::{Path, PathBuf};

/// A problem with a settings file or a resolved setting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file at fault (`None` for flags and environment variables).
    pub file: Option<PathBuf>,
    /// The key at fault, dotted (`providers.my-company.api`).
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl ConfigError {
    /// A problem with a whole file.
    pub fn file(path: &Path, message: impl Into<String>) -> Self {
        Self {
            file: Some(path.to_path_buf()),
            key: None,
            message: message.into(),
        }
    }

    /// A problem with one key of a file.
    pub fn key(path: &Path, key: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            file: Some(path.to_path_buf()),
            key: Some(key.into()),
            message: message.into(),
        }
    }

    /// A problem not tied to a file (a flag, an environment variable).
    pub fn other(message: impl Into<String>) -> Self {
        Self {
            file: None,
            key: None,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.file, &self.key) {
            (Some(file), Some(key)) => write!(f, "{}: {key}: {}", file.display(), self.message),
            (Some(file), None) => write!(f, "{}: {}", file.display(), self.message),
            _ => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for ConfigError {}
