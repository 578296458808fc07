//! The live area at the bottom of the screen, composed top to bottom:
//! streaming message and running tools, notes and queued prompts, the
//! slash popup, the status bar and the editor. Renders into a ratatui
//! [`Buffer`]; the transcript's scrollback rows are not part of it.

use std::time::Instant;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use crate::app::App;
use crate::wrap;

/// Smallest usable terminal.
pub const MIN_SIZE: (u16, u16) = (24, 6);
/// Most popup rows (commands and section dividers): room for every
/// section on a common terminal, as the Go original shows them.
const POPUP_ROWS: usize = 16;

/// The live area's rows and the cursor position within them.
pub struct Live {
    /// Rows, top to bottom.
    pub rows: Vec<Line<'static>>,
    /// Cursor (column, row), when the editor has focus.
    pub cursor: Option<(u16, u16)>,
}

/// Composes the live area for a terminal of `app.size`.
pub fn compose(app: &mut App, now: Instant) -> Live {
    let (w, h) = app.size;
    let split = crate::sidebar::Split::of(
        w as usize,
        app.chrome.has_side_widgets(),
        app.sidebar_hidden,
    );
    // The transcript is written at the chat's width, so scrollback rows
    // never run under the sidebar.
    app.transcript.set_width(split.chat);
    let width = split.chat;
    if w < MIN_SIZE.0 || h < MIN_SIZE.1 {
        let long = format!(
            "terminal too small ({w}x{h}, need {}x{})",
            MIN_SIZE.0, MIN_SIZE.1
        );
        let msg = if long.len() <= width {
            long
        } else {
            format!("too small: {w}x{h}")
        };
        return Live {
            rows: vec![wrap::truncate(
                Line::from(Span::styled(msg, app.theme.warn)),
                width,
            )],
            cursor: None,
        };
    }
    let placeholder = if crate::confirm::focused(app) || crate::elicit_view::focused(app) {
        Some("the dialog above has the keys")
    } else if app.busy {
        Some("type to queue a prompt · esc to stop")
    } else {
        None
    };
    let (editor_rows, (cx, cy)) =
        app.editor
            .render(width, Span::styled("▌ ", app.theme.accent), placeholder);
    app.status.keys_hint = crate::confirm::keys_hint(app);
    let status_rows = app.status.rows(width, &app.theme, now);
    let mut bottom: Vec<Line<'static>> = Vec::new();
    // Extension widgets, then status items, above the popup and status bar.
    bottom.extend(app.chrome.widget_rows(width, split.side == 0, &app.theme));
    bottom.extend(app.chrome.status_rows(width, &app.theme));
    if let Some((_, files)) = app.file_picker() {
        bottom.extend(file_rows(app, &files, width));
    } else if let Some(matches) = app.popup() {
        // The popup gets what the status bar and the editor leave.
        let fixed = status_rows.len() + 1 + editor_rows.len() + 3;
        let max = (h as usize).saturating_sub(fixed).clamp(1, POPUP_ROWS);
        bottom.extend(crate::popup::rows(app, &matches, width, max));
    }
    bottom.extend(status_rows);
    bottom.push(Line::default());
    let editor_top = bottom.len();
    bottom.extend(editor_rows);

    let mut top = app.transcript.live_rows(&app.theme);
    top.extend(app.thinking.live_row(&app.theme, now));
    let notes = app.note_rows();
    if !notes.is_empty() {
        top.push(Line::default());
        top.extend(notes);
    }
    top.push(Line::default());
    let eliciting = crate::elicit_view::focused(app);
    if eliciting {
        top.extend(crate::elicit_view::rows(&app.elicits, width, &app.theme));
        top.push(Line::default());
    }
    let confirming = !app.confirms.queue.is_empty() && app.chrome.panel.is_none() && !eliciting;
    let confirm_focused = crate::confirm::focused(app);
    if confirming {
        // Under the notes, which keep it unfocused until dismissed.
        let focused = confirm_focused;
        // A call's diff gets the rows the dialog and the chrome leave.
        let diff_rows = (h as usize).saturating_sub(bottom.len() + 14);
        top.extend(crate::confirm::rows(
            &app.confirms,
            width,
            focused,
            &app.theme,
            diff_rows,
        ));
        top.push(Line::default());
    }
    let picker_open =
        app.picker.is_some() && app.chrome.panel.is_none() && !confirming && !eliciting;
    if let Some(p) = app.picker.as_ref().filter(|_| picker_open) {
        // A picker floats over the chat like a panel (which has priority).
        let max = (h as usize).saturating_sub(bottom.len() + 1);
        top = crate::pickers::rows(p, width, max, &app.theme);
        top.push(Line::default());
    }
    let panel_open = app.chrome.panel.is_some();
    if panel_open {
        // The panel floats over the chat: it takes the rows above the
        // chrome, the streaming tail is hidden while it is open.
        let max = (h as usize).saturating_sub(bottom.len() + 1);
        top = app.chrome.panel_rows(width, max, &app.theme);
        top.push(Line::default());
    }
    // The live area never exceeds the screen: the transcript tail is
    // clipped from the top.
    let budget = (h as usize).saturating_sub(bottom.len());
    if top.len() > budget {
        top.drain(..top.len() - budget);
    }
    let offset = top.len();
    let mut rows = top;
    rows.extend(bottom);
    if rows.len() > h as usize {
        rows.drain(..rows.len() - h as usize);
    }
    let mut offset = offset;
    if split.side > 0 {
        let max = rows.len().max(h as usize * 2 / 3);
        let side = crate::sidebar::rows(&app.chrome, split.side, max, &app.theme);
        let (joined, pad) = crate::sidebar::join(rows, side, split, app.theme.border);
        rows = joined;
        offset += pad;
    }
    let cursor_row = (offset + editor_top + cy as usize).min(rows.len().saturating_sub(1));
    Live {
        rows,
        // The editor's cursor is hidden while a panel has the keys.
        cursor: (!panel_open && !picker_open)
            .then_some((cx.min(w.saturating_sub(1)), cursor_row as u16)),
    }
}

