//! JSON-RPC base-protocol framing: `Content-Length` headers, bounded.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Largest message body accepted from a server.
pub const MAX_MESSAGE_BYTES: usize = 32 * 1024 * 1024;

/// Largest header block accepted from a server.
pub const MAX_HEADER_BYTES: usize = 8 * 1024;

/// Why a frame could not be read. Any of these ends the connection: the
/// stream can no longer be trusted to be in step.
#[derive(Debug, PartialEq, Eq)]
pub enum FrameError {
    /// The header block is longer than [`MAX_HEADER_BYTES`].
    HeaderTooLong,
    /// A header line that is not `Name: value`.
    BadHeader(String),
    /// No `Content-Length` header.
    MissingLength,
    /// `Content-Length` above [`MAX_MESSAGE_BYTES`].
    TooLarge(usize),
    /// The stream ended inside a frame.
    Truncated,
    /// Reading failed.
    Io(String),
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::HeaderTooLong => write!(f, "header longer than {MAX_HEADER_BYTES} bytes"),
            FrameError::BadHeader(h) => write!(f, "malformed header line {h:?}"),
            FrameError::MissingLength => write!(f, "message without a Content-Length header"),
            FrameError::TooLarge(n) => write!(
                f,
                "message of {n} bytes exceeds the {MAX_MESSAGE_BYTES}-byte limit"
            ),
            FrameError::Truncated => write!(f, "stream ended inside a message"),
            FrameError::Io(e) => write!(f, "read error: {e}"),
        }
    }
}

/// Reads one message body. `Ok(None)` at a clean end of stream (between
/// messages).
pub async fn read_message<R: AsyncBufRead + Unpin>(
    r: &mut R,
) -> Result<Option<Vec<u8>>, FrameError> {
    let mut header_bytes = 0usize;
    let mut length: Option<usize> = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = (&mut *r)
            .take((MAX_HEADER_BYTES - header_bytes + 1) as u64)
            .read_until(b'\n', &mut line)
            .await
            .map_err(|e| FrameError::Io(e.to_string()))?;
        if n == 0 {
            return if header_bytes == 0 {
                Ok(None)
            } else {
                Err(FrameError::Truncated)
            };
        }
        header_bytes += n;
        if header_bytes > MAX_HEADER_BYTES {
            return Err(FrameError::HeaderTooLong);
        }
        if !line.ends_with(b"\n") {
            return Err(FrameError::Truncated);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if header_bytes <= 2 {
                // A stray blank line between messages.
                header_bytes = 0;
                continue;
            }
            break;
        }
        let Some((name, value)) = text.split_once(':') else {
            return Err(FrameError::BadHeader(text.chars().take(80).collect()));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let n: usize = value
                .trim()
                .parse()
                .map_err(|_| FrameError::BadHeader(text.chars().take(80).collect()))?;
            if n > MAX_MESSAGE_BYTES {
                return Err(FrameError::TooLarge(n));
            }
            length = Some(n);
        }
    }
    let Some(len) = length else {
        return Err(FrameError::MissingLength);
    };
    let mut body = vec![0u8; len];
    r.read_exact(&mut body).await.map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            FrameError::Truncated
        } else {
            FrameError::Io(e.to_string())
        }
    })?;
    Ok(Some(body))
}

/// Writes one message with its `Content-Length` header.
pub async fn write_message<W: AsyncWrite + Unpin>(w: &mut W, body: &[u8]) -> std::io::Result<()> {
    let header = format!("Content-Length: {}\r\n\r\n", body.len());
    w.write_all(header.as_bytes()).await?;
    w.write_all(body).await?;
    w.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn read_all(input: &[u8]) -> Vec<Result<Option<Vec<u8>>, FrameError>> {
        let mut r = tokio::io::BufReader::new(input);
        let mut out = Vec::new();
        loop {
            let m = read_message(&mut r).await;
            let stop = !matches!(m, Ok(Some(_)));
            out.push(m);
            if stop {
                return out;
            }
        }
    }

    #[tokio::test]
    async fn reads_messages_and_clean_eof() {
        let out =
            read_all(b"Content-Length: 2\r\n\r\n{}content-length:3\r\nContent-Type: x\r\n\r\n[1]")
                .await;
        assert_eq!(
            out,
            vec![
                Ok(Some(b"{}".to_vec())),
                Ok(Some(b"[1]".to_vec())),
                Ok(None)
            ]
        );
    }

    #[tokio::test]
    async fn bad_frames_are_errors() {
        assert_eq!(
            read_all(b"hello\r\n\r\n").await,
            vec![Err(FrameError::BadHeader("hello".into()))]
        );
        assert_eq!(
            read_all(b"X-A: 1\r\n\r\n").await,
            vec![Err(FrameError::MissingLength)]
        );
        assert_eq!(
            read_all(b"Content-Length: 999999999999\r\n\r\n").await,
            vec![Err(FrameError::TooLarge(999_999_999_999))]
        );
        assert_eq!(
            read_all(b"Content-Length: 10\r\n\r\n{}").await,
            vec![Err(FrameError::Truncated)]
        );
        let long = vec![b'a'; MAX_HEADER_BYTES + 10];
        assert_eq!(read_all(&long).await, vec![Err(FrameError::HeaderTooLong)]);
    }
}
