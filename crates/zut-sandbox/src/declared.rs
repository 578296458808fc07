//! Declared permissions: the `permissions` object of a manifest
//! (`extension.json` today; MCP servers and language servers later).
//!
//! ```json
//! {"fs": {"read": ["${cwd}"], "write": ["${data_dir}"]},
//!  "network": ["api.example.com"], "exec": ["git"], "env": ["PATH", "LANG"]}
//! ```
//!
//! Paths may use `${cwd}`, `${data_dir}`, `${extension_dir}`, `${home}`
//! and `${tmp}`; `network` is a list of domains, `"none"` or `"any"`; every
//! key is optional and absent means nothing of that kind. Unknown keys are
//! errors (a typo must not silently grant or drop a permission).

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::policy::{Limits, Network, Policy, ReadScope};

/// The `permissions` object.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Declared {
    /// File-system scopes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fs: Option<DeclaredFs>,
    /// Reachable network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<DeclaredNetwork>,
    /// Programs it may run (names on `PATH` or paths).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec: Option<Vec<String>>,
    /// Environment variables it receives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<Vec<String>>,
}

/// `fs`: readable and writable paths (with placeholders).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DeclaredFs {
    /// Readable.
    #[serde(default)]
    pub read: Vec<String>,
    /// Writable (and readable).
    #[serde(default)]
    pub write: Vec<String>,
}

/// `network`: `"none"`, `"any"` or a list of domains.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum DeclaredNetwork {
    /// `"none"` or `"any"`.
    Word(String),
    /// Domains.
    Domains(Vec<String>),
}

/// The placeholder values.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    /// `${cwd}`: the session's directory.
    pub cwd: PathBuf,
    /// `${data_dir}`: the extension's data directory.
    pub data_dir: PathBuf,
    /// `${extension_dir}`: the extension's own directory.
    pub extension_dir: PathBuf,
    /// `${home}`.
    pub home: Option<PathBuf>,
    /// `${tmp}`: the temp directory.
    pub tmp: PathBuf,
}

const PLACEHOLDERS: &[&str] = &["cwd", "data_dir", "extension_dir", "home", "tmp"];

impl Declared {
    /// Parses and checks a `permissions` value. The error names the
    /// offending field.
    pub fn from_json(value: &serde_json::Value) -> Result<Declared, String> {
        let d: Declared = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
        d.check()?;
        Ok(d)
    }

    /// Checks placeholders, the network word and domain syntax.
    pub fn check(&self) -> Result<(), String> {
        if let Some(fs) = &self.fs {
            for (key, list) in [("fs.read", &fs.read), ("fs.write", &fs.write)] {
                for p in list {
                    check_template(p).map_err(|e| format!("{key}: {e}"))?;
                }
            }
        }
        match &self.network {
            Some(DeclaredNetwork::Word(w)) if w != "none" && w != "any" => {
                return Err(format!(
                    "network: {w:?} is not \"none\", \"any\" or a list of domains"
                ))
            }
            Some(DeclaredNetwork::Domains(list)) => {
                for d in list {
                    if !valid_domain(d) {
                        return Err(format!("network: {d:?} is not a domain name"));
                    }
                }
            }
            _ => {}
        }
        for (key, list) in [("exec", &self.exec), ("env", &self.env)] {
            for item in list.iter().flatten() {
                if item.trim().is_empty() || item.contains('\0') {
                    return Err(format!("{key}: empty or invalid entry {item:?}"));
                }
            }
        }
        Ok(())
    }

    /// The policy for a process declaring `self`: its own directory
    /// readable, its data directory writable, `own_exec` (its program)
    /// executable, plus what it declared; nothing else.
    pub fn to_policy(
        &self,
        name: &str,
        vars: &Vars,
        own_exec: &[String],
    ) -> Result<Policy, String> {
        self.check()?;
        let fs = self.fs.clone().unwrap_or_default();
        let mut read = vec![vars.extension_dir.clone()];
        for p in &fs.read {
            read.push(expand(p, vars)?);
        }
        let mut write = vec![vars.data_dir.clone()];
        for p in &fs.write {
            write.push(expand(p, vars)?);
        }
        let network = match &self.network {
            None => Network::None,
            Some(DeclaredNetwork::Word(w)) if w == "any" => Network::Any,
            Some(DeclaredNetwork::Word(_)) => Network::None,
            Some(DeclaredNetwork::Domains(d)) => Network::Domains(d.clone()),
        };
        let mut exec: Vec<String> = own_exec.to_vec();
        exec.extend(self.exec.iter().flatten().cloned());
        Ok(Policy {
            name: format!("extension {name:?}'s permissions"),
            read: ReadScope::Only(read),
            write,
            network,
            exec: Some(exec),
            env: Some(self.env.clone().unwrap_or_default()),
            env_deny: Vec::new(),
            limits: Limits {
                max_processes: Some(256),
                max_memory_bytes: Some(4 << 30),
                max_cpu_secs: None,
                max_file_bytes: Some(4 << 30),
                max_open_files: Some(4096),
            },
        })
    }

