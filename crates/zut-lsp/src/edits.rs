//! Applying a server's `WorkspaceEdit` safely (tools.md §4.8): text edits
//! only, files inside the workspace only, everything validated before any
//! write, contents re-checked just before writing, each file written
//! through a temporary file and renamed over it with its permissions kept.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use lsp_types::{DocumentChangeOperation, DocumentChanges, OneOf, TextEdit, WorkspaceEdit};

use crate::diagnostics::display_path;

/// Largest file an edit may change.
pub const MAX_EDIT_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// Longest diff text returned.
const MAX_DIFF_BYTES: usize = 30 * 1024;

/// One file's planned change.
#[derive(Debug)]
pub struct FilePlan {
    /// Absolute path (symlinks resolved).
    pub path: PathBuf,
    /// The bytes read when planning.
    pub before: String,
    /// The new text.
    pub after: String,
}

/// Text edits per file of `edit`, or why it cannot be applied.
pub fn collect(edit: &WorkspaceEdit) -> Result<BTreeMap<PathBuf, Vec<TextEdit>>, String> {
    let mut out: BTreeMap<PathBuf, Vec<TextEdit>> = BTreeMap::new();
    let mut add = |uri: &lsp_types::Url, edits: Vec<TextEdit>| -> Result<(), String> {
        if uri.scheme() != "file" {
            return Err(format!("workspace edit targets a non-file URI: {uri}"));
        }
        let path = uri
            .to_file_path()
            .map_err(|_| format!("workspace edit targets an invalid file URI: {uri}"))?;
        out.entry(path).or_default().extend(edits);
        Ok(())
    };
    if let Some(changes) = &edit.changes {
        for (uri, edits) in changes {
            add(uri, edits.clone())?;
        }
    }
    match &edit.document_changes {
        None => {}
        Some(DocumentChanges::Edits(list)) => {
            for e in list {
                add(&e.text_document.uri, e.edits.iter().map(plain).collect())?;
            }
        }
        Some(DocumentChanges::Operations(ops)) => {
            for op in ops {
                match op {
                    DocumentChangeOperation::Edit(e) => {
                        add(&e.text_document.uri, e.edits.iter().map(plain).collect())?
                    }
                    DocumentChangeOperation::Op(_) => {
                        return Err(
                            "workspace edit contains an unsupported resource operation".into()
                        )
                    }
                }
            }
        }
    }
    Ok(out)
}

fn plain(e: &OneOf<TextEdit, lsp_types::AnnotatedTextEdit>) -> TextEdit {
    match e {
        OneOf::Left(t) => t.clone(),
        OneOf::Right(a) => a.text_edit.clone(),
    }
}

/// Plans every file's change; nothing is written. `cwd` bounds the files.
pub fn plan(cwd: &Path, edits: &BTreeMap<PathBuf, Vec<TextEdit>>) -> Result<Vec<FilePlan>, String> {
    let root = cwd
        .canonicalize()
        .map_err(|e| format!("workspace {}: {e}", cwd.display()))?;
    let mut plans = Vec::new();
    for (path, list) in edits {
        let real = path
            .canonicalize()
            .map_err(|e| format!("cannot edit {}: {e}", path.display()))?;
        if !real.starts_with(&root) {
            return Err(format!(
                "workspace edit touches {} outside the workspace {}; nothing was applied",
                path.display(),
                cwd.display()
            ));
        }
        let meta =
            std::fs::metadata(&real).map_err(|e| format!("cannot edit {}: {e}", path.display()))?;
        if !meta.is_file() {
            return Err(format!(
                "cannot edit {}: not a regular file",
                path.display()
            ));
        }
        if meta.len() > MAX_EDIT_FILE_BYTES {
            return Err(format!(
                "cannot edit {}: {} bytes is over the {MAX_EDIT_FILE_BYTES}-byte limit",
                path.display(),
                meta.len()
            ));
        }
        let before = std::fs::read_to_string(&real)
            .map_err(|e| format!("cannot edit {}: {e}", path.display()))?;
        let after = apply_text_edits(&before, list)
            .map_err(|e| format!("cannot edit {}: {e}", display_path(path, cwd)))?;
        if after != before {
            plans.push(FilePlan {
                path: real,
                before,
                after,
            });
        }
    }
    Ok(plans)
}

/// The byte offset of an LSP position (UTF-16 character) in `text`.
fn offset_of(text: &str, line_starts: &[usize], pos: lsp_types::Position) -> Result<usize, String> {
    let line = pos.line as usize;
    if line == line_starts.len() && pos.character == 0 {
        return Ok(text.len());
    }
    let start = *line_starts
        .get(line)
        .ok_or_else(|| format!("line {} is past the end of the file", line + 1))?;
    let end = line_starts.get(line + 1).copied().unwrap_or(text.len());
    let line_text = &text[start..end];
    let content = line_text.trim_end_matches(['\n', '\r']);
    let mut units = 0u32;
    for (i, ch) in content.char_indices() {
        if units == pos.character {
            return Ok(start + i);
        }
        if units > pos.character {
            return Err(format!(
                "character {} splits a UTF-16 pair on line {}",
                pos.character,
                line + 1
            ));
        }
        units += ch.len_utf16() as u32;
    }
    if units == pos.character {
        return Ok(start + content.len());
    }
    Err(format!(
        "character {} is past the end of line {}",
        pos.character,
        line + 1
    ))
}

