//! What code-intelligence results look like in a tool box: the
//! diagnostics attached after an edit as a compact, coloured list under
//! the box; `ast` rewrites and `lsp` renames / code actions as per-file
//! coloured diffs (like `edit`); `lsp` locations as `path:line:col` you can
//! copy (the path alone on its row's start, never cut).
//!
//! Everything is read from the result text the model gets (the format of
//! `zut_lsp::diagnostics::summarize` and of the tools' unified diffs, the
//! Go original's texts), so sessions replayed from a file look the same.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::sanitize;
use crate::theme::Theme;
use crate::wrap::wrap;

/// Tools whose successful results may end with a diagnostics block.
const WITH_DIAGNOSTICS: &[&str] = &["write", "edit", "ast", "lsp"];

/// The diagnostics block of a result, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostics {
    /// The counts (`1 error, 2 warnings (deduplicated 1)`).
    pub counts: String,
    /// Whether any item is an error (the header is red, else yellow).
    pub has_errors: bool,
    /// The items in order.
    pub items: Vec<Item>,
    /// Lines after the items (`(2 previously reported diagnostics
    /// unchanged)`, `... truncated; …`).
    pub notes: Vec<String>,
}

/// One listed diagnostic (or a group of them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// `ERROR`, `WARNING`, `INFO`, `HINT`, `SECONDARY`.
    pub severity: String,
    /// `path:line:col` for a single diagnostic.
    pub location: Option<String>,
    /// The rest: `[code] message`, or the group's description.
    pub text: String,
}

/// Splits a result into the part shown in the box and its diagnostics
/// block: the text from the last line that starts `Diagnostics: ` after
/// a blank line (or at the very start) to the end, for the tools that
/// attach diagnostics. Other tools' output is never split (a `bash`
/// command may print anything).
pub fn split<'a>(tool: &str, output: &'a str) -> (&'a str, Option<Diagnostics>) {
    if !WITH_DIAGNOSTICS.contains(&tool) {
        return (output, None);
    }
    let at = if output.starts_with("Diagnostics: ") {
        Some(0)
    } else {
        output.rfind("\n\nDiagnostics: ").map(|i| i + 2)
    };
    let Some(at) = at else {
        return (output, None);
    };
    match parse(&output[at..]) {
        Some(d) => (output[..at].trim_end_matches('\n'), Some(d)),
        None => (output, None),
    }
}

/// Parses a `Diagnostics: …` block; `None` when it is not one.
fn parse(block: &str) -> Option<Diagnostics> {
    let mut lines = block.lines();
    let counts = lines.next()?.strip_prefix("Diagnostics: ")?.to_string();
    let mut items = Vec::new();
    let mut notes = Vec::new();
    for l in lines {
        if let Some(rest) = l.strip_prefix("- ") {
            let Some((sev, text)) = rest.split_once(": ") else {
                notes.push(l.to_string());
                continue;
            };
            if !sev.chars().all(|c| c.is_ascii_uppercase()) {
                notes.push(l.to_string());
                continue;
            }
            let (location, text) = match text.split_once(' ') {
                Some((loc, rest)) if is_location(loc) => (Some(loc.to_string()), rest.to_string()),
                _ if is_location(text) => (Some(text.to_string()), String::new()),
                _ => (None, text.to_string()),
            };
            items.push(Item {
                severity: sev.to_string(),
                location,
                text,
            });
        } else if !l.trim().is_empty() {
            notes.push(l.to_string());
        }
    }
    let has_errors = items.iter().any(|i| i.severity == "ERROR") || counts.contains("error");
    Some(Diagnostics {
        counts,
        has_errors,
        items,
        notes,
    })
}

/// `path:line:col` (the path may itself hold colons).
fn is_location(s: &str) -> bool {
    let mut parts = s.rsplitn(3, ':');
    let col = parts.next().unwrap_or("");
    let line = parts.next().unwrap_or("");
    let path = parts.next().unwrap_or("");
    !path.is_empty()
        && !line.is_empty()
        && !col.is_empty()
        && line.bytes().all(|b| b.is_ascii_digit())
        && col.bytes().all(|b| b.is_ascii_digit())
}

