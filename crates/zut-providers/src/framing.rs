//! The framing of a response body: SSE for every wire but Bedrock, whose
//! binary event stream is read by [`crate::bedrock::eventstream`]. Both
//! yield [`SseEventRef`]s (event name + text data) to the decoders.

use crate::bedrock::eventstream::FrameReader;
use crate::error::ProviderError;
use crate::presets::Wire;
use crate::sse::{SseEventRef, SseParser};

/// An incremental reader of a response body's events.
#[derive(Debug)]
pub(crate) enum Framer {
    Sse(SseParser),
    EventStream(FrameReader),
}

impl Framer {
    pub(crate) fn new(wire: Wire) -> Self {
        match wire {
            Wire::Bedrock => Framer::EventStream(FrameReader::new()),
            _ => Framer::Sse(SseParser::new()),
        }
    }

    /// Append received bytes.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        match self {
            Framer::Sse(p) => p.push(chunk),
            Framer::EventStream(r) => r.push(chunk),
        }
    }

    /// Bytes buffered but not yet an event.
    pub(crate) fn pending_bytes(&self) -> usize {
        match self {
            Framer::Sse(p) => p.pending_bytes(),
            Framer::EventStream(r) => r.pending_bytes(),
        }
    }

    /// The next complete event.
    pub(crate) fn next_event(
        &mut self,
        provider: &str,
    ) -> Result<Option<SseEventRef<'_>>, ProviderError> {
        match self {
            Framer::Sse(p) => Ok(p.next_event_ref()),
            Framer::EventStream(r) => r.next_event().map_err(|message| ProviderError::Protocol {
                provider: provider.to_string(),
                message,
            }),
        }
    }

    /// At end of body: the next event left (an unterminated SSE event
    /// counts; a partial binary frame does not).
    pub(crate) fn drain(
        &mut self,
        provider: &str,
    ) -> Result<Option<SseEventRef<'_>>, ProviderError> {
        match self {
            Framer::Sse(p) => Ok(p.drain_ref()),
            Framer::EventStream(_) => self.next_event(provider),
        }
    }
}
