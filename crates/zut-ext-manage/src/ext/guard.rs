//! Path guards: every delete, rename or rewrite done by `zut ext` must stay
//! inside an extension scope directory (`$ZUT_HOME/extensions` or
//! `<cwd>/.zut/extensions`).

use std::path::{Component, Path};

use anyhow::{bail, Context};

/// Rejects names that could address anything but a direct child of a
/// scope directory: empty, leading `.`, path separators, NUL.
pub fn check_plain_name(name: &str) -> anyhow::Result<()> {
    if name.is_empty() || name.starts_with('.') || name.contains(['/', '\\', '\0']) {
        bail!("invalid extension name {name:?}: it must not be empty, start with '.' or contain a path separator");
    }
    Ok(())
}

/// Ensures `path` is a real (non-symlink) directory whose parent is, after
/// resolving symlinks, one of `scopes`, and whose last component is a
/// plain name. Returns an error naming the path otherwise.
pub fn ensure_scope_child(path: &Path, scopes: &[&Path]) -> anyhow::Result<()> {
    let refuse = || {
        anyhow::anyhow!(
            "refusing to touch {}: not inside an extension directory",
            path.display()
        )
    };
    match path.components().next_back() {
        Some(Component::Normal(n)) if !n.to_string_lossy().starts_with('.') => {}
        _ => return Err(refuse()),
    }
    let meta =
        std::fs::symlink_metadata(path).with_context(|| format!("stat {}", path.display()))?;
    if !meta.is_dir() {
        return Err(refuse());
    }
    let parent = path.parent().ok_or_else(refuse)?;
    let real_parent =
        std::fs::canonicalize(parent).with_context(|| format!("resolve {}", parent.display()))?;
    let inside = scopes
        .iter()
        .filter_map(|s| std::fs::canonicalize(s).ok())
        .any(|s| s == real_parent);
    if !inside {
        return Err(refuse());
    }
    Ok(())
}

/// Ensures `dest` (which must not exist yet) would be a direct child of
/// `scope`, after resolving symlinks of `scope`.
pub fn ensure_new_scope_child(dest: &Path, scope: &Path) -> anyhow::Result<()> {
    let refuse = || {
        anyhow::anyhow!(
            "refusing to write {}: not inside {}",
            dest.display(),
            scope.display()
        )
    };
    match dest.components().next_back() {
        Some(Component::Normal(n)) if !n.to_string_lossy().starts_with('.') => {}
        _ => return Err(refuse()),
    }
    let parent = dest.parent().ok_or_else(refuse)?;
    let real_parent =
        std::fs::canonicalize(parent).with_context(|| format!("resolve {}", parent.display()))?;
    let real_scope =
        std::fs::canonicalize(scope).with_context(|| format!("resolve {}", scope.display()))?;
    if real_parent != real_scope {
        return Err(refuse());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(check_plain_name("todo").is_ok());
        for bad in ["", ".", "..", "../x", "a/b", "a\\b", ".hidden"] {
            assert!(check_plain_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn scope_children() {
        let t = tempfile::tempdir().unwrap();
        let scope = t.path().join("extensions");
        std::fs::create_dir_all(scope.join("a")).unwrap();
        std::fs::create_dir_all(t.path().join("outside")).unwrap();
        assert!(ensure_scope_child(&scope.join("a"), &[&scope]).is_ok());
        assert!(ensure_scope_child(&scope.join("../outside"), &[&scope]).is_err());
        assert!(ensure_scope_child(&scope.join("a/.."), &[&scope]).is_err());
        assert!(ensure_scope_child(&t.path().join("outside"), &[&scope]).is_err());
        std::os::unix::fs::symlink(t.path().join("outside"), scope.join("link")).unwrap();
        assert!(ensure_scope_child(&scope.join("link"), &[&scope]).is_err());
        assert!(ensure_new_scope_child(&scope.join("new"), &scope).is_ok());
        assert!(ensure_new_scope_child(&scope.join("a/new"), &scope).is_err());
        assert!(ensure_new_scope_child(&scope.join(".."), &scope).is_err());
    }
}
