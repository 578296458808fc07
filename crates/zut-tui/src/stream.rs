//! Streaming markdown without quadratic re-rendering. Text arrives in
//! small deltas; finished blocks (text up to a blank line, each line of a
//! fenced code block) are rendered once and committed to the scrollback,
//! and only the unfinished tail — bounded in size — is re-rendered for the
//! live area. The screen never lags behind the model.

use ratatui::text::{Line, Span};

use crate::highlight::CodeHighlighter;
use crate::markdown;
use crate::theme::Theme;
use crate::wrap::wrap;

/// A tail block longer than this is committed even without a blank line,
/// so a frame never re-renders more than this much text.
pub const MAX_TAIL: usize = 16 * 1024;

/// Columns the transcript is indented by.
pub const INDENT: usize = 2;

struct Fence {
    marker: char,
    len: usize,
    code: CodeHighlighter,
}

/// One assistant message being streamed.
pub struct MarkdownStream {
    /// The current unfinished line.
    partial: String,
    /// Complete lines of the current text block, not yet committed.
    block: String,
    fence: Option<Fence>,
    committed: Vec<Line<'static>>,
    /// Rows committed so far (ever), to know whether a gap is due.
    any: bool,
    gap: bool,
    width: usize,
    cache: Option<(usize, usize, usize, Vec<Line<'static>>)>,
    /// The whole text (for `/copy`).
    text: String,
}

impl MarkdownStream {
    /// An empty stream rendering at `width` columns.
    pub fn new(width: usize) -> Self {
        Self {
            partial: String::new(),
            block: String::new(),
            fence: None,
            committed: Vec::new(),
            any: false,
            gap: false,
            width,
            cache: None,
            text: String::new(),
        }
    }

    /// The full text received so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether nothing has arrived.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// New terminal width (affects rows committed from now on and the tail).
    pub fn set_width(&mut self, width: usize) {
        self.width = width;
    }

    /// Appends a delta.
    pub fn push(&mut self, delta: &str, theme: &Theme) {
        self.text.push_str(delta);
        if !delta.contains('\n') {
            self.partial.push_str(delta);
        } else {
            let mut parts = delta.split('\n').peekable();
            while let Some(part) = parts.next() {
                self.partial.push_str(part);
                if parts.peek().is_some() {
                    let line = std::mem::take(&mut self.partial);
                    self.line(&line, theme);
                }
            }
        }
        if self.partial.len() > MAX_TAIL {
            self.split_partial(theme);
        }
        if self.block.len() > MAX_TAIL {
            self.flush_block(theme);
        }
    }

    /// Commits everything (the message is complete).
    pub fn finish(&mut self, theme: &Theme) {
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            self.line(&line, theme);
        }
        self.flush_block(theme);
        self.fence = None;
    }

    /// Rows ready for the scrollback since the last call.
    pub fn take_committed(&mut self) -> Vec<Line<'static>> {
        std::mem::take(&mut self.committed)
    }

    /// The rows of the unfinished tail, rendered at the current width.
    pub fn live_rows(&mut self, theme: &Theme) -> Vec<Line<'static>> {
        let key = (self.block.len(), self.partial.len(), self.width);
        if let Some((b, p, w, rows)) = &self.cache {
            if (*b, *p, *w) == key {
                return rows.clone();
            }
        }
        let rows = if self.fence.is_some() {
            if self.partial.is_empty() {
                Vec::new()
            } else {
                code_rows(
                    vec![Span::styled(
                        crate::sanitize::clean_line(&self.partial),
                        theme.code,
                    )],
                    self.width,
                )
            }
        } else if self.block.is_empty() && self.partial.trim().is_empty() {
            Vec::new()
        } else {
            let mut src = String::with_capacity(self.block.len() + self.partial.len());
            src.push_str(&self.block);
            src.push_str(&self.partial);
            let mut rows = indent(markdown::render(
                &src,
                self.width.saturating_sub(INDENT),
                theme,
            ));
            if self.gap && self.any {
                rows.insert(0, Line::default());
            }
            rows
        };
        self.cache = Some((key.0, key.1, key.2, rows.clone()));
        rows
    }

    fn line(&mut self, line: &str, theme: &Theme) {
        if let Some(f) = &mut self.fence {
            if is_fence_close(line, f.marker, f.len) {
                self.fence = None;
                self.gap = true;
                return;
            }
            let spans = f.code.line(line, theme);
            let rows = code_rows(spans, self.width);
            self.commit(rows);
            return;
        }
        if let Some((marker, len, lang)) = fence_open(line) {
            self.flush_block(theme);
            self.fence = Some(Fence {
                marker,
                len,
                code: CodeHighlighter::new(lang, theme),
            });
            if self.any {
                self.committed.push(Line::default());
            }
            self.gap = false;
            return;
        }
        if line.trim().is_empty() {
            self.flush_block(theme);
            self.gap = true;
            return;
        }
        self.block.push_str(line);
        self.block.push('\n');
    }

    /// A very long line with no newline: commit most of it now.
    fn split_partial(&mut self, theme: &Theme) {
        let mut cut = MAX_TAIL / 2;
        while !self.partial.is_char_boundary(cut) {
            cut -= 1;
        }
        if let Some(space) = self.partial[..cut].rfind(' ') {
            if space > MAX_TAIL / 4 {
                cut = space + 1;
            }
        }
        let head: String = self.partial.drain(..cut).collect();
        if let Some(f) = &mut self.fence {
            let spans = f.code.line(&head, theme);
            let rows = code_rows(spans, self.width);
            self.commit(rows);
        } else {
            self.block.push_str(&head);
            self.flush_block(theme);
        }
    }

    fn flush_block(&mut self, theme: &Theme) {
        if self.block.is_empty() {
            return;
        }
        let src = std::mem::take(&mut self.block);
        let rows = indent(markdown::render(
            &src,
            self.width.saturating_sub(INDENT),
            theme,
        ));
        if self.gap && self.any {
            self.committed.push(Line::default());
        }
        self.gap = false;
        self.commit(rows);
    }

    fn commit(&mut self, rows: Vec<Line<'static>>) {
        self.any |= !rows.is_empty();
        self.committed.extend(rows);
    }
}

