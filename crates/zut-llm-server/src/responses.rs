//! The OpenAI Responses API stream format (`POST /v1/responses` with
//! `"stream": true`), from OpenAI's public API reference ("Streaming
//! events"): every frame has an `event:` line equal to its data's `type`
//! and a `sequence_number` counting from 0.
//!
//! A reply is `response.created`, `response.in_progress`, then per block
//! (its position is the `output_index`):
//! - text: `response.output_item.added` (a `message` item),
//!   `response.content_part.added`, `response.output_text.delta`*,
//!   `response.output_text.done`, `response.content_part.done`,
//!   `response.output_item.done`;
//! - thinking: `response.output_item.added` (a `reasoning` item),
//!   `response.reasoning_summary_part.added`,
//!   `response.reasoning_summary_text.delta`*,
//!   `response.reasoning_summary_text.done`,
//!   `response.reasoning_summary_part.done`, `response.output_item.done`
//!   whose item carries the block's signature as `encrypted_content`;
//! - tool call: `response.output_item.added` (a `function_call` item with
//!   `call_id`, `name` and empty `arguments`),
//!   `response.function_call_arguments.delta`*,
//!   `response.function_call_arguments.done`, `response.output_item.done`;
//!
//! and last `response.completed` with the usage (`input_tokens` including
//! cached ones, `input_tokens_details.cached_tokens`, `output_tokens`,
//! `output_tokens_details.reasoning_tokens`), or `response.incomplete` with
//! `incomplete_details.reason` when the script's stop is
//! `max_output_tokens` or `content_filter`.

use serde_json::{json, Value};

use crate::script::{Block, Format, Script, SseFrame, Usage};

const MODEL: &str = "zut-scripted";
const RESPONSE_ID: &str = "resp_zut_scripted";

/// Numbers the frames as they are made.
struct Frames {
    out: Vec<SseFrame>,
}

impl Frames {
    fn push(&mut self, kind: &str, mut data: Value) {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(self.out.len());
        self.out.push(SseFrame::named(kind, data.to_string()));
    }
}

fn response(status: &str, output: Vec<Value>, extra: Value) -> Value {
    let mut r = json!({
        "id": RESPONSE_ID,
        "object": "response",
        "created_at": 1_700_000_000,
        "status": status,
        "model": MODEL,
        "output": output,
        "store": false,
        "usage": null,
        "incomplete_details": null,
        "error": null,
    });
    if let (Some(r), Value::Object(extra)) = (r.as_object_mut(), extra) {
        r.extend(extra);
    }
    r
}

fn usage_json(usage: &Usage) -> Value {
    json!({
        "input_tokens": usage.input + usage.cache_read,
        "input_tokens_details": {"cached_tokens": usage.cache_read},
        "output_tokens": usage.output,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning.unwrap_or(0)},
        "total_tokens": usage.input + usage.cache_read + usage.output,
    })
}

/// The opening frames of every stream.
fn opening(f: &mut Frames) {
    f.push(
        "response.created",
        json!({"response": response("in_progress", vec![], json!({}))}),
    );
    f.push(
        "response.in_progress",
        json!({"response": response("in_progress", vec![], json!({}))}),
    );
}

/// The frames of a Responses reply.
pub(crate) fn reply(
    blocks: &[Block],
    stop: Option<&str>,
    usage: &Usage,
    pieces: &dyn Fn(&str) -> Vec<String>,
) -> Vec<SseFrame> {
    let mut f = Frames { out: Vec::new() };
    opening(&mut f);
    let mut output = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        let item = match block {
            Block::Text { text } => {
                let id = format!("msg_{index}");
                f.push(
                    "response.output_item.added",
                    json!({"output_index": index, "item": {"id": id, "type": "message",
                           "status": "in_progress", "role": "assistant", "content": []}}),
                );
                f.push(
                    "response.content_part.added",
                    json!({"item_id": id, "output_index": index, "content_index": 0,
                           "part": {"type": "output_text", "text": "", "annotations": []}}),
                );
                for piece in pieces(text) {
                    f.push(
                        "response.output_text.delta",
                        json!({"item_id": id, "output_index": index, "content_index": 0,
                               "delta": piece, "logprobs": []}),
                    );
                }
                let part = json!({"type": "output_text", "text": text, "annotations": []});
                f.push(
                    "response.output_text.done",
                    json!({"item_id": id, "output_index": index, "content_index": 0,
                           "text": text, "logprobs": []}),
                );
                f.push(
                    "response.content_part.done",
                    json!({"item_id": id, "output_index": index, "content_index": 0, "part": part}),
                );
                json!({"id": id, "type": "message", "status": "completed",
                       "role": "assistant", "content": [part]})
            }
            Block::Thinking { text, signature } => {
                let id = format!("rs_{index}");
                f.push(
                    "response.output_item.added",
                    json!({"output_index": index, "item": {"id": id, "type": "reasoning", "summary": []}}),
                );
                f.push(
                    "response.reasoning_summary_part.added",
                    json!({"item_id": id, "output_index": index, "summary_index": 0,
                           "part": {"type": "summary_text", "text": ""}}),
                );
                for piece in pieces(text) {
                    f.push(
                        "response.reasoning_summary_text.delta",
                        json!({"item_id": id, "output_index": index, "summary_index": 0, "delta": piece}),
                    );
                }
                let part = json!({"type": "summary_text", "text": text});
                f.push(
                    "response.reasoning_summary_text.done",
                    json!({"item_id": id, "output_index": index, "summary_index": 0, "text": text}),
                );
                f.push(
                    "response.reasoning_summary_part.done",
                    json!({"item_id": id, "output_index": index, "summary_index": 0, "part": part}),
                );
                let mut item = json!({"id": id, "type": "reasoning", "summary": [part]});
                if !signature.is_empty() {
                    item["encrypted_content"] = json!(signature);
                }
                item
            }
            Block::ToolCall {
                id: call_id,
                name,
                args,
            } => {
                let id = format!("fc_{index}");
                f.push(
                    "response.output_item.added",
                    json!({"output_index": index, "item": {"id": id, "type": "function_call",
                           "status": "in_progress", "arguments": "", "call_id": call_id, "name": name}}),
                );
                for piece in pieces(args) {
                    f.push(
                        "response.function_call_arguments.delta",
                        json!({"item_id": id, "output_index": index, "delta": piece}),
                    );
                }
                f.push(
                    "response.function_call_arguments.done",
                    json!({"item_id": id, "output_index": index, "arguments": args}),
                );
                json!({"id": id, "type": "function_call", "status": "completed",
                       "arguments": args, "call_id": call_id, "name": name})
            }
        };
        f.push(
            "response.output_item.done",
            json!({"output_index": index, "item": item.clone()}),
        );
        output.push(item);
    }
    let usage = usage_json(usage);
    match stop {
        Some(reason @ ("max_output_tokens" | "content_filter")) => f.push(
            "response.incomplete",
            json!({"response": response("incomplete", output,
                json!({"usage": usage, "incomplete_details": {"reason": reason}}))}),
        ),
        _ => f.push(
            "response.completed",
            json!({"response": response("completed", output, json!({"usage": usage}))}),
        ),
    }
    f.out
}

