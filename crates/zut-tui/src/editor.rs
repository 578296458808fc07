//! The prompt editor: a multi-line text buffer with a cursor, readline
//! editing keys and prompt history at the top/bottom edges. Rendering only
//! looks at the rows around the cursor, so a 10 MB paste stays cheap.

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use crate::history::History;
use crate::sanitize;

/// Rows the editor shows at most.
pub const MAX_ROWS: usize = 8;
/// A logical line longer than this is shown as a window around the cursor.
const WINDOW: usize = 16 * 1024;

/// The editor's text and cursor (a byte offset on a char boundary).
#[derive(Debug, Default)]
pub struct Editor {
    text: String,
    cursor: usize,
    /// Position in history while browsing it, and the draft it replaced.
    browsing: Option<(usize, String)>,
}

impl Editor {
    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The cursor's byte offset.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Whether the buffer is empty.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Replaces the text; the cursor goes to the end.
    pub fn set(&mut self, text: &str) {
        self.text = text.to_string();
        self.cursor = self.text.len();
        self.browsing = None;
    }

    /// Moves the cursor to byte `at` (clamped, on a char boundary).
    pub fn set_cursor(&mut self, at: usize) {
        self.cursor = floor_boundary(&self.text, at.min(self.text.len()));
    }

    /// Empties the buffer and returns what it held.
    pub fn take(&mut self) -> String {
        self.cursor = 0;
        self.browsing = None;
        std::mem::take(&mut self.text)
    }

    /// Inserts text at the cursor (pastes: `\r\n` and `\r` become `\n`,
    /// other control characters are dropped).
    pub fn insert(&mut self, s: &str) {
        let s = if s.contains('\r') {
            s.replace("\r\n", "\n").replace('\r', "\n")
        } else {
            s.to_string()
        };
        let s = sanitize::clean(&s);
        self.text.insert_str(self.cursor, &s);
        self.cursor += s.len();
    }

    /// Inserts one character.
    pub fn insert_char(&mut self, c: char) {
        if c == '\n' || !c.is_control() {
            self.text.insert(self.cursor, c);
            self.cursor += c.len_utf8();
        }
    }

    fn prev_boundary(&self, at: usize) -> usize {
        self.text[..at]
            .char_indices()
            .next_back()
            .map_or(0, |(i, _)| i)
    }

    fn next_boundary(&self, at: usize) -> usize {
        self.text[at..]
            .chars()
            .next()
            .map_or(at, |c| at + c.len_utf8())
    }

    /// Deletes the character before the cursor.
    pub fn backspace(&mut self) {
        if self.cursor > 0 {
            let p = self.prev_boundary(self.cursor);
            self.text.replace_range(p..self.cursor, "");
            self.cursor = p;
        }
    }

    /// Deletes the character under the cursor.
    pub fn delete(&mut self) {
        if self.cursor < self.text.len() {
            let n = self.next_boundary(self.cursor);
            self.text.replace_range(self.cursor..n, "");
        }
    }

    /// Moves one character left.
    pub fn left(&mut self) {
        self.cursor = self.prev_boundary(self.cursor);
    }

    /// Moves one character right.
    pub fn right(&mut self) {
        self.cursor = self.next_boundary(self.cursor);
    }

