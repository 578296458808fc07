//! Discovery of user skills over the roots of sessions-themes-skills.md §3.2.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::dir_fd::{Dir, DirId, Kind};
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

/// What one root gave: its skills (with their relative-path aliases) in
/// walk order, and the files it could not use.
pub type RootScan = (Vec<Skill>, Vec<Skipped>);

/// Scans one root recursively and returns its skills (with their
/// relative-path aliases) in walk order, plus unreadable files.
pub fn scan_root(root: &Path, source: &Source) -> RootScan {
    match Dir::open(root) {
        Ok(dir) => scan_open_root(dir, root, source),
        Err(_) => (Vec::new(), Vec::new()),
    }
}

/// Most threads scanning roots at once (with the caller's).
const MAX_SCAN_THREADS: usize = 4;

/// Scans every root, several at a time when more than one exists, and
/// returns their results in the order of `roots` (so precedence does not
/// depend on which thread finished first). A scan is mostly system calls
/// (directory listings, small reads); roots are independent.
pub fn scan_roots(roots: &[(PathBuf, Source)]) -> Vec<RootScan> {
    let open: Vec<Option<Dir>> = roots.iter().map(|(p, _)| Dir::open(p).ok()).collect();
    let present = open.iter().filter(|d| d.is_some()).count();
    let threads = if present > 1 {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(present)
            .min(MAX_SCAN_THREADS)
    } else {
        1
    };
    let mut results: Vec<RootScan> = roots.iter().map(|_| (Vec::new(), Vec::new())).collect();
    if threads <= 1 {
        for (i, dir) in open.into_iter().enumerate() {
            if let Some(dir) = dir {
                results[i] = scan_open_root(dir, &roots[i].0, &roots[i].1);
            }
        }
        return results;
    }
    let work: Vec<std::sync::Mutex<Option<Dir>>> =
        open.into_iter().map(std::sync::Mutex::new).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let worker = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(slot) = work.get(i) else { break };
            let dir = slot.lock().map_or(None, |mut d| d.take());
            if let Some(dir) = dir {
                done.push((i, scan_open_root(dir, &roots[i].0, &roots[i].1)));
            }
        }
        done
    };
    let finished: Vec<Vec<(usize, RootScan)>> = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(worker)).collect();
        let mut all = vec![worker()];
        // A helper that panicked loses nothing silently: its roots are
        // scanned again below.
        all.extend(helpers.into_iter().filter_map(|h| h.join().ok()));
        all
    });
    let mut seen = vec![false; roots.len()];
    for (i, scan) in finished.into_iter().flatten() {
        seen[i] = true;
        results[i] = scan;
    }
    for (i, (root, source)) in roots.iter().enumerate() {
        if !seen[i] {
            results[i] = scan_root(root, source);
        }
    }
    results
}

fn scan_open_root(dir: Dir, root: &Path, source: &Source) -> RootScan {
    let mut scan = Scan {
        root,
        source,
        real_root: None,
        visited: HashSet::new(),
        dirs: 0,
        stopped: false,
        skills: Vec::new(),
        skipped: Vec::new(),
        buf: Vec::with_capacity(8192),
        text: Vec::with_capacity(8192),
    };
    let mut linked: Vec<(PathBuf, usize)> = Vec::new();
    let mut root_dir = Some(dir);
    let mut open_root = || root_dir.take().map_or_else(|| Dir::open(root), Ok);
    scan.walk(&mut open_root, root, 0, None, &mut linked);
    // Symlinked directories after the real tree, so a link never claims a
    // name ahead of the directory it points at.
    let mut i = 0;
    while i < linked.len() {
        let (dir, depth) = linked[i].clone();
        scan.walk(&mut || Dir::open(&dir), &dir, depth, None, &mut linked);
        i += 1;
    }
    (scan.skills, scan.skipped)
}

struct Scan<'a> {
    root: &'a Path,
    source: &'a Source,
    /// The root with its links resolved, once a symlinked directory needs it.
    real_root: Option<Option<PathBuf>>,
    visited: HashSet<DirId>,
    dirs: usize,
    stopped: bool,
    skills: Vec<Skill>,
    skipped: Vec<Skipped>,
    /// The directory-entry buffer, reused for every directory.
    buf: Vec<u8>,
    /// The `SKILL.md` read buffer, reused for every file.
    text: Vec<u8>,
}

impl Scan<'_> {
    /// Walks the directory `open` opens (at `path`). `known`: its identity
    /// when the caller has it (a real subdirectory: its entry's inode, no
    /// `stat`).
    fn walk(
        &mut self,
        open: &mut dyn FnMut() -> std::io::Result<Dir>,
        path: &Path,
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
        if known.is_some_and(|id| self.visited.contains(&id)) {
            return;
        }
        let Ok(dir) = open() else { return };
        let Some(id) = known.or_else(|| dir.id().ok()) else {
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
        let Ok(mut entries) = dir.entries(&mut self.buf) else {
            return;
        };
        entries.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        let mut skill_file = None;
        let mut subdirs = Vec::new();
        for entry in entries {
            match entry.kind {
                Kind::Dir => {
                    let sub_id = (entry.ino != 0).then_some((id.0, entry.ino));
                    subdirs.push((entry.name, sub_id));
                    continue;
                }
                Kind::Symlink => {
                    let link = path.join(&entry.name);
                    match dir.link_is_dir(&entry.name, &link) {
                        Some(true) => {
                            // A link to the root or one of its ancestors is a cycle.
                            if !self.is_cycle(&link) {
                                linked.push((link, depth + 1));
                            }
                            continue;
                        }
                        Some(false) => {}
                        None => continue,
                    }
                }
                Kind::File | Kind::Other => {}
            }
            if entry.name == "SKILL.md" && depth > 0 {
                // A regular file is read without a `stat`; a link or
                // anything else is checked once open.
                skill_file = Some(entry.kind == Kind::File);
            }
        }
        if let Some(regular) = skill_file {
            let file = path.join("SKILL.md");
            let mut text = std::mem::take(&mut self.text);
            let read = dir.read_skill(OsStr::new("SKILL.md"), &file, regular, &mut text);
            self.load(read, file, path);
            self.text = text;
        }
        for (name, sub_id) in subdirs {
            let sub = path.join(&name);
            self.walk(
                &mut || dir.open_child(&name, &sub),
                &sub,
                depth + 1,
                sub_id,
                linked,
            );
        }
    }

    /// Whether the symlinked directory `link` leads to the root or one of
    /// its ancestors.
    fn is_cycle(&mut self, link: &Path) -> bool {
        let root = self
            .real_root
            .get_or_insert_with(|| std::fs::canonicalize(self.root).ok());
        match (std::fs::canonicalize(link), root) {
            (Ok(target), Some(root)) => root.starts_with(&target),
            _ => true,
        }
    }

    fn load(&mut self, read: Result<&str, ReadError>, path: PathBuf, dir: &Path) {
        let text = match read {
            Ok(t) => t,
            Err(ReadError::Missing) => return,
            Err(e) => {
                self.skipped.push(Skipped {
                    path,
                    source: self.source.clone(),
                    name: None,
                    reason: e.to_string(),
                });
                return;
            }
        };
        let fallback = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut skill = Skill::from_text(text, &fallback, path, self.source.clone());
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
