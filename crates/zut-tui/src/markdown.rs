//! Markdown to styled, wrapped terminal rows (pulldown-cmark): headings,
//! emphasis, inline code, links, lists, quotes, tables, rules and code
//! blocks (highlighted, `diff` coloured).

use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::highlight::CodeHighlighter;
use crate::sanitize;
use crate::theme::Theme;
use crate::wrap::{self, wrap};

/// Renders `src` to rows of at most `width` columns.
pub fn render(src: &str, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut r = Renderer::new(width.max(8), theme);
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    for ev in Parser::new_ext(src, opts) {
        r.event(ev);
    }
    r.flush();
    r.out
}

enum Container {
    Quote,
    List(Option<u64>),
    /// A list item: its marker until the first row is written.
    Item {
        marker: String,
        width: usize,
        used: bool,
    },
}

struct Table {
    aligns: Vec<Alignment>,
    rows: Vec<Vec<Vec<Span<'static>>>>,
    cell: Vec<Span<'static>>,
    row: Vec<Vec<Span<'static>>>,
}

struct Renderer<'t> {
    width: usize,
    theme: &'t Theme,
    out: Vec<Line<'static>>,
    containers: Vec<Container>,
    inline: Vec<Span<'static>>,
    styles: Vec<Style>,
    link: Option<String>,
    code: Option<CodeHighlighter>,
    table: Option<Table>,
    /// A blank row is due before the next block.
    gap: bool,
}

