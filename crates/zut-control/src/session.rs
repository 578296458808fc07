//! Where a session move landed.

use std::path::PathBuf;

use zut_session::Snapshot;

/// Where a move landed.
#[derive(Debug, Clone)]
pub struct SessionMoved {
    /// The session file now attached (`None` with `--no-session`).
    pub path: Option<PathBuf>,
    /// That file as read after the move (its messages, title, totals).
    pub snapshot: Option<Box<Snapshot>>,
}

/// Two moves are equal when they landed on the same file.
impl PartialEq for SessionMoved {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
    }
}
