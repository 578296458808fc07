//! The installed ast-grep CLI, for languages zut does not embed.
//!
//! `ast-grep` on PATH, else `sg` when `sg --version` says it is ast-grep.
//! It runs without a shell as
//! `run --pattern=<p> [--lang=<l>] [--rewrite=<r>] --json=stream <root>`,
//! bounded in time ([`CLI_TIMEOUT`]) and output ([`CLI_MAX_OUTPUT`]).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Deserialize;

use crate::{embedded_ids, AstError, Found, Match, MAX_MATCHES};

/// Longest an ast-grep run may take.
pub const CLI_TIMEOUT: Duration = Duration::from_secs(120);
/// Most bytes of JSON read from ast-grep.
pub const CLI_MAX_OUTPUT: usize = 4 * 1024 * 1024;

/// The ast-grep executable, if one is installed.
pub fn find_cli() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    let find = |name: &str| dirs.iter().map(|d| d.join(name)).find(|p| p.is_file());
    if let Some(p) = find("ast-grep") {
        return Some(p);
    }
    let sg = find("sg")?;
    let out = Command::new(&sg)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout)
        .to_ascii_lowercase()
        .contains("ast-grep")
        .then_some(sg)
}

#[derive(Deserialize)]
struct CliMatch {
    file: String,
    text: String,
    #[serde(default)]
    lines: String,
    #[serde(default)]
    replacement: Option<String>,
    #[serde(default, rename = "replacementOffsets")]
    replacement_offsets: Option<Offsets>,
    range: CliRange,
}

#[derive(Deserialize)]
struct CliRange {
    #[serde(rename = "byteOffset")]
    byte_offset: Offsets,
    start: LineCol,
    end: LineCol,
}

#[derive(Deserialize, Clone, Copy)]
struct Offsets {
    start: usize,
    end: usize,
}

#[derive(Deserialize)]
struct LineCol {
    line: usize,
}

/// Runs the CLI over `root`.
pub(crate) fn search(
    root: &Path,
    pattern: &str,
    language: Option<&str>,
    rewrite: Option<&str>,
) -> Result<Found, AstError> {
    let Some(cli) = find_cli() else {
        return Err(AstError::Engine(format!(
            "{} is not built into zut (built in: {}) and no ast-grep executable ('ast-grep' or \
             'sg') is on PATH; install it (e.g. `pip install ast-grep-cli`) or set language to a \
             built-in one",
            language
                .map(|l| format!("language {l:?}"))
                .unwrap_or_else(|| format!("the language of {}", root.display())),
            embedded_ids()
        )));
    };
    let dir = if root.is_dir() {
        root.to_path_buf()
    } else {
        root.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    let mut cmd = Command::new(&cli);
    cmd.arg("run").arg(format!("--pattern={pattern}"));
    if let Some(l) = language {
        cmd.arg(format!("--lang={l}"));
    }
    if let Some(r) = rewrite {
        cmd.arg(format!("--rewrite={r}"));
    }
    cmd.arg("--json=stream")
        .arg(root)
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| AstError::Engine(format!("cannot run {}: {e}", cli.display())))?;
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(s) = stdout.as_mut() {
            let _ = s.take(CLI_MAX_OUTPUT as u64 + 1).read_to_end(&mut buf);
            // Drain the rest so the child never blocks on a full pipe.
            let _ = std::io::copy(s, &mut std::io::sink());
        }
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(s) = stderr.as_mut() {
            let _ = s.take(64 * 1024).read_to_end(&mut buf);
            let _ = std::io::copy(s, &mut std::io::sink());
        }
        buf
    });
    let deadline = Instant::now() + CLI_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(AstError::Engine("ast-grep timed out".into()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(AstError::Engine(format!("ast-grep: {e}"))),
        }
    };
    let out = out_reader.join().unwrap_or_default();
    let err = String::from_utf8_lossy(&err_reader.join().unwrap_or_default())
        .trim()
        .to_string();
    // Exit 1 with no output at all means "no matches".
    let no_matches = status.code() == Some(1) && out.is_empty() && err.is_empty();
    if !status.success() && !no_matches {
        return Err(AstError::Engine(if err.is_empty() {
            format!("ast-grep failed ({status})")
        } else {
            err
        }));
    }
    let overflow = out.len() > CLI_MAX_OUTPUT;
    if overflow && rewrite.is_some() {
        return Err(AstError::Engine(format!(
            "output exceeds {CLI_MAX_OUTPUT} bytes; use a narrower path or pattern"
        )));
    }
    let text = String::from_utf8_lossy(&out[..out.len().min(CLI_MAX_OUTPUT)]);
    let mut lines: Vec<&str> = text.lines().collect();
    if overflow {
        lines.pop(); // possibly incomplete
    }
    let mut matches = Vec::new();
    for line in lines.iter().filter(|l| !l.trim().is_empty()) {
        let m: CliMatch = serde_json::from_str(line)
            .map_err(|e| AstError::Engine(format!("decode result: {e}")))?;
        let range = m.replacement_offsets.unwrap_or(m.range.byte_offset);
        let path = PathBuf::from(&m.file);
        let path = if path.is_absolute() {
            path
        } else {
            dir.join(path)
        };
        let text = if m.replacement_offsets.is_some() {
            std::fs::read_to_string(&path)
                .ok()
                .and_then(|s| s.get(range.start..range.end).map(str::to_string))
                .unwrap_or(m.text)
        } else {
            m.text
        };
        matches.push(Match {
            path,
            line: m.range.start.line + 1,
            end_line: m.range.end.line + 1,
            lines: m.lines.trim_end_matches('\n').to_string(),
            range: range.start..range.end,
            text,
            replacement: m.replacement,
        });
    }
    matches.sort_by(|a, b| a.path.cmp(&b.path).then(a.range.start.cmp(&b.range.start)));
    let truncated = overflow || matches.len() > MAX_MATCHES;
    matches.truncate(MAX_MATCHES);
    let mut warnings = Vec::new();
    if !err.is_empty() {
        warnings.push(err.chars().take(2048).collect());
    }
    Ok(Found {
        matches,
        files_searched: 0,
        truncated,
        warnings,
        engine: "ast-grep",
    })
}
