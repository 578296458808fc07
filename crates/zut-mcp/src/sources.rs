//! Every configured server: user (`config.json`), then project
//! (`.mcp.json`, then `.zut/mcp.json`); a later definition of the same name
//! wins and the override is reported. Project servers carry their trust.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::config::{parse_servers, read_json_file, ConfigProblem, Scope, ServerConfig};
use crate::trust::TrustStore;

/// One server after merging.
#[derive(Debug, Clone)]
pub struct ConfiguredServer {
    /// The winning definition.
    pub config: ServerConfig,
    /// False for a project server nobody trusted yet (it does not start).
    pub trusted: bool,
    /// The definitions it overrides (same name, earlier source).
    pub overrides: Vec<ServerConfig>,
}

/// The result of reading every source.
#[derive(Debug, Clone, Default)]
pub struct Configured {
    /// Servers by name, sorted.
    pub servers: Vec<ConfiguredServer>,
    /// Files or entries that could not be used.
    pub problems: Vec<ConfigProblem>,
}

impl Configured {
    /// The server called `name`.
    pub fn get(&self, name: &str) -> Option<&ConfiguredServer> {
        self.servers.iter().find(|s| s.config.name == name)
    }

    /// One line per override, e.g. `mcp: project server "x" (/p/.mcp.json) overrides the user one`.
    pub fn override_notes(&self) -> Vec<String> {
        self.servers
            .iter()
            .flat_map(|s| {
                s.overrides.iter().map(move |o| {
                    format!(
                        "mcp: {} server \"{}\" ({}) overrides the {} one ({})",
                        s.config.scope.as_str(),
                        s.config.name,
                        show(s.config.source.as_deref()),
                        o.scope.as_str(),
                        show(o.source.as_deref()),
                    )
                })
            })
            .collect()
    }

    /// Names of project servers waiting for a trust answer.
    pub fn untrusted(&self) -> Vec<&ConfiguredServer> {
        self.servers.iter().filter(|s| !s.trusted).collect()
    }
}

fn show(p: Option<&Path>) -> String {
    p.map(|p| p.display().to_string())
        .unwrap_or_else(|| "session".into())
}

/// The files zut reads, in precedence order (later wins).
pub fn config_files(home: &Path, project: &Path) -> Vec<(Scope, PathBuf)> {
    vec![
        (Scope::User, home.join("config.json")),
        (Scope::Project, project.join(".mcp.json")),
        (Scope::Project, project.join(".zut").join("mcp.json")),
    ]
}

/// Reads every source for `home` and the project directory `project`.
pub fn load(home: &Path, project: &Path) -> Configured {
    let trust = TrustStore::load(home);
    let mut out = Configured::default();
    let mut all: Vec<ServerConfig> = Vec::new();
    for (scope, file) in config_files(home, project) {
        let value = match read_json_file(&file) {
            Ok(Some(v)) => v,
            Ok(None) => continue,
            Err(p) => {
                // config.json's own syntax errors are `zut config`'s to report.
                if scope != Scope::User {
                    out.problems.push(p);
                }
                continue;
            }
        };
        let Some(servers) = value.get("mcpServers") else {
            if scope == Scope::Project && !value.is_object() {
                out.problems.push(ConfigProblem {
                    file: file.clone(),
                    position: None,
                    message: "must be a JSON object with `mcpServers`".into(),
                });
            }
            continue;
        };
        let (servers, problems) = parse_servers(servers, scope, &file);
        all.extend(servers);
        out.problems.extend(problems);
    }
    merge(&mut out, all, &trust);
    out
}

/// Adds `extra` (for example an ACP session's servers, which need no trust)
/// on top; project servers keep the trust recorded under `home`.
pub fn merge_extra(configured: &mut Configured, extra: Vec<ServerConfig>, home: &Path) {
    let all: Vec<ServerConfig> = configured
        .servers
        .drain(..)
        .flat_map(|s| s.overrides.into_iter().chain(std::iter::once(s.config)))
        .chain(extra)
        .collect();
    merge(configured, all, &TrustStore::load(home));
}

fn merge(out: &mut Configured, all: Vec<ServerConfig>, trust: &TrustStore) {
    let mut merged: Vec<ConfiguredServer> = Vec::new();
    for config in all {
        let trusted = config.scope != Scope::Project || trust.is_trusted(&config);
        match merged.iter_mut().find(|m| m.config.name == config.name) {
            Some(m) => {
                let old = std::mem::replace(&mut m.config, config);
                m.overrides.push(old);
                m.trusted = trusted;
            }
            None => merged.push(ConfiguredServer {
                config,
                trusted,
                overrides: Vec::new(),
            }),
        }
    }
    merged.sort_by(|a, b| a.config.name.cmp(&b.config.name));
    out.servers = merged;
}

/// Reads the raw `mcpServers` object of a file for editing (`zut mcp add`).
pub fn read_for_edit(file: &Path) -> Result<Value, ConfigProblem> {
    Ok(read_json_file(file)?.unwrap_or_else(|| Value::Object(Default::default())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_wins_and_needs_trust() {
        let home = tempfile::tempdir().unwrap();
        let proj = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join("config.json"),
            r#"{"mcpServers": {"a": {"command": "user-a"}, "u": {"command": "u"}}}"#,
        )
        .unwrap();
        std::fs::write(
            proj.path().join(".mcp.json"),
            r#"{"mcpServers": {"a": {"command": "project-a"}}}"#,
        )
        .unwrap();
        let c = load(home.path(), proj.path());
        let a = c.get("a").unwrap();
        assert_eq!(a.config.scope, Scope::Project);
        assert!(!a.trusted);
        assert_eq!(a.overrides.len(), 1);
        assert!(c.override_notes()[0].contains("overrides the user one"));
        assert!(c.get("u").unwrap().trusted);
        let mut t = TrustStore::load(home.path());
        t.trust(&a.config);
        t.save(home.path()).unwrap();
        assert!(load(home.path(), proj.path()).get("a").unwrap().trusted);
        // A changed definition needs trust again.
        std::fs::write(
            proj.path().join(".mcp.json"),
            r#"{"mcpServers": {"a": {"command": "project-a", "args": ["x"]}}}"#,
        )
        .unwrap();
        assert!(!load(home.path(), proj.path()).get("a").unwrap().trusted);
    }

    #[test]
    fn malformed_project_file_is_a_problem_with_position() {
        let home = tempfile::tempdir().unwrap();
        let proj = tempfile::tempdir().unwrap();
        std::fs::write(
            proj.path().join(".mcp.json"),
            "{\"mcpServers\": {\n  \"a\": [\n}",
        )
        .unwrap();
        std::fs::write(
            home.path().join("config.json"),
            r#"{"mcpServers": {"u": {"command": "u"}}}"#,
        )
        .unwrap();
        let c = load(home.path(), proj.path());
        assert_eq!(c.servers.len(), 1);
        assert_eq!(c.problems.len(), 1);
        assert!(
            c.problems[0].to_string().contains(".mcp.json:3:"),
            "{}",
            c.problems[0]
        );
    }
}
