//! What the extension pass prints: one status per extension and the
//! summary counts (cli.md §3).

use std::fmt;

/// Width the extension name is padded to.
pub const NAME_WIDTH: usize = 30;

/// Heading printed (after a blank line) before the first extension.
pub const HEADING: &str = "zut update: updating extensions...";

/// The result for one extension directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// No readable `extension.json`.
    NoManifest,
    /// `"enabled": false`.
    Disabled,
    /// No `.git` directory or file.
    NotGitCheckout,
    /// A git step failed; the most useful line of its output.
    Failed(String),
    /// The pull brought new commits.
    Updated,
    /// Nothing new upstream.
    UpToDate,
    /// The update would change the extension's declared permissions and
    /// the user said no (nothing was pulled).
    Declined,
    /// The pull succeeded but popping the stash did not apply cleanly; the
    /// stash entry and any conflict markers are left in place.
    RestoreConflict {
        /// The pull brought new commits (counted as updated).
        changed: bool,
        /// Message of the kept stash entry (`zut-update-<unix time>`).
        stash: String,
    },
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoManifest => f.write_str("skipped: no extension.json"),
            Self::Disabled => f.write_str("skipped: disabled"),
            Self::NotGitCheckout => f.write_str("skipped: not a git checkout"),
            Self::Failed(reason) => write!(f, "failed: {reason}"),
            Self::Updated => f.write_str("updated"),
            Self::Declined => f.write_str("skipped: permissions change declined"),
            Self::UpToDate => f.write_str("up-to-date"),
            Self::RestoreConflict { changed, stash } => write!(
                f,
                "warning: pull succeeded ({}) but restoring local changes conflicted; \
                 resolve by hand (stash \"{stash}\" kept)",
                if *changed { "updated" } else { "up-to-date" }
            ),
        }
    }
}

/// One printed line: the name padded to [`NAME_WIDTH`] columns, then the
/// status.
pub fn line(name: &str, status: &Status) -> String {
    format!("{name:<NAME_WIDTH$} {status}")
}

/// Counts for the summary line.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// `updated` (and conflicting restores after new commits).
    pub updated: usize,
    /// `up-to-date` (and conflicting restores without new commits).
    pub up_to_date: usize,
    /// Every `skipped: …`.
    pub skipped: usize,
    /// Every `failed: …`.
    pub failed: usize,
}

impl Tally {
    /// Counts one status.
    pub fn add(&mut self, status: &Status) {
        match status {
            Status::NoManifest | Status::Disabled | Status::NotGitCheckout | Status::Declined => {
                self.skipped += 1
            }
            Status::Failed(_) => self.failed += 1,
            Status::Updated | Status::RestoreConflict { changed: true, .. } => self.updated += 1,
            Status::UpToDate | Status::RestoreConflict { changed: false, .. } => {
                self.up_to_date += 1;
            }
        }
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "zut update: extensions: {} updated, {} up-to-date, {} skipped, {} failed",
            self.updated, self.up_to_date, self.skipped, self.failed
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_padded_to_thirty_columns() {
        assert_eq!(
            line("hello", &Status::UpToDate),
            format!("hello{} up-to-date", " ".repeat(25))
        );
        let long = "x".repeat(40);
        assert_eq!(line(&long, &Status::Updated), format!("{long} updated"));
    }

    #[test]
    fn conflicting_restores_count_by_whether_the_pull_changed_anything() {
        let mut t = Tally::default();
        for s in [
            Status::Updated,
            Status::RestoreConflict {
                changed: true,
                stash: "s".into(),
            },
            Status::RestoreConflict {
                changed: false,
                stash: "s".into(),
            },
            Status::NoManifest,
            Status::Disabled,
            Status::NotGitCheckout,
            Status::Failed("x".into()),
        ] {
            t.add(&s);
        }
        assert_eq!(
            t.to_string(),
            "zut update: extensions: 2 updated, 1 up-to-date, 3 skipped, 1 failed"
        );
    }
}
