//! Writing a session file: created exclusively, one row per event, each row
//! written with one `write` call before the caller goes on, append-only.
//! The file is locked (`flock`) while zut writes to it, so two zut
//! processes never interleave rows in one file.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::value::RawValue;

use crate::error::{Result, SessionError};
use crate::message::SessionMessage;
use crate::read::{Snapshot, MAX_STATE_BYTES};
use crate::row::{Meta, Row, Usage};

/// What a new session records in its `meta` row.
#[derive(Debug, Clone, Default)]
pub struct NewSession {
    /// Project directory.
    pub cwd: String,
    /// Provider name.
    pub provider: String,
    /// Model id.
    pub model: String,
    /// zut's version.
    pub version: String,
    /// Initial title (normalise it first, see [`crate::title_from_prompt`]).
    pub title: String,
}

/// How [`SessionWriter::close`] left the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    /// The file stays.
    Kept,
    /// It was created by this run and had no content: removed.
    Removed,
}

/// An open session file, locked for this process.
#[derive(Debug)]
pub struct SessionWriter {
    file: File,
    path: PathBuf,
    meta: Meta,
    /// Bytes known to be in the file (a failed write is cut back to it).
    len: u64,
    fresh: bool,
    content_rows: usize,
    last_usage: Option<(Usage, Usage)>,
    needs_newline: bool,
}

/// Waits between tries of a busy lock (about 0.15 s in all).
const BUSY_RETRIES_MS: [u64; 5] = [5, 10, 20, 40, 80];

/// Locks `file` for this process. A lock that is busy is tried again for
/// about 0.15 s before the file counts as written by another process: a
/// child that another thread of this process is starting holds a copy of
/// every descriptor (and so the lock) from its fork until its exec closes
/// them, so a file this process has just closed can look busy for a
/// moment when it is opened again (a resume of the session just left).
fn lock(file: &File, path: &Path) -> Result<()> {
    let mut waits = BUSY_RETRIES_MS.iter();
    loop {
        // SAFETY: flock on a descriptor we own; no memory is involved.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::EWOULDBLOCK) {
            return Err(SessionError::io(path, "locking", err));
        }
        match waits.next() {
            Some(ms) => std::thread::sleep(std::time::Duration::from_millis(*ms)),
            None => {
                return Err(SessionError::Busy {
                    path: path.to_path_buf(),
                })
            }
        }
    }
}

/// Whether another process holds `path` locked (it is being written).
pub fn is_locked(path: &Path) -> bool {
    let Ok(f) = File::open(path) else {
        return false;
    };
    // SAFETY: as in `lock`; the lock is released when `f` is dropped.
    let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    rc != 0
}

impl SessionWriter {
    /// Creates a new session in `dir` (created if missing) named
    /// `<UTC start>-<id prefix>.jsonl`, and writes its `meta` row.
    pub fn create(dir: &Path, new: NewSession) -> Result<Self> {
        fs::create_dir_all(dir)
            .map_err(|e| SessionError::io(dir, "creating the sessions directory", e))?;
        let id = uuid::Uuid::new_v4().to_string();
        let started = SystemTime::now();
        let path = dir.join(crate::paths::file_name(started, &id));
        Self::create_file(path, id, started, new)
    }

