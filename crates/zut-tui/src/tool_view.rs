//! Tool calls as boxes: the tool's name and a one-line summary of its
//! arguments, live output while it runs, output collapsed after
//! [`COLLAPSED_LINES`] lines, exit status, errors in red, `edit`/`write`
//! as coloured diffs numbered with the file's own line numbers.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::sanitize;
use crate::theme::Theme;
use crate::wrap::{self, wrap};

/// Output lines shown before a box is collapsed.
pub const COLLAPSED_LINES: usize = 10;
/// Output kept per tool for display (the model gets the full result).
const MAX_KEPT: usize = 4 * 1024 * 1024;

/// One tool call as the transcript shows it.
#[derive(Debug, Clone)]
pub struct ToolCell {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments (once complete).
    pub args: Value,
    /// Live output (bash) or the final result text.
    pub output: String,
    /// `None` while running; `Some(is_error)` when finished.
    pub result: Option<bool>,
}

impl ToolCell {
    /// A call that has just started streaming.
    pub fn new(id: String, name: String) -> Self {
        Self {
            id,
            name,
            args: Value::Null,
            output: String::new(),
            result: None,
        }
    }

    /// Appends live output.
    pub fn progress(&mut self, text: &str) {
        if self.output.len() < MAX_KEPT {
            self.output.push_str(&sanitize::clean(text));
        }
    }

    /// Sets the final result.
    pub fn finish(&mut self, is_error: bool, text: &str) {
        let mut t = sanitize::clean(text).into_owned();
        if t.len() > MAX_KEPT {
            let mut cut = MAX_KEPT;
            while !t.is_char_boundary(cut) {
                cut -= 1;
            }
            t.truncate(cut);
            t.push_str("\n… (output cut for display)");
        }
        self.output = t;
        self.result = Some(is_error);
    }

    /// One-line summary of the arguments.
    pub fn summary(&self) -> String {
        let s = |k: &str| self.args.get(k).and_then(Value::as_str).map(str::to_string);
        let text = match self.name.as_str() {
            "bash" => s("command"),
            "read" | "write" | "edit" | "ls" => s("path"),
            "grep" | "find" => s("pattern").map(|p| match s("path") {
                Some(path) => format!("{p} in {path}"),
                None => p,
            }),
            "ast" => s("pattern").map(|p| {
                let mut t = p;
                if let Some(r) = s("rewrite") {
                    t = format!("{t} → {r}");
                }
                match s("path") {
                    Some(path) => format!("{t} in {path}"),
                    None => t,
                }
            }),
            "lsp" => s("action").map(|a| {
                let n = |k: &str| self.args.get(k).and_then(Value::as_u64);
                let mut t = a;
                if let Some(path) = s("path") {
                    t.push(' ');
                    t.push_str(&path);
                    if let (Some(l), Some(c)) = (n("line"), n("column")) {
                        t.push_str(&format!(":{l}:{c}"));
                    } else if let Some(l) = n("line") {
                        t.push_str(&format!(":{l}"));
                    }
                }
                for k in ["new_name", "query", "method"] {
                    if let Some(v) = s(k) {
                        t.push_str(&format!(" {v}"));
                    }
                }
                t
            }),
            _ => None,
        };
        let text = text.or_else(|| crate::web_view::summary(&self.name, &self.args));
        let text = text.unwrap_or_else(|| match &self.args {
            Value::Null => String::new(),
            Value::Object(m) if m.is_empty() => String::new(),
            v => v.to_string(),
        });
        sanitize::clean_line(&text)
    }