/// Applies LSP text edits (positions in the original text) to `text`.
pub fn apply_text_edits(text: &str, edits: &[TextEdit]) -> Result<String, String> {
    let mut line_starts = vec![0usize];
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            line_starts.push(i + 1);
        }
    }
    if text.ends_with('\n') {
        // The position just after the final newline is line N, char 0.
        line_starts.pop();
        line_starts.push(text.len());
    }
    let mut spans = Vec::with_capacity(edits.len());
    for e in edits {
        let a = offset_of(text, &line_starts, e.range.start)?;
        let b = offset_of(text, &line_starts, e.range.end)?;
        if b < a {
            return Err("an edit's range ends before it starts".into());
        }
        spans.push((a, b, e.new_text.as_str()));
    }
    spans.sort_by_key(|s| (s.0, s.1));
    for w in spans.windows(2) {
        if w[1].0 < w[0].1 {
            return Err("the server sent overlapping edits".into());
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (a, b, new) in spans {
        out.push_str(&text[at..a]);
        out.push_str(new);
        at = b;
    }
    out.push_str(&text[at..]);
    Ok(out)
}

/// Writes the plans: each file is re-read and must still hold what was
/// planned (all are checked before the first write), then replaced
/// atomically with its permissions kept. Returns the unified diff.
pub fn write(cwd: &Path, plans: &[FilePlan]) -> Result<String, String> {
    for p in plans {
        let now = std::fs::read_to_string(&p.path)
            .map_err(|e| format!("cannot re-read {}: {e}", p.path.display()))?;
        if now != p.before {
            return Err(format!(
                "{} changed since the edit was planned; nothing was applied",
                display_path(&p.path, cwd)
            ));
        }
    }
    for p in plans {
        atomic_write(&p.path, p.after.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", display_path(&p.path, cwd)))?;
    }
    Ok(diff(cwd, plans))
}

fn atomic_write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let perms = std::fs::metadata(path)?.permissions();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.zut-lsp-{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::set_permissions(&tmp, perms)?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The unified diff of the plans (bounded).
pub fn diff(cwd: &Path, plans: &[FilePlan]) -> String {
    let mut out = String::new();
    let root = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    for p in plans {
        let name = display_path(&p.path, &root);
        let d = similar::TextDiff::from_lines(&p.before, &p.after);
        out.push_str(
            &d.unified_diff()
                .context_radius(2)
                .header(&format!("a/{name}"), &format!("b/{name}"))
                .to_string(),
        );
    }
    if out.len() > MAX_DIFF_BYTES {
        let mut cut = MAX_DIFF_BYTES;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push_str("\n... [diff truncated]\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{Position, Range};

    fn te(l1: u32, c1: u32, l2: u32, c2: u32, t: &str) -> TextEdit {
        TextEdit {
            range: Range::new(Position::new(l1, c1), Position::new(l2, c2)),
            new_text: t.into(),
        }
    }

    #[test]
    fn applies_utf16_positions() {
        let text = "let é = 1;\nlet 𝄞x = é;\n";
        // `x` after a surrogate pair: character 6 on line 1.
        let out = apply_text_edits(text, &[te(1, 6, 1, 7, "y"), te(0, 4, 0, 5, "e")]).unwrap();
        assert_eq!(out, "let e = 1;\nlet 𝄞y = é;\n");
        assert!(apply_text_edits(text, &[te(1, 5, 1, 6, "z")])
            .unwrap_err()
            .contains("UTF-16"));
        assert!(apply_text_edits(text, &[te(9, 0, 9, 1, "z")]).is_err());
        assert!(
            apply_text_edits(text, &[te(0, 0, 0, 5, "a"), te(0, 2, 0, 3, "b")])
                .unwrap_err()
                .contains("overlapping")
        );
        assert_eq!(
            apply_text_edits(text, &[te(2, 0, 2, 0, "end\n")]).unwrap(),
            format!("{text}end\n")
        );
    }

    #[test]
    fn refuses_outside_and_stale_files_and_keeps_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir(&ws).unwrap();
        let inside = ws.join("a.txt");
        let outside = dir.path().join("b.txt");
        std::fs::write(&inside, "one\n").unwrap();
        std::fs::set_permissions(&inside, std::fs::Permissions::from_mode(0o751)).unwrap();
        std::fs::write(&outside, "two\n").unwrap();
        let mut m = BTreeMap::new();
        m.insert(outside.clone(), vec![te(0, 0, 0, 3, "TWO")]);
        assert!(plan(&ws, &m).unwrap_err().contains("outside the workspace"));
        let mut m = BTreeMap::new();
        m.insert(inside.clone(), vec![te(0, 0, 0, 3, "ONE")]);
        let plans = plan(&ws, &m).unwrap();
        std::fs::write(&inside, "changed\n").unwrap();
        assert!(write(&ws, &plans).unwrap_err().contains("changed since"));
        assert_eq!(std::fs::read_to_string(&inside).unwrap(), "changed\n");
        std::fs::write(&inside, "one\n").unwrap();
        let diff = write(&ws, &plans).unwrap();
        assert!(diff.contains("-one\n+ONE"), "{diff}");
        assert_eq!(std::fs::read_to_string(&inside).unwrap(), "ONE\n");
        let mode = std::fs::metadata(&inside).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o751);
    }
}
