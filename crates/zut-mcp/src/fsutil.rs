//! Small file helpers: private atomic writes and append-only logs.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` through a temporary file in the same directory
/// (mode 0600, fsync, rename), creating the directory (0700) if needed.
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let result = (|| {
        let mut f = opts.open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Opens (creating) `$ZUT_HOME/logs/mcp-<name>.log` for appending.
pub fn open_log(home: &Path, name: &str) -> std::io::Result<std::fs::File> {
    let dir = home.join("logs");
    std::fs::create_dir_all(&dir)?;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(format!("mcp-{name}.log")))
}

/// Appends one `[zut] <text>` marker line to a server's log; errors ignored.
pub fn log_marker(home: &Path, name: &str, text: &str) {
    if let Ok(mut f) = open_log(home, name) {
        let _ = writeln!(f, "[zut] {text}");
    }
}