    /// The lines `ext install` shows: one per declared kind, `-` for none.
    pub fn describe(&self) -> Vec<String> {
        let fs = self.fs.clone().unwrap_or_default();
        let list = |v: &[String]| {
            if v.is_empty() {
                "-".to_string()
            } else {
                v.join(", ")
            }
        };
        vec![
            format!("fs.read:  {}", list(&fs.read)),
            format!("fs.write: {}", list(&fs.write)),
            format!(
                "network:  {}",
                match &self.network {
                    None => "none".to_string(),
                    Some(DeclaredNetwork::Word(w)) => w.clone(),
                    Some(DeclaredNetwork::Domains(d)) => list(d),
                }
            ),
            format!(
                "exec:     {}",
                list(self.exec.as_deref().unwrap_or_default())
            ),
            format!(
                "env:      {}",
                list(self.env.as_deref().unwrap_or_default())
            ),
        ]
    }

    /// What `new` grants that `old` did not, and what it drops, as
    /// `+ kind value` / `- kind value` lines.
    pub fn diff(old: Option<&Declared>, new: Option<&Declared>) -> Vec<String> {
        let items = |d: Option<&Declared>| -> BTreeSet<String> {
            let Some(d) = d else {
                return ["unconfined (full user privileges)".to_string()].into();
            };
            let mut s = BTreeSet::new();
            if let Some(fs) = &d.fs {
                s.extend(fs.read.iter().map(|p| format!("fs.read {p}")));
                s.extend(fs.write.iter().map(|p| format!("fs.write {p}")));
            }
            match &d.network {
                None => {}
                Some(DeclaredNetwork::Word(w)) => {
                    s.insert(format!("network {w}"));
                }
                Some(DeclaredNetwork::Domains(list)) => {
                    s.extend(list.iter().map(|x| format!("network {x}")));
                }
            }
            s.extend(d.exec.iter().flatten().map(|x| format!("exec {x}")));
            s.extend(d.env.iter().flatten().map(|x| format!("env {x}")));
            s
        };
        let (a, b) = (items(old), items(new));
        let mut out: Vec<String> = b.difference(&a).map(|x| format!("+ {x}")).collect();
        out.extend(a.difference(&b).map(|x| format!("- {x}")));
        out
    }
}

fn check_template(p: &str) -> Result<(), String> {
    let mut rest = p;
    while let Some(i) = rest.find("${") {
        let after = &rest[i + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("unclosed placeholder in {p:?}"));
        };
        let name = &after[..end];
        if !PLACEHOLDERS.contains(&name) {
            return Err(format!(
                "unknown placeholder ${{{name}}} in {p:?} (known: {})",
                PLACEHOLDERS
                    .iter()
                    .map(|n| format!("${{{n}}}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        rest = &after[end + 1..];
    }
    if p.trim().is_empty() {
        return Err("empty path".into());
    }
    Ok(())
}

/// `p` with its placeholders replaced; it must be absolute then.
fn expand(p: &str, vars: &Vars) -> Result<PathBuf, String> {
    check_template(p)?;
    let home = vars
        .home
        .as_ref()
        .map(|h| h.display().to_string())
        .unwrap_or_default();
    let out = p
        .replace("${cwd}", &vars.cwd.display().to_string())
        .replace("${data_dir}", &vars.data_dir.display().to_string())
        .replace(
            "${extension_dir}",
            &vars.extension_dir.display().to_string(),
        )
        .replace("${home}", &home)
        .replace("${tmp}", &vars.tmp.display().to_string());
    let path = PathBuf::from(&out);
    if !path.is_absolute() {
        return Err(format!(
            "path {p:?} is not absolute (use a placeholder such as ${{cwd}})"
        ));
    }
    Ok(crate::policy::lexical(&path))
}

fn valid_domain(d: &str) -> bool {
    let d = d.strip_prefix("*.").unwrap_or(d);
    !d.is_empty()
        && d.len() <= 253
        && d.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}
