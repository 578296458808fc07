//! The right sidebar for extension widgets (protocol.md §12.3 and the Go
//! original's wide-terminal layout): on a terminal wide enough, widgets
//! leave the rows above the editor for a column on the right of the live
//! area, about a third of the width, the chat keeping at least
//! [`MIN_CHAT`] columns. Ctrl+B moves them back above the editor (and
//! again to the side); narrow terminals always show them above the editor.
//!
//! Every joined row is exactly the terminal's width: the Go original drew
//! its sidebar one column too far and wiped the first column of the next
//! row; here the separator and the sidebar's text are cut to fit.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::app::App;
use crate::chrome::Chrome;
use crate::theme::Theme;
use crate::wrap;

/// Columns the chat keeps next to the sidebar.
pub const MIN_CHAT: usize = 48;
/// Narrowest useful sidebar, separator included.
pub const MIN_SIDEBAR: usize = 24;
/// Widest sidebar, separator included.
pub const MAX_SIDEBAR: usize = 60;

/// How the live area's width is split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split {
    /// Columns of the chat (the transcript, the editor, the status bar).
    pub chat: usize,
    /// Columns of the sidebar, separator included (0: no sidebar).
    pub side: usize,
}

impl Split {
    /// The split for a terminal `width` columns wide: a sidebar only when
    /// there are widgets, the user has not moved them above the editor,
    /// and the chat keeps [`MIN_CHAT`] columns.
    pub fn of(width: usize, has_widgets: bool, hidden: bool) -> Self {
        let none = Self {
            chat: width,
            side: 0,
        };
        if !has_widgets || hidden {
            return none;
        }
        let side = (width / 3).min(MAX_SIDEBAR);
        if side < MIN_SIDEBAR || width - side < MIN_CHAT {
            return none;
        }
        Self {
            chat: width - side,
            side,
        }
    }
}

/// The chat's width for `app` (the terminal's, less the sidebar).
pub fn chat_width(app: &App) -> usize {
    Split::of(
        app.size.0 as usize,
        app.chrome.has_side_widgets(),
        app.sidebar_hidden,
    )
    .chat
}

/// Ctrl+B with widgets shown moves them between the sidebar and the rows
/// above the editor; returns whether the key was taken (without widgets
/// Ctrl+B stays the editor's cursor-left).
pub fn toggle_key(app: &mut App, key: &KeyEvent) -> bool {
    let ctrl_b = key.code == KeyCode::Char('b')
        && key.modifiers == KeyModifiers::CONTROL
        && key.kind != KeyEventKind::Release;
    if !ctrl_b || !app.chrome.has_side_widgets() {
        return false;
    }
    app.sidebar_hidden = !app.sidebar_hidden;
    true
}

/// The sidebar's rows: for each widget (sorted by extension, then id) a
/// `[ext] title` header in the accent colour and its lines indented by one
/// space, a blank row between widgets. At most `max` rows; when cut, the
/// last row says so. Rows are at most `width - 2` columns (the separator
/// and a space take the rest).
pub fn rows(chrome: &Chrome, width: usize, max: usize, theme: &Theme) -> Vec<Line<'static>> {
    let inner = width.saturating_sub(2);
    let mut out: Vec<Line<'static>> = Vec::new();
    let mut total = 0usize;
    for (ext, title, lines) in chrome.side_widgets() {
        total += lines.len() + 1 + usize::from(total > 0);
        if out.len() > max {
            continue;
        }
        if !out.is_empty() {
            out.push(Line::default());
        }
        let head = if title.is_empty() {
            format!("[{ext}]")
        } else {
            format!("[{ext}] {title}")
        };
        out.push(wrap::truncate(
            Line::from(Span::styled(head, theme.accent)),
            inner,
        ));
        for l in lines {
            if out.len() > max {
                break;
            }
            out.push(wrap::truncate(Line::from(format!(" {l}")), inner));
        }
    }
    if out.len() > max && max > 0 {
        out.truncate(max - 1);
        out.push(wrap::truncate(
            Line::from(Span::styled(
                format!("… {} more rows", total.saturating_sub(max - 1)),
                theme.dim,
            )),
            inner,
        ));
    }
    out
}

/// `left` (the chat column) and `right` (the sidebar) side by side, the
/// shorter one padded at the top so both end on the last row. Returns the
/// rows and how many rows were added above `left`'s first row.
pub fn join(
    left: Vec<Line<'static>>,
    right: Vec<Line<'static>>,
    split: Split,
    border: Style,
) -> (Vec<Line<'static>>, usize) {
    let height = left.len().max(right.len());
    let left_pad = height - left.len();
    let right_pad = height - right.len();
    let inner = split.side.saturating_sub(2);
    let mut rows = Vec::with_capacity(height);
    let mut left = left.into_iter();
    let mut right = right.into_iter();
    for i in 0..height {
        let l = if i < left_pad {
            Line::default()
        } else {
            left.next().unwrap_or_default()
        };
        let r = if i < right_pad {
            Line::default()
        } else {
            right.next().unwrap_or_default()
        };
        let l = wrap::truncate(l, split.chat);
        let pad = split.chat.saturating_sub(wrap::line_width(&l));
        let mut spans = l.spans;
        spans.push(Span::raw(" ".repeat(pad)));
        spans.push(Span::styled("│ ", border));
        spans.extend(wrap::truncate(r, inner).spans);
        rows.push(Line::from(spans));
    }
    (rows, left_pad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_only_when_the_chat_keeps_its_columns() {
        assert_eq!(Split::of(120, true, false), Split { chat: 80, side: 40 });
        assert_eq!(Split::of(120, false, false).side, 0);
        assert_eq!(Split::of(120, true, true).side, 0);
        // 72 columns: 24 for the sidebar, 48 for the chat.
        assert_eq!(Split::of(72, true, false), Split { chat: 48, side: 24 });
        assert_eq!(Split::of(71, true, false).side, 0);
        assert_eq!(Split::of(300, true, false).side, MAX_SIDEBAR);
    }

    #[test]
    fn joined_rows_are_exactly_the_width() {
        let split = Split::of(90, true, false);
        let left = vec![Line::from("x".repeat(200)), Line::from("short")];
        let right = vec![
            Line::from("a"),
            Line::from("日本語".repeat(20)),
            Line::from("c"),
        ];
        let (rows, pad) = join(left, right, split, Style::default());
        assert_eq!(pad, 1);
        assert_eq!(rows.len(), 3);
        for r in &rows {
            assert!(wrap::line_width(r) <= 90, "{r}");
            // The separator sits right after the chat's columns.
            assert_eq!(r.to_string().chars().nth(60), Some('│'), "{r}");
        }
    }
}
