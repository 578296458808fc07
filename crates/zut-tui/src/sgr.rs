//! SGR colours in panel lines (protocol.md §12.5: "lines that already
//! contain ANSI escapes are emitted as is, plus a reset"). Only a safe
//! subset of SGR survives — bold, dim, italic, underline, reverse,
//! strike-through, their resets, and the 8/16/256/RGB foreground and
//! background colours — and it is never written raw: [`spans`] turns it
//! into ratatui styles, quantised to the terminal's depth. Every other
//! escape (cursor movement, erase, OSC titles and hyperlinks, DCS, blink,
//! hidden text) and every control character is removed.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;

use crate::sanitize;
use crate::theme::Theme;

/// `s` with only safe SGR sequences kept (rewritten with the allowed
/// codes only) and everything else made safe by [`sanitize::clean`].
pub fn keep(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find("\u{1b}[") {
        out.push_str(&sanitize::clean(&rest[..at]));
        let after = &rest[at + 2..];
        // Parameters and intermediates, then a final byte in `@`..`~`.
        let end = after.find(|c: char| !('\u{20}'..='\u{3f}').contains(&c));
        let Some(end) = end else {
            // Unterminated: dropped.
            return out;
        };
        let params = &after[..end];
        let fin = after[end..].chars().next().unwrap_or('m');
        if fin == 'm' && params.bytes().all(|b| b.is_ascii_digit() || b == b';') {
            let codes = allowed(params);
            if !codes.is_empty() {
                out.push_str("\u{1b}[");
                out.push_str(&codes.join(";"));
                out.push('m');
            }
        }
        rest = &after[end + fin.len_utf8()..];
    }
    out.push_str(&sanitize::clean(rest));
    out
}

/// The allowed codes of an SGR parameter string, in order.
fn allowed(params: &str) -> Vec<String> {
    let nums: Vec<u16> = params
        .split(';')
        .map(|p| {
            if p.is_empty() {
                0
            } else {
                p.parse().unwrap_or(u16::MAX)
            }
        })
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < nums.len() {
        let n = nums[i];
        match n {
            0..=4
            | 7
            | 9
            | 21..=25
            | 27
            | 29
            | 30..=37
            | 39
            | 40..=47
            | 49
            | 90..=97
            | 100..=107 => out.push(n.to_string()),
            38 | 48 => match nums.get(i + 1) {
                Some(5) if nums.get(i + 2).is_some_and(|v| *v <= 255) => {
                    out.push(format!("{n};5;{}", nums[i + 2]));
                    i += 2;
                }
                Some(2)
                    if nums
                        .get(i + 2..)
                        .is_some_and(|r| r.iter().take(3).filter(|v| **v <= 255).count() == 3) =>
                {
                    out.push(format!(
                        "{n};2;{};{};{}",
                        nums[i + 2],
                        nums[i + 3],
                        nums[i + 4]
                    ));
                    i += 4;
                }
                // A malformed extended colour ends the sequence.
                _ => break,
            },
            _ => {}
        }
        i += 1;
    }
    out
}

/// A line kept by [`keep`] as styled spans starting from `base`; a reset
/// (`0`) goes back to `base`.
pub fn spans(s: &str, base: Style, theme: &Theme) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    let mut style = base;
    let mut rest = s;
    while let Some(at) = rest.find("\u{1b}[") {
        if at > 0 {
            out.push(Span::styled(rest[..at].to_string(), style));
        }
        let after = &rest[at + 2..];
        let Some(end) = after.find('m') else {
            rest = "";
            break;
        };
        style = apply(style, base, &after[..end], theme);
        rest = &after[end + 1..];
    }
    if !rest.is_empty() {
        out.push(Span::styled(rest.to_string(), style));
    }
    out
}