    /// Creates a new session at `path` (which must not exist).
    pub fn create_at(path: &Path, new: NewSession) -> Result<Self> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent)
                .map_err(|e| SessionError::io(parent, "creating the sessions directory", e))?;
        }
        let id = uuid::Uuid::new_v4().to_string();
        Self::create_file(path.to_path_buf(), id, SystemTime::now(), new)
    }

    fn create_file(
        path: PathBuf,
        id: String,
        started: SystemTime,
        new: NewSession,
    ) -> Result<Self> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .open(&path)
            .map_err(|e| SessionError::io(&path, "creating", e))?;
        lock(&file, &path)?;
        let meta = Meta {
            id,
            cwd: new.cwd,
            model: new.model,
            provider: new.provider,
            started: humantime::format_rfc3339_seconds(started).to_string(),
            version: new.version,
            title: new.title,
            ..Meta::default()
        };
        let mut w = Self {
            file,
            path,
            meta: meta.clone(),
            len: 0,
            fresh: true,
            content_rows: 0,
            last_usage: None,
            needs_newline: false,
        };
        if let Err(e) = w.append(&Row::Meta(meta)) {
            let _ = fs::remove_file(&w.path);
            return Err(e);
        }
        Ok(w)
    }

    /// Opens an existing session for appending: locks it, then reads it
    /// strictly. Nothing already in the file is ever rewritten.
    pub fn open(path: &Path) -> Result<(Self, Snapshot)> {
        let file = OpenOptions::new()
            .append(true)
            .read(true)
            .open(path)
            .map_err(|e| SessionError::io(path, "opening for writing", e))?;
        lock(&file, path)?;
        let snapshot = crate::read::read(path)?;
        let len = file
            .metadata()
            .map_err(|e| SessionError::io(path, "reading metadata", e))?
            .len();
        let w = Self {
            file,
            path: path.to_path_buf(),
            meta: snapshot.meta.clone(),
            len,
            fresh: false,
            content_rows: 0,
            last_usage: snapshot
                .usage
                .last()
                .map(|c| (c.usage.clone(), c.cumulative.clone())),
            needs_newline: !snapshot.ends_with_newline,
        };
        Ok((w, snapshot))
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The current meta (id, cwd, parent, fork point …).
    pub fn meta(&self) -> &Meta {
        &self.meta
    }

    /// Appends one row with a single `write`. On failure (disk full, …)
    /// the file is cut back to its previous length, so no half row stays.
    pub fn append(&mut self, row: &Row) -> Result<()> {
        let mut line = row.to_line();
        if self.needs_newline {
            line.insert(0, b'\n');
        }
        if let Err(e) = self.file.write_all(&line) {
            let _ = self.file.set_len(self.len);
            return Err(SessionError::io(
                &self.path,
                format!("writing a {} row", row.type_name()),
                e,
            ));
        }
        self.needs_newline = false;
        self.len += line.len() as u64;
        match row {
            Row::Message(_) | Row::Compaction { .. } | Row::ExtensionState { .. } => {
                self.content_rows += 1;
                self.last_usage = None;
            }
            Row::Usage {
                usage, cumulative, ..
            } => self.last_usage = Some((usage.clone(), cumulative.clone())),
            Row::Meta(meta) => self.meta = meta.clone(),
            Row::Rename { .. } => {}
        }
        Ok(())
    }

    /// Appends a `message` row.
    pub fn append_message(&mut self, message: &SessionMessage) -> Result<()> {
        if message.content.is_empty() {
            return Ok(());
        }
        self.append(&Row::Message(message.clone()))
    }

    /// Appends a `usage` row, unless it repeats the immediately preceding
    /// usage row.
    pub fn append_usage(&mut self, usage: &Usage, cumulative: &Usage) -> Result<()> {
        if self
            .last_usage
            .as_ref()
            .is_some_and(|(u, c)| u == usage && c == cumulative)
        {
            return Ok(());
        }
        self.append(&Row::Usage {
            usage: usage.clone(),
            cumulative: cumulative.clone(),
            retry_lifecycle: None,
        })
    }

    /// Appends an `extension_state` row (write-side checks of §1.6: a
    /// non-blank name, at most 256 KiB of JSON). `null` clears the state.
    pub fn append_state(&mut self, extension: &str, state_json: &str) -> Result<()> {
        if extension.trim().is_empty() {
            return Err(SessionError::file(
                &self.path,
                "extension state without an extension name",
            ));
        }
        if state_json.len() > MAX_STATE_BYTES {
            return Err(SessionError::file(
                &self.path,
                format!(
                    "extension {extension}: state of {} bytes is over the {MAX_STATE_BYTES}-byte limit",
                    state_json.len()
                ),
            ));
        }
        let raw = RawValue::from_string(state_json.to_string()).map_err(|e| {
            SessionError::file(
                &self.path,
                format!("extension {extension}: state is not JSON: {e}"),
            )
        })?;
        let state = (raw.get().trim() != "null").then_some(raw);
        self.append(&Row::ExtensionState {
            extension: extension.to_string(),
            state,
        })
    }

    /// Appends a `compaction` row.
    pub fn append_compaction(
        &mut self,
        messages: Vec<SessionMessage>,
        usage: Option<Usage>,
        cumulative: Option<Usage>,
    ) -> Result<()> {
        self.append(&Row::Compaction {
            messages,
            usage,
            cumulative,
        })
    }

    /// Appends a `rename` row.
    pub fn rename(&mut self, title: &str, generated: bool) -> Result<()> {
        self.append(&Row::Rename {
            title: crate::title::normalize_title(title),
            generated,
        })
    }

    /// Whether this run wrote content rows (message, state, compaction).
    pub fn has_new_content(&self) -> bool {
        self.content_rows > 0
    }

    /// Closes the file; a session created by this run that got no content
    /// (no message, no extension state, no compaction) is removed.
    pub fn close(self) -> Result<Closed> {
        if self.fresh && self.content_rows == 0 {
            drop(self.file);
            fs::remove_file(&self.path)
                .map_err(|e| SessionError::io(&self.path, "removing the empty session", e))?;
            return Ok(Closed::Removed);
        }
        Ok(Closed::Kept)
    }
}

/// Whether the file holds only meta (and usage/rename) rows: no message,
/// compaction or extension state. A row that does not parse counts as
/// content: nothing that is not understood is ever deleted.
pub fn is_contentless(path: &Path) -> bool {
    #[derive(serde::Deserialize)]
    struct Head {
        #[serde(rename = "type")]
        kind: String,
    }
    let Ok(mut f) = File::open(path) else {
        return false;
    };
    let mut text = String::new();
    if f.read_to_string(&mut text).is_err() {
        return false;
    }
    text.lines().all(|l| match serde_json::from_str::<Head>(l) {
        Ok(h) => matches!(h.kind.as_str(), "meta" | "usage" | "rename"),
        Err(_) => false,
    })
}

/// Removes meta-only leftovers of `dir` (§1.1), skipping files another
/// process is writing.
pub fn prune_contentless(dir: &Path) {
    for path in crate::paths::list_files(dir) {
        let small = fs::metadata(&path)
            .map(|m| m.len() < 64 * 1024)
            .unwrap_or(false);
        if small && is_contentless(&path) && !is_locked(&path) {
            let _ = fs::remove_file(&path);
        }
    }
}
