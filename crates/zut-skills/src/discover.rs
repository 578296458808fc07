//! Discovery of user skills over the roots of sessions-themes-skills.md §3.2.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::skill::{read_skill_file, ReadError, Skill, Source};

/// Deepest directory nesting scanned under one root.
pub const MAX_SCAN_DEPTH: usize = 64;
/// Most directories scanned under one root.
pub const MAX_SCAN_DIRS: usize = 10_000;

/// Inputs of user-skill discovery.
#[derive(Debug, Clone, Default)]
pub struct DiscoverOptions {
    /// Working directory (project roots hang off it).
    pub cwd: PathBuf,
    /// `$ZUT_HOME`.
    pub zut_home: PathBuf,
    /// The user's home directory (`~/.claude/skills`, `~/.agents/skills`).
    pub user_home: Option<PathBuf>,
    /// The directories of `ZUT_AGENT_SKILLS`, in order.
    pub agent_dirs: Vec<PathBuf>,
}

impl DiscoverOptions {
    /// Options for `cwd` and `zut_home`, with `HOME` and `ZUT_AGENT_SKILLS`
    /// read from the environment.
    pub fn from_env(cwd: impl Into<PathBuf>, zut_home: impl Into<PathBuf>) -> Self {
        let user_home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        let agent_dirs = std::env::var_os("ZUT_AGENT_SKILLS")
            .map(|v| {
                std::env::split_paths(&v)
                    .filter(|p| !p.as_os_str().is_empty())
                    .collect()
            })
            .unwrap_or_default();
        Self {
            cwd: cwd.into(),
            zut_home: zut_home.into(),
            user_home,
            agent_dirs,
        }
    }

    /// The roots in priority order: `ZUT_AGENT_SKILLS`, project, global,
    /// project `.claude`, home `.claude`, project `.agents`, home `.agents`.
    pub fn roots(&self) -> Vec<(PathBuf, Source)> {
        let mut out: Vec<(PathBuf, Source)> = self
            .agent_dirs
            .iter()
            .map(|d| (d.clone(), Source::Agent))
            .collect();
        out.push((self.cwd.join(".zut/skills"), Source::Project));
        out.push((self.zut_home.join("skills"), Source::Global));
        out.push((self.cwd.join(".claude/skills"), Source::ProjectClaude));
        if let Some(h) = &self.user_home {
            out.push((h.join(".claude/skills"), Source::GlobalClaude));
        }
        out.push((self.cwd.join(".agents/skills"), Source::ProjectAgents));
        if let Some(h) = &self.user_home {
            out.push((h.join(".agents/skills"), Source::GlobalAgents));
        }
        out
    }
}

/// A `SKILL.md` that could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The file (or directory, for scan problems).
    pub path: PathBuf,
    /// The root's or extension's source.
    pub source: Source,
    /// The skill's name when it was read.
    pub name: Option<String>,
    /// Why it was skipped.
    pub reason: String,
}

/// Scans one root recursively and returns its skills (with their
/// relative-path aliases) in walk order, plus unreadable files.
pub fn scan_root(root: &Path, source: &Source) -> (Vec<Skill>, Vec<Skipped>) {
    let mut scan = Scan {
        root,
        source,
        real_root: std::fs::canonicalize(root).ok(),
        visited: HashSet::new(),
        dirs: 0,
        stopped: false,
        skills: Vec::new(),
        skipped: Vec::new(),
    };
    if scan.real_root.is_none() {
        return (Vec::new(), Vec::new());
    }
    let mut linked: Vec<(PathBuf, usize)> = Vec::new();
    scan.walk(root, 0, None, &mut linked);
    // Symlinked directories after the real tree, so a link never claims a
    // name ahead of the directory it points at.
    let mut i = 0;
    while i < linked.len() {
        let (dir, depth) = linked[i].clone();
        scan.walk(&dir, depth, None, &mut linked);
        i += 1;
    }
    (scan.skills, scan.skipped)
}

/// Identity of a directory: device and inode on Unix (one `stat`), the
/// resolved path elsewhere.
#[cfg(unix)]
type DirId = (u64, u64);
#[cfg(not(unix))]
type DirId = PathBuf;

#[cfg(unix)]
fn dir_id(dir: &Path) -> Option<DirId> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(dir).ok()?;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn dir_id(dir: &Path) -> Option<DirId> {
    std::fs::canonicalize(dir).ok()
}

/// A real subdirectory's identity from its directory entry (same device
/// as its parent), without a `stat`.
#[cfg(unix)]
fn entry_id(entry: &std::fs::DirEntry, parent: &DirId) -> Option<DirId> {
    use std::os::unix::fs::DirEntryExt;
    Some((parent.0, entry.ino()))
}