    fn line_start(&self) -> usize {
        self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1)
    }

    fn line_end(&self) -> usize {
        self.text[self.cursor..]
            .find('\n')
            .map_or(self.text.len(), |i| self.cursor + i)
    }

    /// Ctrl+A / Home.
    pub fn home(&mut self) {
        self.cursor = self.line_start();
    }

    /// Ctrl+E / End.
    pub fn end(&mut self) {
        self.cursor = self.line_end();
    }

    /// Start of the word before the cursor.
    fn word_left_pos(&self) -> usize {
        let before = &self.text[..self.cursor];
        let trimmed = before.trim_end_matches(|c: char| !c.is_alphanumeric());
        trimmed
            .char_indices()
            .rev()
            .find(|(_, c)| !c.is_alphanumeric())
            .map_or(0, |(i, c)| i + c.len_utf8())
    }

    /// End of the word after the cursor.
    fn word_right_pos(&self) -> usize {
        let after = &self.text[self.cursor..];
        let skip = after.len()
            - after
                .trim_start_matches(|c: char| !c.is_alphanumeric())
                .len();
        let rest = &after[skip..];
        let word = rest
            .find(|c: char| !c.is_alphanumeric())
            .unwrap_or(rest.len());
        self.cursor + skip + word
    }

    /// Alt+Left / Ctrl+Left.
    pub fn word_left(&mut self) {
        self.cursor = self.word_left_pos();
    }

    /// Alt+Right / Ctrl+Right.
    pub fn word_right(&mut self) {
        self.cursor = self.word_right_pos();
    }

    /// Ctrl+W / Alt+Backspace: deletes the word before the cursor.
    pub fn delete_word_left(&mut self) {
        let p = self.word_left_pos();
        self.text.replace_range(p..self.cursor, "");
        self.cursor = p;
    }

    /// Alt+D: deletes the word after the cursor.
    pub fn delete_word_right(&mut self) {
        let p = self.word_right_pos();
        self.text.replace_range(self.cursor..p, "");
    }

    /// Ctrl+U: deletes to the start of the line.
    pub fn kill_line_left(&mut self) {
        let s = self.line_start();
        self.text.replace_range(s..self.cursor, "");
        self.cursor = s;
    }

    /// Ctrl+K: deletes to the end of the line.
    pub fn kill_line_right(&mut self) {
        let e = self.line_end();
        if e == self.cursor && e < self.text.len() {
            self.text.remove(e);
        } else {
            self.text.replace_range(self.cursor..e, "");
        }
    }

    /// Up: the line above, or the previous history entry on the first line.
    pub fn up(&mut self, history: &History) {
        let start = self.line_start();
        if start == 0 {
            self.history_prev(history);
            return;
        }
        let col = self.text[start..self.cursor].chars().count();
        let prev_start = self.text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
        self.cursor = column_offset(&self.text, prev_start, start - 1, col);
    }

    /// Down: the line below, or the next history entry on the last line.
    pub fn down(&mut self, history: &History) {
        let end = self.line_end();
        if end == self.text.len() {
            self.history_next(history);
            return;
        }
        let col = self.text[self.line_start()..self.cursor].chars().count();
        let next_start = end + 1;
        let next_end = self.text[next_start..]
            .find('\n')
            .map_or(self.text.len(), |i| next_start + i);
        self.cursor = column_offset(&self.text, next_start, next_end, col);
    }

    fn history_prev(&mut self, history: &History) {
        let idx = match &self.browsing {
            Some((i, _)) => i.checked_sub(1),
            None => history.len().checked_sub(1),
        };
        let Some(idx) = idx else {
            return;
        };
        let Some(entry) = history.get(idx) else {
            return;
        };
        let draft = match self.browsing.take() {
            Some((_, d)) => d,
            None => self.text.clone(),
        };
        self.text = entry.to_string();
        self.cursor = self.text.len();
        self.browsing = Some((idx, draft));
    }

    fn history_next(&mut self, history: &History) {
        let Some((i, draft)) = self.browsing.take() else {
            return;
        };
        match history.get(i + 1) {
            Some(entry) => {
                self.text = entry.to_string();
                self.browsing = Some((i + 1, draft));
            }
            None => self.text = draft,
        }
        self.cursor = self.text.len();
    }

    /// The rows to show at `width` (prefix included) and the cursor's
    /// (column, row) within them. At most [`MAX_ROWS`] rows, scrolled so
    /// the cursor is visible.
    pub fn render(
        &self,
        width: usize,
        prefix: Span<'static>,
        placeholder: Option<&str>,
    ) -> (Vec<Line<'static>>, (u16, u16)) {
        let pw = crate::wrap::width(&prefix.content);
        let avail = width.saturating_sub(pw + 1).max(1);
        if self.text.is_empty() {
            let mut spans = vec![prefix];
            if let Some(p) = placeholder {
                spans.push(Span::styled(
                    p.to_string(),
                    ratatui::style::Style::default().add_modifier(ratatui::style::Modifier::DIM),
                ));
            }
            return (vec![Line::from(spans)], (pw as u16, 0));
        }
        // The logical lines around the cursor.
        let mut start = self.line_start();
        let mut lines_before = 0;
        while start > 0 && lines_before < MAX_ROWS && self.cursor - start < WINDOW {
            start = self.text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
            lines_before += 1;
        }
        if self.cursor - start >= WINDOW {
            start = floor_boundary(&self.text, self.cursor - WINDOW / 2);
        }
        let mut end = self.line_end();
        let mut lines_after = 0;
        while end < self.text.len() && lines_after < MAX_ROWS && end - self.cursor < WINDOW {
            end = self.text[end + 1..]
                .find('\n')
                .map_or(self.text.len(), |i| end + 1 + i);
            lines_after += 1;
        }
        if end - self.cursor >= WINDOW {
            end = floor_boundary(&self.text, (self.cursor + WINDOW / 2).min(self.text.len()));
        }
        let mut rows: Vec<String> = vec![String::new()];
        let mut col = 0usize;
        let mut cur = (0usize, 0usize);
        for (i, c) in self.text[start..end].char_indices() {
            if start + i == self.cursor {
                cur = (col, rows.len() - 1);
            }
            if c == '\n' {
                rows.push(String::new());
                col = 0;
                continue;
            }
            let cw = c.width().unwrap_or(0);
            if col + cw > avail {
                rows.push(String::new());
                col = 0;
            }
            if let Some(r) = rows.last_mut() {
                r.push(c);
            }
            col += cw;
        }
        if self.cursor >= end {
            if col >= avail {
                rows.push(String::new());
                col = 0;
            }
            cur = (col, rows.len() - 1);
        }
        let first = cur.1.saturating_sub(MAX_ROWS - 1).min(
            rows.len()
                .saturating_sub(MAX_ROWS)
                .max(cur.1.saturating_sub(MAX_ROWS - 1)),
        );
        let shown: Vec<Line<'static>> = rows
            .into_iter()
            .skip(first)
            .take(MAX_ROWS)
            .map(|r| Line::from(vec![prefix.clone(), Span::raw(r)]))
            .collect();
        (shown, ((pw + cur.0) as u16, (cur.1 - first) as u16))
    }
}

