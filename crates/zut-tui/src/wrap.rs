//! Word wrapping of styled text to a width, with a prefix for the first
//! row and another for the rows after it (list markers, quote bars, tool
//! box borders). Widths are terminal columns (`unicode-width`).

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Columns `s` takes.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// Columns of a whole line.
pub fn line_width(line: &Line<'_>) -> usize {
    line.spans.iter().map(|s| width(&s.content)).sum()
}

/// Wraps `spans` (one logical line, no newlines) to `width` columns. Each
/// row starts with `first` (row 0) or `rest` (later rows). Words longer
/// than a row are broken between characters. Always returns at least one
/// row.
pub fn wrap(
    spans: &[Span<'_>],
    width: usize,
    first: &[Span<'static>],
    rest: &[Span<'static>],
) -> Vec<Line<'static>> {
    let prefix_w = |p: &[Span<'static>]| p.iter().map(|s| self::width(&s.content)).sum::<usize>();
    let mut rows: Vec<Line<'static>> = Vec::new();
    let mut row = Row::new(first.to_vec(), width.saturating_sub(prefix_w(first)).max(1));
    let rest_avail = width.saturating_sub(prefix_w(rest)).max(1);
    for span in spans {
        let style = span.style;
        for word in split_words(&span.content) {
            let w = self::width(word);
            let is_space = word.starts_with(' ');
            if is_space {
                if row.used == 0 && !rows.is_empty() {
                    continue;
                }
                if row.used + w > row.avail {
                    rows.push(row.finish());
                    row = Row::new(rest.to_vec(), rest_avail);
                    continue;
                }
                row.push(word, w, style);
                continue;
            }
            if row.used + w <= row.avail {
                row.push(word, w, style);
                continue;
            }
            if row.used > 0 {
                rows.push(row.finish());
                row = Row::new(rest.to_vec(), rest_avail);
                if w <= rest_avail {
                    row.push(word, w, style);
                    continue;
                }
            }
            // Break the word between characters.
            for c in word.chars() {
                let cw = c.width().unwrap_or(0);
                if row.used + cw > row.avail && row.used > 0 {
                    rows.push(row.finish());
                    row = Row::new(rest.to_vec(), rest_avail);
                }
                let mut buf = [0u8; 4];
                row.push(c.encode_utf8(&mut buf), cw, style);
            }
        }
    }
    rows.push(row.finish());
    rows
}

/// Splits `s` into alternating runs of spaces and non-spaces.
fn split_words(s: &str) -> impl Iterator<Item = &str> {
    let mut rest = s;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        let space = first == ' ';
        let end = rest
            .char_indices()
            .find(|(_, c)| (*c == ' ') != space)
            .map_or(rest.len(), |(i, _)| i);
        let (word, tail) = rest.split_at(end);
        rest = tail;
        Some(word)
    })
}

struct Row {
    spans: Vec<Span<'static>>,
    used: usize,
    avail: usize,
}

impl Row {
    fn new(prefix: Vec<Span<'static>>, avail: usize) -> Self {
        Self {
            spans: prefix,
            used: 0,
            avail,
        }
    }

    fn push(&mut self, text: &str, w: usize, style: Style) {
        self.used += w;
        if let Some(last) = self.spans.last_mut() {
            if last.style == style && self.used > w {
                last.content.to_mut().push_str(text);
                return;
            }
        }
        self.spans.push(Span::styled(text.to_string(), style));
    }

    fn finish(mut self) -> Line<'static> {
        // Trailing spaces would only push the cursor around.
        while let Some(last) = self.spans.last_mut() {
            let trimmed = last.content.trim_end_matches(' ').len();
            if trimmed == last.content.len() || self.used == 0 {
                break;
            }
            let removed = last.content.len() - trimmed;
            self.used -= removed.min(self.used);
            last.content.to_mut().truncate(trimmed);
            if last.content.is_empty() {
                self.spans.pop();
            } else {
                break;
            }
        }
        Line::from(self.spans)
    }
}

