//! `edit`: exact, unique text substitutions returning a unified diff.
//!
//! Arguments follow zut's Go original: `{path, edits: [{oldText, newText}]}`.
//! All edits are located in the file as it was before the call, must each
//! match exactly once, must not overlap, and are applied together or not at
//! all. CRLF files and a UTF-8 BOM are preserved.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::limits::*;
use crate::{blocking, io_error_text, parse_args, FileAccess, ToolContext, ToolOutput};

#[derive(Deserialize)]
struct EditArgs {
    path: String,
    edits: Vec<EditOp>,
}

#[derive(Deserialize)]
struct EditOp {
    #[serde(rename = "oldText")]
    old_text: String,
    #[serde(rename = "newText")]
    new_text: String,
}

/// Line numbers reported for an ambiguous match.
const MAX_REPORTED_LINES: usize = 5;

pub(crate) async fn run(args: &Value, ctx: &ToolContext) -> ToolOutput {
    let a: EditArgs = match parse_args("edit", args) {
        Ok(a) => a,
        Err(out) => return out,
    };
    let path = ctx.resolve(&a.path);
    if let Err(out) = crate::jail::check_write(ctx, &path) {
        return out;
    }
    match &ctx.files {
        Some(files) => edit_via(files.as_ref(), a, path).await,
        None => blocking("edit", move || edit_file(&a, &path)).await,
    }
}

/// The `--no-yolo` preview: the diff the edit would make (or why it would
/// fail), nothing written. Reads the disk (not a front end's buffers).
pub(crate) async fn preview(args: &Value, ctx: &ToolContext) -> String {
    let a: EditArgs = match parse_args("edit", args) {
        Ok(a) => a,
        Err(out) => return out.text_content(),
    };
    let path = ctx.resolve(&a.path);
    if let Err(out) = crate::jail::check_write(ctx, &path) {
        return out.text_content();
    }
    blocking("edit", move || {
        match read_for_edit(&a, &path).and_then(|raw| apply_edits(&a, &raw)) {
            Ok((_, out)) | Err(out) => out,
        }
    })
    .await
    .text_content()
}

fn edit_file(a: &EditArgs, path: &Path) -> ToolOutput {
    let raw = match read_for_edit(a, path) {
        Ok(raw) => raw,
        Err(out) => return out,
    };
    let (bytes, out) = match apply_edits(a, &raw) {
        Ok(done) => done,
        Err(out) => return out,
    };
    if let Err(e) = std::fs::write(path, &bytes) {
        return ToolOutput::error(io_error_text("write", &a.path, &e));
    }
    out
}

/// Edits through the front end's [`FileAccess`] (an editor's buffers): the
/// text comes from it and goes back to it. When it cannot read the file
/// the edit works on the disk as usual.
async fn edit_via(files: &dyn FileAccess, a: EditArgs, path: std::path::PathBuf) -> ToolOutput {
    let text = match files.read_text(&path).await {
        Ok(t) => t,
        Err(_) => return blocking("edit", move || edit_file(&a, &path)).await,
    };
    if text.len() as u64 > EDIT_MAX_FILE_BYTES {
        return ToolOutput::error(format!(
            "Cannot edit {}: it has {} bytes, more than the {EDIT_MAX_FILE_BYTES}-byte edit limit.",
            a.path,
            text.len()
        ));
    }
    let (bytes, out) = match apply_edits(&a, text.as_bytes()) {
        Ok(done) => done,
        Err(out) => return out,
    };
    let updated = String::from_utf8_lossy(&bytes).into_owned();
    if let Err(e) = files.write_text(&path, &updated).await {
        return ToolOutput::error(format!("Cannot write {}: {e}", a.path));
    }
    out
}

