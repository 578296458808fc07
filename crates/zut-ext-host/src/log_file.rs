//! The per-extension stderr log, `$ZUT_HOME/logs/ext-<name>.log`.
//!
//! The child's stderr is appended to it directly; the host appends its own
//! `[zut] …` marker lines through the same append-mode file.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// An open extension log, shared by the host's tasks.
#[derive(Debug, Clone)]
pub struct ExtLog {
    path: PathBuf,
    file: Arc<Mutex<File>>,
}

impl ExtLog {
    /// Creates the logs directory (0755) if needed and opens `path` in
    /// append mode (0644). Never truncates.
    pub fn open(path: &Path) -> std::io::Result<Self> {
        if let Some(dir) = path.parent() {
            create_dir_0755(dir)?;
        }
        let mut opts = OpenOptions::new();
        opts.create(true).append(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o644);
        }
        let file = opts.open(path)?;
        Ok(Self {
            path: path.to_path_buf(),
            file: Arc::new(Mutex::new(file)),
        })
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A second handle on the same file, for the child's stderr.
    pub fn stderr_handle(&self) -> std::io::Result<File> {
        let file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        file.try_clone()
    }

    /// Appends one `[zut] <text>` line. Errors are ignored: logging must
    /// never take the host down.
    pub fn marker(&self, text: &str) {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(file, "[zut] {text}");
    }

    /// Appends the start marker: a blank line, then
    /// `[zut] starting <name>/<version> at <RFC3339>`.
    pub fn start_marker(&self, name: &str, version: &str) {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(
            file,
            "\n[zut] starting {name}/{version} at {}",
            rfc3339_now()
        );
    }
}

fn create_dir_0755(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o755)
            .create(dir)
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir)
    }
}

/// The current UTC time as RFC 3339 (`2026-12-02T18:49:22Z`).
pub fn rfc3339_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    rfc3339(secs)
}

fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn rfc3339_formats_known_instants() {
        assert_eq!(super::rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::rfc3339(1_796_150_962), "2026-12-01T18:49:22Z");
    }
}
