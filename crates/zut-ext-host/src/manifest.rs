//! `extension.json`: parsing, validation and `exec` resolution.

use std::path::{Component, Path, PathBuf};

use serde::Deserialize;

/// File name of the manifest inside an extension directory.
pub const MANIFEST_FILE: &str = "extension.json";

/// The parsed `extension.json`. Unknown keys are ignored.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Manifest {
    /// Identity everywhere (log file, state key, note prefix).
    #[serde(default)]
    pub name: String,
    /// Shown by `ext list` and `doctor`.
    #[serde(default)]
    pub version: String,
    /// Executable: absolute, extension-relative, or a bare PATH command.
    #[serde(default)]
    pub exec: String,
    /// Extra argv, not shell-expanded.
    #[serde(default)]
    pub args: Vec<String>,
    /// Informational.
    #[serde(default)]
    pub language: String,
    /// Informational.
    #[serde(default)]
    pub description: String,
    /// Bundled skill directories, relative to the extension directory.
    #[serde(default)]
    pub skills: Vec<String>,
    /// `false` disables the extension without removing it.
    #[serde(default = "enabled_default")]
    pub enabled: bool,
    /// Declared permissions (zut's addition; the Go original ignores the
    /// key): the extension then runs inside exactly that policy. Kept raw
    /// here and checked by [`Manifest::permissions`], so a malformed value
    /// is a clear error for this extension only.
    #[serde(default)]
    pub permissions: Option<serde_json::Value>,
}

fn enabled_default() -> bool {
    true
}

/// Everything that can be wrong with a manifest. The `Display` text is the
/// detail after `<dir>: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    /// The file is missing or unreadable.
    #[error("read manifest: {0}")]
    Read(String),
    /// Invalid JSON or wrong field types; the detail names file, line and column.
    #[error("parse manifest: {0}")]
    Parse(String),
    /// `name` is empty or blank.
    #[error("manifest: name is required")]
    NameRequired,
    /// `name` has leading or trailing whitespace.
    #[error("manifest: extension name {0:?} has leading or trailing whitespace")]
    NameWhitespace(String),
    /// `name` cannot be used as a file name.
    #[error("manifest: invalid extension name {0:?} (it must not start with '.' or contain '/', '\\\\' or control characters)")]
    InvalidName(String),
    /// No `exec` and no theme file.
    #[error("manifest: exec is required")]
    ExecRequired,
    /// A relative `exec` resolves outside the extension directory.
    #[error("manifest: exec {0:?} escapes the extension directory")]
    ExecEscapes(String),
    /// `permissions` is malformed.
    #[error("manifest: permissions: {0}")]
    Permissions(String),
}

/// Largest `extension.json` read.
pub const MAX_MANIFEST_BYTES: u64 = 1024 * 1024;

/// How `exec` is launched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecSpec {
    /// No `exec` (theme-only extension).
    None,
    /// An absolute path or a path inside the extension directory.
    Local(PathBuf),
    /// A bare command looked up on `PATH` when started (`node`, `python3`).
    Path(String),
}

impl Manifest {
    /// Parses manifest text; `file` is only used in error messages.
    pub fn parse(text: &str, file: &Path) -> Result<Self, ManifestError> {
        serde_json::from_str(text)
            .map_err(|e| ManifestError::Parse(format!("{}: {e}", file.display())))
    }

    /// Reads and parses `<dir>/extension.json` (no validation).
    /// A manifest over [`MAX_MANIFEST_BYTES`] is refused unread.
    pub fn read(dir: &Path) -> Result<Self, ManifestError> {
        use std::io::Read;
        let file = dir.join(MANIFEST_FILE);
        let fail =
            |e: &dyn std::fmt::Display| ManifestError::Read(format!("{}: {e}", file.display()));
        let f = std::fs::File::open(&file).map_err(|e| fail(&e))?;
        let mut text = String::new();
        f.take(MAX_MANIFEST_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|e| fail(&e))?;
        if text.len() as u64 > MAX_MANIFEST_BYTES {
            return Err(fail(&format_args!(
                "larger than {} KiB; a manifest is a few hundred bytes",
                MAX_MANIFEST_BYTES / 1024
            )));
        }
        Self::parse(&text, &file)
    }

    /// Reads, parses and validates the manifest of `dir`.
    pub fn load(dir: &Path) -> Result<Self, ManifestError> {
        let m = Self::read(dir)?;
        m.validate(dir)?;
        Ok(m)
    }