/// The file's bytes, after the checks (exists, not a directory, size).
fn read_for_edit(a: &EditArgs, path: &Path) -> Result<Vec<u8>, ToolOutput> {
    let shown = a.path.as_str();
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ToolOutput::error(format!(
                "Cannot edit {shown}: file not found. Use `write` to create a new file."
            )))
        }
        Err(e) => return Err(ToolOutput::error(io_error_text("edit", shown, &e))),
    };
    if meta.is_dir() {
        return Err(ToolOutput::error(format!(
            "Cannot edit {shown}: it is a directory."
        )));
    }
    if meta.len() > EDIT_MAX_FILE_BYTES {
        return Err(ToolOutput::error(format!(
            "Cannot edit {shown}: it has {} bytes, more than the {EDIT_MAX_FILE_BYTES}-byte edit limit. \
             Use `bash` (e.g. sed) for very large files.",
            meta.len()
        )));
    }
    std::fs::read(path).map_err(|e| ToolOutput::error(io_error_text("read", shown, &e)))
}

/// Applies the edits to `raw` (BOM and CRLF kept): the new bytes and the
/// success output with its diff, or the error output.
fn apply_edits(a: &EditArgs, raw: &[u8]) -> Result<(Vec<u8>, ToolOutput), ToolOutput> {
    let shown = a.path.as_str();
    let (bom, body) = match raw.strip_prefix(b"\xEF\xBB\xBF".as_slice()) {
        Some(rest) => (true, rest),
        None => (false, raw),
    };
    let text = match std::str::from_utf8(body) {
        Ok(t) if !t.contains('\0') => t,
        _ => {
            return Err(ToolOutput::error(format!(
                "Cannot edit {shown}: it is not UTF-8 text. Use `bash` for binary files."
            )))
        }
    };
    let crlf = text.contains("\r\n");
    let original = if crlf {
        text.replace("\r\n", "\n")
    } else {
        text.to_string()
    };

    let mut spans: Vec<(usize, usize, String, usize)> = Vec::with_capacity(a.edits.len());
    let n_edits = a.edits.len();
    for (i, op) in a.edits.iter().enumerate() {
        let label = if n_edits == 1 {
            String::new()
        } else {
            format!("edit {}: ", i + 1)
        };
        let old = op.old_text.replace("\r\n", "\n");
        let new = op.new_text.replace("\r\n", "\n");
        if old.is_empty() {
            return Err(ToolOutput::error(format!(
                "{label}oldText must not be empty."
            )));
        }
        if old == new {
            return Err(ToolOutput::error(format!(
                "{label}oldText and newText are identical; nothing would change."
            )));
        }
        let starts = match_starts(&original, &old);
        match starts.len() {
            0 => {
                return Err(ToolOutput::error(format!(
                    "{label}oldText was not found in {shown}. {}",
                    not_found_hint(&original, &old)
                )))
            }
            1 => spans.push((starts[0], starts[0] + old.len(), new, i + 1)),
            n => {
                let lines: Vec<String> = starts
                    .iter()
                    .take(MAX_REPORTED_LINES)
                    .map(|s| line_of(&original, *s).to_string())
                    .collect();
                let more = if n > MAX_REPORTED_LINES {
                    format!(" (and {} more)", n - MAX_REPORTED_LINES)
                } else {
                    String::new()
                };
                return Err(ToolOutput::error(format!(
                    "{label}oldText matches {n} times in {shown} (at lines {}{more}); it must match \
                     exactly once. Include more surrounding lines in oldText to pick one location.",
                    lines.join(", ")
                )));
            }
        }
    }
    spans.sort_by_key(|s| s.0);
    for pair in spans.windows(2) {
        if pair[1].0 < pair[0].1 {
            return Err(ToolOutput::error(format!(
                "edits {} and {} overlap; merge them into one edit.",
                pair[0].3, pair[1].3
            )));
        }
    }
    let mut updated = String::with_capacity(original.len());
    let mut prev = 0;
    for (start, end, new, _) in &spans {
        updated.push_str(&original[prev..*start]);
        updated.push_str(new);
        prev = *end;
    }
    updated.push_str(&original[prev..]);

    let mut bytes = Vec::with_capacity(updated.len() + 3);
    if bom {
        bytes.extend_from_slice(b"\xEF\xBB\xBF");
    }
    if crlf {
        bytes.extend_from_slice(updated.replace('\n', "\r\n").as_bytes());
    } else {
        bytes.extend_from_slice(updated.as_bytes());
    }

    let diff = similar::TextDiff::from_lines(&original, &updated)
        .unified_diff()
        .context_radius(3)
        .header(shown, shown)
        .to_string();
    let diff = if diff.len() > EDIT_MAX_DIFF_BYTES {
        let mut cut = EDIT_MAX_DIFF_BYTES;
        while !diff.is_char_boundary(cut) {
            cut -= 1;
        }
        format!(
            "{}\n[diff cut at {} KiB of {} bytes; read the file to see the result]\n",
            &diff[..cut],
            EDIT_MAX_DIFF_BYTES / 1024,
            diff.len()
        )
    } else {
        diff
    };
    let out = ToolOutput::text(format!(
        "Edited {shown} ({} replacement{}).\n\n{diff}",
        spans.len(),
        if spans.len() == 1 { "" } else { "s" }
    ));
    Ok((bytes, out))
}

