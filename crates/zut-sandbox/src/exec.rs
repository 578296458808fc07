//! Resolving an exec allow-list to the files the kernel will be asked to
//! execute: the programs (through `PATH` and symlinks), the interpreters of
//! scripts (`#!`), and the ELF loader.

use std::io::Read;
use std::path::{Path, PathBuf};

/// ELF interpreters a dynamically linked program needs to execute.
const LOADERS: &[&str] = &[
    "/lib64/ld-linux-x86-64.so.2",
    "/lib/ld-linux-x86-64.so.2",
    "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
    "/lib/ld-linux-aarch64.so.1",
    "/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1",
    "/lib/ld-musl-x86_64.so.1",
    "/lib/ld-musl-aarch64.so.1",
];

/// Every file to grant execution for `programs` (see the module docs).
/// Names that cannot be found are skipped.
pub fn resolve_all(programs: &[String]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for p in programs {
        if let Some(found) = which(p) {
            add_with_interpreters(&found, &mut out, 0);
        }
    }
    for l in LOADERS {
        if let Ok(real) = std::fs::canonicalize(l) {
            push_unique(&mut out, real);
        }
    }
    out
}

/// `name` resolved: a path as is, a bare name through `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        return Some(PathBuf::from(name)).filter(|p| p.is_file());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

fn add_with_interpreters(path: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    // The path as named and as resolved: Landlock checks the file itself,
    // but both spellings cost nothing.
    push_unique(out, path.to_path_buf());
    if let Ok(real) = std::fs::canonicalize(path) {
        push_unique(out, real);
    }
    if depth > 3 {
        return;
    }
    let Some((interp, arg)) = shebang(path) else {
        return;
    };
    add_with_interpreters(&interp, out, depth + 1);
    // `#!/usr/bin/env python3`: the program env starts.
    if interp.file_name().is_some_and(|n| n == "env") {
        if let Some(found) = arg.as_deref().and_then(which) {
            add_with_interpreters(&found, out, depth + 1);
        }
    }
}

/// The `#!` line of a script: interpreter and first argument.
fn shebang(path: &Path) -> Option<(PathBuf, Option<String>)> {
    let mut f = std::fs::File::open(path).ok()?;
    let mut buf = [0u8; 256];
    let n = f.read(&mut buf).ok()?;
    let head = buf.get(..n)?;
    let line = head.strip_prefix(b"#!")?;
    let end = line.iter().position(|&b| b == b'\n').unwrap_or(line.len());
    let text = std::str::from_utf8(&line[..end]).ok()?;
    let mut words = text.split_whitespace();
    let interp = PathBuf::from(words.next()?);
    let arg = words.find(|w| !w.starts_with('-')).map(str::to_string);
    Some((interp, arg))
}

fn push_unique(out: &mut Vec<PathBuf>, p: PathBuf) {
    if !out.contains(&p) {
        out.push(p);
    }
}