impl Diagnostics {
    /// The list as rows under a tool box at `width`: a header with the
    /// counts, then one row per item (`✗` errors red, `⚠` warnings
    /// yellow, `·` the rest dim; the location in the accent colour, the
    /// message plain, wrapped under itself), then the notes dim.
    pub fn rows(&self, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        self.rows_indented(width, theme, 4)
    }

    /// The same rows indented by `indent` columns (0 inside a box, whose
    /// frame wraps them).
    pub fn rows_indented(&self, width: usize, theme: &Theme, indent: usize) -> Vec<Line<'static>> {
        let head_style = if self.has_errors {
            theme.error
        } else {
            theme.warn
        };
        let pad = " ".repeat(indent);
        let mut rows = vec![Line::from(vec![
            Span::raw(pad.clone()),
            Span::styled(
                format!("diagnostics: {}", sanitize::clean_line(&self.counts)),
                head_style,
            ),
        ])];
        for item in &self.items {
            let (mark, style) = match item.severity.as_str() {
                "ERROR" => ("✗", theme.error),
                "WARNING" => ("⚠", theme.warn),
                _ => ("·", theme.dim),
            };
            let mut spans = vec![Span::styled(format!("{mark} "), style)];
            if let Some(loc) = &item.location {
                spans.push(Span::styled(sanitize::clean_line(loc), location(theme)));
                spans.push(Span::raw("  "));
            } else if !matches!(item.severity.as_str(), "ERROR" | "WARNING") {
                spans.push(Span::styled(
                    format!("{}: ", item.severity.to_lowercase()),
                    theme.dim,
                ));
            }
            let text = sanitize::clean_line(&item.text);
            // `[code] message`: the code dim.
            match text.strip_prefix('[').and_then(|t| t.split_once("] ")) {
                Some((code, msg)) => {
                    spans.push(Span::styled(msg.to_string(), theme.text));
                    spans.push(Span::styled(format!(" [{code}]"), theme.dim));
                }
                None => spans.push(Span::styled(text, theme.text)),
            }
            let first = vec![Span::raw(pad.clone())];
            let rest = vec![Span::raw(format!("{pad}  "))];
            rows.extend(wrap(&spans, width, &first, &rest));
        }
        for n in &self.notes {
            let first = vec![Span::raw(pad.clone())];
            rows.extend(wrap(
                &[Span::styled(sanitize::clean_line(n), theme.dim)],
                width,
                &first,
                &first,
            ));
        }
        rows
    }
}

/// A copyable path: the accent colour, underlined.
fn location(theme: &Theme) -> Style {
    theme.accent.add_modifier(Modifier::UNDERLINED)
}

/// Whether `text` holds a unified diff with file headers (`--- a` then
/// `+++ b`), as `ast` rewrites and `lsp` renames and code actions return.
pub fn has_file_diff(text: &str) -> bool {
    let mut prev_minus = false;
    for l in text.lines() {
        if prev_minus && l.starts_with("+++ ") {
            return true;
        }
        prev_minus = l.starts_with("--- ");
    }
    false
}

