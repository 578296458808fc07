//! Drawing a picker: a rounded frame with the title in its top border, the
//! key hint, the filter, the rows around the selection and a position
//! line when they do not all fit.

use ratatui::text::{Line, Span};

use super::Picker;
use crate::theme::Theme;
use crate::wrap;

/// Widest frame.
const MAX_WIDTH: usize = 100;

/// [`rows`] as plain text without styles, one row a line, trailing spaces
/// trimmed (what a test or a log compares).
pub fn plain(p: &Picker, width: usize, max: usize, theme: &Theme) -> String {
    rows(p, width, max, theme)
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The picker's rows for a screen `width` wide, at most `max` rows.
pub fn rows(p: &Picker, width: usize, max: usize, theme: &Theme) -> Vec<Line<'static>> {
    if max < 6 {
        return vec![compact(p, width, theme)];
    }
    let frame_box = wrap::CentredBox::new(width, MAX_WIDTH, theme.border);
    let inner = frame_box.inner;
    let frame = |content: Line<'static>| frame_box.row(content);
    // Top border with the title in the middle.
    let title = format!(" {} ", crate::sanitize::clean_line(&p.title));
    let mut out = vec![frame_box.top(title, theme.accent)];
    let filter = if let Some(secret) = &p.secret {
        Line::from(vec![
            Span::styled(" key: ", theme.accent),
            Span::styled(super::login::masked(secret), theme.text),
            Span::styled("▌", theme.accent),
        ])
    } else if let Some(title) = &p.rename {
        Line::from(vec![
            Span::styled(" rename to: ", theme.accent),
            Span::styled(crate::sanitize::clean_line(title), theme.text),
            Span::styled("▌", theme.accent),
            Span::styled("  (enter save · esc cancel)", theme.dim),
        ])
    } else if p.query.is_empty() {
        Line::default()
    } else {
        Line::from(vec![
            Span::styled(" filter: ", theme.dim),
            Span::styled(crate::sanitize::clean_line(&p.query), theme.text),
        ])
    };
    out.push(frame(filter));
    out.push(frame(Line::from(Span::styled(
        format!(" {}", p.hint),
        theme.dim,
    ))));
    let visible = p.visible();
    // Frame (2), filter, hint, blank before the bottom: 5 fixed rows, one
    // more for the position line when the rows are cut.
    let room = max.saturating_sub(5).max(1);
    let cut = visible.len() > room;
    let room = if cut {
        room.saturating_sub(1).max(1)
    } else {
        room
    };
    if visible.is_empty() {
        let text = if p.items.is_empty() {
            p.empty.clone()
        } else {
            "no match".to_string()
        };
        out.push(frame(Line::from(Span::styled(
            format!("  {text}"),
            theme.dim,
        ))));
    }
    let sel = p.selected.min(visible.len().saturating_sub(1));
    let start = sel
        .saturating_sub(room - 1)
        .min(visible.len().saturating_sub(room));
    let label_w = visible
        .iter()
        .map(|i| wrap::width(&p.items[*i].label))
        .max()
        .unwrap_or(0)
        .min(inner / 2);
    for (n, &i) in visible.iter().enumerate().skip(start).take(room) {
        let it = &p.items[i];
        let chosen = n == sel;
        let style = if chosen { theme.selected } else { theme.text };
        let marker = if chosen { "› " } else { "  " };
        let label = crate::sanitize::clean_line(&it.label);
        let pad = label_w.saturating_sub(wrap::width(&label)) + 2;
        let mut spans = vec![
            Span::styled(marker, theme.accent),
            Span::styled(if it.current { "● " } else { "  " }, theme.accent),
            Span::styled(label, style),
        ];
        if !it.detail.is_empty() {
            spans.push(Span::raw(" ".repeat(pad)));
            spans.push(Span::styled(
                crate::sanitize::clean_line(&it.detail),
                theme.dim,
            ));
        }
        out.push(frame(Line::from(spans)));
    }
    if cut {
        out.push(frame(Line::from(Span::styled(
            format!(" {}/{}", sel + 1, visible.len()),
            theme.dim,
        ))));
    }
    out.push(frame(Line::default()));
    out.push(frame_box.bottom());
    out
}

/// A terminal too short for the frame: the selected row alone, with its
/// position.
fn compact(p: &Picker, width: usize, theme: &Theme) -> Line<'static> {
    let visible = p.visible();
    let sel = p.selected.min(visible.len().saturating_sub(1));
    let mut spans = vec![Span::styled(
        format!("{}/{} ", sel + visible.len().min(1), visible.len()),
        theme.accent,
    )];
    if let Some(it) = visible.get(sel).map(|i| &p.items[*i]) {
        spans.push(Span::styled(
            format!("› {}", crate::sanitize::clean_line(&it.label)),
            theme.selected,
        ));
        spans.push(Span::styled(
            format!("  {}", crate::sanitize::clean_line(&it.detail)),
            theme.dim,
        ));
    }
    wrap::truncate(Line::from(spans), width)
}
