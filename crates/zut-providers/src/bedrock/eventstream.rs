//! Framing of AWS's binary `application/vnd.amazon.eventstream` into
//! the (event type, JSON payload) pairs the Bedrock decoder reads.
//!
//! A frame is a 12-byte prelude (total length, headers length, CRC-32 of
//! the first 8 bytes), typed headers, the payload and a CRC-32 of all the
//! rest. Frames are decoded with `aws-smithy-eventstream` (headers, payload,
//! message CRC); the prelude is checked here as soon as its 12 bytes
//! arrive, so a corrupt length fails at once rather than waiting for bytes
//! that never come.
//!
//! Each frame becomes an [`SseEventRef`] whose `event` is the frame's
//! `:event-type` (`messageStart`, `contentBlockDelta`, ...), its
//! `:exception-type` for `exception` frames (`throttlingException`, ...),
//! or `error` for `error` frames (whose data is then
//! `{"code": .., "message": ..}` built from the `:error-code` and
//! `:error-message` headers); `data` is the payload as text.

use aws_smithy_eventstream::frame::{DecodedFrame, MessageFrameDecoder};
use aws_smithy_types::event_stream::Message;
use bytes::{Buf, BytesMut};

use crate::sse::SseEventRef;

/// Largest frame accepted (AWS's event-stream limit is 16 MiB).
const MAX_FRAME: u32 = 16 * 1024 * 1024;
/// Prelude: total length, headers length, prelude CRC.
const PRELUDE: usize = 12;
/// Smallest frame: prelude and message CRC.
const MIN_FRAME: u32 = 16;

/// An incremental event-stream frame reader.
#[derive(Debug, Default)]
pub(crate) struct FrameReader {
    buf: BytesMut,
    decoder: MessageFrameDecoder,
    /// The prelude of the frame being read was checked.
    prelude_checked: bool,
    event: String,
    data: String,
}

impl FrameReader {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Append received bytes.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.buf.extend_from_slice(chunk);
    }

    /// Bytes received but not yet decoded.
    pub(crate) fn pending_bytes(&self) -> usize {
        self.buf.len()
    }

    /// The next complete frame; `Ok(None)` when more bytes are needed;
    /// `Err` (a description) for a corrupt frame.
    pub(crate) fn next_event(&mut self) -> Result<Option<SseEventRef<'_>>, String> {
        if !self.prelude_checked {
            if self.buf.len() < PRELUDE {
                return Ok(None);
            }
            check_prelude(&self.buf[..PRELUDE])?;
            self.prelude_checked = true;
        }
        let message = match self.decoder.decode_frame(&mut self.buf) {
            Ok(DecodedFrame::Incomplete) => return Ok(None),
            Ok(DecodedFrame::Complete(message)) => message,
            Err(e) => return Err(format!("corrupt event-stream frame: {e}")),
        };
        self.prelude_checked = false;
        self.fill(&message)?;
        Ok(Some(SseEventRef {
            event: &self.event,
            data: &self.data,
        }))
    }

    fn fill(&mut self, message: &Message) -> Result<(), String> {
        let mut message_type = "event";
        let mut event_type = "";
        let mut exception_type = "";
        let mut error_code = "";
        let mut error_message = "";
        for header in message.headers() {
            let Ok(value) = header.value().as_string() else {
                continue;
            };
            match header.name().as_str() {
                ":message-type" => message_type = value.as_str(),
                ":event-type" => event_type = value.as_str(),
                ":exception-type" => exception_type = value.as_str(),
                ":error-code" => error_code = value.as_str(),
                ":error-message" => error_message = value.as_str(),
                _ => {}
            }
        }
        self.event.clear();
        self.data.clear();
        let payload = std::str::from_utf8(message.payload())
            .map_err(|_| "an event-stream payload is not UTF-8".to_string())?;
        match message_type {
            "exception" => {
                self.event.push_str(if exception_type.is_empty() {
                    "exception"
                } else {
                    exception_type
                });
                self.data.push_str(payload);
            }
            "error" => {
                self.event.push_str("error");
                self.data.push_str(
                    &serde_json::json!({"code": error_code, "message": error_message}).to_string(),
                );
            }
            _ => {
                self.event.push_str(event_type);
                self.data.push_str(payload);
            }
        }
        Ok(())
    }
}

/// Check a frame's prelude: its CRC and plausible lengths.
fn check_prelude(prelude: &[u8]) -> Result<(), String> {
    let mut p = prelude;
    let total = p.get_u32();
    let headers = p.get_u32();
    let crc = p.get_u32();
    let actual = crc32fast::hash(&prelude[..8]);
    if actual != crc {
        return Err(format!(
            "corrupt event-stream frame: prelude checksum {crc:#010x}, computed {actual:#010x}"
        ));
    }
    if !(MIN_FRAME..=MAX_FRAME).contains(&total) || headers > total - MIN_FRAME {
        return Err(format!(
            "corrupt event-stream frame: length {total} with {headers} bytes of headers"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_smithy_eventstream::frame::write_message_to;
    use aws_smithy_types::event_stream::{Header, HeaderValue};

    fn frame(event: &str, payload: &str) -> Vec<u8> {
        let message = Message::new(payload.as_bytes().to_vec())
            .add_header(Header::new(
                ":message-type",
                HeaderValue::String("event".into()),
            ))
            .add_header(Header::new(
                ":event-type",
                HeaderValue::String(event.to_string().into()),
            ));
        let mut out = Vec::new();
        write_message_to(&message, &mut out).unwrap();
        out
    }

    #[test]
    fn frames_in_any_chunking() {
        let mut bytes = frame("messageStart", "{\"role\":\"assistant\"}");
        bytes.extend(frame(
            "contentBlockDelta",
            "{\"delta\":{\"text\":\"h\u{e9}\"}}",
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
            assert_eq!(seen.len(), 2, "chunk size {size}");
            assert_eq!(seen[1].1, "{\"delta\":{\"text\":\"h\u{e9}\"}}");
            assert_eq!(reader.pending_bytes(), 0);
        }
    }

    #[test]
    fn corrupt_prelude_and_message_crc_are_errors() {
        let good = frame("messageStart", "{}");
        let mut bad = good.clone();
        bad[2] ^= 0x40;
        let mut reader = FrameReader::new();
        reader.push(&bad[..12]);
        assert!(reader
            .next_event()
            .unwrap_err()
            .contains("prelude checksum"));
        let mut bad = good;
        let last = bad.len() - 1;
        bad[last] ^= 1;
        let mut reader = FrameReader::new();
        reader.push(&bad);
        assert!(reader.next_event().unwrap_err().contains("corrupt"));
    }
}
