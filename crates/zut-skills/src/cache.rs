//! The on-disk discovery cache: one file per skill root under
//! `$ZUT_HOME/cache/skills/`, so that a start with nothing changed costs
//! about one `stat` per folder and one per `SKILL.md` instead of opening,
//! listing and reading each of them.
//!
//! Per root the file holds, keyed by the path relative to the root:
//!
//! * for each directory walked: its [`Stamp`] (device, inode, size, mtime
//!   and ctime in ns) and its entries (name, kind, inode), sorted;
//! * for each `SKILL.md` read: its stamp (of the file a link leads to),
//!   whether its folder entry said "regular file", and what reading gave:
//!   the front matter without the body ([`Meta`]) or why it was refused
//!   (over 1 MiB, binary). Other errors are never cached.
//!
//! A record is used only when the fresh `stat` gives the same stamp **and**
//! the stamp is older than the time the cache was made minus
//! [`RACY_NS`] (git's "racily clean" rule: a change in the same clock tick
//! as the read would leave the stamp unchanged, so such entries are read
//! again until they are old enough). Everything else is read afresh, with
//! the same checks as an uncached walk, and the file is rewritten
//! (temporary file + rename) when anything was read afresh or dropped.
//!
//! The cache only ever replaces a system call by its remembered answer: the
//! walk itself (order, symbolic links, cycles, caps, aliases) runs the same
//! code either way, and symbolic links are always followed afresh. A
//! missing, unreadable, torn, non-JSON, other-version or other-root file is
//! ignored; a failed write is ignored.
//!
//! The files are [bincode](https://docs.rs/bincode/1) (varint integers, a
//! size limit of the file's own length when read), not JSON: loading the
//! seven caches of a 500-skill set was about a fifth of a warm discovery as
//! JSON. Files of the JSON format (version 1, `*.json`) are no longer read;
//! each is removed when its root's new file is written.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::dir_fd::{Entry, Kind, Stamp};
use crate::front_matter::Meta;
use crate::fx_hash::FxHashMap;
use crate::skill::ReadError;

/// Format version; a file of another version is ignored (and replaced).
pub(crate) const VERSION: u32 = 3;

/// How close to the cache's time a stamp may be and still be trusted:
/// 2 s covers file systems with coarse timestamps (FAT: 2 s) and the
/// kernel's coarse clock.
pub(crate) const RACY_NS: i64 = 2_000_000_000;

/// The file name of `root`'s cache: a 64-bit FNV-1a hash of the root's
/// path (the path is also stored inside and checked).
pub(crate) fn file_name(root: &Path) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in root.as_os_str().as_encoded_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}.bin")
}

/// The encoding of the cache files.
fn codec() -> impl bincode::Options {
    bincode::DefaultOptions::new()
}

/// A cache file's bytes.
pub(crate) fn encode(stored: &Stored) -> Option<Vec<u8>> {
    use bincode::Options as _;
    codec().serialize(stored).ok()
}

/// A cache file read back; `None` when it is not one (torn, damaged, of
/// another format). Never allocates more than the file's length allows.
pub(crate) fn decode(bytes: &[u8]) -> Option<Stored> {
    use bincode::Options as _;
    codec()
        .with_limit(u64::try_from(bytes.len()).ok()?)
        .deserialize(bytes)
        .ok()
}

/// A directory's remembered listing: its stamp and its entries (name,
/// kind: `d` directory, `f` file, `l` link, `o` other, inode), sorted.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct DirRecord(pub Stamp, pub Vec<(String, char, u64)>);

/// Why a cached `SKILL.md` was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Refused {
    /// Over the size limit (the size read).
    TooLarge(u64),
    /// NUL bytes or not UTF-8.
    Binary,
}

impl Refused {
    /// The cacheable read errors.
    pub fn from_error(e: &ReadError) -> Option<Self> {
        match e {
            ReadError::TooLarge(n) => Some(Self::TooLarge(*n)),
            ReadError::Binary => Some(Self::Binary),
            ReadError::Missing | ReadError::Io(_) => None,
        }
    }

    /// Back to the error an uncached read gives.
    pub fn to_error(self) -> ReadError {
        match self {
            Self::TooLarge(n) => ReadError::TooLarge(n),
            Self::Binary => ReadError::Binary,
        }
    }
}

/// A `SKILL.md`'s remembered reading: its stamp, whether its folder entry
/// said "regular file", and what reading it gave.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct FileRecord(Stamp, bool, Result<Meta, Refused>);