#[cfg(not(unix))]
fn entry_id(_entry: &std::fs::DirEntry, _parent: &DirId) -> Option<DirId> {
    None
}

struct Scan<'a> {
    root: &'a Path,
    source: &'a Source,
    real_root: Option<PathBuf>,
    visited: HashSet<DirId>,
    dirs: usize,
    stopped: bool,
    skills: Vec<Skill>,
    skipped: Vec<Skipped>,
}

impl Scan<'_> {
    /// `known`: the directory's identity when the caller has it (a real
    /// subdirectory: its entry's inode, no extra `stat`).
    fn walk(
        &mut self,
        dir: &Path,
        depth: usize,
        known: Option<DirId>,
        linked: &mut Vec<(PathBuf, usize)>,
    ) {
        if self.stopped {
            return;
        }
        if depth > MAX_SCAN_DEPTH {
            self.stop(format!("nesting deeper than {MAX_SCAN_DEPTH} levels"));
            return;
        }
        let Some(id) = known.or_else(|| dir_id(dir)) else {
            return;
        };
        if !self.visited.insert(id) {
            return;
        }
        if self.dirs >= MAX_SCAN_DIRS {
            self.stop(format!("more than {MAX_SCAN_DIRS} directories"));
            return;
        }
        self.dirs += 1;
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        let mut has_skill = false;
        let mut regular = false;
        let mut subdirs = Vec::new();
        for entry in entries {
            let path = entry.path();
            let Ok(ft) = entry.file_type() else { continue };
            if ft.is_symlink() {
                match std::fs::metadata(&path) {
                    Ok(m) if m.is_dir() => {
                        // A link to the root or one of its ancestors is a cycle.
                        let cycle = match (std::fs::canonicalize(&path), &self.real_root) {
                            (Ok(target), Some(root)) => root.starts_with(&target),
                            _ => true,
                        };
                        if !cycle {
                            linked.push((path, depth + 1));
                        }
                        continue;
                    }
                    Ok(_) => {}
                    Err(_) => continue,
                }
            } else if ft.is_dir() {
                subdirs.push((path, entry_id(&entry, &id)));
                continue;
            }
            if entry.file_name() == "SKILL.md" && depth > 0 {
                // A regular file is read without another `stat`; a link or
                // anything else is checked when opened.
                has_skill = true;
                regular = ft.is_file();
            }
        }
        if has_skill {
            self.load(&dir.join("SKILL.md"), regular);
        }
        for (sub, sub_id) in subdirs {
            self.walk(&sub, depth + 1, sub_id, linked);
        }
    }

    fn load(&mut self, path: &Path, regular: bool) {
        let read = if regular {
            crate::skill::read_regular_skill_file(path)
        } else {
            read_skill_file(path)
        };
        let text = match read {
            Ok(t) => t,
            Err(ReadError::Missing) => return,
            Err(e) => {
                self.skipped.push(Skipped {
                    path: path.to_path_buf(),
                    source: self.source.clone(),
                    name: None,
                    reason: e.to_string(),
                });
                return;
            }
        };
        let dir = path.parent().unwrap_or(self.root);
        let fallback = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut skill = Skill::from_text(&text, &fallback, path.to_path_buf(), self.source.clone());
        if let Ok(rel) = dir.strip_prefix(self.root) {
            let alias = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            if !alias.is_empty() && alias != skill.name {
                skill.aliases.push(alias);
            }
        }
        self.skills.push(skill);
    }

    fn stop(&mut self, why: String) {
        if !self.stopped {
            self.stopped = true;
            self.skipped.push(Skipped {
                path: self.root.to_path_buf(),
                source: self.source.clone(),
                name: None,
                reason: format!("skill scan stopped early: {why}; some directories were skipped"),
            });
        }
    }
}

/// Loads bundled `SKILL.md` files (already checked against their extension
/// directory by the extension host, sessions-themes-skills.md §3.3).
pub fn load_files(files: &[PathBuf], source: &Source) -> (Vec<Skill>, Vec<Skipped>) {
    let mut skills = Vec::new();
    let mut skipped = Vec::new();
    for path in files {
        match read_skill_file(path) {
            Ok(text) => {
                let fallback = path
                    .parent()
                    .and_then(|d| d.file_name())
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                skills.push(Skill::from_text(
                    &text,
                    &fallback,
                    path.clone(),
                    source.clone(),
                ));
            }
            Err(ReadError::Missing) => {}
            Err(e) => skipped.push(Skipped {
                path: path.clone(),
                source: source.clone(),
                name: None,
                reason: e.to_string(),
            }),
        }
    }
    (skills, skipped)
}
