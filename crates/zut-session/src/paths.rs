//! Where session files live (sessions-themes-skills.md §1.1) and how a
//! session is found by id.

use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

use crate::error::{Result, SessionError};

/// `<zut_home>/sessions`.
pub fn sessions_root(zut_home: &Path) -> PathBuf {
    zut_home.join("sessions")
}

/// The first 8 bytes of SHA-256 of `cwd`, lower-case hex (16 characters).
pub fn cwd_hash(cwd: &str) -> String {
    let sum = Sha256::digest(cwd.as_bytes());
    sum[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// `<zut_home>/sessions/<hash of cwd>`.
pub fn sessions_dir(zut_home: &Path, cwd: &str) -> PathBuf {
    sessions_root(zut_home).join(cwd_hash(cwd))
}

/// `<UTC start YYYYMMDD-HHMMSS>-<first 8 chars of id>.jsonl`.
pub fn file_name(started: SystemTime, id: &str) -> String {
    let prefix: String = id.chars().take(8).collect();
    format!("{}-{prefix}.jsonl", crate::time::file_stamp(started))
}

/// The `*.jsonl` files of `dir`, newest modification time first (ties:
/// path descending). A missing directory lists nothing.
pub fn list_files(dir: &Path) -> Vec<PathBuf> {
    list_files_with_times(dir)
        .into_iter()
        .map(|(_, p)| p)
        .collect()
}

/// [`list_files`] with each file's modification time.
pub fn list_files_with_times(dir: &Path) -> Vec<(SystemTime, PathBuf)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<(SystemTime, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".jsonl"))
        .filter_map(|e| {
            let md = e.metadata().ok()?;
            md.is_file()
                .then(|| (md.modified().unwrap_or(SystemTime::UNIX_EPOCH), e.path()))
        })
        .collect();
    files.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
    files
}

/// The id of a session file read from its first row (lenient).
pub fn read_id(path: &Path) -> Option<String> {
    let f = fs::File::open(path).ok()?;
    let mut line = String::new();
    // The first row of a sane file is small; refuse giant ones.
    BufReader::new(f.take(1024 * 1024))
        .read_line(&mut line)
        .ok()?;
    let v: serde_json::Value = serde_json::from_str(line.trim_end()).ok()?;
    v.get("meta")?.get("id")?.as_str().map(str::to_string)
}

/// Finds a session by full id or id prefix: first among `dir`'s files,
/// then in every directory under `<zut_home>/sessions`. An existing file
/// path is returned as is.
pub fn resolve(zut_home: &Path, dir: &Path, id_or_path: &str) -> Result<PathBuf> {
    let as_path = Path::new(id_or_path);
    if id_or_path.ends_with(".jsonl") || id_or_path.contains('/') {
        if as_path.is_file() {
            return Ok(as_path.to_path_buf());
        }
        return Err(SessionError::NotFound(format!(
            "session file {id_or_path} does not exist"
        )));
    }
    let want = id_or_path.trim().to_ascii_lowercase();
    if want.is_empty() {
        return Err(SessionError::NotFound("empty session id".into()));
    }
    let mut found = find_in(dir, &want);
    if found.is_empty() {
        let mut dirs = vec![];
        if let Ok(entries) = fs::read_dir(sessions_root(zut_home)) {
            for e in entries.filter_map(|e| e.ok()) {
                if e.path().is_dir() && e.path() != dir {
                    dirs.push(e.path());
                }
            }
        }
        dirs.sort();
        for d in dirs {
            found.extend(find_in(&d, &want));
        }
    }
    match found.len() {
        0 => Err(SessionError::NotFound(format!(
            "no session with id {id_or_path} (see `zut session list`)"
        ))),
        1 => Ok(found.remove(0)),
        _ => Err(SessionError::NotFound(format!(
            "session id {id_or_path} is ambiguous: {}",
            found
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

fn find_in(dir: &Path, want: &str) -> Vec<PathBuf> {
    let short: String = want.chars().take(8).collect();
    list_files(dir)
        .into_iter()
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().to_string());
            let Some(stem) = name.as_deref().and_then(|n| n.strip_suffix(".jsonl")) else {
                return false;
            };
            let file_id = stem.rsplit('-').next().unwrap_or_default();
            if !file_id.starts_with(&short) {
                return false;
            }
            if want.len() <= 8 {
                return true;
            }
            read_id(p).is_some_and(|id| id.to_ascii_lowercase().starts_with(want))
        })
        .collect()
}
