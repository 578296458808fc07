//! Extension chrome (protocol.md §12): status items, widgets, the panel
//! and alerts, each tracked per owning extension so an extension's exit
//! removes exactly its own. Notes live with the app's other notes
//! ([`crate::app::Note`], with an owner).

use std::collections::BTreeMap;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use zut_protocol::PanelContent;

use crate::sanitize;
use crate::theme::Theme;
use crate::wrap;

/// Status rows shown at most (the last one says the rest were cut).
pub const MAX_STATUS_ROWS: usize = 6;
/// Widget rows shown at most, headers included.
pub const MAX_WIDGET_ROWS: usize = 12;
/// Lines kept per widget or panel; longer ones are cut.
const MAX_LINES: usize = 200;
/// Characters kept per line.
const MAX_LINE_CHARS: usize = 1000;

/// A widget's content.
#[derive(Debug, Clone, PartialEq)]
struct Widget {
    /// `position: "right_bar"`: shown in the sidebar when there is room.
    side: bool,
    title: String,
    lines: Vec<String>,
}

/// The open panel.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// Owner.
    pub extension: String,
    /// Panel id.
    pub id: String,
    /// Title (the owner's name when empty).
    pub title: String,
    /// Body lines.
    pub lines: Vec<String>,
    /// Muted footer.
    pub footer: String,
}

/// Every extension surface except notes.
#[derive(Debug, Default)]
pub struct Chrome {
    statuses: BTreeMap<(String, String), (String, String)>,
    widgets: BTreeMap<(String, String), Widget>,
    /// The open panel.
    pub panel: Option<Panel>,
    /// Who intercepts tool calls, and which calls ran.
    pub intercepts: crate::intercept_view::Intercepts,
    /// Extensions that failed to load at the last (re)load; a red row says
    /// so until a reload without errors or `/clear`.
    pub load_failures: usize,
}

/// One line of outside text made safe and bounded.
fn clean(text: &str) -> String {
    // Cut first: a 1 MB line costs no more than a short one.
    let mut cut = text.len().min(MAX_LINE_CHARS * 4);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let t = sanitize::clean(&text[..cut]).replace('\n', " ↩ ");
    if t.chars().count() > MAX_LINE_CHARS {
        t.chars().take(MAX_LINE_CHARS).collect::<String>() + "…"
    } else {
        t
    }
}

/// A panel line: bounded, safe SGR colours kept ([`crate::sgr`]).
fn panel_line(text: &str) -> String {
    let mut cut = text.len().min(MAX_LINE_CHARS * 4);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    crate::sgr::keep(&text[..cut].replace('\n', " ↩ "))
}

fn panel_lines(lines: &[String]) -> Vec<String> {
    let mut out: Vec<String> = lines
        .iter()
        .take(MAX_LINES)
        .map(|l| panel_line(l))
        .collect();
    if lines.len() > MAX_LINES {
        out.push(format!("… {} more lines", lines.len() - MAX_LINES));
    }
    out
}

fn clean_lines(lines: &[String]) -> Vec<String> {
    let mut out: Vec<String> = lines.iter().take(MAX_LINES).map(|l| clean(l)).collect();
    if lines.len() > MAX_LINES {
        out.push(format!("… {} more lines", lines.len() - MAX_LINES));
    }
    out
}

/// The style of a level (`info`/unknown muted, `warn`, `error`, `success`).
pub fn level_style(level: &str, theme: &Theme) -> Style {
    match level {
        "error" => theme.error,
        "warn" | "warning" => theme.warn,
        "success" | "ok" => theme.success,
        _ => theme.dim,
    }
}

impl Chrome {
    /// `status`: empty text removes the item; a blank key is ignored.
    pub fn status(&mut self, ext: &str, key: &str, level: &str, text: &str) {
        if key.trim().is_empty() {
            return;
        }
        let k = (ext.to_string(), key.to_string());
        if text.trim().is_empty() {
            self.statuses.remove(&k);
        } else {
            self.statuses.insert(k, (level.to_string(), clean(text)));
        }
    }

    /// `widget`: replaces the widget; a blank id is ignored. `right_bar`
    /// widgets go to the sidebar on wide terminals ([`crate::sidebar`]);
    /// every other position is `above_input` (protocol.md §6.10).
    pub fn widget(&mut self, ext: &str, id: &str, position: &str, title: &str, lines: &[String]) {
        if id.trim().is_empty() {
            return;
        }
        self.widgets.insert(
            (ext.to_string(), id.to_string()),
            Widget {
                side: position.trim() == "right_bar",
                title: clean(title),
                lines: clean_lines(lines),
            },
        );
    }

    /// `right_bar` widgets as (extension, title, lines), sorted by
    /// extension then id.
    pub fn side_widgets(&self) -> impl Iterator<Item = (&str, &str, &[String])> {
        self.widgets
            .iter()
            .filter(|(_, w)| w.side)
            .map(|((ext, _), w)| (ext.as_str(), w.title.as_str(), w.lines.as_slice()))
    }

    /// Whether a `right_bar` widget is shown.
    pub fn has_side_widgets(&self) -> bool {
        self.widgets.values().any(|w| w.side)
    }

    /// `widget_clear`.
    pub fn widget_clear(&mut self, ext: &str, id: &str) {
        self.widgets.remove(&(ext.to_string(), id.to_string()));
    }

    /// Opens a panel; returns the displaced panel's (owner, id), which gets
    /// a `panel_close`.
    pub fn open_panel(&mut self, ext: &str, panel: &PanelContent) -> Option<(String, String)> {
        let displaced = self
            .panel
            .take()
            .filter(|p| !(p.extension == ext && p.id == panel.id))
            .map(|p| (p.extension, p.id));
        self.panel = Some(Panel {
            extension: ext.to_string(),
            id: panel.id.clone(),
            title: clean(&panel.title),
            lines: panel_lines(&panel.lines),
            footer: clean(&panel.footer),
        });
        displaced
    }