    /// Checks the name, the presence of `exec` (unless theme-only) and that
    /// a relative `exec` stays inside `dir` (also through symlinks).
    pub fn validate(&self, dir: &Path) -> Result<(), ManifestError> {
        validate_name(&self.name)?;
        self.permissions()?;
        if self.exec.trim().is_empty() {
            if has_theme(dir) {
                return Ok(());
            }
            return Err(ManifestError::ExecRequired);
        }
        if let ExecSpec::Local(path) = self.exec_spec(dir) {
            if !Path::new(&self.exec).is_absolute() && !stays_inside(dir, &path) {
                return Err(ManifestError::ExecEscapes(self.exec.clone()));
            }
        }
        Ok(())
    }

    /// The declared permissions, checked: `None` when the manifest has no
    /// `permissions` (or `null`): the extension is unconfined unless the
    /// host is strict.
    pub fn permissions(&self) -> Result<Option<zut_sandbox::Declared>, ManifestError> {
        match &self.permissions {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(v) => zut_sandbox::Declared::from_json(v)
                .map(Some)
                .map_err(ManifestError::Permissions),
        }
    }

    /// Whether this extension spawns nothing (no `exec`, has a theme file).
    pub fn is_theme_only(&self, dir: &Path) -> bool {
        self.exec.trim().is_empty() && has_theme(dir)
    }

    /// Resolves `exec` against the extension directory.
    pub fn exec_spec(&self, dir: &Path) -> ExecSpec {
        resolve_exec(&self.exec, dir)
    }
}

/// The bundled skills a manifest's `skills` declares, checked as
/// sessions-themes-skills.md §3.3 says. Problems never fail the extension:
/// each becomes one message (the host records it as a doctor warning
/// prefixed `skill: `).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BundledSkills {
    /// `SKILL.md` files, in declaration order, then child-directory order.
    pub files: Vec<PathBuf>,
    /// One message per rejected path, without the `skill: ` prefix.
    pub errors: Vec<String>,
}

impl Manifest {
    /// Checks every `skills` entry of the extension in `dir` and lists the
    /// `SKILL.md` files it contributes:
    ///
    /// 1. empty or absolute → `skill path "<p>" must be a relative directory`;
    /// 2. `.`, `..` or climbing out (after cleaning) → `skill path "<p>"
    ///    escapes the extension directory`;
    /// 3. resolved through symlinks: missing → `skill path "<p>": <os
    ///    error>`, outside the resolved extension directory → `… escapes the
    ///    extension directory through a symlink`;
    /// 4. `<p>/SKILL.md` if it is a file (children not scanned), otherwise
    ///    `<p>/<child>/SKILL.md` of each immediate child directory;
    /// 5. each `SKILL.md` must resolve inside the extension directory, else
    ///    `<file>: resolved path escapes bundled extension directory`;
    ///    missing ones are skipped silently.
    pub fn bundled_skills(&self, dir: &Path) -> BundledSkills {
        let mut out = BundledSkills::default();
        let root = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        for declared in &self.skills {
            let p = declared.trim();
            if p.is_empty() || Path::new(p).is_absolute() {
                out.errors.push(format!(
                    "skill path {declared:?} must be a relative directory"
                ));
                continue;
            }
            let clean = match normalize(Path::new(p)) {
                Some(c) if !c.as_os_str().is_empty() => c,
                _ => {
                    out.errors.push(format!(
                        "skill path {declared:?} escapes the extension directory"
                    ));
                    continue;
                }
            };
            let real = match std::fs::canonicalize(root.join(&clean)) {
                Ok(r) => r,
                Err(e) => {
                    out.errors.push(format!("skill path {declared:?}: {e}"));
                    continue;
                }
            };
            if !real.starts_with(&root) || real == root {
                out.errors.push(format!(
                    "skill path {declared:?} escapes the extension directory through a symlink"
                ));
                continue;
            }
            let direct = real.join("SKILL.md");
            let candidates = if direct.is_file() {
                vec![direct]
            } else {
                let mut children: Vec<PathBuf> = std::fs::read_dir(&real)
                    .map(|entries| {
                        entries
                            .filter_map(Result::ok)
                            .map(|e| e.path())
                            .filter(|p| p.is_dir())
                            .map(|p| p.join("SKILL.md"))
                            .collect()
                    })
                    .unwrap_or_default();
                children.sort();
                children
            };
            for file in candidates {
                match std::fs::canonicalize(&file) {
                    Err(_) => {}
                    Ok(resolved) if !resolved.starts_with(&root) => out.errors.push(format!(
                        "{}: resolved path escapes bundled extension directory",
                        file.display()
                    )),
                    Ok(resolved) if resolved.is_file() => out.files.push(file),
                    Ok(_) => {}
                }
            }
        }
        out
    }
}

