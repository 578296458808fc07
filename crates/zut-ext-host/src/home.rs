//! `$ZUT_HOME` resolution and the paths derived from it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// zut's state directory (`$ZUT_HOME`), holding `extensions/` and `logs/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZutHome {
    root: PathBuf,
}

impl ZutHome {
    /// Uses `root` as `$ZUT_HOME`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// Resolves `$ZUT_HOME` from the process environment.
    pub fn from_env() -> Self {
        Self::from_vars(|k| std::env::var_os(k))
    }

    /// Resolves `$ZUT_HOME` from an environment lookup: `ZUT_HOME` if
    /// non-empty; else `$XDG_STATE_HOME/zut`; else the platform default
    /// (`~/.local/state/zut` on Linux, `~/Library/Application Support/zut`
    /// on macOS, `%LOCALAPPDATA%\zut` on Windows); last resort `.zut`.
    pub fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> Self {
        let non_empty = |k: &str| var(k).filter(|v| !v.is_empty());
        if let Some(home) = non_empty("ZUT_HOME") {
            return Self::new(home);
        }
        if let Some(xdg) = non_empty("XDG_STATE_HOME") {
            return Self::new(PathBuf::from(xdg).join("zut"));
        }
        if cfg!(windows) {
            if let Some(local) = non_empty("LOCALAPPDATA") {
                return Self::new(PathBuf::from(local).join("zut"));
            }
        } else if let Some(home) = non_empty("HOME") {
            let home = PathBuf::from(home);
            return Self::new(if cfg!(target_os = "macos") {
                home.join("Library/Application Support/zut")
            } else {
                home.join(".local/state/zut")
            });
        }
        Self::new(".zut")
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `$ZUT_HOME/extensions` (global scope).
    pub fn extensions_dir(&self) -> PathBuf {
        self.root.join("extensions")
    }

    /// `$ZUT_HOME/logs`.
    pub fn logs_dir(&self) -> PathBuf {
        self.root.join("logs")
    }

    /// `$ZUT_HOME/logs/ext-<name>.log`.
    pub fn log_path(&self, manifest_name: &str) -> PathBuf {
        self.logs_dir().join(format!("ext-{manifest_name}.log"))
    }
}

/// `<cwd>/.zut/extensions` (project scope).
pub fn project_extensions_dir(cwd: &Path) -> PathBuf {
    cwd.join(".zut").join("extensions")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn zut_home_wins_then_xdg_then_home() {
        assert_eq!(
            ZutHome::from_vars(vars(&[("ZUT_HOME", "/z"), ("XDG_STATE_HOME", "/x")])).root(),
            Path::new("/z")
        );
        let h = ZutHome::from_vars(vars(&[("ZUT_HOME", ""), ("XDG_STATE_HOME", "/x")]));
        assert_eq!(h.extensions_dir(), Path::new("/x/zut/extensions"));
        assert_eq!(h.log_path("a"), Path::new("/x/zut/logs/ext-a.log"));
        if cfg!(target_os = "linux") {
            assert_eq!(
                ZutHome::from_vars(vars(&[("HOME", "/h")])).root(),
                Path::new("/h/.local/state/zut")
            );
        }
        assert_eq!(ZutHome::from_vars(vars(&[])).root(), Path::new(".zut"));
    }
}
