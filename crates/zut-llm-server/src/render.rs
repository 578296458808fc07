//! Rendering scripted replies into each provider's SSE wire format.

use serde_json::{json, Value};

use crate::script::{Block, Body, Format, Script, SseFrame, Usage};

const MODEL: &str = "zut-scripted";

/// The frames of a script, each rendered as wire text, as answered to a
/// request that asked for usage (`stream_options.include_usage`).
pub(crate) fn frames(script: &Script) -> Vec<String> {
    frames_for(script, true)
}

/// The frames of a script. `include_usage` only matters to OpenAI replies:
/// as the real API does, chunks then carry `"usage": null` and a final
/// chunk with empty `choices` reports the usage; without it neither appears.
pub(crate) fn frames_for(script: &Script, include_usage: bool) -> Vec<String> {
    let delta = script.delta_bytes.unwrap_or(usize::MAX);
    match &script.body {
        Body::Reply {
            format,
            blocks,
            stop,
            usage,
            interleave,
        } => {
            let frames = match format {
                Format::Anthropic => anthropic(blocks, stop.as_deref(), usage, delta),
                Format::Openai => openai(
                    blocks,
                    stop.as_deref(),
                    usage,
                    delta,
                    *interleave,
                    include_usage,
                ),
                Format::Responses => {
                    crate::responses::reply(blocks, stop.as_deref(), usage, &|text: &str| {
                        pieces(text, delta)
                            .into_iter()
                            .map(str::to_string)
                            .collect()
                    })
                }
                Format::Gemini => crate::gemini::frames(blocks, stop.as_deref(), usage, delta),
                Format::Bedrock => {
                    return crate::bedrock::frames(blocks, stop.as_deref(), usage, delta)
                        .iter()
                        .map(|f| String::from_utf8_lossy(&f.encode()).into_owned())
                        .collect()
                }
            };
            frames.iter().map(SseFrame::render).collect()
        }
        Body::Error {
            error_type,
            message,
        } => vec![json!({
            "type": "error",
            "error": {"type": error_type, "message": message},
        })
        .to_string()],
        Body::Events { frames } => frames.iter().map(SseFrame::render).collect(),
        Body::Raw { text } | Body::Json { text } => vec![text.clone()],
        Body::EventStream { frames } => frames
            .iter()
            .map(|f| String::from_utf8_lossy(&f.encode()).into_owned())
            .collect(),
    }
}

/// The frames of a script as the bytes sent (Bedrock frames are binary,
/// so [`frames_for`]'s text would not do).
pub(crate) fn wire_frames(script: &Script, include_usage: bool) -> Vec<bytes::Bytes> {
    let delta = script.delta_bytes.unwrap_or(usize::MAX);
    match &script.body {
        Body::Reply {
            format: Format::Bedrock,
            blocks,
            stop,
            usage,
            ..
        } => crate::bedrock::frames(blocks, stop.as_deref(), usage, delta)
            .iter()
            .map(crate::bedrock::EventFrame::encode)
            .collect(),
        Body::EventStream { frames } => frames
            .iter()
            .map(crate::bedrock::EventFrame::encode)
            .collect(),
        _ => frames_for(script, include_usage)
            .into_iter()
            .map(bytes::Bytes::from)
            .collect(),
    }
}

/// Split `text` into pieces of at most `n` bytes on char boundaries.
pub(crate) fn pieces(text: &str, n: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = n.min(rest.len());
        while end < rest.len() && !rest.is_char_boundary(end) {
            end += 1;
        }
        let (head, tail) = rest.split_at(end);
        out.push(head);
        rest = tail;
    }
    out
}

/// Anthropic's `message_start` frame.
pub(crate) fn anthropic_message_start(usage: &Usage) -> SseFrame {
    let data = json!({
        "type": "message_start",
        "message": {
            "id": "msg_zut_scripted",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [],
            "stop_reason": null,
            "stop_sequence": null,
            "usage": {
                "input_tokens": usage.input,
                "cache_creation_input_tokens": usage.cache_write,
                "cache_read_input_tokens": usage.cache_read,
                "output_tokens": 1,
            },
        },
    });
    SseFrame::named("message_start", data.to_string())
}

