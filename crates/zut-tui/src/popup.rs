//! The slash popup: the matching commands in sections (built-ins, then
//! `── extensions ──` and `── skills ──`; the section holding the best
//! match first, see [`crate::commands::filter`]), each scrolled on its own so
//! every section stays in sight however long the others are, then the key
//! hints.

use ratatui::text::{Line, Span};

use crate::app::App;
use crate::commands::Section;
use crate::theme::Theme;
use crate::wrap;

/// The popup's rows for `matches` (indices into `app.commands`, as
/// [`crate::commands::filter`] orders them), in at most `max` command rows.
pub(crate) fn rows(app: &App, matches: &[usize], width: usize, max: usize) -> Vec<Line<'static>> {
    let theme = &app.theme;
    if matches.is_empty() {
        return vec![Line::from(Span::styled("  no matching command", theme.dim))];
    }
    let sel = app.popup_selected.min(matches.len() - 1);
    let name_w = matches
        .iter()
        .map(|i| app.commands[*i].name.len() + 1)
        .max()
        .unwrap_or(0)
        .min(24);
    let item = |n: usize| entry(app, matches[n], n == sel, name_w, width);
    let groups = sections(app, matches);
    // Every section but leading built-ins gets a divider.
    let dividers = groups
        .iter()
        .enumerate()
        .filter(|(n, (s, _))| *n > 0 || *s != Section::BuiltIn)
        .count();
    let mut rows = Vec::new();
    let mut shown = 0;
    if max < groups.len() + dividers {
        // Too few rows for sections: one window.
        for n in window(0..matches.len(), sel, max) {
            rows.push(item(n));
            shown += 1;
        }
    } else {
        let lens: Vec<usize> = groups.iter().map(|(_, r)| r.len()).collect();
        let takes = share(&lens, max - dividers);
        for (n, ((section, range), take)) in groups.into_iter().zip(takes).enumerate() {
            if n > 0 || section != Section::BuiltIn {
                rows.push(divider(section.title(), width, theme));
            }
            for i in window(range, sel, take) {
                rows.push(item(i));
                shown += 1;
            }
        }
    }
    if shown < matches.len() {
        rows.push(Line::from(Span::styled(
            format!("  … {} commands", matches.len()),
            theme.dim,
        )));
    }
    rows.push(Line::from(Span::styled(
        "  ↑/↓ navigate · tab complete · enter run · esc close",
        theme.dim,
    )));
    rows.push(Line::default());
    rows
}

/// The runs of `matches` that share a section, in order.
fn sections(app: &App, matches: &[usize]) -> Vec<(Section, std::ops::Range<usize>)> {
    let mut out: Vec<(Section, std::ops::Range<usize>)> = Vec::new();
    for (n, &i) in matches.iter().enumerate() {
        let s = app.commands[i].section();
        match out.last_mut() {
            Some((last, r)) if *last == s => r.end = n + 1,
            _ => out.push((s, n..n + 1)),
        }
    }
    out
}

/// `take` positions of `range`: from its start, or scrolled so that `sel`
/// is the last one shown when it lies further down.
fn window(range: std::ops::Range<usize>, sel: usize, take: usize) -> std::ops::Range<usize> {
    let first = if range.contains(&sel) {
        range.start + (sel - range.start).saturating_sub(take.saturating_sub(1))
    } else {
        range.start
    };
    first..(first + take).min(range.end)
}

/// Splits `total` rows (at least one per section) between sections of
/// `lens` entries: a short section gets all it needs, the others share
/// the rest evenly (the longest gets what does not divide).
fn share(lens: &[usize], total: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..lens.len()).collect();
    order.sort_by_key(|&i| lens[i]);
    let mut out = vec![0; lens.len()];
    let mut left = total;
    for (k, &i) in order.iter().enumerate() {
        let open = lens.len() - k;
        out[i] = lens[i].min((left / open).max(1)).min(left);
        left -= out[i];
    }
    out
}

/// `── title ─────…` across the popup.
fn divider(title: &str, width: usize, theme: &Theme) -> Line<'static> {
    let head = format!("── {title} ");
    let rest = width.saturating_sub(wrap::width(&head));
    Line::from(Span::styled(
        format!("{head}{}", "─".repeat(rest)),
        theme.dim,
    ))
}

/// One command row: marker, `/name`, description, `[extension]`.
fn entry(app: &App, i: usize, selected: bool, name_w: usize, width: usize) -> Line<'static> {
    let theme = &app.theme;
    let c = &app.commands[i];
    let style = if selected { theme.selected } else { theme.text };
    let marker = if selected { "› " } else { "  " };
    let name = format!("/{}", c.name);
    let pad = name_w.saturating_sub(name.len()) + 2;
    let mut spans = vec![
        Span::styled(marker, theme.accent),
        Span::styled(name, style),
        Span::raw(" ".repeat(pad)),
        Span::styled(crate::sanitize::clean_line(&c.description), theme.dim),
    ];
    if let Some(ext) = &c.extension {
        spans.push(Span::styled(format!("  [{ext}]"), theme.dim));
    }
    wrap::truncate(Line::from(spans), width)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_shared_short_sections_first() {
        assert_eq!(share(&[18, 10], 9), [5, 4]);
        assert_eq!(share(&[18, 2], 9), [7, 2]);
        assert_eq!(share(&[18, 10, 3], 8), [3, 3, 2]);
        assert_eq!(share(&[1, 1, 1], 3), [1, 1, 1]);
        assert_eq!(share(&[4], 9), [4]);
    }

    #[test]
    fn the_window_follows_the_selection_in_its_section() {
        assert_eq!(window(0..18, 0, 5), 0..5);
        assert_eq!(window(0..18, 7, 5), 3..8);
        assert_eq!(window(18..28, 7, 4), 18..22);
        assert_eq!(window(18..28, 27, 4), 24..28);
        assert_eq!(window(18..20, 19, 4), 18..20);
    }
}
