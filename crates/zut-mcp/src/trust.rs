//! The one-time trust answer for project servers, kept in
//! `$ZUT_HOME/mcp-trust.json`: per project file, per server, the hash of
//! the definition that was trusted. A changed definition needs trust again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::ServerConfig;

/// The trust file's name under `$ZUT_HOME`.
pub const TRUST_FILE: &str = "mcp-trust.json";

/// Trusted project server definitions.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct TrustStore {
    /// Project file (absolute) → server name → definition hash.
    #[serde(default)]
    pub files: BTreeMap<String, BTreeMap<String, String>>,
}

impl TrustStore {
    /// Reads the store (empty when missing or unreadable).
    pub fn load(home: &Path) -> Self {
        std::fs::read_to_string(home.join(TRUST_FILE))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    /// Writes the store atomically (0600).
    pub fn save(&self, home: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        crate::fsutil::write_private(&home.join(TRUST_FILE), text.as_bytes())
    }

    /// Whether `server` (a project server) is trusted as defined now.
    pub fn is_trusted(&self, server: &ServerConfig) -> bool {
        let Some(file) = &server.source else {
            return true;
        };
        self.files
            .get(&key(file))
            .and_then(|m| m.get(&server.name))
            .is_some_and(|h| *h == definition_hash(server))
    }

    /// Records `server`'s current definition as trusted.
    pub fn trust(&mut self, server: &ServerConfig) {
        if let Some(file) = &server.source {
            self.files
                .entry(key(file))
                .or_default()
                .insert(server.name.clone(), definition_hash(server));
        }
    }

    /// Forgets every answer for `file`.
    pub fn revoke_file(&mut self, file: &Path) -> bool {
        self.files.remove(&key(file)).is_some()
    }
}

fn key(file: &Path) -> String {
    std::fs::canonicalize(file)
        .unwrap_or_else(|_| PathBuf::from(file))
        .to_string_lossy()
        .into_owned()
}

/// SHA-256 of the definition as written (serde_json keeps keys sorted).
pub fn definition_hash(server: &ServerConfig) -> String {
    let text = serde_json::to_string(&server.raw).unwrap_or_default();
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
