//! Session moves as controller operations: a new session, resuming another
//! file, forking at a message, checking out a point of the tree, renaming.
//!
//! A move is a job that runs before anything queued (the running prompt is
//! aborted first, except for a rename, which waits for it), so the old file
//! is complete before the agent leaves it, and extensions see
//! `session_switched` (after `session_forked` for a branch) in order after
//! the aborted turn's events.

use std::path::{Path, PathBuf};

use zut_session::{SessionWriter, Snapshot};

use super::jobs::Work;
use super::{Controller, JobHandle, SessionMoved};
use crate::agent::Agent;

/// Where the conversation should go.
#[derive(Debug)]
pub enum SessionMove {
    /// A new, empty session file in the sessions directory of the cwd
    /// (`--no-session`: the conversation is cleared).
    New,
    /// Another session file, already opened (so a busy or unreadable file
    /// is refused before anything is aborted).
    Resume(Box<(SessionWriter, Snapshot)>),
    /// A branch of the current file at effective message `at`; `hidden`
    /// marks a tree-navigation branch.
    Fork {
        /// Messages kept.
        at: usize,
        /// A tree checkout (hidden from the sessions list).
        hidden: bool,
    },
    /// A new title for the current file.
    Rename(String),
}

impl Controller {
    /// Starts a new session: the running turn is aborted, then the agent
    /// moves to a new file (the old one stays, or is removed when it got no
    /// content). Ends as `JobOutcome::Session`.
    pub fn new_session(&self, tag: Option<String>) -> JobHandle {
        self.abort();
        self.enqueue(Work::Session(SessionMove::New), tag, true)
    }

    /// Resumes the session file `path`. The file is opened first: a file
    /// another zut writes, or one that cannot be read, is refused here and
    /// nothing is aborted.
    pub fn resume_session(&self, path: &Path, tag: Option<String>) -> Result<JobHandle, String> {
        let opened = SessionWriter::open(path).map_err(|e| e.to_string())?;
        self.abort();
        Ok(self.enqueue(
            Work::Session(SessionMove::Resume(Box::new(opened))),
            tag,
            true,
        ))
    }

    /// Forks the current session at effective message `at` (a tree
    /// checkout when `hidden`) and continues in the branch.
    pub fn fork_session(&self, at: usize, hidden: bool, tag: Option<String>) -> JobHandle {
        self.abort();
        self.enqueue(Work::Session(SessionMove::Fork { at, hidden }), tag, true)
    }

    /// Renames the current session file; runs when the running job ends.
    pub fn rename_session(&self, title: &str, tag: Option<String>) -> JobHandle {
        self.enqueue(
            Work::Session(SessionMove::Rename(title.to_string())),
            tag,
            true,
        )
    }
}

impl Agent {
    /// Carries out `mv` (the worker runs it between jobs).
    pub(crate) fn apply_move(&mut self, mv: SessionMove) -> Result<SessionMoved, String> {
        match mv {
            SessionMove::New => {
                if self.session().is_none() {
                    self.clear();
                    return Ok(SessionMoved {
                        path: None,
                        snapshot: None,
                    });
                }
                let cwd = self.config.cwd.display().to_string();
                let dir = zut_session::sessions_dir(&self.config.system.zut_home, &cwd);
                let new = zut_session::NewSession {
                    cwd,
                    provider: self.provider().name().to_string(),
                    model: self.provider().model().to_string(),
                    version: env!("CARGO_PKG_VERSION").to_string(),
                    title: String::new(),
                };
                let writer = SessionWriter::create(&dir, new).map_err(|e| e.to_string())?;
                let snapshot = zut_session::read(writer.path()).map_err(|e| e.to_string())?;
                let path = writer.path().to_path_buf();
                self.switch_session(writer, &snapshot);
                Ok(moved(path, snapshot))
            }
            SessionMove::Resume(opened) => {
                let (writer, snapshot) = *opened;
                let path = writer.path().to_path_buf();
                self.switch_session(writer, &snapshot);
                Ok(moved(path, snapshot))
            }
            SessionMove::Fork { at, hidden } => {
                let path = self.fork_session(at, hidden)?;
                let snapshot = zut_session::read(&path).map_err(|e| e.to_string())?;
                Ok(moved(path, snapshot))
            }
            SessionMove::Rename(title) => {
                let Some(session) = self.session_mut() else {
                    return Err("no session (--no-session): nothing to rename".into());
                };
                session
                    .writer_mut()
                    .rename(&title, false)
                    .map_err(|e| e.to_string())?;
                let path = session.writer().path().to_path_buf();
                let snapshot = zut_session::read(&path).map_err(|e| e.to_string())?;
                Ok(moved(path, snapshot))
            }
        }
    }
}

fn moved(path: PathBuf, snapshot: Snapshot) -> SessionMoved {
    SessionMoved {
        path: Some(path),
        snapshot: Some(Box::new(snapshot)),
    }
}
