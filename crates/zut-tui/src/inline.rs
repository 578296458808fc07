//! Inline rendering: finished transcript rows are written once into the
//! terminal's own scrollback (native scrolling, search and selection keep
//! working); only the live area below them is redrawn, differentially,
//! inside a synchronized update (DEC mode 2026) so nothing flickers.

use std::io::{self, Write};

use crossterm::cursor::{Hide, MoveTo, Show};
use crossterm::style::{
    Attribute, Color as CColor, Print, ResetColor, SetAttribute, SetBackgroundColor,
    SetForegroundColor,
};
use crossterm::terminal::{BeginSynchronizedUpdate, Clear, ClearType, EndSynchronizedUpdate};
use crossterm::QueueableCommand;
use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;

use crate::wrap;

/// The screen below the shell's last output: scrollback rows go above
/// `top`, the live area starts at `top`.
pub struct InlineScreen<W: Write> {
    backend: CrosstermBackend<W>,
    size: (u16, u16),
    /// Screen row where the live area starts.
    top: u16,
    prev: Option<Buffer>,
}

impl<W: Write> InlineScreen<W> {
    /// A screen of `size` whose live area starts at row `top`.
    pub fn new(out: W, size: (u16, u16), top: u16) -> Self {
        Self {
            backend: CrosstermBackend::new(out),
            size,
            top: top.min(size.1.saturating_sub(1)),
            prev: None,
        }
    }

    /// The writer (for OSC 52, BEL...).
    pub fn writer(&mut self) -> &mut W {
        self.backend.writer_mut()
    }

    /// Row where the live area starts.
    pub fn top(&self) -> u16 {
        self.top
    }

    /// The terminal changed size: the live area is cleared and fully
    /// redrawn at the next frame (re-wrapped at the new width).
    pub fn resize(&mut self, size: (u16, u16)) -> io::Result<()> {
        self.size = size;
        let live_h = self.prev.as_ref().map_or(0, |b| b.area.height);
        self.top = self.top.min(size.1.saturating_sub(live_h.max(1)));
        self.invalidate()
    }

    /// Forgets what is on screen below `top` (after a resize, Ctrl+L or a
    /// resume): the next frame clears and redraws it.
    pub fn invalidate(&mut self) -> io::Result<()> {
        self.prev = None;
        let out = self.backend.writer_mut();
        out.queue(MoveTo(0, self.top))?;
        out.queue(Clear(ClearType::FromCursorDown))?;
        Ok(())
    }

    /// Moves the live area's top to `row` (after a resume).
    pub fn set_top(&mut self, row: u16) {
        self.top = row.min(self.size.1.saturating_sub(1));
        self.prev = None;
    }

