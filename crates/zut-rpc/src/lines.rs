//! Request lines from stdin: LF-terminated, at most [`MAX_LINE`] bytes.
//! An over-long line is skipped up to its end and reported once, and
//! reading goes on with the next line.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

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
    inner: R,
    buf: Vec<u8>,
    max: usize,
}

impl<R: AsyncBufRead + Unpin> Lines<R> {
    /// Lines of at most `max` bytes from `inner`.
    pub fn new(inner: R, max: usize) -> Self {
        Self {
            inner,
            buf: Vec::new(),
            max,
        }
    }

    /// The next line; a read error counts as the end of input.
    pub async fn next(&mut self) -> Input {
        let mut skipping: Option<usize> = None;
        loop {
            let chunk = match self.inner.fill_buf().await {
                Ok(c) => c,
                Err(_) => return Input::Eof,
            };
            if chunk.is_empty() {
                if let Some(n) = skipping {
                    return Input::TooLong(n);
                }
                if self.buf.is_empty() {
                    return Input::Eof;
                }
                return Input::Line(std::mem::take(&mut self.buf));
            }
            let newline = chunk.iter().position(|&b| b == b'\n');
            let take = newline.unwrap_or(chunk.len());
            if let Some(n) = skipping.as_mut() {
                *n += take;
            } else if self.buf.len() + take > self.max {
                skipping = Some(self.buf.len() + take);
                self.buf = Vec::new();
            } else {
                self.buf.extend_from_slice(&chunk[..take]);
            }
            match newline {
                Some(pos) => {
                    self.inner.consume(pos + 1);
                    return match skipping {
                        Some(n) => Input::TooLong(n),
                        None => Input::Line(std::mem::take(&mut self.buf)),
                    };
                }
                None => {
                    let n = chunk.len();
                    self.inner.consume(n);
                }
            }
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
