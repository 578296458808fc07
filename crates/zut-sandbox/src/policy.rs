//! What a confined process may do: the [`Policy`] and its parts.
//!
//! A policy is data: it says which paths may be read and written, which
//! network is reachable, which programs may run, which environment
//! variables pass and which resource limits apply. [`crate::Prepared`]
//! turns it into kernel rules; [`Policy::check_read`] and
//! [`Policy::check_write`] answer the same questions for tools that touch
//! files themselves (so a `read` of `~/.ssh/id_ed25519` is refused with the
//! same rule that stops `cat` in a confined shell).

use std::path::{Component, Path, PathBuf};

/// Where reads are allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadScope {
    /// Everything except these paths (and what is below them).
    Everywhere {
        /// Secret locations: never readable.
        except: Vec<PathBuf>,
    },
    /// Only these paths (and what is below them), plus the paths
    /// [`Policy::write`] lists and the system runtime the process needs to
    /// start (shared libraries, `/etc` basics, `/dev/null`).
    Only(Vec<PathBuf>),
}

/// Which network a confined process may reach.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Network {
    /// No network at all.
    #[default]
    None,
    /// Only these domains (exact, or `*.example.com` for subdomains),
    /// reached through zut's proxy ([`crate::proxy`]); nothing else.
    Domains(Vec<String>),
    /// Unrestricted.
    Any,
}

impl Network {
    /// A short human description (`none`, `any`, `only a.com, b.org`).
    pub fn describe(&self) -> String {
        match self {
            Network::None => "none".into(),
            Network::Any => "any".into(),
            Network::Domains(d) if d.is_empty() => "none".into(),
            Network::Domains(d) => format!("only {}", d.join(", ")),
        }
    }
}

/// Resource limits (rlimits, and a pids cgroup where one can be made).
/// `None` leaves the inherited limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limits {
    /// Most processes (`RLIMIT_NPROC`; also `pids.max` of a cgroup).
    pub max_processes: Option<u64>,
    /// Most address space in bytes (`RLIMIT_AS`).
    pub max_memory_bytes: Option<u64>,
    /// Most CPU seconds (`RLIMIT_CPU`).
    pub max_cpu_secs: Option<u64>,
    /// Largest file written, in bytes (`RLIMIT_FSIZE`).
    pub max_file_bytes: Option<u64>,
    /// Most open files (`RLIMIT_NOFILE`).
    pub max_open_files: Option<u64>,
}

impl Limits {
    /// Whether any limit is set.
    pub fn any(&self) -> bool {
        self.max_processes.is_some()
            || self.max_memory_bytes.is_some()
            || self.max_cpu_secs.is_some()
            || self.max_file_bytes.is_some()
            || self.max_open_files.is_some()
    }

    /// The defaults of the agent's jail: 512 processes, 16 GiB of address
    /// space (runtimes reserve large virtual ranges: V8's WebAssembly
    /// memories take 10 GiB each), files up to 8 GiB, 4096 open files; no
    /// CPU limit (builds are long).
    pub fn jail_defaults() -> Self {
        Self {
            max_processes: Some(512),
            max_memory_bytes: Some(16 << 30),
            max_cpu_secs: None,
            max_file_bytes: Some(8 << 30),
            max_open_files: Some(4096),
        }
    }
}

/// A sandbox policy. See the module docs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// Who imposes the policy, for messages: `the jail`,
    /// `extension "todo"'s permissions`.
    pub name: String,
    /// Readable paths.
    pub read: ReadScope,
    /// Writable paths (and what is below them); also readable.
    pub write: Vec<PathBuf>,
    /// Reachable network.
    pub network: Network,
    /// Programs that may be executed (names looked up on `PATH`, or
    /// paths); `None`: any readable program.
    pub exec: Option<Vec<String>>,
    /// Environment variables passed to the child; `None`: all of zut's.
    pub env: Option<Vec<String>>,
    /// Variables never passed, whatever `env` says: exact names or
    /// `*SUFFIX` / `PREFIX*` patterns, case-insensitive (the jail drops
    /// `*_API_KEY`, `*_TOKEN`, … so zut's own credentials stay out).
    pub env_deny: Vec<String>,
    /// Resource limits.
    pub limits: Limits,
}

/// A refusal by [`Policy::check_read`] or [`Policy::check_write`]; its
/// `Display` names what was refused and the rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{action} {path} denied by {policy} ({rule})")]
pub struct Denied {
    /// `read of`, `write to`.
    pub action: &'static str,
    /// The path as resolved.
    pub path: String,
    /// [`Policy::name`].
    pub policy: String,
    /// The rule: `writable: <cwd>, /tmp` or `secret location ~/.ssh`.
    pub rule: String,
}

impl Policy {
    /// Whether environment variable `name` is withheld ([`Policy::env_deny`]).
    pub fn env_denied(&self, name: &str) -> bool {
        let n = name.to_ascii_uppercase();
        self.env_deny.iter().any(|p| {
            let p = p.to_ascii_uppercase();
            match (p.strip_prefix('*'), p.strip_suffix('*')) {
                (Some(suffix), _) => n.ends_with(suffix),
                (None, Some(prefix)) => n.starts_with(prefix),
                (None, None) => n == p,
            }
        })
    }