fn file_rows(app: &App, files: &[String], width: usize) -> Vec<Line<'static>> {
    let theme = &app.theme;
    if files.is_empty() {
        return vec![Line::from(Span::styled("  no matching file", theme.dim))];
    }
    let sel = app.popup_selected.min(files.len() - 1);
    let mut rows: Vec<Line<'static>> = files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (marker, style) = if i == sel {
                ("› ", theme.selected)
            } else {
                ("  ", theme.text)
            };
            wrap::truncate(
                Line::from(vec![
                    Span::styled(marker, theme.accent),
                    Span::styled(crate::sanitize::clean_line(f), style),
                ]),
                width,
            )
        })
        .collect();
    rows.push(Line::from(Span::styled(
        "  ↑/↓ navigate · tab/enter insert · esc close",
        theme.dim,
    )));
    rows.push(Line::default());
    rows
}

/// Renders `live` into a buffer of `width` columns (as many rows as it
/// has).
pub fn to_buffer(live: &Live, width: u16) -> Buffer {
    let area = Rect::new(0, 0, width, live.rows.len() as u16);
    let mut buf = Buffer::empty(area);
    for (i, row) in live.rows.iter().enumerate() {
        let r = Rect::new(0, i as u16, width, 1);
        row.clone().render(r, &mut buf);
    }
    buf
}

/// Renders the live area into `buf` at `area` (for tests with ratatui's
/// `TestBackend`): bottom-aligned, as on a real screen.
pub fn render(app: &mut App, area: Rect, buf: &mut Buffer) {
    app.resize(area.width, area.height);
    let live = compose(app, Instant::now());
    let skip = area.height as usize - live.rows.len().min(area.height as usize);
    for (i, row) in live.rows.iter().enumerate() {
        let y = area.y + (skip + i) as u16;
        row.clone().render(Rect::new(area.x, y, area.width, 1), buf);
    }
}
