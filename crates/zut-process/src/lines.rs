//! The one bounded, cancellation-safe line reader (extension stdout, RPC
//! stdin, language and MCP servers later).

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// One result of [`LineReader::next_line`].
#[derive(Debug, PartialEq, Eq)]
pub enum LineRead {
    /// A complete line without its LF (a CR, if any, is left for the decoder).
    Line(Vec<u8>),
    /// The line grew past the limit; the stream must be abandoned.
    TooLong,
    /// End of stream with no pending bytes.
    Eof,
}

/// One result of [`LineReader::next_line_skipping`].
#[derive(Debug, PartialEq, Eq)]
pub enum SkipRead {
    /// A complete line without its LF.
    Line(Vec<u8>),
    /// A line over the limit was skipped up to its LF; its length (LF
    /// excluded).
    Skipped(usize),
    /// End of stream.
    Eof,
}

/// Reads LF-terminated lines of at most `max` bytes (LF included).
///
/// Partial lines are kept in `self`, so a read can be cancelled (for
/// example inside `tokio::select!`) without losing data.
pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    max: usize,
    /// Bytes of an over-long line skipped so far (skipping mode).
    skipping: Option<usize>,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    /// Wraps a buffered reader; `max` counts the LF.
    pub fn new(inner: R, max: usize) -> Self {
        Self {
            inner,
            buf: Vec::new(),
            max,
            skipping: None,
        }
    }

    /// Reads the next line; an over-long line ends the stream
    /// ([`LineRead::TooLong`]).
    pub async fn next_line(&mut self) -> std::io::Result<LineRead> {
        loop {
            let chunk = self.inner.fill_buf().await?;
            if chunk.is_empty() {
                if self.buf.is_empty() {
                    return Ok(LineRead::Eof);
                }
                return Ok(LineRead::Line(std::mem::take(&mut self.buf)));
            }
            if let Some(pos) = chunk.iter().position(|&b| b == b'\n') {
                if self.buf.len() + pos + 1 > self.max {
                    return Ok(LineRead::TooLong);
                }
                let line = if self.buf.is_empty() {
                    chunk[..pos].to_vec()
                } else {
                    self.buf.extend_from_slice(&chunk[..pos]);
                    std::mem::take(&mut self.buf)
                };
                self.inner.consume(pos + 1);
                return Ok(LineRead::Line(line));
            }
            let n = chunk.len();
            // Without its LF the line is already `buf + n` bytes; with the
            // LF still to come it needs one more.
            if self.buf.len() + n + 1 > self.max {
                return Ok(LineRead::TooLong);
            }
            self.buf.extend_from_slice(chunk);
            self.inner.consume(n);
        }
    }

    /// Reads the next line; an over-long line is skipped up to its LF and
    /// reported once ([`SkipRead::Skipped`]), and reading goes on.
    pub async fn next_line_skipping(&mut self) -> std::io::Result<SkipRead> {
        loop {
            let chunk = self.inner.fill_buf().await?;
            if chunk.is_empty() {
                if let Some(n) = self.skipping.take() {
                    return Ok(SkipRead::Skipped(n));
                }
                if self.buf.is_empty() {
                    return Ok(SkipRead::Eof);
                }
                return Ok(SkipRead::Line(std::mem::take(&mut self.buf)));
            }
            let newline = chunk.iter().position(|&b| b == b'\n');
            let take = newline.unwrap_or(chunk.len());
            if let Some(n) = self.skipping.as_mut() {
                *n += take;
            } else if self.buf.len() + take + 1 > self.max {
                self.skipping = Some(self.buf.len() + take);
                self.buf = Vec::new();
            } else {
                self.buf.extend_from_slice(&chunk[..take]);
            }
            match newline {
                Some(pos) => {
                    self.inner.consume(pos + 1);
                    return Ok(match self.skipping.take() {
                        Some(n) => SkipRead::Skipped(n),
                        None => SkipRead::Line(std::mem::take(&mut self.buf)),
                    });
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

    async fn lines(input: &[u8], max: usize) -> Vec<LineRead> {
        let mut r = LineReader::new(tokio::io::BufReader::with_capacity(4, input), max);
        let mut out = Vec::new();
        loop {
            let l = r.next_line().await.unwrap();
            let stop = matches!(l, LineRead::Eof | LineRead::TooLong);
            out.push(l);
            if stop {
                return out;
            }
        }
    }

    async fn skipping(input: &[u8], max: usize) -> Vec<SkipRead> {
        let mut r = LineReader::new(tokio::io::BufReader::with_capacity(3, input), max);
        let mut out = Vec::new();
        loop {
            let l = r.next_line_skipping().await.unwrap();
            let end = l == SkipRead::Eof;
            out.push(l);
            if end {
                return out;
            }
        }
    }

    #[tokio::test]
    async fn splits_lines_and_keeps_final_partial() {
        assert_eq!(
            lines(b"ab\r\ncdefgh\n\nxy", 100).await,
            vec![
                LineRead::Line(b"ab\r".to_vec()),
                LineRead::Line(b"cdefgh".to_vec()),
                LineRead::Line(vec![]),
                LineRead::Line(b"xy".to_vec()),
                LineRead::Eof
            ]
        );
    }

    #[tokio::test]
    async fn limit_counts_the_lf() {
        // max 8: a 7-byte body + LF fits, an 8-byte body does not.
        assert_eq!(
            lines(b"1234567\n", 8).await[0],
            LineRead::Line(b"1234567".to_vec())
        );
        assert_eq!(lines(b"12345678\n", 8).await[0], LineRead::TooLong);
        assert_eq!(lines(b"123456789012", 8).await[0], LineRead::TooLong);
    }

    #[tokio::test]
    async fn long_lines_are_skipped_and_reading_goes_on() {
        assert_eq!(
            skipping(b"ab\n0123456789\ncd\nlast", 6).await,
            vec![
                SkipRead::Line(b"ab".to_vec()),
                SkipRead::Skipped(10),
                SkipRead::Line(b"cd".to_vec()),
                SkipRead::Line(b"last".to_vec()),
                SkipRead::Eof
            ]
        );
        assert_eq!(
            skipping(b"12345\n", 6).await[0],
            SkipRead::Line(b"12345".to_vec())
        );
        assert_eq!(skipping(b"123456", 6).await[0], SkipRead::Skipped(6));
    }
}