/// Cuts `line` to at most `width` columns, ending with `…` when cut.
pub fn truncate(line: Line<'static>, width: usize) -> Line<'static> {
    if line_width(&line) <= width {
        return line;
    }
    let mut out: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    let limit = width.saturating_sub(1);
    for span in line.spans {
        let mut text = String::new();
        for c in span.content.chars() {
            let cw = c.width().unwrap_or(0);
            if used + cw > limit {
                break;
            }
            used += cw;
            text.push(c);
        }
        let full = text.len() == span.content.len();
        out.push(Span::styled(text, span.style));
        if !full {
            break;
        }
    }
    if width > 0 {
        out.push(Span::raw("…"));
    }
    Line::from(out)
}

/// One row inside a box: an unstyled `margin`, `left`, `content` cut to
/// `inner` columns and padded to them, `right`; the sides in `border`.
pub fn boxed_row(
    content: Line<'static>,
    inner: usize,
    margin: &str,
    (left, right): (&str, &str),
    border: Style,
) -> Line<'static> {
    let content = truncate(content, inner);
    let pad = inner.saturating_sub(line_width(&content));
    let mut spans = Vec::with_capacity(content.spans.len() + 4);
    if !margin.is_empty() {
        spans.push(Span::raw(margin.to_string()));
    }
    spans.push(Span::styled(left.to_string(), border));
    spans.extend(content.spans);
    spans.push(Span::raw(" ".repeat(pad)));
    spans.push(Span::styled(right.to_string(), border));
    Line::from(spans)
}

/// A box centred on the screen, with its title in the top border: the
/// frame of the pickers and of the confirmation and elicitation dialogs.
#[derive(Debug, Clone)]
pub struct CentredBox {
    /// Blank columns left of the box.
    pub margin: String,
    /// Columns between the two sides.
    pub inner: usize,
    /// Style of the border.
    pub border: Style,
}

impl CentredBox {
    /// A box for a screen `width` wide: two columns of air each side, at
    /// least 10 and at most `max` columns wide.
    pub fn new(width: usize, max: usize, border: Style) -> Self {
        let box_w = width.saturating_sub(4).clamp(10, max.max(10));
        Self {
            margin: " ".repeat(width.saturating_sub(box_w) / 2),
            inner: box_w.saturating_sub(2),
            border,
        }
    }

    /// The top border with `title` (its own padding included) in the middle.
    pub fn top(&self, title: String, title_style: Style) -> Line<'static> {
        let title_w = width(&title).min(self.inner);
        let left = (self.inner - title_w) / 2;
        let right = self.inner - title_w - left;
        Line::from(vec![
            Span::raw(self.margin.clone()),
            Span::styled(format!("╭{}", "─".repeat(left)), self.border),
            Span::styled(title, title_style),
            Span::styled(format!("{}╮", "─".repeat(right)), self.border),
        ])
    }

    /// One row inside the box ([`boxed_row`] with `│` sides).
    pub fn row(&self, content: Line<'static>) -> Line<'static> {
        boxed_row(content, self.inner, &self.margin, ("│", "│"), self.border)
    }

    /// The bottom border.
    pub fn bottom(&self) -> Line<'static> {
        Line::from(vec![
            Span::raw(self.margin.clone()),
            Span::styled(format!("╰{}╯", "─".repeat(self.inner)), self.border),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn wraps_words_with_prefixes() {
        let spans = [Span::raw("the quick brown fox jumps over")];
        let rows = wrap(&spans, 12, &[Span::raw("- ")], &[Span::raw("  ")]);
        assert_eq!(texts(&rows), ["- the quick", "  brown fox", "  jumps over"]);
    }

    #[test]
    fn breaks_long_words_and_keeps_styles() {
        let spans = [
            Span::raw("ab "),
            Span::styled(
                "cdefghij",
                Style::default().add_modifier(ratatui::style::Modifier::BOLD),
            ),
        ];
        let rows = wrap(&spans, 4, &[], &[]);
        assert_eq!(texts(&rows), ["ab", "cdef", "ghij"]);
        assert_eq!(
            rows[1].spans[0].style,
            Style::default().add_modifier(ratatui::style::Modifier::BOLD)
        );
        assert_eq!(texts(&wrap(&[], 10, &[], &[])), [""]);
    }

    #[test]
    fn wide_characters_count_double() {
        let rows = wrap(&[Span::raw("日本語です")], 4, &[], &[]);
        assert_eq!(texts(&rows), ["日本", "語で", "す"]);
        assert_eq!(truncate(Line::from("abcdef"), 4).to_string(), "abc…");
    }
}