/// The file's content. Records are stored in walk order, so that an
/// unchanged tree finds each one at the next position without hashing.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Stored {
    pub version: u32,
    pub root: String,
    /// When the walk that wrote it started (ns since the epoch).
    pub made_ns: i64,
    /// The walk that wrote it met nothing the cache does not hold (no
    /// symbolic link, no read error, no cap, every name a key): with every
    /// stamp unchanged, a walk would give exactly its files again
    /// ([`RootCache::replay`]).
    pub replay: bool,
    pub dirs: Vec<(String, DirRecord)>,
    pub files: Vec<(String, FileRecord)>,
}

/// Records read from disk, taken out as the walk uses them: in walk order
/// first (the next row), through an index built at the first row out of
/// order.
struct Table<T> {
    rows: Vec<Option<(String, T)>>,
    next: usize,
    index: Option<FxHashMap<String, usize>>,
    left: usize,
}

impl<T> Table<T> {
    fn new(rows: Vec<(String, T)>) -> Self {
        Self {
            left: rows.len(),
            rows: rows.into_iter().map(Some).collect(),
            next: 0,
            index: None,
        }
    }

    /// Takes the record of `key`, if any.
    fn take(&mut self, key: &str) -> Option<T> {
        let at = match self.rows.get(self.next) {
            Some(Some((k, _))) if k == key => self.next,
            _ => {
                let rows = &self.rows;
                let index = self.index.get_or_insert_with(|| {
                    rows.iter()
                        .enumerate()
                        .filter_map(|(i, r)| r.as_ref().map(|(k, _)| (k.clone(), i)))
                        .collect()
                });
                *index.get(key)?
            }
        };
        let (_, value) = self.rows.get_mut(at)?.take()?;
        self.next = at + 1;
        self.left -= 1;
        Some(value)
    }
}

/// One root's cache during a walk: the records read from disk (taken out
/// as they are used) and the records of this walk.
pub(crate) struct RootCache {
    path: PathBuf,
    root: String,
    /// When the old file was made.
    old_made_ns: i64,
    /// The old file may be replayed ([`Stored::replay`]).
    old_replay: bool,
    old_dirs: Table<DirRecord>,
    old_files: Table<FileRecord>,
    new: Stored,
    /// Something was read afresh (or could not be remembered).
    dirty: bool,
}

/// From how many records on a replay's `stat`s are split over two threads
/// (about 130 skills: below that a thread costs about what it saves).
pub(crate) const REPLAY_SPLIT_AT: usize = 256;

/// What a stamp check gives for a key: the fresh stamp and whether it is a
/// directory, or nothing (gone, unreadable).
pub(crate) type Checked = Option<(Stamp, Kind)>;

fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

impl RootCache {
    /// Loads the cache of `root` from `dir` (none: an empty cache). `None`
    /// when the root's path is not UTF-8 (it cannot be a key).
    pub fn load(dir: &Path, root: &Path) -> Option<Self> {
        let root_str = root.to_str()?.to_string();
        let path = dir.join(file_name(root));
        let old = std::fs::read(&path)
            .ok()
            .and_then(|bytes| decode(&bytes))
            .filter(|s| s.version == VERSION && s.root == root_str)
            .unwrap_or_default();
        let new = Stored {
            version: VERSION,
            root: root_str.clone(),
            made_ns: now_ns(),
            replay: true,
            ..Default::default()
        };
        Some(Self {
            path,
            root: root_str,
            old_made_ns: old.made_ns,
            old_replay: old.replay,
            old_dirs: Table::new(old.dirs),
            old_files: Table::new(old.files),
            new,
            dirty: false,
        })
    }

