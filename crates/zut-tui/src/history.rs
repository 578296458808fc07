//! Prompt history, persisted per project as JSON lines (one string per
//! line, so multi-line prompts survive). Bounded to [`MAX_ENTRIES`].

use std::io::Write;
use std::path::PathBuf;

/// Entries kept.
pub const MAX_ENTRIES: usize = 1000;
/// Longest entry stored (a pasted log is not history).
const MAX_ENTRY: usize = 64 * 1024;

/// The history of one project.
#[derive(Debug, Default)]
pub struct History {
    entries: Vec<String>,
    path: Option<PathBuf>,
}

impl History {
    /// Loads the history at `path` (missing or unreadable: empty; lines
    /// that are not JSON strings are skipped).
    pub fn load(path: Option<PathBuf>) -> Self {
        let mut entries: Vec<String> = path
            .as_ref()
            .and_then(|p| std::fs::read(p).ok())
            .map(|bytes| {
                String::from_utf8_lossy(&bytes)
                    .lines()
                    .filter_map(|l| serde_json::from_str::<String>(l).ok())
                    .collect()
            })
            .unwrap_or_default();
        if entries.len() > MAX_ENTRIES {
            entries.drain(..entries.len() - MAX_ENTRIES);
        }
        Self { entries, path }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entry `i` (0 = oldest).
    pub fn get(&self, i: usize) -> Option<&str> {
        self.entries.get(i).map(String::as_str)
    }

    /// Adds an entry (not a repeat of the last one) and appends it to the
    /// file; write errors are ignored (history is a convenience).
    pub fn push(&mut self, entry: &str) {
        if entry.trim().is_empty() || entry.len() > MAX_ENTRY {
            return;
        }
        if self.entries.last().map(String::as_str) == Some(entry) {
            return;
        }
        self.entries.push(entry.to_string());
        if self.entries.len() > MAX_ENTRIES {
            self.entries.remove(0);
        }
        if let Some(p) = &self.path {
            if let Some(dir) = p.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
            {
                if let Ok(line) = serde_json::to_string(entry) {
                    let _ = writeln!(f, "{line}");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn persists_and_reloads() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/history.jsonl");
        let mut h = History::load(Some(p.clone()));
        h.push("one");
        h.push("one");
        h.push("two\nlines");
        std::fs::write(
            &p,
            format!("{}not json\n", std::fs::read_to_string(&p).unwrap()),
        )
        .unwrap();
        let h2 = History::load(Some(p));
        assert_eq!(h2.len(), 2);
        assert_eq!(h2.get(1), Some("two\nlines"));
    }
}
