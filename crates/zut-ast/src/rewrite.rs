//! Rewrite planning (in memory) and application (verified, atomic).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::{AstError, Match};

/// The planned change of one file.
#[derive(Debug, Clone, PartialEq)]
pub struct FilePlan {
    /// The file, as found under the search root.
    pub path: PathBuf,
    /// Its bytes when the plan was made.
    pub original: String,
    /// Its bytes after the rewrite.
    pub updated: String,
    /// Replacements applied (overlapping inner matches dropped).
    pub replacements: usize,
}

impl FilePlan {
    /// A unified diff (3 lines of context) with `shown` as both file names.
    pub fn diff(&self, shown: &str) -> String {
        similar::TextDiff::from_lines(&self.original, &self.updated)
            .unified_diff()
            .context_radius(3)
            .header(shown, shown)
            .to_string()
    }
}

/// A planned rewrite: the changed files, sorted by path.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// Changed files only.
    pub files: Vec<FilePlan>,
}

/// Groups replacement matches by file and computes each file's new text.
/// Matches overlapping an earlier, longer one are dropped (outermost
/// wins); a match whose text is no longer at its range means the file
/// changed while planning.
pub(crate) fn plan(matches: &[Match]) -> Result<Plan, AstError> {
    let mut by_file: BTreeMap<&Path, Vec<&Match>> = BTreeMap::new();
    for m in matches {
        if m.replacement.is_some() {
            by_file.entry(m.path.as_path()).or_default().push(m);
        }
    }
    let mut files = Vec::new();
    for (path, mut ms) in by_file {
        let original = std::fs::read_to_string(path)
            .map_err(|e| AstError::Io(format!("{}: {e}", path.display())))?;
        ms.sort_by(|a, b| {
            a.range
                .start
                .cmp(&b.range.start)
                .then(b.range.end.cmp(&a.range.end))
        });
        let mut selected: Vec<&Match> = Vec::new();
        for m in ms {
            if selected
                .last()
                .is_some_and(|prev| m.range.start < prev.range.end)
            {
                continue;
            }
            match original.get(m.range.clone()) {
                Some(t) if t == m.text => selected.push(m),
                Some(_) => {
                    return Err(AstError::Io(format!(
                        "{} changed while planning rewrite",
                        path.display()
                    )))
                }
                None => {
                    return Err(AstError::Io(format!(
                        "invalid rewrite range in {}",
                        path.display()
                    )))
                }
            }
        }
        let mut updated = original.clone();
        for m in selected.iter().rev() {
            updated.replace_range(
                m.range.clone(),
                m.replacement.as_deref().unwrap_or_default(),
            );
        }
        if updated != original {
            files.push(FilePlan {
                path: path.to_path_buf(),
                original,
                updated,
                replacements: selected.len(),
            });
        }
    }
    Ok(Plan { files })
}

/// Why applying a plan stopped.
#[derive(Debug, Clone, PartialEq)]
pub struct ApplyError {
    /// What went wrong (names the file).
    pub message: String,
    /// Files already written before the failure.
    pub written: Vec<PathBuf>,
}

impl std::fmt::Display for ApplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        if !self.written.is_empty() {
            let list: Vec<String> = self
                .written
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            write!(f, " (already written: {})", list.join(", "))?;
        }
        Ok(())
    }
}

/// Writes a plan. Every file is first checked against its planned
/// original (any difference refuses the whole plan, nothing written), then
/// each is checked again immediately before it is replaced, through a
/// temporary file in its directory that keeps the original permissions,
/// is synced, and is renamed over the (symlink-resolved) target.
pub fn apply(plan: &Plan) -> Result<Vec<PathBuf>, ApplyError> {
    let fail = |message: String, written: &[PathBuf]| ApplyError {
        message,
        written: written.to_vec(),
    };
    for f in &plan.files {
        check_unchanged(f).map_err(|m| fail(m, &[]))?;
    }
    let mut written = Vec::new();
    for f in &plan.files {
        check_unchanged(f).map_err(|m| fail(m, &written))?;
        write_atomic(&f.path, f.updated.as_bytes()).map_err(|m| fail(m, &written))?;
        written.push(f.path.clone());
    }
    Ok(written)
}

fn check_unchanged(f: &FilePlan) -> Result<(), String> {
    match std::fs::read(&f.path) {
        Ok(now) if now == f.original.as_bytes() => Ok(()),
        Ok(_) => Err(format!(
            "{} changed while applying rewrite; nothing was written to it. Search again and retry",
            f.path.display()
        )),
        Err(e) => Err(format!("{}: {e}", f.path.display())),
    }
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let target = std::fs::canonicalize(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let dir = target
        .parent()
        .ok_or_else(|| format!("{}: no parent directory", target.display()))?;
    let perms = std::fs::metadata(&target)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .permissions();
    let mut tmp = tempfile::Builder::new()
        .prefix(".zut-ast-")
        .tempfile_in(dir)
        .map_err(|e| format!("{}: cannot create a temporary file: {e}", dir.display()))?;
    tmp.write_all(bytes)
        .and_then(|_| tmp.as_file().set_permissions(perms))
        .and_then(|_| tmp.as_file().sync_all())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    tmp.persist(&target)
        .map_err(|e| format!("{}: {}", path.display(), e.error))?;
    Ok(())
}
