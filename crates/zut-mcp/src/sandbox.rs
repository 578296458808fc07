//! The sandbox of a stdio MCP server: which policy (crates/zut-sandbox)
//! its process starts under, chosen at each start from the server's
//! `sandbox`/`permissions` keys and the session's jail switch.
//!
//! | server config | session unjailed | session jailed |
//! |---|---|---|
//! | (none) or `"sandbox": "session"` | unconfined | the jail |
//! | `"sandbox": "jail"` | the jail | the jail |
//! | `"sandbox": "none"` (user, session scope) | unconfined | unconfined |
//! | `"sandbox": "none"` (project scope) | unconfined | the jail |
//! | `"permissions": {…}` | its permissions | its permissions |
//!
//! The jail is the one `bash` gets (reads everywhere but the secret
//! locations, writes in the project and the temp directories,
//! `sandbox.network`). Permissions are the `extension.json` format;
//! `${data_dir}` and `${extension_dir}` are `$ZUT_HOME/mcp/<name>` (made
//! when missing), `${cwd}` the project. A policy the kernel refuses is an
//! error: the server does not start rather than start unconfined.

use std::path::Path;
use std::sync::Arc;

use zut_sandbox::{JailSpec, Policy, Prepared};
use zut_tools::JailSwitch;

use crate::config::{Scope, ServerConfig, ServerSandbox};

/// The policy a server starts under.
pub struct Confinement {
    /// `None`: unconfined.
    pub prepared: Option<Arc<Prepared>>,
    /// One line for its log and `/mcp`: `unconfined`, `jailed`,
    /// `permissions`.
    pub word: &'static str,
    /// A note to log (an ignored `sandbox: "none"`).
    pub note: Option<String>,
}

/// Whether `config`'s confinement depends on the session's jail switch
/// (a running server is restarted when the switch flips).
pub fn follows_session(config: &ServerConfig) -> bool {
    match config.sandbox {
        ServerSandbox::Session => true,
        ServerSandbox::None => config.scope == Scope::Project,
        ServerSandbox::Jail | ServerSandbox::Declared(_) => false,
    }
}

/// The confinement of `config` now.
pub fn confinement(
    config: &ServerConfig,
    jail: &JailSwitch,
    home: &Path,
    project: &Path,
) -> Result<Confinement, String> {
    let session = |note: Option<String>| -> Result<Confinement, String> {
        match jail.current()? {
            Some(p) => Ok(Confinement {
                prepared: Some(p),
                word: "jailed",
                note,
            }),
            None => Ok(Confinement {
                prepared: None,
                word: "unconfined",
                note: None,
            }),
        }
    };
    match &config.sandbox {
        ServerSandbox::Session => session(None),
        ServerSandbox::None if config.scope == Scope::Project => session(Some(
            "`sandbox: \"none\"` is not honoured for a project server: it follows the session's jail"
                .into(),
        )),
        ServerSandbox::None => Ok(Confinement {
            prepared: None,
            word: "unconfined",
            note: None,
        }),
        ServerSandbox::Jail => {
            if let Some(p) = jail.current()? {
                return Ok(Confinement {
                    prepared: Some(p),
                    word: "jailed",
                    note: None,
                });
            }
            let spec = jail
                .spec()
                .unwrap_or_else(|| default_spec(home, project));
            let prepared = Prepared::new(Policy::jail(&spec))?;
            Ok(Confinement {
                prepared: Some(Arc::new(prepared)),
                word: "jailed",
                note: None,
            })
        }
        ServerSandbox::Declared(declared) => {
            let own = match &config.transport {
                crate::config::TransportConfig::Stdio { command, .. } => vec![command.clone()],
                _ => Vec::new(),
            };
            let data = home.join("mcp").join(&config.name);
            std::fs::create_dir_all(&data)
                .map_err(|e| format!("cannot make {}: {e}", data.display()))?;
            let vars = zut_sandbox::Vars {
                cwd: project.to_path_buf(),
                data_dir: data.clone(),
                extension_dir: data,
                home: std::env::var_os("HOME").map(Into::into),
                tmp: std::env::temp_dir(),
            };
            let mut policy = declared
                .to_policy(&config.name, &vars, &own)
                .map_err(|e| format!("permissions: {e}"))?;
            policy.name = format!("MCP server {:?}'s permissions", config.name);
            let prepared = Prepared::new(policy)?;
            Ok(Confinement {
                prepared: Some(Arc::new(prepared)),
                word: "permissions",
                note: None,
            })
        }
    }
}

/// The jail of `project` when the front end passed no switch (tests, the
/// library used alone): `$HOME`'s secrets, `$ZUT_HOME/auth.json`, no network.
pub fn default_spec(home: &Path, project: &Path) -> JailSpec {
    JailSpec {
        cwd: project.to_path_buf(),
        home: std::env::var_os("HOME").map(Into::into),
        zut_home: Some(home.to_path_buf()),
        ..JailSpec::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_server;
    use serde_json::json;

    fn server(v: serde_json::Value, scope: Scope) -> ServerConfig {
        match parse_server("s", &v, scope, None) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn a_project_file_cannot_take_its_server_out_of_the_jail() {
        let dir = std::env::temp_dir();
        let jail = JailSwitch::new(default_spec(&dir, &dir), true);
        let project = server(json!({"command": "x", "sandbox": "none"}), Scope::Project);
        let user = server(json!({"command": "x", "sandbox": "none"}), Scope::User);
        assert!(follows_session(&project));
        assert!(!follows_session(&user));
        let c = confinement(&project, &jail, &dir, &dir).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.word, "jailed");
        assert!(c.prepared.is_some());
        assert!(c.note.is_some_and(|n| n.contains("not honoured")));
        let c = confinement(&user, &jail, &dir, &dir).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.word, "unconfined");
        assert!(c.prepared.is_none());
        jail.set_jailed(false);
        let c = confinement(&project, &jail, &dir, &dir).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.word, "unconfined");
        let forced = server(json!({"command": "x", "sandbox": "jail"}), Scope::User);
        let c = confinement(&forced, &jail, &dir, &dir).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.word, "jailed");
        assert!(!follows_session(&forced));
    }
}
