//! `zut ext logs <name> [-f|--follow]` (cli.md §2.6).
//!
//! Without `-f` the whole log is copied to stdout. With `-f` a built-in
//! follower behaves like `tail -F`: it prints the last
//! [`FOLLOW_BACKLOG_LINES`] lines, then new data as it is appended; it
//! starts over when the file is truncated or replaced (new inode), waits
//! while it is missing, and ends with exit 0 on Ctrl+C / SIGTERM.

use std::fs::File;
use std::io::{ErrorKind, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context};

use super::flags::name_and_switch;
use super::guard::check_plain_name;
use super::ExtContext;
use crate::interrupt::Interrupt;

/// Lines shown before following, like `tail`.
pub const FOLLOW_BACKLOG_LINES: usize = 10;
/// How often the follower polls the file.
pub const FOLLOW_POLL: Duration = Duration::from_millis(200);

const USAGE: &str = "usage: zut ext logs <name> [-f]";

/// Runs `zut ext logs`.
pub fn run(ctx: &ExtContext, args: &[String]) -> anyhow::Result<()> {
    let (name, follow) = name_and_switch(args, ["-f", "--follow"], "logs", USAGE)?;
    check_plain_name(name)?;
    let path = ctx.home.log_path(name);
    if !path.is_file() {
        bail!("no log for {name:?} at {}", path.display());
    }
    let result = if follow {
        let interrupt = Interrupt::install().context("install signal handler")?;
        follow_file(&path, &interrupt)
    } else {
        cat(&path)
    };
    match result {
        // `zut ext logs x | head` is not an error.
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(()),
        other => other.with_context(|| format!("read {}", path.display())),
    }
}

fn cat(path: &Path) -> std::io::Result<()> {
    let mut f = File::open(path)?;
    let mut out = std::io::stdout().lock();
    std::io::copy(&mut f, &mut out)?;
    out.flush()
}

/// Identity of the file currently at `path` (device + inode on Unix).
fn file_id(meta: &std::fs::Metadata) -> (u64, u64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        (0, 0)
    }
}

fn follow_file(path: &Path, interrupt: &Interrupt) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    let mut file = File::open(path)?;
    let mut id = file_id(&file.metadata()?);
    let mut pos = backlog_start(&mut file)?;
    file.seek(SeekFrom::Start(pos))?;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        // Drain whatever is there.
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                break;
            }
            out.write_all(&buf[..n])?;
            pos += n as u64;
        }
        out.flush()?;
        if interrupt.fired() {
            return Ok(());
        }
        std::thread::sleep(FOLLOW_POLL);
        if interrupt.fired() {
            return Ok(());
        }
        match std::fs::metadata(path) {
            Ok(meta) if file_id(&meta) != id => {
                // Replaced: read the rest of the old file, then switch.
                if let Ok(new) = File::open(path) {
                    let mut old = std::mem::replace(&mut file, new);
                    std::io::copy(&mut old, &mut out)?;
                    id = file_id(&file.metadata()?);
                    pos = 0;
                }
            }
            Ok(meta) if meta.len() < pos => {
                // Truncated: start over from the beginning.
                file.seek(SeekFrom::Start(0))?;
                pos = 0;
            }
            // Still the same file, or missing for now: keep waiting.
            _ => {}
        }
    }
}

/// Byte offset where the last [`FOLLOW_BACKLOG_LINES`] lines start.
fn backlog_start(file: &mut File) -> std::io::Result<u64> {
    let len = file.metadata()?.len();
    let window = len.min(256 * 1024);
    file.seek(SeekFrom::Start(len - window))?;
    let mut tail = Vec::with_capacity(usize::try_from(window).unwrap_or(0));
    file.read_to_end(&mut tail)?;
    // Ignore a final newline, then find the N-th newline from the end.
    let body = tail.strip_suffix(b"\n").unwrap_or(&tail);
    let mut seen = 0;
    for (i, b) in body.iter().enumerate().rev() {
        if *b == b'\n' {
            seen += 1;
            if seen == FOLLOW_BACKLOG_LINES {
                return Ok(len - window + i as u64 + 1);
            }
        }
    }
    Ok(len - window)
}