    /// The box's rows at `width`, collapsed unless `expanded`.
    pub fn rows(&self, width: usize, theme: &Theme, expanded: bool) -> Vec<Line<'static>> {
        let width = width.max(12);
        let inner = width.saturating_sub(6);
        let border = theme.border;
        let mut rows = Vec::new();
        let title = format!(" {} ", self.name);
        let summary = wrap::truncate(
            Line::from(self.summary()),
            inner.saturating_sub(title.len() + 2).max(1),
        );
        let mut head = vec![
            Span::styled("  ┌─", border),
            Span::styled(title.clone(), theme.tool_name),
        ];
        head.extend(summary.spans.clone());
        let used = 4 + wrap::width(&title) + wrap::line_width(&summary);
        head.push(Span::styled(
            format!(" {}┐", "─".repeat(width.saturating_sub(used + 2).max(1))),
            border,
        ));
        rows.push(Line::from(head));
        let body = match (expanded, self.web_rows(theme)) {
            (false, Some(mut web)) => {
                let n = self.output.lines().count();
                web.push(Line::from(Span::styled(
                    format!("… ctrl+o: the {n} lines the model got"),
                    theme.dim,
                )));
                web
            }
            _ => self.body_lines(theme),
        };
        let total = body.len();
        let shown: Vec<Line<'static>> = if expanded || total <= COLLAPSED_LINES + 2 {
            body
        } else if self.result.is_none() {
            // Running: the newest lines.
            body[total - COLLAPSED_LINES..].to_vec()
        } else {
            body[..COLLAPSED_LINES].to_vec()
        };
        let side = |l: Line<'static>| -> Vec<Line<'static>> {
            let mut out = Vec::new();
            let first = vec![Span::styled("  │ ", border)];
            for mut r in wrap(&l.spans, width.saturating_sub(2), &first, &first) {
                let pad = width.saturating_sub(wrap::line_width(&r) + 1);
                r.spans.push(Span::raw(" ".repeat(pad)));
                r.spans.push(Span::styled("│", border));
                out.push(r);
            }
            out
        };
        for l in shown {
            rows.extend(side(l));
        }
        if !expanded && total > COLLAPSED_LINES + 2 {
            let hidden = total - COLLAPSED_LINES;
            let note = if self.result.is_none() {
                format!("… {hidden} earlier lines")
            } else {
                format!("… ({hidden} more lines, {total} total, ctrl+o to expand)")
            };
            rows.extend(side(Line::from(Span::styled(note, theme.dim))));
        }
        let status = match self.result {
            None => Span::styled(" running ", theme.dim),
            Some(false) => Span::styled(" done ", theme.success),
            Some(true) => Span::styled(" failed ", theme.error),
        };
        let sw = wrap::width(&status.content);
        rows.push(Line::from(vec![
            Span::styled("  └─", border),
            status,
            Span::styled(
                format!("{}┘", "─".repeat(width.saturating_sub(sw + 5).max(1))),
                border,
            ),
        ]));
        // The diagnostics attached after an edit: a list under the box.
        // (The `lsp` diagnostics action's list is the box's body.)
        if let (false, Some(d)) = (self.diagnostics_only(), self.diagnostics()) {
            rows.extend(d.rows(width, theme));
        }
        rows
    }

    /// The result text shown in the box (without a trailing diagnostics
    /// block) and that block, parsed (finished, successful calls only).
    fn split_result(&self) -> (&str, Option<crate::result_view::Diagnostics>) {
        if self.result != Some(false) {
            return (&self.output, None);
        }
        crate::result_view::split(&self.name, &self.output)
    }

    /// A successful web tool's compact rows (titles, URLs, references).
    fn web_rows(&self, theme: &Theme) -> Option<Vec<Line<'static>>> {
        if self.result != Some(false) || !crate::web_view::is_web(&self.name) {
            return None;
        }
        crate::web_view::rows(&self.name, &self.output, theme)
    }

    /// Whether the box hides part of the result, so Ctrl+O has something
    /// to show in full.
    pub fn collapses(&self) -> bool {
        self.output.lines().count() > COLLAPSED_LINES + 2
            || (self.result == Some(false) && crate::web_view::is_web(&self.name))
    }

    /// Whether the whole result is a diagnostics list (`lsp` with
    /// `action: diagnostics`).
    fn diagnostics_only(&self) -> bool {
        matches!(self.split_result(), ("", Some(_)))
    }

    /// The diagnostics attached to a successful result, if any.
    pub fn diagnostics(&self) -> Option<crate::result_view::Diagnostics> {
        self.split_result().1
    }

    fn body_lines(&self, theme: &Theme) -> Vec<Line<'static>> {
        if let (Some(false), Some(diff)) = (self.result, self.diff_lines(theme)) {
            return diff;
        }
        let (text, diagnostics) = self.split_result();
        if self.result == Some(false) && self.name == "lsp" {
            if let ("", Some(d)) = (text, &diagnostics) {
                return d.rows_indented(10_000, theme, 0);
            }
            return crate::result_view::lsp_rows(text.trim_end_matches('\n'), theme);
        }
        let output = text;
        let style = if self.result == Some(true) {
            theme.error
        } else {
            Style::default()
        };
        let mut out: Vec<Line<'static>> = Vec::new();
        if self.name == "bash" {
            let cmd = self.summary();
            if !cmd.is_empty() {
                out.push(Line::from(Span::styled(format!("$ {cmd}"), theme.dim)));
            }
        }
        out.extend(
            output
                .trim_end_matches('\n')
                .split('\n')
                .filter(|l| !(l.is_empty() && output.is_empty()))
                .map(|l| Line::from(Span::styled(l.to_string(), style))),
        );
        out
    }

    /// `edit`: the unified diff of its result, numbered with the file's
    /// own lines (from the hunk headers); `write`: the new content.
    fn diff_lines(&self, theme: &Theme) -> Option<Vec<Line<'static>>> {
        let (text, _) = self.split_result();
        match self.name.as_str() {
            "edit" => {
                let at = text.find("\n@@")?;
                Some(crate::diff_view::unified_rows(&text[at + 1..], theme))
            }
            "ast" | "lsp" if crate::result_view::has_file_diff(text) => {
                Some(crate::result_view::file_diff_rows(text, theme))
            }
            "write" => {
                let content = self.args.get("content").and_then(Value::as_str)?;
                Some(crate::diff_view::diff_rows("", content, 1, theme))
            }
            _ => None,
        }
    }
}
