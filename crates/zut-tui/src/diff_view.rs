//! Coloured line diffs (with `similar`) for `edit` and `write` tool boxes.

use ratatui::text::{Line, Span};
use similar::{ChangeTag, TextDiff};

use crate::sanitize;
use crate::theme::Theme;

/// Rows of the diff from `old` to `new`; line numbers start at `start`
/// (the file's line number of the first line of `old`/`new`).
pub fn diff_rows(old: &str, new: &str, start: usize, theme: &Theme) -> Vec<Line<'static>> {
    let diff = TextDiff::from_lines(old, new);
    let mut rows = Vec::new();
    for change in diff.iter_all_changes() {
        let (sign, style, n) = match change.tag() {
            ChangeTag::Delete => ("-", theme.diff_del, change.old_index()),
            ChangeTag::Insert => ("+", theme.diff_add, change.new_index()),
            ChangeTag::Equal => (" ", theme.text, change.new_index()),
        };
        let num = n.map(|i| format!("{:>5}", i + start)).unwrap_or_default();
        let text = sanitize::clean_line(change.value().trim_end_matches('\n'));
        rows.push(Line::from(vec![
            Span::styled(format!("{sign}{num} "), style),
            Span::styled(text, style),
        ]));
    }
    rows
}

/// Rows of a unified diff (`@@ -a,b +c,d @@` hunks), each line numbered
/// with its line in the file (old number for removals, new otherwise).
pub fn unified_rows(diff: &str, theme: &Theme) -> Vec<Line<'static>> {
    let (mut old, mut new) = (0usize, 0usize);
    let mut rows = Vec::new();
    for line in diff.lines() {
        if let Some(h) = line.strip_prefix("@@") {
            let num = |sign: char| -> usize {
                h.split_whitespace()
                    .find_map(|p| p.strip_prefix(sign))
                    .and_then(|p| p.split(',').next())
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(1)
            };
            old = num('-');
            new = num('+');
            rows.push(Line::from(Span::styled(
                sanitize::clean_line(line),
                theme.diff_hunk,
            )));
            continue;
        }
        if line.starts_with("---") || line.starts_with("+++") || line.starts_with('\\') {
            continue;
        }
        let (sign, style, n) = match line.chars().next() {
            Some('-') => {
                old += 1;
                ("-", theme.diff_del, old - 1)
            }
            Some('+') => {
                new += 1;
                ("+", theme.diff_add, new - 1)
            }
            Some(' ') => {
                old += 1;
                new += 1;
                (" ", theme.text, new - 1)
            }
            _ => {
                rows.push(Line::from(Span::styled(
                    sanitize::clean_line(line),
                    theme.dim,
                )));
                continue;
            }
        };
        let text = sanitize::clean_line(line.get(1..).unwrap_or(""));
        rows.push(Line::from(vec![
            Span::styled(format!("{sign}{n:>5} "), style),
            Span::styled(text, style),
        ]));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theme::ColorDepth;

    #[test]
    fn unified_diff_uses_the_files_line_numbers() {
        let theme = Theme::new(ColorDepth::None);
        let d = "--- a\n+++ a\n@@ -40,3 +40,3 @@\n ctx\n-old\n+new\n ctx2\n";
        let rows: Vec<String> = unified_rows(d, &theme)
            .iter()
            .map(|l| l.to_string())
            .collect();
        assert_eq!(
            rows,
            [
                "@@ -40,3 +40,3 @@",
                "    40 ctx",
                "-   41 old",
                "+   41 new",
                "    42 ctx2"
            ]
        );
    }
}