/// Resolves an `exec` value per protocol §2.1.
pub fn resolve_exec(exec: &str, dir: &Path) -> ExecSpec {
    let exec = exec.trim();
    if exec.is_empty() {
        return ExecSpec::None;
    }
    let path = Path::new(exec);
    if path.is_absolute() {
        return ExecSpec::Local(path.to_path_buf());
    }
    if exec == "." || exec == ".." || exec.contains('/') || exec.contains(std::path::MAIN_SEPARATOR)
    {
        // `./run` is `<dir>/run`, not `<dir>/./run`, in paths we show.
        let rel: PathBuf = path
            .components()
            .filter(|c| !matches!(c, Component::CurDir))
            .collect();
        return ExecSpec::Local(dir.join(rel));
    }
    ExecSpec::Path(exec.to_string())
}

/// Name rules shared by load and install: non-blank, no surrounding
/// whitespace, no leading `.`, no path separators or control characters.
pub fn validate_name(name: &str) -> Result<(), ManifestError> {
    if name.trim().is_empty() {
        return Err(ManifestError::NameRequired);
    }
    if name.trim() != name {
        return Err(ManifestError::NameWhitespace(name.to_string()));
    }
    if name.starts_with('.') || name.contains(['/', '\\']) || name.chars().any(char::is_control) {
        return Err(ManifestError::InvalidName(name.to_string()));
    }
    Ok(())
}

/// Whether `dir` has `theme.json` or `themes/theme.json`.
pub fn has_theme(dir: &Path) -> bool {
    dir.join("theme.json").is_file() || dir.join("themes").join("theme.json").is_file()
}

/// Whether `path` (which may not exist yet) stays inside `dir`, both
/// lexically and after resolving symlinks of its existing prefix.
pub fn stays_inside(dir: &Path, path: &Path) -> bool {
    let Some(lexical) = normalize(path) else {
        return false;
    };
    let Some(base) = normalize(dir) else {
        return false;
    };
    if !lexical.starts_with(&base) {
        return false;
    }
    // Resolve symlinks on the longest existing prefix.
    let real_base = std::fs::canonicalize(dir).unwrap_or(base);
    let mut existing = lexical.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            let mut full = real;
            for part in rest.iter().rev() {
                full.push(part);
            }
            return full.starts_with(&real_base);
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return true,
        }
    }
}

