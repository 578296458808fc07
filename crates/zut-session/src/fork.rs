//! Branching a session at message `N` into a new file
//! (sessions-themes-skills.md §1.7).

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::error::{Result, SessionError};
use crate::message::Role;
use crate::read::{read_with, ReadOptions};
use crate::row::{Meta, Row, WHOLE_COPY_META};

/// How to branch.
#[derive(Debug, Clone, Default)]
pub struct ForkOptions {
    /// Directory of the new file (the sessions directory of the new cwd).
    pub dir: PathBuf,
    /// The new session's cwd (`None`: the parent's).
    pub cwd: Option<String>,
    /// zut's version for the new meta.
    pub version: String,
    /// Mark the branch `hide_from_sessions` (tree navigation).
    pub hidden: bool,
}

/// A created branch.
#[derive(Debug, Clone)]
pub struct Forked {
    /// The new file.
    pub path: PathBuf,
    /// Its meta row.
    pub meta: Meta,
    /// Messages copied (the requested `N`, extended through tool results).
    pub fork_point: usize,
}

/// Branches `parent` at effective message `at` (0 ≤ at ≤ length): the new
/// file holds a meta row (new id, `parent`, `fork_point`), the first
/// `fork_point` effective messages, the extension state as it was at the
/// fork point (one row per extension, sorted by name) and the parent's
/// usage checkpoints within the copied messages. It is written to a
/// temporary file in the target directory, fsynced, then linked into
/// place (never overwriting) and the directory fsynced.
pub fn fork(parent: &Path, at: usize, opts: &ForkOptions) -> Result<Forked> {
    let snap = crate::read::read(parent)?;
    let len = snap.messages.len();
    if at > len {
        return Err(SessionError::NotFound(format!(
            "fork point {at} is past the end of {} ({len} messages)",
            parent.display()
        )));
    }
    let mut n = at;
    if n > 0
        && n < len
        && snap.messages[n - 1].has_tool_calls()
        && snap.messages[n].role == Role::Tool
    {
        n += 1;
    }
    let states = read_with(parent, ReadOptions { fork_at: Some(n) })?
        .fork_states
        .unwrap_or_default();

    let id = uuid::Uuid::new_v4().to_string();
    let started = SystemTime::now();
    let mut extra = snap.meta.extra.clone();
    if n < len {
        for key in WHOLE_COPY_META {
            extra.remove(key);
        }
    }
    let meta = Meta {
        id: id.clone(),
        cwd: opts.cwd.clone().unwrap_or_else(|| snap.meta.cwd.clone()),
        model: snap.meta.model.clone(),
        provider: snap.meta.provider.clone(),
        started: humantime::format_rfc3339_seconds(started).to_string(),
        version: opts.version.clone(),
        title: snap.title.clone(),
        parent: snap.meta.id.clone(),
        fork_point: n,
        hide_from_sessions: opts.hidden,
        extra,
        ..Meta::default()
    };
    let mut bytes = Row::Meta(meta.clone()).to_line();
    for m in &snap.messages[..n] {
        bytes.extend(Row::Message(m.clone()).to_line());
    }
    for (extension, state) in &states {
        bytes.extend(
            Row::ExtensionState {
                extension: extension.clone(),
                state: Some(state.clone()),
            }
            .to_line(),
        );
    }
    for c in snap.usage.iter().filter(|c| c.message_count <= n) {
        bytes.extend(
            Row::Usage {
                usage: c.usage.clone(),
                cumulative: c.cumulative.clone(),
                retry_lifecycle: None,
            }
            .to_line(),
        );
    }
    let path = opts.dir.join(crate::paths::file_name(started, &id));
    write_atomically(&opts.dir, &path, &bytes)?;
    Ok(Forked {
        path,
        meta,
        fork_point: n,
    })
}

fn write_atomically(dir: &Path, path: &Path, bytes: &[u8]) -> Result<()> {
    fs::create_dir_all(dir)
        .map_err(|e| SessionError::io(dir, "creating the sessions directory", e))?;
    let tmp = dir.join(format!(".zut-branch-{}.tmp", uuid::Uuid::new_v4().simple()));
    let result = (|| -> std::io::Result<()> {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        // A hard link never replaces an existing file (unlike rename).
        fs::hard_link(&tmp, path)?;
        fs::remove_file(&tmp)?;
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(SessionError::io(path, "writing the branch", e));
    }
    Ok(())
}