fn floor_boundary(s: &str, mut at: usize) -> usize {
    while at > 0 && !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Byte offset of column `col` (in chars) within `text[start..end]`.
fn column_offset(text: &str, start: usize, end: usize, col: usize) -> usize {
    text[start..end]
        .char_indices()
        .nth(col)
        .map_or(end, |(i, _)| start + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readline_keys() {
        let mut e = Editor::default();
        e.insert("hello big world");
        e.delete_word_left();
        assert_eq!(e.text(), "hello big ");
        e.home();
        e.word_right();
        assert_eq!(e.cursor(), 5);
        e.kill_line_right();
        assert_eq!(e.text(), "hello");
        e.insert_char('\n');
        e.insert("second");
        e.kill_line_left();
        assert_eq!(e.text(), "hello\n");
        e.backspace();
        e.word_left();
        assert_eq!(e.cursor(), 0);
        e.insert("x\r\ny\tz\u{1b}[31m");
        assert_eq!(e.text(), "x\ny    zhello");
    }

    #[test]
    fn history_at_the_edges() {
        let dir = tempfile::tempdir().unwrap();
        let mut h = History::load(Some(dir.path().join("h")));
        h.push("first");
        h.push("second\nline");
        let mut e = Editor::default();
        e.insert("draft");
        e.up(&h);
        assert_eq!(e.text(), "second\nline");
        e.up(&h); // moves to the first line of the entry
        e.up(&h);
        assert_eq!(e.text(), "first");
        e.down(&h);
        assert_eq!(e.text(), "second\nline");
        e.down(&h);
        assert_eq!(e.text(), "draft");
    }

    #[test]
    fn render_shows_the_cursor_row_of_a_huge_paste() {
        let mut e = Editor::default();
        e.insert(&"x".repeat(10 * 1024 * 1024));
        let (rows, (col, row)) = e.render(40, Span::raw("▌ "), None);
        assert!(rows.len() <= MAX_ROWS);
        assert_eq!(row as usize, rows.len() - 1);
        assert!(col < 40);
        e.home();
        let (_, (col, row)) = e.render(40, Span::raw("▌ "), None);
        assert_eq!((col, row), (2, 0));
    }
}
