//! Framing of AWS's binary `application/vnd.amazon.eventstream` into
//! the (event type, JSON payload) pairs the Bedrock decoder reads.
//!
//! A frame is a 12-byte prelude (total length, headers length, CRC-32 of
//! the first 8 bytes), typed headers (name length, name, type, value), the
//! payload and a CRC-32 of everything before it. Both CRCs are checked;
//! lengths are bounded (16 MiB frames, as AWS's limit); headers are
//! decoded in place, without copying, for every value type of the format
//! (only strings are used). The decoder is cross-checked against the
//! `aws-smithy-eventstream` encoder in its tests and fuzzed
//! (`fuzz/fuzz_targets/stream.rs`).
//!
//! Each frame becomes an [`SseEventRef`] whose `event` is the frame's
//! `:event-type` (`messageStart`, `contentBlockDelta`, ...), its
//! `:exception-type` for `exception` frames (`throttlingException`, ...),
//! or `error` for `error` frames (whose data is then
//! `{"code": .., "message": ..}` built from the `:error-code` and
//! `:error-message` headers); `data` is the payload as text.

use crate::sse::SseEventRef;

/// Largest frame accepted (AWS's event-stream limit is 16 MiB).
const MAX_FRAME: usize = 16 * 1024 * 1024;
/// Prelude: total length, headers length, prelude CRC.
const PRELUDE: usize = 12;
/// Smallest frame: prelude and message CRC.
const MIN_FRAME: usize = PRELUDE + 4;

/// An incremental event-stream frame reader.
#[derive(Debug, Default)]
pub(crate) struct FrameReader {
    buf: Vec<u8>,
    /// Start of the first frame not yet returned.
    start: usize,
    /// Built data of an `error` frame.
    scratch: String,
}

fn be32(bytes: &[u8], at: usize) -> Option<usize> {
    let b: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
    usize::try_from(u32::from_be_bytes(b)).ok()
}

/// Where the headers that matter are, as ranges into the frame.
#[derive(Default)]
struct Headers<'a> {
    message_type: &'a str,
    event_type: &'a str,
    exception_type: &'a str,
    error_code: &'a str,
    error_message: &'a str,
}

fn parse_headers(mut h: &[u8]) -> Result<Headers<'_>, String> {
    let bad = || "corrupt event-stream frame: truncated or invalid headers".to_string();
    let mut out = Headers {
        message_type: "event",
        ..Headers::default()
    };
    while !h.is_empty() {
        let name_len = usize::from(*h.first().ok_or_else(bad)?);
        let name = h.get(1..1 + name_len).ok_or_else(bad)?;
        let kind = *h.get(1 + name_len).ok_or_else(bad)?;
        let rest = h.get(2 + name_len..).ok_or_else(bad)?;
        let (value, used): (Option<&[u8]>, usize) = match kind {
            0 | 1 => (None, 0),
            2 => (None, 1),
            3 => (None, 2),
            4 => (None, 4),
            5 | 8 => (None, 8),
            9 => (None, 16),
            6 | 7 => {
                let len: [u8; 2] = rest
                    .get(..2)
                    .ok_or_else(bad)?
                    .try_into()
                    .map_err(|_| bad())?;
                let len = usize::from(u16::from_be_bytes(len));
                (Some(rest.get(2..2 + len).ok_or_else(bad)?), 2 + len)
            }
            other => {
                return Err(format!(
                    "corrupt event-stream frame: unknown header value type {other}"
                ))
            }
        };
        if rest.len() < used {
            return Err(bad());
        }
        h = &rest[used..];
        if let (7, Some(value)) = (kind, value) {
            let value = std::str::from_utf8(value)
                .map_err(|_| "an event-stream header is not UTF-8".to_string())?;
            match name {
                b":message-type" => out.message_type = value,
                b":event-type" => out.event_type = value,
                b":exception-type" => out.exception_type = value,
                b":error-code" => out.error_code = value,
                b":error-message" => out.error_message = value,
                _ => {}
            }
        }
    }
    Ok(out)
}

