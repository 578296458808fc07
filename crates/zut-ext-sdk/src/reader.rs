//! A line reader with a hard cap on the line length.

use std::io::{BufRead, ErrorKind};

use crate::error::SdkError;

/// Reads LF-terminated lines, refusing any line longer than `limit` bytes
/// (terminating LF included), like the Go SDK's 4 MiB scanner.
pub(crate) struct LineReader<R> {
    inner: R,
    limit: usize,
}

impl<R: BufRead> LineReader<R> {
    /// Wraps `inner`; `limit` counts the terminating LF.
    pub(crate) fn new(inner: R, limit: usize) -> Self {
        Self { inner, limit }
    }

    /// Replaces `line` with the next line, LF stripped. Returns `false` at
    /// end of input. A final line without LF is still returned.
    pub(crate) fn next_line(&mut self, line: &mut Vec<u8>) -> Result<bool, SdkError> {
        line.clear();
        loop {
            let available = match self.inner.fill_buf() {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            };
            if available.is_empty() {
                return Ok(!line.is_empty());
            }
            match available.iter().position(|&b| b == b'\n') {
                Some(end) => {
                    if line.len() + end + 1 > self.limit {
                        return Err(SdkError::LineTooLong { limit: self.limit });
                    }
                    line.extend_from_slice(&available[..end]);
                    self.inner.consume(end + 1);
                    return Ok(true);
                }
                None => {
                    let taken = available.len();
                    // Even if the LF came next, the line would be too long.
                    if line.len() + taken >= self.limit {
                        return Err(SdkError::LineTooLong { limit: self.limit });
                    }
                    line.extend_from_slice(available);
                    self.inner.consume(taken);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], limit: usize) -> Result<Vec<Vec<u8>>, SdkError> {
        let mut reader = LineReader::new(std::io::BufReader::with_capacity(4, input), limit);
        let mut out = Vec::new();
        let mut line = Vec::new();
        while reader.next_line(&mut line)? {
            out.push(line.clone());
        }
        Ok(out)
    }

    #[test]
    fn splits_lines_across_small_buffers() {
        let got = lines(b"abcdefgh\n\nxyz", 100).unwrap();
        assert_eq!(got, vec![b"abcdefgh".to_vec(), Vec::new(), b"xyz".to_vec()]);
    }

    #[test]
    fn limit_counts_the_line_feed() {
        assert_eq!(lines(b"12345\n", 6).unwrap(), vec![b"12345".to_vec()]);
        assert!(matches!(
            lines(b"123456\n", 6),
            Err(SdkError::LineTooLong { limit: 6 })
        ));
        assert!(matches!(
            lines(b"1234567890", 6),
            Err(SdkError::LineTooLong { limit: 6 })
        ));
    }
}
