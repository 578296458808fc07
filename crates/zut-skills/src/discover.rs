//! Discovery of user skills over the roots of sessions-themes-skills.md §3.2.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::cache::{Refused, RootCache};
use crate::dir_fd::{link_is_dir_at, read_skill_at, stat_path, Dir, DirId, Kind, Stamp};
use crate::front_matter;
use crate::fx_hash::FxHashSet;
use crate::skill::{read_skill_file, ReadError, Skill, Source};

/// Deepest directory nesting scanned under one root.
pub const MAX_SCAN_DEPTH: usize = 64;
/// Most directories scanned under one root.
pub const MAX_SCAN_DIRS: usize = 10_000;

/// Inputs of user-skill discovery.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiscoverOptions {
    /// Working directory (project roots hang off it).
    pub cwd: PathBuf,
    /// `$ZUT_HOME`.
    pub zut_home: PathBuf,
    /// The user's home directory (`~/.claude/skills`, `~/.agents/skills`).
    pub user_home: Option<PathBuf>,
    /// The directories of `ZUT_AGENT_SKILLS`, in order.
    pub agent_dirs: Vec<PathBuf>,
    /// Where the discovery cache lives (one file per root), or `None` for
    /// no cache ([`crate::cache`]): `$ZUT_HOME/cache/skills` by default.
    pub cache_dir: Option<PathBuf>,
}

/// The discovery cache's folder under `$ZUT_HOME`.
pub const CACHE_SUBDIR: &str = "cache/skills";

impl DiscoverOptions {
    /// Options for `cwd` and `zut_home`, with `HOME` and `ZUT_AGENT_SKILLS`
    /// read from the environment; the cache in `$ZUT_HOME/cache/skills`
    /// unless `ZUT_SKILL_CACHE` is `0` or `off`.
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
        let zut_home: PathBuf = zut_home.into();
        let cache_off = std::env::var("ZUT_SKILL_CACHE")
            .is_ok_and(|v| matches!(v.trim(), "0" | "off" | "false" | "no"));
        let cache_dir = (!cache_off).then(|| zut_home.join(CACHE_SUBDIR));
        Self {
            cwd: cwd.into(),
            zut_home,
            user_home,
            agent_dirs,
            cache_dir,
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
/// relative-path aliases) in walk order, plus unreadable files. `cache`:
/// the discovery cache's folder, if any.
pub fn scan_root(root: &Path, source: &Source, cache: Option<&Path>) -> RootScan {
    match Dir::open(root) {
        Ok(dir) => scan_open_root(dir, root, source, cache),
        Err(_) => (Vec::new(), Vec::new()),
    }
}

/// Most threads scanning roots at once (with the caller's).
const MAX_SCAN_THREADS: usize = 4;

/// Scans every root, several at a time when more than one exists, and
/// returns their results in the order of `roots` (so precedence does not
/// depend on which thread finished first). A scan is mostly system calls
/// (directory listings, small reads); roots are independent. `cache`: the
/// discovery cache's folder, if any.
pub fn scan_roots(roots: &[(PathBuf, Source)], cache: Option<&Path>) -> Vec<RootScan> {
    scan_opened(roots, OpenRoots::open(roots), cache)
}

/// The roots of a scan, opened (`None` where a root does not exist or
/// cannot be read): opening is cheap, so a caller can open them first and
/// start a thread only when there is something to scan.
pub(crate) struct OpenRoots(Vec<Option<Dir>>);

impl OpenRoots {
    /// Opens each root of `roots`.
    pub(crate) fn open(roots: &[(PathBuf, Source)]) -> Self {
        Self(roots.iter().map(|(p, _)| Dir::open(p).ok()).collect())
    }

    /// Whether no root exists (the scan's result is empty).
    pub(crate) fn is_empty(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }
}

/// [`scan_roots`] over roots already opened by [`OpenRoots::open`] (the
/// same `roots`).
pub(crate) fn scan_opened(
    roots: &[(PathBuf, Source)],
    open: OpenRoots,
    cache: Option<&Path>,
) -> Vec<RootScan> {
    let open = open.0;
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
                results[i] = scan_open_root(dir, &roots[i].0, &roots[i].1, cache);
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
                done.push((i, scan_open_root(dir, &roots[i].0, &roots[i].1, cache)));
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
            results[i] = scan_root(root, source, cache);
        }
    }
    results
}

