//! Choosing the session of a run (`-c`, `-r <id>`, `--session <path>`, a
//! new one) and opening it for writing.

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::read::Snapshot;
use crate::write::{NewSession, SessionWriter};

/// Which session a run uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// A new session in the cwd's directory.
    New,
    /// The latest session of the cwd (`-c`); a new one when there is none.
    Continue,
    /// The session with this id or id prefix (`-r <id>`).
    Resume(String),
    /// This file (`--session <path>`): resumed if it exists, else created.
    Path(PathBuf),
}

/// An opened session.
#[derive(Debug)]
pub struct Opened {
    /// The locked file.
    pub writer: SessionWriter,
    /// What the file held when opened (`None` for a new file).
    pub snapshot: Option<Snapshot>,
}

/// Opens the session `choice` names for a run in `cwd` (the sessions of
/// `cwd` live in `sessions_dir(zut_home, cwd)`). A new file gets `new` as
/// its meta. Errors name the file (and line for unreadable rows); a file
/// another zut is writing is refused with [`crate::SessionError::Busy`].
pub fn open(choice: &Choice, zut_home: &Path, cwd: &str, new: NewSession) -> Result<Opened> {
    let dir = crate::paths::sessions_dir(zut_home, cwd);
    let resume = |path: &Path| -> Result<Opened> {
        let (writer, snapshot) = SessionWriter::open(path)?;
        Ok(Opened {
            writer,
            snapshot: Some(snapshot),
        })
    };
    match choice {
        Choice::New => Ok(Opened {
            writer: SessionWriter::create(&dir, new)?,
            snapshot: None,
        }),
        Choice::Continue => {
            crate::write::prune_contentless(&dir);
            match crate::paths::list_files(&dir).first() {
                Some(latest) => resume(latest),
                None => Ok(Opened {
                    writer: SessionWriter::create(&dir, new)?,
                    snapshot: None,
                }),
            }
        }
        Choice::Resume(id) => resume(&crate::paths::resolve(zut_home, &dir, id)?),
        Choice::Path(path) => {
            if path.exists() {
                resume(path)
            } else {
                Ok(Opened {
                    writer: SessionWriter::create_at(path, new)?,
                    snapshot: None,
                })
            }
        }
    }
}
