//! Request lines from stdin: LF-terminated, at most [`MAX_LINE`] bytes.
//! An over-long line is skipped up to its end and reported once, and
//! reading goes on with the next line (the shared reader of `zut-process`
//! in its skipping mode).

use tokio::io::AsyncBufRead;
use zut_process::lines::{LineReader, SkipRead};

/// Longest accepted input line (rpc.md §1), LF excluded.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// One result of [`Lines::next`].
#[derive(Debug, PartialEq, Eq)]
pub enum Input {
    /// A line without its LF.
    Line(Vec<u8>),
    /// A line longer than the limit was skipped; its length so far.
    TooLong(usize),
    /// End of input.
    Eof,
}

/// Bounded line reader.
pub struct Lines<R> {
    inner: LineReader<R>,
}

impl<R: AsyncBufRead + Unpin> Lines<R> {
    /// Lines of at most `max` bytes (LF excluded) from `inner`.
    pub fn new(inner: R, max: usize) -> Self {
        Self {
            inner: LineReader::new(inner, max.saturating_add(1)),
        }
    }

    /// The next line; a read error counts as the end of input.
    pub async fn next(&mut self) -> Input {
        match self.inner.next_line_skipping().await {
            Ok(SkipRead::Line(l)) => Input::Line(l),
            Ok(SkipRead::Skipped(n)) => Input::TooLong(n),
            Ok(SkipRead::Eof) | Err(_) => Input::Eof,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all(input: &[u8], max: usize) -> Vec<Input> {
        let mut r = Lines::new(tokio::io::BufReader::with_capacity(3, input), max);
        let mut out = Vec::new();
        loop {
            let l = r.next().await;
            let end = l == Input::Eof;
            out.push(l);
            if end {
                return out;
            }
        }
    }

    #[tokio::test]
    async fn long_lines_are_skipped_and_reading_goes_on() {
        assert_eq!(
            all(b"ab\n0123456789\ncd\nlast", 5).await,
            vec![
                Input::Line(b"ab".to_vec()),
                Input::TooLong(10),
                Input::Line(b"cd".to_vec()),
                Input::Line(b"last".to_vec()),
                Input::Eof
            ]
        );
        assert_eq!(all(b"12345\n", 5).await[0], Input::Line(b"12345".to_vec()));
        assert_eq!(all(b"123456", 5).await[0], Input::TooLong(6));
    }
}