fn scan_open_root(dir: Dir, root: &Path, source: &Source, cache: Option<&Path>) -> RootScan {
    let cache = cache
        .filter(|_| crate::dir_fd::CACHE_SUPPORTED)
        .and_then(|c| RootCache::load(c, root));
    // With the cache, paths under the root are `stat`ed relative to it.
    let base = cache.as_ref().and_then(|_| dir.try_clone().ok());
    let mut scan = Scan {
        root,
        source,
        real_root: None,
        visited: FxHashSet::default(),
        dirs: 0,
        stopped: false,
        skills: Vec::new(),
        skipped: Vec::new(),
        buf: Vec::with_capacity(8192),
        text: Vec::with_capacity(8192),
        cache,
        base,
    };
    if let Some(done) = scan.replay() {
        return done;
    }
    let mut linked: Vec<Linked> = Vec::new();
    let key = scan.cache.as_ref().map(|_| String::new());
    scan.walk(How::Root(Some(dir)), root, key, 0, None, &mut linked);
    // Symlinked directories after the real tree, so a link never claims a
    // name ahead of the directory it points at.
    let mut i = 0;
    while i < linked.len() {
        let (dir, key, depth) = linked[i].clone();
        scan.walk(How::Linked, &dir, key, depth, None, &mut linked);
        i += 1;
    }
    if let Some(cache) = scan.cache.take() {
        cache.save();
    }
    (scan.skills, scan.skipped)
}

/// A symbolically linked directory to walk after the real tree: its path,
/// cache key and depth.
type Linked = (PathBuf, Option<String>, usize);

/// The cache key of the entry `name` of the directory keyed `parent` (the
/// path relative to the root, `/`-separated); `None` when either cannot be
/// a key.
fn child_key(parent: Option<&str>, name: &OsStr) -> Option<String> {
    let (parent, name) = (parent?, name.to_str()?);
    Some(if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}/{name}")
    })
}

/// How the walk reaches a directory.
enum How<'d> {
    /// The root (already open, or opened by path following links).
    Root(Option<Dir>),
    /// A real subdirectory `name` of the parent (open, or listed from the
    /// cache): never through a symbolic link.
    Child(Option<&'d Dir>, &'d OsStr),
    /// A symbolically linked directory, by path following links.
    Linked,
}

impl How<'_> {
    /// Whether a final symbolic link is followed.
    fn follows(&self) -> bool {
        !matches!(self, How::Child(..))
    }

    fn open(self, path: &Path) -> std::io::Result<Dir> {
        match self {
            How::Root(Some(dir)) => Ok(dir),
            How::Root(None) | How::Linked => Dir::open(path),
            How::Child(Some(parent), name) => parent.open_child(name, path),
            How::Child(None, _) => Dir::open_nofollow(path),
        }
    }
}

struct Scan<'a> {
    root: &'a Path,
    source: &'a Source,
    /// The root with its links resolved, once a symlinked directory needs it.
    real_root: Option<Option<PathBuf>>,
    visited: FxHashSet<DirId>,
    dirs: usize,
    stopped: bool,
    skills: Vec<Skill>,
    skipped: Vec<Skipped>,
    /// The directory-entry buffer, reused for every directory.
    buf: Vec<u8>,
    /// The `SKILL.md` read buffer, reused for every file.
    text: Vec<u8>,
    /// This root's discovery cache, when enabled.
    cache: Option<RootCache>,
    /// The root, open, when the cache is enabled (for relative `stat`s).
    base: Option<Dir>,
}

