//! Dispatch from SSE events to the wire-specific decoder.

use std::fmt::Display;

use serde::Deserialize;

use crate::assemble::{Assembler, Emit};
use crate::error::ProviderError;
use crate::framing::Framer;
use crate::presets::Wire;
use crate::sse::SseEventRef;
use crate::types::{Completion, StreamEvent};
use crate::{anthropic, bedrock, gemini, openai, responses};

/// Whether the stream is finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Keep reading.
    Continue,
    /// The final event arrived.
    Done,
}

/// Where a wire decoder puts what it decodes: (the provider's name, for
/// errors; the reply being assembled; the caller's event callback).
pub(crate) struct Sink<'a, 'e>(
    pub(crate) &'a str,
    pub(crate) &'a mut Assembler,
    pub(crate) &'a mut Emit<'e>,
);

/// The stream decoder of one wire format.
pub(crate) trait WireDecoder {
    /// Handles one event (an SSE event; for Bedrock one binary event-stream
    /// message, its type in `event`).
    fn event(&mut self, sse: &SseEventRef<'_>, out: Sink<'_, '_>) -> Result<Flow, ProviderError>;
}

/// `data` parsed as JSON, or a protocol error saying `invalid JSON in
/// {what}` (`what` is formatted only on failure).
pub(crate) fn parse_json<'d, T: Deserialize<'d>>(
    provider: &str,
    data: &'d str,
    what: impl Display,
) -> Result<T, ProviderError> {
    serde_json::from_str(data).map_err(|e| ProviderError::Protocol {
        provider: provider.to_string(),
        message: format!("invalid JSON in {what}: {e}"),
    })
}

/// A wire-specific stream decoder.
#[derive(Debug)]
pub(crate) enum Decoder {
    Anthropic(anthropic::stream::Decoder),
    OpenAi(openai::stream::Decoder),
    Gemini(gemini::stream::Decoder),
    Bedrock(bedrock::stream::Decoder),
    Responses(responses::stream::Decoder),
}

impl Decoder {
    pub(crate) fn new(wire: Wire) -> Self {
        match wire {
            Wire::Anthropic => Decoder::Anthropic(anthropic::stream::Decoder::new()),
            Wire::OpenAi => Decoder::OpenAi(openai::stream::Decoder::new()),
            // Vertex answers in Gemini's format (Claude models are
            // decoded as `Wire::Anthropic`, see `cloud::stream_wire`).
            Wire::Gemini | Wire::Vertex => Decoder::Gemini(gemini::stream::Decoder::new()),
            Wire::Bedrock => Decoder::Bedrock(bedrock::stream::Decoder::new()),
            Wire::Responses => Decoder::Responses(responses::stream::Decoder::new()),
        }
    }

    pub(crate) fn event(
        &mut self,
        provider: &str,
        sse: &SseEventRef<'_>,
        asm: &mut Assembler,
        emit: &mut Emit<'_>,
    ) -> Result<Flow, ProviderError> {
        let out = Sink(provider, asm, emit);
        match self {
            Decoder::Anthropic(d) => d.event(sse, out),
            Decoder::OpenAi(d) => d.event(sse, out),
            Decoder::Gemini(d) => d.event(sse, out),
            Decoder::Bedrock(d) => d.event(sse, out),
            Decoder::Responses(d) => d.event(sse, out),
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
            Decoder::Gemini(d) => d.complete_at_eof(),
            Decoder::Bedrock(d) => d.complete_at_eof(),
            Decoder::Responses(d) => d.complete_at_eof(),
        }
    }
}

/// Decode a complete response body offline: the SSE bytes (binary event
/// stream for [`Wire::Bedrock`]) (in any chunking)
/// of one streamed reply in `wire` format, as the provider would receive
/// them over HTTP. Emits the same [`StreamEvent`]s as [`crate::Provider::stream`]
/// (without `RequestStarted`) and returns the assembled [`Completion`].
///
/// Useful to replay recorded streams and to benchmark the parsing path
/// without a network.
pub fn parse_stream<'c>(
    wire: Wire,
    chunks: impl IntoIterator<Item = &'c [u8]>,
    on_event: &mut dyn FnMut(StreamEvent),
) -> Result<Completion, ProviderError> {
    let provider = match wire {
        Wire::Anthropic => "anthropic",
        Wire::OpenAi | Wire::Responses => "openai",
        Wire::Gemini => "google",
        Wire::Vertex => "google-vertex",
        Wire::Bedrock => "amazon-bedrock",
    };
    let mut asm = Assembler::new();
    let mut decoder = Decoder::new(wire);
    let mut parser = Framer::new(wire);
    let mut done = false;
    'chunks: for chunk in chunks {
        parser.push(chunk);
        while let Some(event) = parser.next_event(provider)? {
            if decoder.event(provider, &event, &mut asm, on_event)? == Flow::Done {
                done = true;
                break 'chunks;
            }
        }
    }
    if !done {
        while let Some(event) = parser.drain(provider)? {
            if decoder.event(provider, &event, &mut asm, on_event)? == Flow::Done {
                done = true;
                break;
            }
        }
    }
    if !done && !decoder.complete_at_eof(&mut asm, on_event) {
        return Err(ProviderError::Transport {
            provider: provider.to_string(),
            message: "stream ended before the reply was complete".to_string(),
        });
    }
    asm.finish(provider, on_event)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANTHROPIC: &str = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n\
event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"h\\u00e9\\\"llo\"}}\n\n\
event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n\
event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

    #[test]
    fn parses_a_whole_body_in_any_chunking() {
        for size in [1, 2, 3, 7, 64, 10_000] {
            let mut events = Vec::new();
            let completion = parse_stream(
                Wire::Anthropic,
                ANTHROPIC.as_bytes().chunks(size),
                &mut |e| events.push(e),
            )
            .unwrap();
            assert_eq!(
                completion.message.text(),
                "h\u{e9}\"llo",
                "chunk size {size}"
            );
            assert_eq!(completion.usage.output, 2);
            assert_eq!(
                events,
                vec![
                    StreamEvent::AssistantStart,
                    StreamEvent::TextDelta("h\u{e9}\"llo".into())
                ]
            );
        }
    }

    #[test]
    fn truncated_body_is_incomplete_and_openai_tail_without_blank_line_counts() {
        let cut = &ANTHROPIC[..ANTHROPIC.find("event: message_delta").unwrap()];
        let err = parse_stream(Wire::Anthropic, [cut.as_bytes()], &mut |_| {}).unwrap_err();
        assert!(err.to_string().contains("ended before"), "{err}");

        let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":null}]}\n\ndata: [DONE]";
        let completion = parse_stream(Wire::OpenAi, [body.as_bytes()], &mut |_| {}).unwrap();
        assert_eq!(completion.message.text(), "ok");
    }
}
