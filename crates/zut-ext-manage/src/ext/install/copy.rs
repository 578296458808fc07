//! Recursive copy of a local extension into the staging directory.
//!
//! - File permission bits are preserved; directories get the source's mode
//!   once their content is copied.
//! - Every `.git` directory is skipped.
//! - Paths matched by the source's **root** `.gitignore` are skipped (git
//!   semantics via the `ignore` crate: `!` negation, `dir/` patterns, a
//!   path inside an ignored directory is ignored), except the `required`
//!   paths (manifest, exec file) and the directories leading to them.
//! - Symbolic links are recreated as links (not followed); other special
//!   files (FIFOs, sockets, devices) are skipped.

use std::fs;
use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::interrupt::Interrupt;

/// Why the copy stopped.
#[derive(Debug)]
pub enum CopyError {
    /// A filesystem error on the given path.
    Io(PathBuf, std::io::Error),
    /// Ctrl+C / SIGTERM.
    Interrupted,
}

impl std::fmt::Display for CopyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Io(p, e) => write!(f, "{}: {e}", p.display()),
            Self::Interrupted => f.write_str("interrupted"),
        }
    }
}

struct Copier<'a> {
    ignore: Gitignore,
    required: &'a [PathBuf],
    interrupt: &'a Interrupt,
}

/// Copies `src` into the new directory `dst` (see the module docs).
/// `required` holds paths relative to `src`.
pub fn copy_extension(
    src: &Path,
    dst: &Path,
    required: &[PathBuf],
    interrupt: &Interrupt,
) -> Result<(), CopyError> {
    let c = Copier {
        ignore: root_gitignore(src),
        required,
        interrupt,
    };
    fs::create_dir(dst).map_err(|e| CopyError::Io(dst.to_path_buf(), e))?;
    c.copy_dir(src, dst, Path::new(""))?;
    copy_dir_mode(src, dst)
}

/// The matcher of `<src>/.gitignore` (empty if there is none). Lines that
/// fail to parse are ignored, like git does.
fn root_gitignore(src: &Path) -> Gitignore {
    let mut b = GitignoreBuilder::new(src);
    let file = src.join(".gitignore");
    if file.is_file() {
        let _ = b.add(file);
    }
    b.build().unwrap_or_else(|_| Gitignore::empty())
}

impl Copier<'_> {
    fn is_required(&self, rel: &Path, is_dir: bool) -> bool {
        self.required
            .iter()
            .any(|r| r == rel || (is_dir && r.starts_with(rel)))
    }

    fn copy_dir(&self, src: &Path, dst: &Path, rel: &Path) -> Result<(), CopyError> {
        let io = |p: &Path| {
            let p = p.to_path_buf();
            move |e| CopyError::Io(p, e)
        };
        let mut entries: Vec<_> = fs::read_dir(src)
            .map_err(io(src))?
            .collect::<Result<_, _>>()
            .map_err(io(src))?;
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            if self.interrupt.fired() {
                return Err(CopyError::Interrupted);
            }
            let name = entry.file_name();
            let from = entry.path();
            let to = dst.join(&name);
            let rel = rel.join(&name);
            let ft = entry.file_type().map_err(io(&from))?;
            let is_dir = ft.is_dir();
            if is_dir && name == ".git" {
                continue;
            }
            if self
                .ignore
                .matched_path_or_any_parents(&rel, is_dir)
                .is_ignore()
                && !self.is_required(&rel, is_dir)
            {
                continue;
            }
            if is_dir {
                fs::create_dir(&to).map_err(io(&to))?;
                self.copy_dir(&from, &to, &rel)?;
                copy_dir_mode(&from, &to)?;
            } else if ft.is_symlink() {
                let target = fs::read_link(&from).map_err(io(&from))?;
                make_symlink(&target, &to).map_err(io(&to))?;
            } else if ft.is_file() {
                fs::copy(&from, &to).map_err(io(&from))?;
            }
        }
        Ok(())
    }
}

fn copy_dir_mode(from: &Path, to: &Path) -> Result<(), CopyError> {
    let perms = fs::metadata(from)
        .map_err(|e| CopyError::Io(from.to_path_buf(), e))?
        .permissions();
    fs::set_permissions(to, perms).map_err(|e| CopyError::Io(to.to_path_buf(), e))
}

#[cfg(unix)]
fn make_symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(not(unix))]
fn make_symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    // Best effort elsewhere: copy what the link points to.
    fs::copy(link.parent().unwrap_or(Path::new(".")).join(target), link).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn gitignore_negation_dirs_and_required() {
        let t = tempfile::tempdir().unwrap();
        let src = t.path().join("src");
        for d in [
            ".git/objects",
            ".venv/lib",
            "node_modules/x",
            "bin",
            "sub/.git",
            "logs",
        ] {
            fs::create_dir_all(src.join(d)).unwrap();
        }
        let files = [
            ".gitignore",
            ".git/HEAD",
            ".venv/lib/a.py",
            "node_modules/x/i.js",
            "debug.log",
            "keep.log",
            "logs/x.txt",
            "bin/run",
            "bin/other",
            "main.py",
            "extension.json",
            "sub/.git/config",
        ];
        for f in files {
            fs::write(src.join(f), "x").unwrap();
        }
        fs::write(
            src.join(".gitignore"),
            ".venv/\nnode_modules/\n*.log\n!keep.log\nbin/\nextension.json\nlogs\n",
        )
        .unwrap();
        fs::set_permissions(src.join("bin/run"), fs::Permissions::from_mode(0o750)).unwrap();
        let dst = t.path().join("dst");
        let required = vec![PathBuf::from("extension.json"), PathBuf::from("bin/run")];
        copy_extension(&src, &dst, &required, &Interrupt::default()).unwrap();
        for f in [
            ".gitignore",
            "keep.log",
            "bin/run",
            "main.py",
            "extension.json",
        ] {
            assert!(dst.join(f).is_file(), "{f} missing");
        }
        for f in [
            ".git",
            ".venv",
            "node_modules",
            "debug.log",
            "bin/other",
            "sub/.git",
            "logs",
        ] {
            assert!(!dst.join(f).exists(), "{f} copied");
        }
        assert_eq!(
            fs::metadata(dst.join("bin/run"))
                .unwrap()
                .permissions()
                .mode()
                & 0o777,
            0o750
        );
    }
}
