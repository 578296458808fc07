//! Manifest and executable checks of `zut ext install` (cli.md §2.3).

use std::path::{Component, Path, PathBuf};

use zut_ext_host::manifest::{ExecSpec, Manifest, MANIFEST_FILE};

/// Reads and validates `<dir>/extension.json` with the install-time texts
/// (the caller adds `source extension: ` or `cloned extension: `).
pub fn read_install_manifest(dir: &Path) -> Result<Manifest, String> {
    let text = match std::fs::read_to_string(dir.join(MANIFEST_FILE)) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err("source lacks extension.json".into())
        }
        Err(e) => return Err(format!("read extension.json: {e}")),
    };
    let manifest: Manifest =
        serde_json::from_str(&text).map_err(|e| format!("parse extension.json: {e}"))?;
    // Name rules, exec-or-theme and "exec stays inside" are shared with the host.
    manifest.validate(dir).map_err(|e| e.to_string())?;
    Ok(manifest)
}

/// The path of a local, relative `exec` inside the extension directory
/// (lexically normalised, e.g. `./bin/run` → `bin/run`), or why there is
/// none. The error is the part before `: --build=<b> requires …`.
pub fn relative_exec(manifest: &Manifest, dir: &Path) -> Result<PathBuf, String> {
    let exec = manifest.exec.trim();
    if exec.is_empty() {
        return Err(
            "cannot build a theme-only extension; it does not declare an executable".into(),
        );
    }
    if Path::new(exec).is_absolute() {
        return Err(format!("extension executable {exec:?} is absolute"));
    }
    match manifest.exec_spec(dir) {
        ExecSpec::Local(_) => {}
        _ => return Err(format!("extension executable {exec:?} is a PATH command")),
    }
    match normalize_relative(Path::new(exec)) {
        Some(rel) if !rel.as_os_str().is_empty() => Ok(rel),
        _ => Err(format!(
            "extension executable {exec:?} escapes the extension directory"
        )),
    }
}

/// `a/./b/../c` → `a/c`; `None` if it climbs above its start or is absolute.
pub fn normalize_relative(path: &Path) -> Option<PathBuf> {
    if path.has_root() || matches!(path.components().next(), Some(Component::Prefix(_))) {
        return None;
    }
    zut_ext_host::manifest::normalize(path)
}

/// Paths (relative to the extension directory) that are copied even when
/// the source's `.gitignore` matches them: the manifest and a local,
/// relative `exec` that stays inside.
pub fn required_paths(manifest: &Manifest, dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from(MANIFEST_FILE)];
    if let Ok(rel) = relative_exec(manifest, dir) {
        out.push(rel);
    }
    out
}

/// Executable validation after copy/clone/build: PATH commands are not
/// checked; otherwise the file must exist, not be a directory and (Unix)
/// carry an execute bit.
pub fn validate_executable(dir: &Path, manifest: &Manifest) -> Result<(), String> {
    let exec = &manifest.exec;
    let ExecSpec::Local(path) = manifest.exec_spec(dir) else {
        return Ok(());
    };
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "extension executable {exec:?} is missing; provide it before installing. \
                 Local Go extensions can opt in with `zut ext install --build=go <path>`, \
                 Rust ones with `zut ext install --build=cargo <path>`"
            ));
        }
        Err(e) => return Err(format!("stat extension executable {exec:?}: {e}")),
    };
    if meta.is_dir() {
        return Err(format!("extension executable {exec:?} is a directory"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o111 == 0 {
            return Err(format!(
                "extension executable {exec:?} is not executable; run chmod +x on it in the source directory before installing"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(exec: &str) -> Manifest {
        let mut m: Manifest = serde_json::from_str(r#"{"name":"x"}"#).unwrap();
        m.exec = exec.into();
        m
    }

    #[test]
    fn relative_exec_cases() {
        let d = Path::new("/e");
        assert_eq!(
            relative_exec(&manifest("./bin/run"), d),
            Ok(PathBuf::from("bin/run"))
        );
        assert!(relative_exec(&manifest(""), d)
            .unwrap_err()
            .contains("theme-only"));
        assert!(relative_exec(&manifest("/abs"), d)
            .unwrap_err()
            .contains("is absolute"));
        assert!(relative_exec(&manifest("node"), d)
            .unwrap_err()
            .contains("PATH command"));
        assert!(relative_exec(&manifest("../x"), d)
            .unwrap_err()
            .contains("escapes"));
        assert!(relative_exec(&manifest("."), d)
            .unwrap_err()
            .contains("escapes"));
    }
}