/// Rows of a result holding file diffs: prose lines as they are, each
/// file's `--- a` / `+++ b` pair as one header row naming the file, its
/// hunks numbered with the file's own lines (like `edit`).
pub fn file_diff_rows(text: &str, theme: &Theme) -> Vec<Line<'static>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut rows = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        let next = lines.get(i + 1).copied().unwrap_or("");
        if l.starts_with("--- ") && next.starts_with("+++ ") {
            let name = next[4..].trim();
            let name = name
                .strip_prefix("b/")
                .filter(|_| l[4..].trim().starts_with("a/"))
                .unwrap_or(name);
            rows.push(Line::from(Span::styled(
                sanitize::clean_line(name),
                theme.tool_name.add_modifier(Modifier::BOLD),
            )));
            // The hunks: until a line no diff line starts with.
            let start = i + 2;
            let mut end = start;
            while end < lines.len() && is_diff_line(lines[end]) {
                if lines[end].starts_with("--- ")
                    && lines.get(end + 1).is_some_and(|n| n.starts_with("+++ "))
                {
                    break;
                }
                end += 1;
            }
            rows.extend(crate::diff_view::unified_rows(
                &lines[start..end].join("\n"),
                theme,
            ));
            i = end;
            continue;
        }
        rows.push(Line::from(Span::styled(
            sanitize::clean_line(l),
            theme.text,
        )));
        i += 1;
    }
    rows
}

fn is_diff_line(l: &str) -> bool {
    l.starts_with("@@")
        || l.starts_with(' ')
        || l.starts_with('+')
        || l.starts_with('-')
        || l.starts_with('\\')
}

/// `lsp` result rows: `  path:line:col: source` lines with the location
/// in the accent colour (underlined) and the source line dim; the other
/// lines plain.
pub fn lsp_rows(text: &str, theme: &Theme) -> Vec<Line<'static>> {
    text.lines()
        .map(|l| {
            let clean = sanitize::clean_line(l);
            let indent = clean.len() - clean.trim_start().len();
            let body = &clean[indent..];
            let (loc, rest) = match body.split_once(": ") {
                Some((loc, rest)) if is_location(loc) => (loc, Some(rest)),
                _ if is_location(body) => (body, None),
                _ => return Line::from(Span::styled(clean.clone(), theme.text)),
            };
            let mut spans = vec![
                Span::raw(clean[..indent].to_string()),
                Span::styled(loc.to_string(), location(theme)),
            ];
            if let Some(rest) = rest {
                spans.push(Span::styled(format!("  {rest}"), theme.dim));
            }
            Line::from(spans)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const EDIT: &str = "Edited src/lib.rs (1 replacement).\n\n--- src/lib.rs\n+++ src/lib.rs\n@@ -1,3 +1,3 @@\n fn a() {\n-    1\n+    \"x\"\n }\n\n\nDiagnostics: 1 error, 1 warning\n- ERROR: src/lib.rs:2:5 [E0308] mismatched types\n- WARNING: repeated 3 occurrences in src/lib.rs (lines: 4, 5, 6) [unused] unused variable (examples: src/lib.rs)\n(2 previously reported diagnostics unchanged)";

    #[test]
    fn the_diagnostics_block_is_split_off_and_parsed() {
        let (body, d) = split("edit", EDIT);
        assert!(body.ends_with(" }"), "{body:?}");
        let d = d.unwrap();
        assert_eq!(d.counts, "1 error, 1 warning");
        assert!(d.has_errors);
        assert_eq!(
            d.items[0],
            Item {
                severity: "ERROR".into(),
                location: Some("src/lib.rs:2:5".into()),
                text: "[E0308] mismatched types".into()
            }
        );
        assert_eq!(d.items[1].location, None);
        assert!(d.items[1].text.starts_with("repeated 3 occurrences"));
        assert_eq!(d.notes, ["(2 previously reported diagnostics unchanged)"]);
        // Not for bash, whatever it printed.
        assert!(split("bash", EDIT).1.is_none());
        // The lsp tool's own diagnostics action: the whole text.
        let (body, d) = split("lsp", "Diagnostics: 2 hints\n- HINT: a.py:1:1 x");
        assert_eq!(body, "");
        assert_eq!(d.unwrap().items.len(), 1);
        assert!(split("lsp", "No diagnostics.").1.is_none());
    }

    #[test]
    fn locations_keep_colons_in_paths() {
        assert!(is_location("C:/x/a.rs:1:2"));
        assert!(is_location("a.rs:10:3"));
        assert!(!is_location("a.rs:10"));
        assert!(!is_location("repeated"));
    }
}
