//! `/help`: every command the popup lists and every key binding (read from
//! the key map itself).

use ratatui::text::{Line, Span};

use crate::commands::CommandInfo;
use crate::keymap;
use crate::theme::Theme;
use crate::wrap::{self, wrap};

/// The rows of `/help` at `width`.
pub fn rows(cmds: &[CommandInfo], width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(Span::styled("  Commands", theme.heading))];
    let name_w = cmds
        .iter()
        .map(|c| c.name.len() + 1)
        .max()
        .unwrap_or(0)
        .min(24);
    for c in cmds {
        let desc = match &c.extension {
            Some(ext) => format!("{} ({ext})", c.description),
            None => c.description.clone(),
        };
        out.extend(entry(&format!("/{}", c.name), name_w, &desc, width, theme));
    }
    out.extend(entry(
        "!cmd",
        name_w,
        "run a shell command and show its output",
        width,
        theme,
    ));
    out.push(Line::default());
    out.push(Line::from(Span::styled("  Keys", theme.heading)));
    let keys = keymap::help_rows();
    let key_w = keys
        .iter()
        .map(|(k, _)| wrap::width(k))
        .max()
        .unwrap_or(0)
        .min(30);
    for (k, d) in keys {
        out.extend(entry(&k, key_w, d, width, theme));
    }
    out
}

fn entry(left: &str, left_w: usize, desc: &str, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let pad = left_w.saturating_sub(wrap::width(left));
    let first = vec![
        Span::raw("  "),
        Span::styled(left.to_string(), theme.accent),
        Span::raw(" ".repeat(pad + 2)),
    ];
    let rest = vec![Span::raw(" ".repeat(left_w + 4))];
    wrap(&[Span::raw(desc.to_string())], width, &first, &rest)
}