fn anthropic(blocks: &[Block], stop: Option<&str>, usage: &Usage, n: usize) -> Vec<SseFrame> {
    let mut out = vec![
        anthropic_message_start(usage),
        SseFrame::named("ping", "{\"type\": \"ping\"}"),
    ];
    let delta = |index: usize, delta: Value| {
        SseFrame::named(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": delta}).to_string(),
        )
    };
    for (index, block) in blocks.iter().enumerate() {
        let start = match block {
            Block::Text { .. } => json!({"type": "text", "text": ""}),
            Block::Thinking { .. } => json!({"type": "thinking", "thinking": ""}),
            Block::ToolCall { id, name, .. } => {
                json!({"type": "tool_use", "id": id, "name": name, "input": {}})
            }
        };
        out.push(SseFrame::named(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": start})
                .to_string(),
        ));
        match block {
            Block::Text { text } => {
                for piece in pieces(text, n) {
                    out.push(delta(index, json!({"type": "text_delta", "text": piece})));
                }
            }
            Block::Thinking { text, signature } => {
                for piece in pieces(text, n) {
                    out.push(delta(
                        index,
                        json!({"type": "thinking_delta", "thinking": piece}),
                    ));
                }
                out.push(delta(
                    index,
                    json!({"type": "signature_delta", "signature": signature}),
                ));
            }
            Block::ToolCall { args, .. } => {
                out.push(delta(
                    index,
                    json!({"type": "input_json_delta", "partial_json": ""}),
                ));
                for piece in pieces(args, n) {
                    out.push(delta(
                        index,
                        json!({"type": "input_json_delta", "partial_json": piece}),
                    ));
                }
            }
        }
        out.push(SseFrame::named(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}).to_string(),
        ));
    }
    let has_tools = blocks.iter().any(|b| matches!(b, Block::ToolCall { .. }));
    let stop = stop.unwrap_or(if has_tools { "tool_use" } else { "end_turn" });
    out.push(SseFrame::named(
        "message_delta",
        json!({
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": null},
            "usage": {"output_tokens": usage.output},
        })
        .to_string(),
    ));
    out.push(SseFrame::named(
        "message_stop",
        "{\"type\":\"message_stop\"}",
    ));
    out
}

struct OpenaiChunks {
    include_usage: bool,
}

impl OpenaiChunks {
    fn chunk(&self, delta: Value, finish: Option<&str>) -> SseFrame {
        let mut chunk = json!({
            "id": "chatcmpl-zut-scripted",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": MODEL,
            "system_fingerprint": null,
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        });
        if self.include_usage {
            chunk["usage"] = Value::Null;
        }
        SseFrame::data(chunk.to_string())
    }

    fn call(&self, index: usize, id: &str, name: &str, args: &str, n: usize) -> Vec<SseFrame> {
        let mut out = vec![self.chunk(
            json!({"tool_calls": [{
                "index": index,
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": ""},
            }]}),
            None,
        )];
        for piece in pieces(args, n) {
            out.push(self.chunk(
                json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                None,
            ));
        }
        out
    }
}

fn openai(
    blocks: &[Block],
    stop: Option<&str>,
    usage: &Usage,
    n: usize,
    interleave: bool,
    include_usage: bool,
) -> Vec<SseFrame> {
    let c = OpenaiChunks { include_usage };
    let mut out = vec![c.chunk(
        json!({"role": "assistant", "content": "", "refusal": null}),
        None,
    )];
    let mut calls: Vec<(usize, &str, &str, &str)> = Vec::new();
    for block in blocks {
        match block {
            Block::Text { text } => {
                for piece in pieces(text, n) {
                    out.push(c.chunk(json!({"content": piece}), None));
                }
            }
            Block::Thinking { text, .. } => {
                for piece in pieces(text, n) {
                    out.push(c.chunk(json!({"reasoning_content": piece}), None));
                }
            }
            Block::ToolCall { id, name, args } => {
                let index = calls.len();
                calls.push((index, id, name, args));
                if !interleave {
                    out.extend(c.call(index, id, name, args, n));
                }
            }
        }
    }
    if interleave {
        let mut streams: Vec<std::vec::IntoIter<SseFrame>> = calls
            .iter()
            .map(|(index, id, name, args)| c.call(*index, id, name, args, n).into_iter())
            .collect();
        loop {
            let mut any = false;
            for stream in &mut streams {
                if let Some(frame) = stream.next() {
                    out.push(frame);
                    any = true;
                }
            }
            if !any {
                break;
            }
        }
    }
    let stop = stop.unwrap_or(if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    });
    out.push(c.chunk(json!({}), Some(stop)));
    if include_usage {
        let mut usage_json = json!({
            "prompt_tokens": usage.input + usage.cache_read,
            "completion_tokens": usage.output,
            "total_tokens": usage.input + usage.cache_read + usage.output,
            "prompt_tokens_details": {"cached_tokens": usage.cache_read},
        });
        if let Some(reasoning) = usage.reasoning {
            usage_json["completion_tokens_details"] = json!({"reasoning_tokens": reasoning});
        }
        out.push(SseFrame::data(
            json!({
                "id": "chatcmpl-zut-scripted",
                "object": "chat.completion.chunk",
                "created": 1_700_000_000,
                "model": MODEL,
                "system_fingerprint": null,
                "choices": [],
                "usage": usage_json,
            })
            .to_string(),
        ));
    }
    out.push(SseFrame::data("[DONE]"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_respect_char_boundaries() {
        assert_eq!(pieces("héllo", 2), vec!["h\u{e9}", "ll", "o"]);
        assert!(pieces("", 3).is_empty());
    }

    #[test]
    fn anthropic_text_frames() {
        let frames = frames(&Script::anthropic_text("hi there").delta_bytes(3));
        assert!(frames[0].starts_with("event: message_start\ndata: {"));
        let deltas = frames.iter().filter(|f| f.contains("text_delta")).count();
        assert_eq!(deltas, 3);
        assert!(frames.last().unwrap().starts_with("event: message_stop\n"));
    }

    #[test]
    fn openai_frames_end_with_done() {
        let frames = frames(&Script::openai_text("hi"));
        assert_eq!(frames.last().unwrap(), "data: [DONE]\n\n");
    }
}