impl Script {
    /// A Responses API text reply.
    pub fn responses_text(text: impl Into<String>) -> Self {
        Self::reply(Format::Responses, vec![Block::text(text)])
    }

    /// A Responses API reply with one function call (`args` is raw JSON text).
    pub fn responses_tool_call(
        id: impl Into<String>,
        name: impl Into<String>,
        args: impl Into<String>,
    ) -> Self {
        Self::reply(Format::Responses, vec![Block::tool_call(id, name, args)])
    }

    /// A Responses stream (status 200) that fails with an `error` event
    /// (`code`, `message`, `param`) right after `response.created`.
    pub fn responses_error_event(code: &str, message: &str) -> Self {
        let mut f = Frames { out: Vec::new() };
        opening(&mut f);
        f.push(
            "error",
            json!({"code": code, "message": message, "param": null}),
        );
        Self::events(f.out)
    }

    /// A Responses stream that ends with `response.failed` carrying
    /// `error: {code, message}`.
    pub fn responses_failed(code: &str, message: &str) -> Self {
        let mut f = Frames { out: Vec::new() };
        opening(&mut f);
        f.push(
            "response.failed",
            json!({"response": response("failed", vec![],
                json!({"error": {"code": code, "message": message}}))}),
        );
        Self::events(f.out)
    }

    /// A Responses stream whose third frame carries invalid JSON.
    pub fn responses_malformed() -> Self {
        let mut f = Frames { out: Vec::new() };
        opening(&mut f);
        f.out.push(SseFrame::named(
            "response.output_text.delta",
            "{\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"oops",
        ));
        Self::events(f.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(n: usize) -> impl Fn(&str) -> Vec<String> {
        move |text: &str| {
            text.as_bytes()
                .chunks(n)
                .map(|c| String::from_utf8_lossy(c).into_owned())
                .collect()
        }
    }

    #[test]
    fn frames_are_numbered_and_named_after_their_type() {
        let frames = reply(
            &[
                Block::thinking("hm", "enc"),
                Block::text("hello"),
                Block::tool_call("call_1", "read", "{\"a\":1}"),
            ],
            None,
            &Usage {
                input: 3,
                output: 4,
                cache_read: 2,
                cache_write: 0,
                reasoning: Some(1),
            },
            &split(2),
        );
        for (i, frame) in frames.iter().enumerate() {
            let data: Value = serde_json::from_str(&frame.data).unwrap();
            assert_eq!(data["sequence_number"], i);
            assert_eq!(Some(data["type"].as_str().unwrap()), frame.event.as_deref());
        }
        let last: Value = serde_json::from_str(&frames.last().unwrap().data).unwrap();
        assert_eq!(last["type"], "response.completed");
        assert_eq!(last["response"]["usage"]["input_tokens"], 5);
        assert_eq!(
            last["response"]["usage"]["input_tokens_details"]["cached_tokens"],
            2
        );
        assert_eq!(last["response"]["output"][0]["encrypted_content"], "enc");
        assert_eq!(last["response"]["output"][2]["call_id"], "call_1");
        let deltas = frames
            .iter()
            .filter(|f| f.event.as_deref() == Some("response.output_text.delta"))
            .count();
        assert_eq!(deltas, 3);
    }

    #[test]
    fn output_limit_makes_an_incomplete_response() {
        let frames = reply(
            &[Block::text("x")],
            Some("max_output_tokens"),
            &Usage::default(),
            &split(5),
        );
        let last: Value = serde_json::from_str(&frames.last().unwrap().data).unwrap();
        assert_eq!(last["type"], "response.incomplete");
        assert_eq!(
            last["response"]["incomplete_details"]["reason"],
            "max_output_tokens"
        );
    }
}