/// Lexical normalisation: removes `.` and folds `..`; `None` if `..`
/// climbs above the root of a relative path.
pub fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oversized_manifest_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let mut body = String::from("{\"name\": \"big\", \"exec\": \"x\", \"description\": \"");
        body.push_str(&"d".repeat(MAX_MANIFEST_BYTES as usize));
        body.push_str("\"}");
        std::fs::write(dir.path().join(MANIFEST_FILE), &body).unwrap();
        let err = Manifest::read(dir.path()).unwrap_err().to_string();
        assert!(err.starts_with("read manifest: "), "{err}");
        assert!(
            err.ends_with(
                "extension.json: larger than 1024 KiB; a manifest is a few hundred bytes"
            ),
            "{err}"
        );
        // A normal manifest loads.
        std::fs::write(
            dir.path().join(MANIFEST_FILE),
            r#"{"name": "small", "exec": "x"}"#,
        )
        .unwrap();
        assert_eq!(Manifest::read(dir.path()).unwrap().name, "small");
    }

    #[test]
    fn exec_resolution() {
        let d = Path::new("/e");
        assert_eq!(resolve_exec("node", d), ExecSpec::Path("node".into()));
        assert_eq!(resolve_exec("./run", d), ExecSpec::Local("/e/run".into()));
        assert_eq!(
            resolve_exec("./bin/./run", d),
            ExecSpec::Local("/e/bin/run".into())
        );
        assert_eq!(
            resolve_exec("bin/run", d),
            ExecSpec::Local("/e/bin/run".into())
        );
        assert_eq!(
            resolve_exec("/abs/run", d),
            ExecSpec::Local("/abs/run".into())
        );
        assert_eq!(resolve_exec("", d), ExecSpec::None);
    }

    #[test]
    fn names() {
        assert_eq!(validate_name(""), Err(ManifestError::NameRequired));
        assert!(matches!(
            validate_name(" x "),
            Err(ManifestError::NameWhitespace(_))
        ));
        assert!(matches!(
            validate_name(".example"),
            Err(ManifestError::InvalidName(_))
        ));
        assert!(matches!(
            validate_name("a/b"),
            Err(ManifestError::InvalidName(_))
        ));
        assert!(validate_name("todo-panel").is_ok());
    }

    #[test]
    fn parse_error_names_line_and_column() {
        let e = Manifest::parse(
            "{\n  \"name\": \"x\",\n  oops\n}",
            Path::new("/e/extension.json"),
        )
        .unwrap_err();
        let text = e.to_string();
        assert!(text.contains("parse manifest: /e/extension.json"), "{text}");
        assert!(text.contains("line 3 column 3"), "{text}");
    }

    #[test]
    fn bundled_skills_follow_the_path_rules() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("ext");
        let outside = root.path().join("outside");
        for d in [
            dir.join("single"),
            dir.join("many/a"),
            dir.join("many/b"),
            dir.join("many/empty"),
            dir.join("linked"),
            outside.join("skill"),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        for f in [
            dir.join("single/SKILL.md"),
            dir.join("many/b/SKILL.md"),
            dir.join("many/a/SKILL.md"),
            outside.join("skill/SKILL.md"),
        ] {
            std::fs::write(f, "---\nname: x\n---\n").unwrap();
        }
        // A child of `single` is never scanned.
        std::fs::create_dir_all(dir.join("single/child")).unwrap();
        std::fs::write(dir.join("single/child/SKILL.md"), "x").unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("out-link")).unwrap();
        std::os::unix::fs::symlink(outside.join("skill/SKILL.md"), dir.join("linked/SKILL.md"))
            .unwrap();
        let m = Manifest {
            skills: [
                "single",
                "many",
                "",
                "  ",
                "/abs",
                "..",
                ".",
                "../outside",
                "out-link",
                "linked",
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            ..Manifest::parse(r#"{"name":"x"}"#, Path::new("m")).unwrap()
        };
        let got = m.bundled_skills(&dir);
        let real = std::fs::canonicalize(&dir).unwrap();
        assert_eq!(
            got.files,
            vec![
                real.join("single/SKILL.md"),
                real.join("many/a/SKILL.md"),
                real.join("many/b/SKILL.md"),
            ]
        );
        let e = &got.errors;
        assert_eq!(e.len(), 8, "{e:#?}");
        assert_eq!(e[0], "skill path \"\" must be a relative directory");
        assert_eq!(e[1], "skill path \"  \" must be a relative directory");
        assert_eq!(e[2], "skill path \"/abs\" must be a relative directory");
        assert_eq!(e[3], "skill path \"..\" escapes the extension directory");
        assert_eq!(e[4], "skill path \".\" escapes the extension directory");
        assert_eq!(
            e[5],
            "skill path \"../outside\" escapes the extension directory"
        );
        assert_eq!(
            e[6],
            "skill path \"out-link\" escapes the extension directory through a symlink"
        );
        assert!(
            e[7].ends_with("linked/SKILL.md: resolved path escapes bundled extension directory"),
            "{}",
            e[7]
        );
        // `missing` would be the ninth: it reports the OS error.
        let m = Manifest {
            skills: vec!["missing".into()],
            ..m
        };
        let got = m.bundled_skills(&dir);
        assert!(
            got.errors[0].starts_with("skill path \"missing\": "),
            "{:?}",
            got.errors
        );
    }

    #[test]
    fn escaping_exec_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let m = Manifest {
            name: "x".into(),
            exec: "../outside".into(),
            ..Manifest::parse("{}", Path::new("m")).unwrap()
        };
        assert_eq!(
            m.validate(dir.path()),
            Err(ManifestError::ExecEscapes("../outside".into()))
        );
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        let m = Manifest {
            exec: "link/run".into(),
            ..m
        };
        assert_eq!(
            m.validate(dir.path()),
            Err(ManifestError::ExecEscapes("link/run".into()))
        );
        let m = Manifest {
            exec: "./run".into(),
            ..m
        };
        assert_eq!(m.validate(dir.path()), Ok(()));
    }
}