    /// Whether `path` (absolute) may be read. Symlinks are resolved as far
    /// as the path exists, so a link inside an allowed directory that points
    /// at a secret is refused.
    pub fn check_read(&self, path: &Path) -> Result<(), Denied> {
        let real = resolve(path);
        match &self.read {
            ReadScope::Everywhere { except } => {
                if let Some(secret) = except.iter().find(|s| real.starts_with(resolve(s))) {
                    return Err(self.denied(
                        "read of",
                        &real,
                        format!("secret location {}", display_home(secret)),
                    ));
                }
                Ok(())
            }
            ReadScope::Only(paths) => {
                let inside = paths
                    .iter()
                    .chain(&self.write)
                    .any(|p| real.starts_with(resolve(p)));
                if inside {
                    return Ok(());
                }
                Err(self.denied(
                    "read of",
                    &real,
                    format!("readable: {}", join_paths(paths.iter().chain(&self.write))),
                ))
            }
        }
    }

    /// Whether `path` (absolute) may be written (created, changed,
    /// removed). Symlinks are resolved as far as the path exists.
    pub fn check_write(&self, path: &Path) -> Result<(), Denied> {
        let real = resolve(path);
        if self.write.iter().any(|p| real.starts_with(resolve(p))) {
            if let ReadScope::Everywhere { except } = &self.read {
                if let Some(secret) = except.iter().find(|s| real.starts_with(resolve(s))) {
                    return Err(self.denied(
                        "write to",
                        &real,
                        format!("secret location {}", display_home(secret)),
                    ));
                }
            }
            return Ok(());
        }
        Err(self.denied("write to", &real, self.writable_rule()))
    }

    /// `writable: a, b` (or `nothing is writable`).
    pub fn writable_rule(&self) -> String {
        if self.write.is_empty() {
            "nothing is writable".into()
        } else {
            format!("writable: {}", join_paths(&self.write))
        }
    }

    /// One line summing the policy up, for `/info`, `ext list` and denials.
    pub fn summary(&self) -> String {
        let read = match &self.read {
            ReadScope::Everywhere { except } if except.is_empty() => "read: anywhere".to_string(),
            ReadScope::Everywhere { except } => {
                format!("read: anywhere except {}", join_paths(except))
            }
            ReadScope::Only(p) if p.is_empty() => "read: own files only".to_string(),
            ReadScope::Only(p) => format!("read: {}", join_paths(p)),
        };
        let mut parts = vec![read, self.writable_rule()];
        parts.push(format!("network: {}", self.network.describe()));
        if let Some(exec) = &self.exec {
            parts.push(format!("exec: {}", list_or_none(exec)));
        }
        if let Some(env) = &self.env {
            parts.push(format!("env: {}", list_or_none(env)));
        }
        parts.join("; ")
    }

    fn denied(&self, action: &'static str, path: &Path, rule: String) -> Denied {
        Denied {
            action,
            path: path.display().to_string(),
            policy: self.name.clone(),
            rule,
        }
    }
}

fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

fn join_paths<'a>(paths: impl IntoIterator<Item = &'a PathBuf>) -> String {
    let v: Vec<String> = paths.into_iter().map(|p| display_home(p)).collect();
    v.join(", ")
}

/// `path` with `$HOME` shown as `~`.
pub fn display_home(path: &Path) -> String {
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty() && h != "/") {
        if let Ok(rest) = path.strip_prefix(&home) {
            return if rest.as_os_str().is_empty() {
                "~".into()
            } else {
                format!("~/{}", rest.display())
            };
        }
    }
    path.display().to_string()
}

/// `path` with symlinks and `..` resolved as the kernel's lookup would,
/// one component at a time: a symlink (also a dangling one) is replaced by
/// its target, `..` goes to the parent of what was reached so far, missing
/// components are appended as they are. So `ws/link/../x`, where `link`
/// points outside, and `ws/dangling/new`, where `dangling` points at a
/// missing outside path, both resolve outside.
pub fn resolve(path: &Path) -> PathBuf {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("/"))
            .join(path)
    };
    resolve_from(&abs, 0)
}

fn resolve_from(path: &Path, depth: usize) -> PathBuf {
    let mut cur = PathBuf::from("/");
    for c in path.components() {
        match c {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                cur.pop();
            }
            Component::Normal(name) => {
                let next = cur.join(name);
                match std::fs::symlink_metadata(&next) {
                    Ok(m) if m.file_type().is_symlink() && depth < 40 => {
                        match std::fs::read_link(&next) {
                            Ok(target) => {
                                let t = if target.is_absolute() {
                                    target
                                } else {
                                    cur.join(target)
                                };
                                cur = resolve_from(&t, depth + 1);
                            }
                            Err(_) => cur = next,
                        }
                    }
                    _ => cur = next,
                }
            }
        }
    }
    cur
}

/// Lexical cleaning: `.` dropped, `..` pops (never above the root).
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}
