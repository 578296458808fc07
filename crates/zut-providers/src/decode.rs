//! Dispatch from SSE events to the wire-specific decoder.

use crate::assemble::{Assembler, Emit};
use crate::error::ProviderError;
use crate::presets::Wire;
use crate::sse::SseEvent;
use crate::{anthropic, openai};

/// Whether the stream is finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Keep reading.
    Continue,
    /// The final event arrived.
    Done,
}

/// A wire-specific stream decoder.
#[derive(Debug)]
pub(crate) enum Decoder {
    Anthropic(anthropic::stream::Decoder),
    OpenAi(openai::stream::Decoder),
}

impl Decoder {
    pub(crate) fn new(wire: Wire) -> Self {
        match wire {
            Wire::Anthropic => Decoder::Anthropic(anthropic::stream::Decoder::new()),
            Wire::OpenAi => Decoder::OpenAi(openai::stream::Decoder::new()),
        }
    }

    pub(crate) fn event(
        &mut self,
        provider: &str,
        sse: &SseEvent,
        asm: &mut Assembler,
        emit: &mut Emit<'_>,
    ) -> Result<Flow, ProviderError> {
        match self {
            Decoder::Anthropic(d) => d.event(provider, sse, asm, emit),
            Decoder::OpenAi(d) => d.event(provider, sse, asm, emit),
        }
    }

    /// At end of stream without a final event: whether the reply is complete
    /// (and then settle it).
    pub(crate) fn complete_at_eof(&mut self, asm: &mut Assembler, emit: &mut Emit<'_>) -> bool {
        match self {
            Decoder::Anthropic(d) => d.complete_at_eof(),
            Decoder::OpenAi(d) => {
                let complete = d.complete_at_eof();
                if complete {
                    d.close(asm, emit);
                }
                complete
            }
        }
    }
}
