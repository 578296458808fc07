//! Load errors, worded as protocol §3.6 requires.

use std::path::{Path, PathBuf};

use crate::manifest::{Manifest, ManifestError};

/// One extension that could not be loaded. Loading is fail-soft: each
/// failure yields one of these and the other extensions carry on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// The extension directory.
    pub dir: PathBuf,
    /// Manifest name, when the manifest could be read.
    pub name: Option<String>,
    /// Full (possibly multi-line) message.
    pub message: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LoadError {}

impl LoadError {
    /// `<dir>: <manifest error>`.
    pub fn manifest(dir: &Path, err: &ManifestError) -> Self {
        Self {
            dir: dir.to_path_buf(),
            name: None,
            message: format!("{}: {err}", dir.display()),
        }
    }

    /// The multi-line start-up failure:
    ///
    /// ```text
    /// Extension <name> failed to start.
    ///
    ///   exec: "<exec>" (declared language: "<language>")
    ///   error: <error>
    ///   extension directory: <dir>
    ///   stderr log: <log>
    /// ```
    pub fn start(manifest: &Manifest, dir: &Path, error: &str, log: Option<&Path>) -> Self {
        let mut msg = format!(
            "Extension {} failed to start.\n\n  exec: {:?}",
            manifest.name, manifest.exec
        );
        if !manifest.language.is_empty() {
            msg.push_str(&format!(" (declared language: {:?})", manifest.language));
        }
        msg.push_str(&format!(
            "\n  error: {error}\n  extension directory: {}",
            dir.display()
        ));
        if let Some(log) = log {
            msg.push_str(&format!("\n  stderr log: {}", log.display()));
        }
        Self {
            dir: dir.to_path_buf(),
            name: Some(manifest.name.clone()),
            message: msg,
        }
    }
}