    /// The old file's `SKILL.md` records, in walk order, when the whole
    /// file checks out against `stat` (called with a key and whether to
    /// follow a final link, as the walk would: only the root follows): it
    /// was written by a walk that met nothing uncached, and every folder
    /// and file still has its stamp, old enough to be trusted. Then a walk
    /// would list nothing, read nothing and visit exactly these files in
    /// this order, so the caller builds the skills from them without
    /// walking. `None` at the first difference (the caller walks; the
    /// records are left for it).
    pub fn replay(
        &mut self,
        stat: impl Fn(&str, bool) -> Checked + Sync,
    ) -> Option<Vec<(String, Result<Meta, Refused>)>> {
        if !self.old_replay || self.old_dirs.index.is_some() || self.old_files.index.is_some() {
            return None;
        }
        let files = self.old_files.rows.iter().flatten();
        if !files.clone().all(|(key, _)| key.ends_with("/SKILL.md")) {
            return None;
        }
        // (key, follow a final link, expected kind, recorded stamp): the
        // root follows, as the walk's first `stat` does.
        let checks: Vec<(&str, bool, Kind, &Stamp)> = (self.old_dirs.rows.iter().flatten())
            .map(|(key, rec)| (key.as_str(), key.is_empty(), Kind::Dir, &rec.0))
            .chain(files.map(|(key, rec)| (key.as_str(), true, Kind::File, &rec.0)))
            .collect();
        let fresh = |part: &[(&str, bool, Kind, &Stamp)]| {
            part.iter().all(|&(key, follow, kind, rec)| {
                stat(key, follow)
                    .is_some_and(|(st, k)| k == kind && st == *rec && self.trusted(&st))
            })
        };
        // A big root's `stat`s (nearly all of a replay's time) are split
        // over two threads; smaller roots run on the caller's, alongside
        // the other roots (crate::discover::scan_roots).
        let split = checks.len() >= REPLAY_SPLIT_AT
            && std::thread::available_parallelism().is_ok_and(|n| n.get() > 1);
        let all_fresh = if split {
            let (mine, theirs) = checks.split_at(checks.len() / 2);
            std::thread::scope(|scope| {
                let helper = scope.spawn(|| fresh(theirs));
                let ok = fresh(mine);
                // A helper that panicked counts as a difference: walk.
                helper.join().unwrap_or(false) && ok
            })
        } else {
            fresh(&checks)
        };
        if !all_fresh {
            return None;
        }
        #[cfg(test)]
        REPLAYS.with(|n| n.set(n.get() + 1));
        let files = std::mem::take(&mut self.old_files.rows);
        self.old_dirs.rows.clear();
        (self.old_dirs.left, self.old_files.left) = (0, 0);
        Some(files.into_iter().flatten().map(|(k, r)| (k, r.2)).collect())
    }

    /// This walk met something the cache does not hold (a symbolic link, a
    /// read error, a cap, a name that is no key): its file must not be
    /// replayed.
    pub fn no_replay(&mut self) {
        self.new.replay = false;
    }

    /// Whether a stamp recorded in the old file can be trusted.
    fn trusted(&self, stamp: &Stamp) -> bool {
        stamp.changed_ns() < self.old_made_ns.saturating_sub(RACY_NS)
    }

    /// The remembered listing of the directory at `key` when `stamp` is
    /// the one it was listed under (and not racy).
    pub fn dir(&mut self, key: &str, stamp: &Stamp) -> Option<Vec<Entry>> {
        let rec = self.old_dirs.take(key)?;
        // A name a directory cannot hold (a damaged or hand-edited file)
        // would lead the walk elsewhere: the listing is read afresh.
        let sane = |n: &str| !n.is_empty() && n != "." && n != ".." && !n.contains(['/', '\0']);
        if rec.0 != *stamp || !self.trusted(stamp) || !rec.1.iter().all(|(n, _, _)| sane(n)) {
            self.dirty = true;
            return None;
        }
        let entries = rec
            .1
            .iter()
            .map(|(name, kind, ino)| Entry {
                name: OsString::from(name),
                kind: match kind {
                    'd' => Kind::Dir,
                    'f' => Kind::File,
                    'l' => Kind::Symlink,
                    _ => Kind::Other,
                },
                ino: *ino,
            })
            .collect();
        self.new.dirs.push((key.to_string(), rec));
        Some(entries)
    }

    /// Remembers a directory listed afresh (under the stamp taken before
    /// listing it).
    pub fn put_dir(&mut self, key: &str, stamp: Stamp, entries: &[Entry]) {
        self.dirty = true;
        let mut out = Vec::with_capacity(entries.len());
        for e in entries {
            // A name that is not UTF-8 cannot be stored: not remembered.
            let Some(name) = e.name.to_str() else {
                self.no_replay();
                return;
            };
            let kind = match e.kind {
                Kind::Dir => 'd',
                Kind::File => 'f',
                Kind::Symlink => 'l',
                Kind::Other => 'o',
            };
            out.push((name.to_string(), kind, e.ino));
        }
        self.new.dirs.push((key.to_string(), DirRecord(stamp, out)));
    }

    /// The remembered reading of the `SKILL.md` at `key` when its stamp and
    /// entry kind are unchanged (and not racy).
    pub fn file(
        &mut self,
        key: &str,
        stamp: &Stamp,
        regular: bool,
    ) -> Option<Result<Meta, Refused>> {
        let rec = self.old_files.take(key)?;
        if rec.0 != *stamp || rec.1 != regular || !self.trusted(stamp) {
            self.dirty = true;
            return None;
        }
        let result = rec.2.clone();
        self.new.files.push((key.to_string(), rec));
        Some(result)
    }

