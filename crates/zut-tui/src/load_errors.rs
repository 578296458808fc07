//! Extension load errors (protocol.md §14, group J), written into the
//! transcript in red as the Go original shows them in its chat: a `✖`
//! before the first line, the message's own line breaks kept (the host's
//! start-up failures span lines: exec and declared language, the error,
//! the extension's directory, the stderr log), each line wrapped under
//! its own indentation. They are shown, never sent to the model.
//!
//! While any load error stands, one red row above the status bar says how
//! many extensions failed, until a reload loads without errors or `/clear`.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::sanitize;
use crate::wrap;

/// Lines shown per error (longer messages are cut, saying so).
const MAX_LINES: usize = 40;

/// The load errors of a (re)load: written into the transcript, and the
/// count kept for the summary row (0 clears it).
pub fn show(app: &mut App, errors: &[String]) {
    app.chrome.load_failures = errors.len();
    let width = crate::sidebar::chat_width(app);
    for e in errors {
        let rows = rows(e, width, app.theme.error);
        app.transcript.push_block(rows);
    }
}

/// The rows of one load error at `width`.
pub fn rows(text: &str, width: usize, style: Style) -> Vec<Line<'static>> {
    let text = sanitize::clean(text);
    let lines: Vec<&str> = text.trim_end().split('\n').collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().take(MAX_LINES).enumerate() {
        let body = l.trim_start();
        let indent = " ".repeat(2 + (l.len() - body.len()).min(width / 4));
        let first = if i == 0 {
            vec![Span::styled("✖ ", style)]
        } else {
            vec![Span::raw(indent.clone())]
        };
        let rest = if i == 0 {
            vec![Span::raw("  ")]
        } else {
            vec![Span::raw(indent + "  ")]
        };
        if body.is_empty() {
            out.push(Line::default());
            continue;
        }
        out.extend(wrap::wrap(
            &[Span::styled(body.to_string(), style)],
            width,
            &first,
            &rest,
        ));
    }
    if lines.len() > MAX_LINES {
        out.push(Line::from(Span::styled(
            format!("  … {} more lines", lines.len() - MAX_LINES),
            style,
        )));
    }
    out
}

/// The row standing above the status bar while `count` extensions failed
/// to load (none when 0).
pub fn summary(count: usize, style: Style) -> Option<Line<'static>> {
    (count > 0).then(|| {
        let what = if count == 1 {
            "1 extension failed to load".to_string()
        } else {
            format!("{count} extensions failed to load")
        };
        Line::from(Span::styled(
            format!("  ✖ {what} (details above) · /reload-ext to retry"),
            style,
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_line_breaks_and_indents_wrapped_rows() {
        let msg = "Extension broken failed to start.\n\n  exec: \"./nope\" (declared language: \"go\")\n  error: fork/exec /very/long/path/that/wraps/around: no such file or directory\n  extension directory: /x/broken\n  stderr log: /x/logs/ext-broken.log\n";
        let rows: Vec<String> = rows(msg, 50, Style::default())
            .iter()
            .map(|r| r.to_string())
            .collect();
        assert_eq!(rows[0], "✖ Extension broken failed to start.");
        assert_eq!(rows[1], "");
        assert!(rows[2].starts_with("    exec: \"./nope\""), "{rows:?}");
        // A wrapped row sits under its line's text.
        let err = rows.iter().position(|r| r.contains("error:")).unwrap();
        assert!(rows[err + 1].starts_with("      "), "{rows:?}");
        assert!(rows
            .iter()
            .any(|r| r.contains("stderr log: /x/logs/ext-broken.log")));
        assert!(rows.iter().all(|r| wrap::width(r) <= 50));
    }
}