impl FrameReader {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Append received bytes.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        self.buf.extend_from_slice(chunk);
    }

    /// Bytes received but not yet decoded.
    pub(crate) fn pending_bytes(&self) -> usize {
        self.buf.len() - self.start
    }

    /// The next complete frame; `Ok(None)` when more bytes are needed;
    /// `Err` (a description) for a corrupt frame.
    pub(crate) fn next_event(&mut self) -> Result<Option<SseEventRef<'_>>, String> {
        let avail = &self.buf[self.start..];
        let (Some(total), Some(headers_len), Some(prelude_crc)) =
            (be32(avail, 0), be32(avail, 4), be32(avail, 8))
        else {
            return Ok(None);
        };
        let computed = crc32fast::hash(&avail[..8]);
        if usize::try_from(computed).ok() != Some(prelude_crc) {
            return Err(format!(
                "corrupt event-stream frame: prelude checksum {prelude_crc:#010x}, computed {computed:#010x}"
            ));
        }
        if !(MIN_FRAME..=MAX_FRAME).contains(&total) || headers_len > total - MIN_FRAME {
            return Err(format!(
                "corrupt event-stream frame: length {total} with {headers_len} bytes of headers"
            ));
        }
        if avail.len() < total {
            return Ok(None);
        }
        let frame = &avail[..total];
        let message_crc = be32(frame, total - 4).unwrap_or_default();
        let computed = crc32fast::hash(&frame[..total - 4]);
        if usize::try_from(computed).ok() != Some(message_crc) {
            return Err(format!(
                "corrupt event-stream frame: message checksum {message_crc:#010x}, computed {computed:#010x}"
            ));
        }
        let start = self.start;
        self.start += total;
        let frame = &self.buf[start..start + total];
        let headers = parse_headers(&frame[PRELUDE..PRELUDE + headers_len])?;
        let payload = std::str::from_utf8(&frame[PRELUDE + headers_len..total - 4])
            .map_err(|_| "an event-stream payload is not UTF-8".to_string())?;
        Ok(Some(match headers.message_type {
            "exception" => SseEventRef {
                event: if headers.exception_type.is_empty() {
                    "exception"
                } else {
                    headers.exception_type
                },
                data: payload,
            },
            "error" => {
                self.scratch =
                    serde_json::json!({"code": headers.error_code, "message": headers.error_message})
                        .to_string();
                SseEventRef {
                    event: "error",
                    data: &self.scratch,
                }
            }
            _ => SseEventRef {
                event: headers.event_type,
                data: payload,
            },
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_smithy_eventstream::frame::write_message_to;
    use aws_smithy_types::event_stream::{Header, HeaderValue, Message};

    /// A frame encoded by AWS's own crate, with every header value type.
    fn frame(message_type: &str, kind: &str, payload: &str) -> Vec<u8> {
        let type_header = if message_type == "exception" {
            ":exception-type"
        } else {
            ":event-type"
        };
        let message = Message::new(payload.as_bytes().to_vec())
            .add_header(Header::new("flag", HeaderValue::Bool(true)))
            .add_header(Header::new("n8", HeaderValue::Byte(-3)))
            .add_header(Header::new("n16", HeaderValue::Int16(300)))
            .add_header(Header::new("n32", HeaderValue::Int32(70_000)))
            .add_header(Header::new("n64", HeaderValue::Int64(1 << 40)))
            .add_header(Header::new(
                "raw",
                HeaderValue::ByteArray(vec![0, 255].into()),
            ))
            .add_header(Header::new("id", HeaderValue::Uuid(42)))
            .add_header(Header::new(
                ":message-type",
                HeaderValue::String(message_type.to_string().into()),
            ))
            .add_header(Header::new(
                type_header,
                HeaderValue::String(kind.to_string().into()),
            ));
        let mut out = Vec::new();
        write_message_to(&message, &mut out).unwrap();
        out
    }

    #[test]
    fn frames_in_any_chunking() {
        let mut bytes = frame("event", "messageStart", "{\"role\":\"assistant\"}");
        bytes.extend(frame(
            "event",
            "contentBlockDelta",
            "{\"delta\":{\"text\":\"h\u{e9}\"}}",
        ));
        bytes.extend(frame(
            "exception",
            "throttlingException",
            "{\"message\":\"slow\"}",
        ));
        for size in [1, 3, 7, 1000] {
            let mut reader = FrameReader::new();
            let mut seen = Vec::new();
            for chunk in bytes.chunks(size) {
                reader.push(chunk);
                while let Some(e) = reader.next_event().unwrap() {
                    seen.push((e.event.to_string(), e.data.to_string()));
                }
            }
            assert_eq!(seen.len(), 3, "chunk size {size}");
            assert_eq!(seen[1].1, "{\"delta\":{\"text\":\"h\u{e9}\"}}");
            assert_eq!(seen[2].0, "throttlingException");
            assert_eq!(reader.pending_bytes(), 0);
        }
    }

    #[test]
    fn corrupt_prelude_lengths_and_message_crc_are_errors() {
        let good = frame("event", "messageStart", "{}");
        let mut bad = good.clone();
        bad[2] ^= 0x40;
        let mut reader = FrameReader::new();
        reader.push(&bad[..12]);
        assert!(reader
            .next_event()
            .unwrap_err()
            .contains("prelude checksum"));

        let mut huge = Vec::new();
        huge.extend_from_slice(&(u32::MAX).to_be_bytes());
        huge.extend_from_slice(&0u32.to_be_bytes());
        huge.extend_from_slice(&crc32fast::hash(&huge).to_be_bytes());
        let mut reader = FrameReader::new();
        reader.push(&huge);
        assert!(reader
            .next_event()
            .unwrap_err()
            .contains("length 4294967295"));

        let mut bad = good;
        let last = bad.len() - 1;
        bad[last] ^= 1;
        let mut reader = FrameReader::new();
        reader.push(&bad);
        assert!(reader
            .next_event()
            .unwrap_err()
            .contains("message checksum"));
    }
}