impl Scan<'_> {
    /// The root's skills straight from its cache file when nothing under
    /// the root changed ([`RootCache::replay`]: one `stat` per folder and
    /// per `SKILL.md`, and no walk); `None` when a walk is needed.
    fn replay(&mut self) -> Option<RootScan> {
        let base = self.base.as_ref()?;
        let files = self
            .cache
            .as_mut()?
            .replay(|key, follow| base.stat_at(Path::new(key), follow).ok())?;
        for (key, result) in files {
            let dir_key = key.strip_suffix("/SKILL.md").unwrap_or(&key);
            let dir = self.root.join(dir_key);
            let file = self.root.join(&key);
            match result {
                Ok(meta) => {
                    let skill =
                        Skill::from_meta(meta, &fallback_name(&dir), file, self.source.clone());
                    self.push(skill, &dir, Some(dir_key));
                }
                Err(refused) => self.skip(file, &refused.to_error()),
            }
        }
        Some((
            std::mem::take(&mut self.skills),
            std::mem::take(&mut self.skipped),
        ))
    }

    /// Marks this walk's cache file as not replayable (the walk met
    /// something the cache does not hold).
    fn no_replay(&mut self) {
        if let Some(cache) = self.cache.as_mut() {
            cache.no_replay();
        }
    }

    /// `stat` of `path`, whose key (path relative to the root) is `key`.
    fn stat(&self, key: &str, path: &Path, follow: bool) -> std::io::Result<(Stamp, Kind)> {
        match &self.base {
            Some(base) => base.stat_at(Path::new(key), follow),
            None => stat_path(path, follow),
        }
    }

    /// Walks the directory at `path`, reached as `how` says. `key`: its
    /// cache key (`None` without the cache). `known`: its identity when the
    /// caller has it (a real subdirectory: its entry's inode, no `stat`).
    ///
    /// With the cache, the directory is `stat`ed first: an unchanged one is
    /// listed from the cache without being opened; anything else is opened
    /// and listed as without the cache (the `stat`, taken before listing,
    /// is remembered with the listing).
    fn walk(
        &mut self,
        how: How<'_>,
        path: &Path,
        key: Option<String>,
        depth: usize,
        known: Option<DirId>,
        linked: &mut Vec<Linked>,
    ) {
        if self.stopped {
            return;
        }
        if depth > MAX_SCAN_DEPTH {
            self.stop(format!("nesting deeper than {MAX_SCAN_DEPTH} levels"));
            return;
        }
        if known.is_some_and(|id| self.visited.contains(&id)) {
            return self.no_replay();
        }
        let mut stamp = None;
        let mut cached = None;
        if let Some(key) = &key {
            match self.stat(key, path, how.follows()) {
                // Not there, or not a directory (a link where a real
                // directory is expected): opening would fail too.
                Ok((_, kind)) if kind != Kind::Dir => return self.no_replay(),
                Ok((st, _)) => {
                    cached = self.cache.as_mut().and_then(|c| c.dir(key, &st));
                    stamp = Some(st);
                }
                Err(_) => return self.no_replay(),
            }
        }
        let (dir, id, entries) = match cached {
            Some(entries) => {
                let Some(st) = stamp else { return };
                let id = known.unwrap_or_else(|| st.id());
                if !self.enter(id) {
                    return self.no_replay();
                }
                (None, id, entries)
            }
            None => {
                // Reached before (through another link): not opened again.
                if stamp.is_some_and(|st| self.visited.contains(&known.unwrap_or_else(|| st.id())))
                {
                    return self.no_replay();
                }
                let Ok(dir) = how.open(path) else {
                    return self.no_replay();
                };
                let Some(id) = known
                    .or_else(|| stamp.map(|s| s.id()))
                    .or_else(|| dir.id().ok())
                else {
                    return self.no_replay();
                };
                if !self.enter(id) {
                    return self.no_replay();
                }
                let Ok(mut entries) = dir.entries(&mut self.buf) else {
                    return self.no_replay();
                };
                entries.sort_unstable_by(|a, b| a.name.cmp(&b.name));
                if let (Some(key), Some(st), Some(cache)) = (&key, stamp, self.cache.as_mut()) {
                    cache.put_dir(key, st, &entries);
                }
                (Some(dir), id, entries)
            }
        };
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
                    // Links are followed afresh at every walk.
                    self.no_replay();
                    let link = path.join(&entry.name);
                    let is_dir = match &dir {
                        Some(d) => d.link_is_dir(&entry.name, &link),
                        None => link_is_dir_at(&link),
                    };
                    match is_dir {
                        Some(true) => {
                            // A link to the root or one of its ancestors is a cycle.
                            if !self.is_cycle(&link) {
                                let key = child_key(key.as_deref(), &entry.name);
                                linked.push((link, key, depth + 1));
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
            self.skill_file(dir.as_ref(), path, key.as_deref(), regular);
        }
        for (name, sub_id) in subdirs {
            let sub = path.join(&name);
            let sub_key = child_key(key.as_deref(), &name);
            if key.is_some() && sub_key.is_none() {
                self.no_replay();
            }
            self.walk(
                How::Child(dir.as_ref(), &name),
                &sub,
                sub_key,
                depth + 1,
                sub_id,
                linked,
            );
        }
    }

    /// Marks the directory `id` visited and counts it: `false` when it was
    /// already visited or the scan stops here.
    fn enter(&mut self, id: DirId) -> bool {
        if !self.visited.insert(id) {
            return false;
        }
        if self.dirs >= MAX_SCAN_DIRS {
            self.stop(format!("more than {MAX_SCAN_DIRS} directories"));
            return false;
        }
        self.dirs += 1;
        true
    }

    /// Loads the `SKILL.md` of the directory at `path` (`dir`: the open
    /// directory, when it was opened). With the cache, an unchanged regular
    /// file (checked by one `stat`, through a link) gives its remembered
    /// front matter without being opened.
    fn skill_file(&mut self, dir: Option<&Dir>, path: &Path, dir_key: Option<&str>, regular: bool) {
        let file = path.join("SKILL.md");
        let key = child_key(dir_key, OsStr::new("SKILL.md"));
        if key.is_none() {
            self.no_replay();
        }
        let mut stamp = None;
        if let Some(key) = &key {
            if let Ok((st, Kind::File)) = self.stat(key, &file, true) {
                let hit = self.cache.as_mut().and_then(|c| c.file(key, &st, regular));
                match hit {
                    Some(Ok(meta)) => {
                        let skill =
                            Skill::from_meta(meta, &fallback_name(path), file, self.source.clone());
                        self.push(skill, path, dir_key);
                        return;
                    }
                    Some(Err(refused)) => {
                        self.skip(file, &refused.to_error());
                        return;
                    }
                    None => stamp = Some(st),
                }
            } else if let Some(cache) = self.cache.as_mut() {
                // Not a regular file (or gone): read as without the cache,
                // never remembered.
                cache.touch();
            }
        }
        let mut text = std::mem::take(&mut self.text);
        let read = match dir {
            Some(d) => d.read_skill(OsStr::new("SKILL.md"), &file, regular, &mut text),
            None => read_skill_at(&file, regular, &mut text),
        };
        match read {
            Ok(text) => {
                let fm = front_matter::parse(text);
                if let (Some(key), Some(st), Some(cache)) = (&key, stamp, self.cache.as_mut()) {
                    cache.put_file(key, st, regular, Ok(fm.meta()));
                }
                let skill =
                    Skill::from_front_matter(fm, &fallback_name(path), file, self.source.clone());
                self.push(skill, path, dir_key);
            }
            Err(ReadError::Missing) => self.no_replay(),
            Err(e) => {
                match (&key, stamp, self.cache.as_mut(), Refused::from_error(&e)) {
                    (Some(key), Some(st), Some(cache), Some(refused)) => {
                        cache.put_file(key, st, regular, Err(refused));
                    }
                    _ => self.no_replay(),
                }
                self.skip(file, &e);
            }
        }
        self.text = text;
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

    fn skip(&mut self, path: PathBuf, e: &ReadError) {
        self.skipped.push(Skipped {
            path,
            source: self.source.clone(),
            name: None,
            reason: e.to_string(),
        });
    }

    /// Adds a skill found in `dir` (cache key `dir_key`), with its alias
    /// (the directory's path relative to the root, when that differs from
    /// the name).
    fn push(&mut self, mut skill: Skill, dir: &Path, dir_key: Option<&str>) {
        if let Some(alias) = dir_key {
            if !alias.is_empty() && alias != skill.name {
                skill.aliases.push(alias.to_string());
            }
        } else if let Ok(rel) = dir.strip_prefix(self.root) {
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
        self.no_replay();
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

/// The name of a skill without a front-matter `name`: its directory's.
fn fallback_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
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