/// Every start offset of `needle` in `hay`, overlapping ones included.
fn match_starts(hay: &str, needle: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut from = 0;
    while from <= hay.len() {
        match hay[from..].find(needle) {
            Some(rel) => {
                let at = from + rel;
                starts.push(at);
                // Advance one character to catch overlapping matches.
                let step = hay[at..].chars().next().map_or(1, char::len_utf8);
                from = at + step;
            }
            None => break,
        }
    }
    starts
}

/// 1-based line number of byte offset `at`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// Guidance for an oldText that does not occur verbatim.
fn not_found_hint(file: &str, old: &str) -> String {
    let old_lines: Vec<&str> = old.lines().collect();
    if !old_lines.is_empty()
        && old_lines
            .iter()
            .filter(|l| !l.trim().is_empty())
            .all(|l| looks_numbered(l))
    {
        return "oldText seems to contain the line-number prefixes that `read` shows \
                (spaces, a number and a tab); remove them and copy only the file's text."
            .to_string();
    }
    let file_lines: Vec<&str> = file.lines().collect();
    let want: Vec<&str> = old_lines.iter().map(|l| l.trim()).collect();
    if !want.is_empty() && want.len() <= file_lines.len() {
        let hits: Vec<usize> = (0..=file_lines.len() - want.len())
            .filter(|&i| {
                want.iter()
                    .zip(&file_lines[i..i + want.len()])
                    .all(|(w, f)| *w == f.trim())
            })
            .take(MAX_REPORTED_LINES)
            .collect();
        if !hits.is_empty() {
            let at: Vec<String> = hits.iter().map(|i| (i + 1).to_string()).collect();
            return format!(
                "It does match when leading/trailing whitespace is ignored, at line(s) {}: copy the \
                 exact indentation and spacing from the file (read it again around there).",
                at.join(", ")
            );
        }
    }
    if let Some(first) = old_lines.iter().map(|l| l.trim()).find(|l| !l.is_empty()) {
        let hits: Vec<String> = file_lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.contains(first))
            .take(MAX_REPORTED_LINES)
            .map(|(i, _)| (i + 1).to_string())
            .collect();
        if !hits.is_empty() {
            return format!(
                "Its first line occurs at line(s) {} but the following lines differ; read the file \
                 around there and copy the text verbatim.",
                hits.join(", ")
            );
        }
    }
    "The file may have changed since you read it; read it again and copy oldText verbatim \
     (spaces, tabs and line breaks included)."
        .to_string()
}

fn looks_numbered(line: &str) -> bool {
    let t = line.trim_start_matches(' ');
    let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
    digits > 0 && t[digits..].starts_with('\t')
}