fn apply(mut style: Style, base: Style, params: &str, theme: &Theme) -> Style {
    let nums: Vec<u8> = params.split(';').map(|p| p.parse().unwrap_or(0)).collect();
    let colour = |c: Color| theme.fg(c).fg;
    let mut i = 0;
    while i < nums.len() {
        let n = nums[i];
        match n {
            0 => style = base,
            1 => style = style.add_modifier(Modifier::BOLD),
            2 => style = style.add_modifier(Modifier::DIM),
            3 => style = style.add_modifier(Modifier::ITALIC),
            4 => style = style.add_modifier(Modifier::UNDERLINED),
            7 => style = style.add_modifier(Modifier::REVERSED),
            9 => style = style.add_modifier(Modifier::CROSSED_OUT),
            21 | 22 => style = style.remove_modifier(Modifier::BOLD | Modifier::DIM),
            23 => style = style.remove_modifier(Modifier::ITALIC),
            24 => style = style.remove_modifier(Modifier::UNDERLINED),
            27 => style = style.remove_modifier(Modifier::REVERSED),
            29 => style = style.remove_modifier(Modifier::CROSSED_OUT),
            30..=37 | 90..=97 | 40..=47 | 100..=107 => {
                let bg = matches!(n, 40..=47 | 100..=107);
                let base_n = if bg { n - 10 } else { n };
                let idx = if base_n >= 90 {
                    base_n - 90 + 8
                } else {
                    base_n - 30
                };
                let c = colour(Color::Indexed(idx));
                style.fg = if bg { style.fg } else { c.or(base.fg) };
                if bg {
                    style.bg = c;
                }
            }
            39 => style.fg = base.fg,
            49 => style.bg = base.bg,
            38 | 48 => {
                let c = match nums.get(i + 1) {
                    Some(5) => {
                        i += 2;
                        nums.get(i).map(|v| Color::Indexed(*v))
                    }
                    Some(2) => {
                        i += 4;
                        match (nums.get(i - 2), nums.get(i - 1), nums.get(i)) {
                            (Some(r), Some(g), Some(b)) => Some(Color::Rgb(*r, *g, *b)),
                            _ => None,
                        }
                    }
                    _ => None,
                };
                if let Some(c) = c.and_then(colour) {
                    if n == 38 {
                        style.fg = Some(c);
                    } else {
                        style.bg = Some(c);
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    style
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theme::ColorDepth;

    #[test]
    fn keeps_safe_sgr_and_drops_everything_else() {
        assert_eq!(keep("\u{1b}[1;31mred\u{1b}[0m"), "\u{1b}[1;31mred\u{1b}[0m");
        // Cursor movement, erase, title, hyperlink, blink, hidden: gone.
        assert_eq!(
            keep("a\u{1b}[2J\u{1b}[H\u{1b}]0;t\u{7}\u{1b}]8;;http://x\u{1b}\\b\u{1b}[5;8;32mc"),
            "ab\u{1b}[32mc"
        );
        assert_eq!(
            keep("x\u{1b}[38;5;200my\u{1b}[48;2;1;2;3mz"),
            "x\u{1b}[38;5;200my\u{1b}[48;2;1;2;3mz"
        );
        assert_eq!(keep("bell\u{7}\r cut\u{1b}[3"), "bell cut");
        assert_eq!(keep("\u{1b}[?25l hidden cursor"), " hidden cursor");
    }

    #[test]
    fn spans_carry_the_styles() {
        let theme = Theme::new(ColorDepth::TrueColor);
        let base = theme.dim;
        let s = spans(&keep("a\u{1b}[1;38;2;255;0;0mb\u{1b}[0mc"), base, &theme);
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].style, base);
        assert_eq!(s[1].style.fg, Some(Color::Rgb(255, 0, 0)));
        assert!(s[1].style.add_modifier.contains(Modifier::BOLD));
        assert_eq!(s[2].style, base);
        let none = Theme::new(ColorDepth::None);
        let s = spans("\u{1b}[31mx", Style::default(), &none);
        assert_eq!(s[0].style.fg, None);
    }
}
