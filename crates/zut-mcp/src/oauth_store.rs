//! `$ZUT_HOME/mcp-auth.json`: OAuth credentials of remote MCP servers, by
//! server name (0600, atomic writes, like `auth.json`).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The file's name under `$ZUT_HOME`.
pub const AUTH_FILE: &str = "mcp-auth.json";

/// One server's credentials.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ServerCredentials {
    /// The server URL they were issued for.
    pub url: String,
    /// The OAuth client (registered dynamically or configured).
    pub client_id: String,
    /// rmcp's stored credentials (token response, scopes, issuer), as JSON.
    #[serde(default)]
    pub credentials: serde_json::Value,
}

/// Every server's credentials.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct AuthFile {
    /// Server name → credentials.
    #[serde(default)]
    pub servers: BTreeMap<String, ServerCredentials>,
}

impl AuthFile {
    /// Reads the file (empty when missing or unreadable).
    pub fn load(home: &Path) -> Self {
        std::fs::read_to_string(home.join(AUTH_FILE))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    /// Writes it (0600, atomic).
    pub fn save(&self, home: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        crate::fsutil::write_private(&home.join(AUTH_FILE), text.as_bytes())
    }

    /// Updates one server's entry on disk (re-reading first).
    pub fn update(
        home: &Path,
        name: &str,
        entry: Option<ServerCredentials>,
    ) -> std::io::Result<()> {
        let mut file = Self::load(home);
        match entry {
            Some(e) => {
                file.servers.insert(name.to_string(), e);
            }
            None => {
                file.servers.remove(name);
            }
        }
        file.save(home)
    }
}