    /// Paints one frame: `history` rows into the scrollback, then `live`
    /// (as tall as it is) at the bottom, with the cursor at `cursor`
    /// (relative to the live area) or hidden.
    pub fn frame(
        &mut self,
        history: &[Line<'static>],
        live: &Buffer,
        cursor: Option<(u16, u16)>,
    ) -> io::Result<()> {
        let (w, h) = self.size;
        let h = h.max(1);
        let out = self.backend.writer_mut();
        out.queue(BeginSynchronizedUpdate)?;
        out.queue(Hide)?;
        if !history.is_empty() {
            out.queue(MoveTo(0, self.top))?;
            out.queue(Clear(ClearType::FromCursorDown))?;
            let mut rows: u32 = 0;
            for line in history {
                write_line(out, line)?;
                out.queue(Print("\r\n"))?;
                let lw = wrap::line_width(line) as u32;
                rows += lw.div_ceil(u32::from(w.max(1))).max(1);
            }
            self.top = (u32::from(self.top) + rows).min(u32::from(h - 1)) as u16;
            self.prev = None;
        }
        let live_h = live.area.height.min(h);
        if self.top + live_h > h {
            let k = self.top + live_h - h;
            if self.prev.is_some() {
                out.queue(MoveTo(0, self.top))?;
                out.queue(Clear(ClearType::FromCursorDown))?;
            }
            out.queue(MoveTo(0, h - 1))?;
            for _ in 0..k {
                out.queue(Print("\n"))?;
            }
            self.top -= k;
            self.prev = None;
        }
        if self.prev.as_ref().is_some_and(|p| p.area != live.area) {
            out.queue(MoveTo(0, self.top))?;
            out.queue(Clear(ClearType::FromCursorDown))?;
            self.prev = None;
        }
        let blank;
        let prev = match &self.prev {
            Some(p) => p,
            None => {
                let out = self.backend.writer_mut();
                out.queue(MoveTo(0, self.top))?;
                out.queue(Clear(ClearType::FromCursorDown))?;
                blank = Buffer::empty(live.area);
                &blank
            }
        };
        let top = self.top;
        let cells: Vec<(u16, u16, &ratatui::buffer::Cell)> = prev
            .diff(live)
            .into_iter()
            .filter(|(_, y, _)| *y < live_h)
            .map(|(x, y, c)| (x, y + top, c))
            .collect();
        self.backend.draw(cells.into_iter())?;
        let out = self.backend.writer_mut();
        out.queue(SetAttribute(Attribute::Reset))?;
        out.queue(ResetColor)?;
        if let Some((x, y)) = cursor {
            out.queue(MoveTo(x.min(w.saturating_sub(1)), (top + y).min(h - 1)))?;
            out.queue(Show)?;
        }
        out.queue(EndSynchronizedUpdate)?;
        out.flush()?;
        self.prev = Some(live.clone());
        Ok(())
    }

    /// Leaves the screen: the live area is erased from the editor down,
    /// the cursor is put below what stays. Called on exit.
    pub fn leave(&mut self, keep: &[Line<'static>]) -> io::Result<()> {
        let out = self.backend.writer_mut();
        out.queue(MoveTo(0, self.top))?;
        out.queue(Clear(ClearType::FromCursorDown))?;
        for line in keep {
            write_line(out, line)?;
            out.queue(Print("\r\n"))?;
        }
        out.queue(SetAttribute(Attribute::Reset))?;
        out.queue(ResetColor)?;
        out.queue(Show)?;
        out.flush()
    }
}

/// Writes one styled row (no newline).
pub fn write_line<W: Write>(out: &mut W, line: &Line<'_>) -> io::Result<()> {
    for span in &line.spans {
        let style = line.style.patch(span.style);
        write_style(out, style)?;
        out.queue(Print(&*span.content))?;
        if style != Style::default() {
            out.queue(SetAttribute(Attribute::Reset))?;
            out.queue(ResetColor)?;
        }
    }
    Ok(())
}

fn write_style<W: Write>(out: &mut W, style: Style) -> io::Result<()> {
    if let Some(fg) = style.fg {
        out.queue(SetForegroundColor(color(fg)))?;
    }
    if let Some(bg) = style.bg {
        out.queue(SetBackgroundColor(color(bg)))?;
    }
    let m = style.add_modifier;
    for (flag, attr) in [
        (Modifier::BOLD, Attribute::Bold),
        (Modifier::DIM, Attribute::Dim),
        (Modifier::ITALIC, Attribute::Italic),
        (Modifier::UNDERLINED, Attribute::Underlined),
        (Modifier::REVERSED, Attribute::Reverse),
        (Modifier::CROSSED_OUT, Attribute::CrossedOut),
    ] {
        if m.contains(flag) {
            out.queue(SetAttribute(attr))?;
        }
    }
    Ok(())
}

/// A ratatui colour as crossterm's.
fn color(c: Color) -> CColor {
    match c {
        Color::Reset => CColor::Reset,
        Color::Black => CColor::Black,
        Color::Red => CColor::DarkRed,
        Color::Green => CColor::DarkGreen,
        Color::Yellow => CColor::DarkYellow,
        Color::Blue => CColor::DarkBlue,
        Color::Magenta => CColor::DarkMagenta,
        Color::Cyan => CColor::DarkCyan,
        Color::Gray => CColor::Grey,
        Color::DarkGray => CColor::DarkGrey,
        Color::LightRed => CColor::Red,
        Color::LightGreen => CColor::Green,
        Color::LightYellow => CColor::Yellow,
        Color::LightBlue => CColor::Blue,
        Color::LightMagenta => CColor::Magenta,
        Color::LightCyan => CColor::Cyan,
        Color::White => CColor::White,
        Color::Indexed(i) => CColor::AnsiValue(i),
        Color::Rgb(r, g, b) => CColor::Rgb { r, g, b },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::widgets::Widget;

    fn buf(rows: &[&str], w: u16) -> Buffer {
        let mut b = Buffer::empty(Rect::new(0, 0, w, rows.len() as u16));
        for (i, r) in rows.iter().enumerate() {
            Line::from(*r).render(Rect::new(0, i as u16, w, 1), &mut b);
        }
        b
    }

    #[test]
    fn second_frame_only_sends_the_changed_cells_inside_a_sync_update() {
        let mut s = InlineScreen::new(Vec::new(), (20, 10), 2);
        s.frame(&[], &buf(&["status", "> ab"], 20), Some((4, 1)))
            .unwrap();
        s.writer().clear();
        s.frame(&[], &buf(&["status", "> abc"], 20), Some((5, 1)))
            .unwrap();
        let out = String::from_utf8(s.writer().clone()).unwrap();
        assert!(out.starts_with("\u{1b}[?2026h"), "{out:?}");
        assert!(out.ends_with("\u{1b}[?2026l"), "{out:?}");
        assert!(
            out.contains('c') && !out.contains("status") && !out.contains("ab"),
            "{out:?}"
        );
    }

    #[test]
    fn history_goes_above_and_the_live_area_moves_down() {
        let mut s = InlineScreen::new(Vec::new(), (20, 10), 2);
        s.frame(&[], &buf(&["live"], 20), None).unwrap();
        s.frame(
            &[Line::from("one"), Line::from("two")],
            &buf(&["live"], 20),
            None,
        )
        .unwrap();
        assert_eq!(s.top(), 4);
        // Filling the screen scrolls: the live area stays on screen.
        let many: Vec<Line<'static>> = (0..30).map(|i| Line::from(format!("row {i}"))).collect();
        s.frame(&many, &buf(&["a", "b", "c"], 20), None).unwrap();
        assert_eq!(s.top(), 7);
        let out = String::from_utf8(s.writer().clone()).unwrap();
        assert!(out.contains("row 29\r\n"));
    }
}