impl<'t> Renderer<'t> {
    fn new(width: usize, theme: &'t Theme) -> Self {
        Self {
            width,
            theme,
            out: Vec::new(),
            containers: Vec::new(),
            inline: Vec::new(),
            styles: vec![Style::default()],
            link: None,
            code: None,
            table: None,
            gap: false,
        }
    }

    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, f: impl FnOnce(Style) -> Style) {
        let s = f(self.style());
        self.styles.push(s);
    }

    fn pop_style(&mut self) {
        if self.styles.len() > 1 {
            self.styles.pop();
        }
    }

    fn text(&mut self, t: &str) {
        let t = sanitize::clean_line(t);
        let style = self.style();
        if let Some(table) = &mut self.table {
            table.cell.push(Span::styled(t, style));
        } else {
            self.inline.push(Span::styled(t, style));
        }
    }

    /// The prefixes (first row, later rows) of the current block.
    fn prefixes(&mut self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let mut first = Vec::new();
        let mut rest = Vec::new();
        let quote = self.theme.quote;
        let accent = self.theme.accent;
        for c in &mut self.containers {
            match c {
                Container::Quote => {
                    first.push(Span::styled("│ ", quote));
                    rest.push(Span::styled("│ ", quote));
                }
                Container::List(_) => {}
                Container::Item {
                    marker,
                    width,
                    used,
                } => {
                    if *used {
                        first.push(Span::raw(" ".repeat(*width)));
                    } else {
                        first.push(Span::styled(marker.clone(), accent));
                        *used = true;
                    }
                    rest.push(Span::raw(" ".repeat(*width)));
                }
            }
        }
        (first, rest)
    }

    fn start_block(&mut self) {
        if self.gap && !self.out.is_empty() {
            let (_, rest) = self.prefixes_peek();
            self.out.push(Line::from(rest));
        }
        self.gap = false;
    }

    /// Prefix of a blank row between blocks (quote bars only).
    fn prefixes_peek(&self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let bars: Vec<Span<'static>> = self
            .containers
            .iter()
            .filter(|c| matches!(c, Container::Quote))
            .map(|_| Span::styled("│", self.theme.quote))
            .collect();
        (bars.clone(), bars)
    }

    /// Writes the pending inline text as wrapped rows.
    fn flush(&mut self) {
        if self.inline.is_empty() {
            return;
        }
        let spans = std::mem::take(&mut self.inline);
        self.start_block();
        let (first, rest) = self.prefixes();
        // Hard breaks were encoded as "\n" spans.
        let mut line: Vec<Span<'static>> = Vec::new();
        let mut first_row = true;
        for s in spans {
            if s.content == "\n" {
                let p = if first_row { &first } else { &rest };
                self.out.extend(wrap(&line, self.width, p, &rest));
                line.clear();
                first_row = false;
            } else {
                line.push(s);
            }
        }
        let p = if first_row { &first } else { &rest };
        self.out.extend(wrap(&line, self.width, p, &rest));
    }

    fn event(&mut self, ev: Event<'_>) {
        match ev {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => {
                if let Some(mut code) = self.code.take() {
                    let theme = self.theme;
                    for l in t.lines() {
                        let spans = code.line(l, theme);
                        let (first, rest) = self.prefixes();
                        let mut p = first;
                        p.push(Span::raw("  "));
                        let mut r2 = rest;
                        r2.push(Span::raw("  "));
                        self.out.extend(wrap(&spans, self.width, &p, &r2));
                    }
                    self.code = Some(code);
                } else {
                    self.text(&t);
                }
            }
            Event::Code(t) => {
                let style = self.theme.code;
                let t = sanitize::clean_line(&t);
                if let Some(table) = &mut self.table {
                    table.cell.push(Span::styled(t, style));
                } else {
                    self.inline.push(Span::styled(t, style));
                }
            }
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => self.inline.push(Span::raw("\n")),
            Event::Rule => {
                self.flush();
                self.start_block();
                self.out.push(Line::from(Span::styled(
                    "─".repeat(self.width.min(80)),
                    self.theme.dim,
                )));
                self.gap = true;
            }
            Event::TaskListMarker(done) => self.text(if done { "[x] " } else { "[ ] " }),
            Event::Html(t) | Event::InlineHtml(t) => {
                for (i, l) in t.lines().enumerate() {
                    if i > 0 {
                        self.inline.push(Span::raw("\n"));
                    }
                    self.text(l);
                }
            }
            Event::FootnoteReference(t) => self.text(&format!("[{t}]")),
            Event::InlineMath(t) | Event::DisplayMath(t) => self.text(&t),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.flush(),
            Tag::Heading { level, .. } => {
                self.flush();
                let hashes = match level {
                    HeadingLevel::H1 => "# ",
                    HeadingLevel::H2 => "## ",
                    HeadingLevel::H3 => "### ",
                    _ => "#### ",
                };
                self.push_style(|_| self.theme.heading);
                self.text(hashes);
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.start_block();
                self.containers.push(Container::Quote);
                self.push_style(|s| s.patch(self.theme.quote));
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                self.start_block();
                let lang = match kind {
                    CodeBlockKind::Fenced(l) => l.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some(CodeHighlighter::new(&lang, self.theme));
            }
            Tag::List(start) => {
                self.flush();
                if !self
                    .containers
                    .iter()
                    .any(|c| matches!(c, Container::Item { .. }))
                {
                    self.start_block();
                }
                self.containers.push(Container::List(start));
            }
            Tag::Item => {
                self.flush();
                let marker = match self.containers.last_mut() {
                    Some(Container::List(Some(n))) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => "• ".to_string(),
                };
                let width = wrap::width(&marker);
                self.containers.push(Container::Item {
                    marker,
                    width,
                    used: false,
                });
            }
            Tag::Emphasis => self.push_style(|s| s.add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(|s| s.add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self.push_style(|s| s.add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { dest_url, .. } => {
                self.link = Some(dest_url.to_string());
                self.push_style(|s| s.patch(self.theme.link));
            }
            Tag::Image { dest_url, .. } => {
                self.text("[image: ");
                self.link = Some(dest_url.to_string());
            }
            Tag::Table(aligns) => {
                self.flush();
                self.start_block();
                self.table = Some(Table {
                    aligns,
                    rows: Vec::new(),
                    cell: Vec::new(),
                    row: Vec::new(),
                });
            }
            Tag::TableHead | Tag::TableRow | Tag::TableCell => {}
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => {
                self.flush();
                self.gap = true;
            }
            TagEnd::Heading(_) => {
                self.pop_style();
                self.flush();
                self.gap = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.containers.pop();
                self.pop_style();
                self.gap = true;
            }
            TagEnd::CodeBlock => {
                self.code = None;
                self.gap = true;
            }
            TagEnd::List(_) => {
                self.flush();
                self.containers.pop();
                self.gap = true;
            }
            TagEnd::Item => {
                self.flush();
                self.gap = false;
                self.containers.pop();
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => self.pop_style(),
            TagEnd::Link => {
                self.pop_style();
                if let Some(url) = self.link.take() {
                    let shown: String = self
                        .inline
                        .last()
                        .map(|s| s.content.to_string())
                        .unwrap_or_default();
                    if shown != url && !url.is_empty() {
                        let dim = self.theme.dim;
                        self.inline.push(Span::styled(
                            format!(" ({})", sanitize::clean_line(&url)),
                            dim,
                        ));
                    }
                }
            }
            TagEnd::Image => {
                self.link = None;
                self.text("]");
            }
            TagEnd::TableCell => {
                if let Some(t) = &mut self.table {
                    let cell = std::mem::take(&mut t.cell);
                    t.row.push(cell);
                }
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(t) = &mut self.table {
                    let row = std::mem::take(&mut t.row);
                    t.rows.push(row);
                }
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    self.table_rows(t);
                }
                self.gap = true;
            }
            _ => {}
        }
    }

    /// Draws a table with box characters; columns shrink to fit.
    fn table_rows(&mut self, t: Table) {
        let cols = t.rows.iter().map(Vec::len).max().unwrap_or(0);
        if cols == 0 {
            return;
        }
        let cell_w =
            |c: &Vec<Span<'static>>| c.iter().map(|s| wrap::width(&s.content)).sum::<usize>();
        let mut widths = vec![1usize; cols];
        for row in &t.rows {
            for (i, c) in row.iter().enumerate() {
                widths[i] = widths[i].max(cell_w(c));
            }
        }
        // Borders: "│ " + " │ " between + " │".
        let budget = self.width.saturating_sub(3 * cols + 1).max(cols);
        while widths.iter().sum::<usize>() > budget {
            let Some((i, _)) = widths.iter().enumerate().max_by_key(|(_, w)| **w) else {
                break;
            };
            if widths[i] <= 1 {
                break;
            }
            widths[i] -= 1;
        }
        let border = self.theme.border;
        let rule = |l: &str, m: &str, r: &str| {
            let mut s = String::from(l);
            for (i, w) in widths.iter().enumerate() {
                s.push_str(&"─".repeat(w + 2));
                s.push_str(if i + 1 == widths.len() { r } else { m });
            }
            Line::from(Span::styled(s, border))
        };
        self.out.push(rule("┌", "┬", "┐"));
        for (ri, row) in t.rows.iter().enumerate() {
            let mut spans = vec![Span::styled("│ ", border)];
            for (i, w) in widths.iter().enumerate() {
                let cell = row.get(i).cloned().unwrap_or_default();
                let mut line = wrap::truncate(Line::from(cell), *w);
                if ri == 0 {
                    for s in &mut line.spans {
                        s.style = s.style.add_modifier(Modifier::BOLD);
                    }
                }
                let pad = w.saturating_sub(wrap::line_width(&line));
                let (left, right) = match t.aligns.get(i) {
                    Some(Alignment::Right) => (pad, 0),
                    Some(Alignment::Center) => (pad / 2, pad - pad / 2),
                    _ => (0, pad),
                };
                spans.push(Span::raw(" ".repeat(left)));
                spans.extend(line.spans);
                spans.push(Span::raw(" ".repeat(right)));
                spans.push(Span::styled(
                    if i + 1 == widths.len() {
                        " │"
                    } else {
                        " │ "
                    },
                    border,
                ));
            }
            self.out.push(Line::from(spans));
            if ri == 0 && t.rows.len() > 1 {
                self.out.push(rule("├", "┼", "┤"));
            }
        }
        self.out.push(rule("└", "┴", "┘"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theme::ColorDepth;

    fn plain(src: &str, width: usize) -> String {
        let theme = Theme::new(ColorDepth::None);
        render(src, width, &theme)
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn renders_blocks() {
        let src = "# Title\n\nSome *em* and **strong** and `code`, a [link](http://x.y).\n\n- one\n- two\n  1. nested\n\n> quoted text\n\n```rust\nfn main() {}\n```\n\n| a | b |\n|---|--:|\n| 1 | 22 |\n\n---\n";
        insta::assert_snapshot!(plain(src, 40));
    }

    #[test]
    fn narrow_widths_never_panic() {
        let src = "| a | b | c |\n|---|---|---|\n| 111111 | 2222222 | 333333 |\n\n- long item text wrapping\n";
        for w in 0..20 {
            let _ = plain(src, w);
        }
    }
}