    /// Remembers a `SKILL.md` read afresh (under the stamp taken before
    /// reading it).
    pub fn put_file(
        &mut self,
        key: &str,
        stamp: Stamp,
        regular: bool,
        result: Result<Meta, Refused>,
    ) {
        self.dirty = true;
        self.new
            .files
            .push((key.to_string(), FileRecord(stamp, regular, result)));
    }

    /// Marks the cache as needing a rewrite (something could not be
    /// checked against it).
    pub fn touch(&mut self) {
        self.dirty = true;
        self.no_replay();
    }

    /// Writes the records of this walk when they differ from the file's
    /// (temporary file in the same directory, then rename). Errors are
    /// ignored: the cache is an optimisation only.
    pub fn save(self) {
        let leftover = self.old_dirs.left > 0 || self.old_files.left > 0;
        if !self.dirty && !leftover {
            return;
        }
        let Some(dir) = self.path.parent() else {
            return;
        };
        let Some(bytes) = encode(&self.new) else {
            return;
        };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = dir.join(format!(
            ".{}.{}.{seq}.tmp",
            file_name(Path::new(&self.root)),
            std::process::id()
        ));
        if std::fs::write(&tmp, &bytes).is_ok() && std::fs::rename(&tmp, &self.path).is_ok() {
            // The same root's file of the JSON format (version 1, same
            // name stem), never read again: removed once it is replaced.
            let _ = std::fs::remove_file(self.path.with_extension("json"));
            return;
        }
        let _ = std::fs::remove_file(&tmp);
    }
}

#[cfg(test)]
thread_local! {
    /// Replays made on this thread (tests check that a warm scan of one
    /// root, which runs on the caller's thread, took that path).
    pub(crate) static REPLAYS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Test helper: pretends every cache file in `dir` was made `by_ns` later,
/// as if the next start came that much later (so that entries written just
/// before are no longer "racily clean"), without sleeping.
#[cfg(test)]
pub(crate) fn age_files(dir: &Path, by_ns: i64) -> usize {
    let mut n = 0;
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "bin") {
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            let Some(mut stored) = decode(&bytes) else {
                continue;
            };
            stored.made_ns = stored.made_ns.saturating_add(by_ns);
            if let Some(bytes) = encode(&stored) {
                if std::fs::write(&path, bytes).is_ok() {
                    n += 1;
                }
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_differ_per_root_and_are_stable() {
        assert_eq!(
            file_name(Path::new("/a/skills")),
            file_name(Path::new("/a/skills"))
        );
        assert_ne!(
            file_name(Path::new("/a/skills")),
            file_name(Path::new("/b/skills"))
        );
        assert_eq!(file_name(Path::new("")), "cbf29ce484222325.bin");
    }

    #[test]
    fn records_are_found_in_walk_order_and_out_of_it() {
        let rows = (0..5).map(|i| (format!("k{i}"), i)).collect();
        let mut t = Table::new(rows);
        assert_eq!(t.take("k0"), Some(0));
        assert_eq!(t.take("k1"), Some(1));
        assert!(t.index.is_none(), "in order: no index");
        assert_eq!(t.take("k3"), Some(3));
        assert_eq!(t.take("k4"), Some(4), "back in order after a jump");
        assert_eq!(t.take("k3"), None, "taken once");
        assert_eq!(t.take("nope"), None);
        assert_eq!(t.left, 1);
        assert_eq!(t.take("k2"), Some(2));
        assert_eq!(t.left, 0);
    }

    #[test]
    fn a_record_near_the_cache_time_is_not_trusted() {
        let tmp = tempfile::tempdir().unwrap();
        let mut c = RootCache::load(tmp.path(), Path::new("/r")).unwrap();
        let made = c.new.made_ns;
        let old = Stamp(1, 2, 3, made - 10 * RACY_NS, made - 10 * RACY_NS);
        let racy = Stamp(1, 3, 3, made - RACY_NS / 2, made - 10 * RACY_NS);
        c.put_dir("a", old, &[]);
        c.put_dir("b", racy, &[]);
        c.save();
        let mut c = RootCache::load(tmp.path(), Path::new("/r")).unwrap();
        assert!(c.dir("a", &old).is_some());
        assert!(c.dir("b", &racy).is_none(), "racily clean: read again");
        // Another root's file under the same name is ignored.
        let other = RootCache::load(tmp.path(), Path::new("/other")).unwrap();
        assert_eq!(other.old_dirs.left, 0);
    }
}
