//! Errors of reading and writing session files. Every error names the file,
//! and reading errors name the line.

use std::path::PathBuf;

/// What went wrong with a session file.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// A row of the file is unreadable (strict reading, §1.2).
    #[error("session {}: line {line}: {reason}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// Why the row is refused.
        reason: String,
    },
    /// The file as a whole is unusable (empty, missing, wrong place).
    #[error("session {}: {reason}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// An I/O operation failed.
    #[error("session {}: {what}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was being done ("creating the sessions directory", …).
        what: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// Another process holds the file open for writing.
    #[error("session {} is in use by another zut process; continue it there, or fork it with `zut session fork`", path.display())]
    Busy {
        /// The file.
        path: PathBuf,
    },
    /// A requested session or fork point does not exist.
    #[error("{0}")]
    NotFound(String),
}

impl SessionError {
    pub(crate) fn io(
        path: impl Into<PathBuf>,
        what: impl Into<String>,
        source: std::io::Error,
    ) -> Self {
        Self::Io {
            path: path.into(),
            what: what.into(),
            source,
        }
    }

    pub(crate) fn file(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        Self::File {
            path: path.into(),
            reason: reason.into(),
        }
    }
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, SessionError>;