/// Rows of one code line, indented like markdown code blocks.
fn code_rows(spans: Vec<Span<'static>>, width: usize) -> Vec<Line<'static>> {
    let pad = vec![Span::raw(" ".repeat(INDENT + 2))];
    wrap(&spans, width, &pad, &pad)
}

/// Prefixes every row with the transcript indent.
pub fn indent(rows: Vec<Line<'static>>) -> Vec<Line<'static>> {
    rows.into_iter()
        .map(|mut l| {
            if !l.spans.is_empty() {
                l.spans.insert(0, Span::raw(" ".repeat(INDENT)));
            }
            l
        })
        .collect()
}

/// An opening fence: marker char, length and info string.
fn fence_open(line: &str) -> Option<(char, usize, &str)> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    let marker = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = t.chars().take_while(|c| *c == marker).count();
    if len < 3 {
        return None;
    }
    let info = t[len..].trim();
    if marker == '`' && info.contains('`') {
        return None;
    }
    Some((marker, len, info))
}

fn is_fence_close(line: &str, marker: char, len: usize) -> bool {
    let t = line.trim();
    t.len() >= len && t.chars().all(|c| c == marker)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theme::ColorDepth;

    fn text(rows: &[Line<'_>]) -> Vec<String> {
        rows.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn commits_finished_blocks_and_keeps_the_tail_live() {
        let theme = Theme::new(ColorDepth::None);
        let mut s = MarkdownStream::new(40);
        for d in [
            "# Ti",
            "tle\n\nfirst para",
            "graph\nstill\n\n```rust\nfn main",
            "() {}\n",
            "```\nlast",
        ] {
            s.push(d, &theme);
        }
        let committed = s.take_committed();
        assert_eq!(
            text(&committed),
            [
                "  # Title",
                "",
                "  first paragraph still",
                "",
                "    fn main() {}"
            ]
        );
        assert_eq!(text(&s.live_rows(&theme)), ["", "  last"]);
        s.finish(&theme);
        assert_eq!(text(&s.take_committed()), ["", "  last"]);
        assert!(s.live_rows(&theme).is_empty());
    }

    #[test]
    fn streamed_equals_whole_for_simple_text() {
        let theme = Theme::new(ColorDepth::None);
        let src = "para one is here\n\n- a\n- b\n\n> quote\n";
        let mut s = MarkdownStream::new(30);
        for c in src.chars() {
            s.push(&c.to_string(), &theme);
        }
        s.finish(&theme);
        let streamed = text(&s.take_committed());
        let whole = text(&indent(markdown::render(src, 28, &theme)));
        assert_eq!(streamed, whole);
    }

    #[test]
    fn a_megabyte_on_one_line_stays_bounded() {
        let theme = Theme::new(ColorDepth::None);
        let mut s = MarkdownStream::new(80);
        let chunk = "0123456789";
        let mut rows = 0;
        for _ in 0..100_000 {
            s.push(chunk, &theme);
            rows += s.take_committed().len();
            assert!(s.partial.len() <= MAX_TAIL);
        }
        s.finish(&theme);
        rows += s.take_committed().len();
        // 1,000,000 chars at 78 columns.
        assert!(rows >= 1_000_000 / 78, "{rows}");
        assert_eq!(s.text().len(), 1_000_000);
    }
}