    /// `panel_render`: only for the open panel of that owner and id;
    /// returns whether it applied.
    pub fn render_panel(
        &mut self,
        ext: &str,
        id: &str,
        title: &str,
        lines: &[String],
        footer: &str,
    ) -> bool {
        match &mut self.panel {
            Some(p) if p.extension == ext && p.id == id => {
                if !title.is_empty() {
                    p.title = clean(title);
                }
                p.lines = panel_lines(lines);
                p.footer = clean(footer);
                true
            }
            _ => false,
        }
    }

    /// `panel_close` from the owner.
    pub fn close_panel_from(&mut self, ext: &str, id: &str) {
        if self
            .panel
            .as_ref()
            .is_some_and(|p| p.extension == ext && p.id == id)
        {
            self.panel = None;
        }
    }

    /// The owner exited: everything of it goes.
    pub fn clear_owner(&mut self, ext: &str) {
        self.statuses.retain(|(e, _), _| e != ext);
        self.widgets.retain(|(e, _), _| e != ext);
        if self.panel.as_ref().is_some_and(|p| p.extension == ext) {
            self.panel = None;
        }
    }

    /// Status rows (at most [`MAX_STATUS_ROWS`]).
    pub fn status_rows(&self, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        let mut rows: Vec<Line<'static>> = self
            .statuses
            .iter()
            .map(|((ext, _), (level, text))| {
                wrap::truncate(
                    Line::from(vec![
                        Span::styled(format!("  [{ext}] "), theme.accent),
                        Span::styled(text.clone(), level_style(level, theme)),
                    ]),
                    width,
                )
            })
            .collect();
        if rows.len() > MAX_STATUS_ROWS {
            rows.truncate(MAX_STATUS_ROWS - 1);
            rows.push(Line::from(Span::styled(
                "  ... extension statuses truncated ...",
                theme.dim,
            )));
        }
        if let Some(row) = crate::load_errors::summary(self.load_failures, theme.error) {
            rows.insert(0, wrap::truncate(row, width));
        }
        rows
    }

    /// Widget rows above the editor (at most [`MAX_WIDGET_ROWS`]);
    /// `right_bar` ones only when `with_side` (no sidebar).
    pub fn widget_rows(&self, width: usize, with_side: bool, theme: &Theme) -> Vec<Line<'static>> {
        let mut rows = Vec::new();
        for ((ext, _), w) in self.widgets.iter().filter(|(_, w)| with_side || !w.side) {
            rows.push(wrap::truncate(
                Line::from(Span::styled(format!("  [{ext}] {}", w.title), theme.accent)),
                width,
            ));
            for l in &w.lines {
                rows.push(wrap::truncate(
                    Line::from(format!("  {l}")),
                    width.saturating_sub(2),
                ));
            }
            if rows.len() > MAX_WIDGET_ROWS {
                break;
            }
        }
        if rows.len() > MAX_WIDGET_ROWS {
            rows.truncate(MAX_WIDGET_ROWS - 1);
            rows.push(Line::from(Span::styled(
                "  ... extension widgets truncated ...",
                theme.dim,
            )));
        }
        rows
    }

    /// The panel's rows at `width`, at most `max` of them (body lines are
    /// cut from the end, keeping the frame and footer).
    pub fn panel_rows(&self, width: usize, max: usize, theme: &Theme) -> Vec<Line<'static>> {
        let Some(p) = &self.panel else {
            return Vec::new();
        };
        let title = if p.title.is_empty() {
            &p.extension
        } else {
            &p.title
        };
        let border = theme.border;
        let inner = width.saturating_sub(6);
        let mut head = format!("  ┌─ {title} ");
        let used = wrap::width(&head);
        head.push_str(&"─".repeat(width.saturating_sub(used + 1)));
        head.push('┐');
        let mut rows = vec![wrap::truncate(
            Line::from(Span::styled(head, border)),
            width,
        )];
        let frame =
            |content: Line<'static>| wrap::boxed_row(content, inner, "", ("  │ ", " │"), border);
        let footer_rows = if p.footer.trim().is_empty() { 0 } else { 2 };
        let body_max = max.saturating_sub(2 + footer_rows).max(1);
        for l in p.lines.iter().take(body_max) {
            let coloured = l.contains('\u{1b}');
            let plain = if coloured {
                crate::sanitize::clean(l).into_owned()
            } else {
                l.clone()
            };
            let t = plain.trim_start_matches(' ');
            let selected = t.starts_with("▸ ") || t.starts_with("● ") || t.starts_with('\u{200b}');
            let style = if selected {
                theme.selected
            } else if plain.contains('✓') {
                theme.success
            } else if coloured {
                // The line's own colours, from the default text style.
                theme.text
            } else {
                theme.dim
            };
            let text = l.replace('\u{200b}', "");
            let line = if coloured {
                Line::from(crate::sgr::spans(&text, style, theme))
            } else {
                Line::from(Span::styled(text, style))
            };
            rows.push(frame(line));
        }
        if footer_rows > 0 {
            rows.push(frame(Line::default()));
            rows.push(frame(Line::from(Span::styled(p.footer.clone(), theme.dim))));
        }
        rows.push(Line::from(Span::styled(
            format!("  └{}┘", "─".repeat(width.saturating_sub(4))),
            border,
        )));
        if let Some(bg) = theme.panel_bg {
            // A theme's `background` fills the panel, frame included.
            for row in &mut rows {
                for span in &mut row.spans {
                    span.style = span.style.bg(bg);
                }
            }
        }
        rows
    }
}
