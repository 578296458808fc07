//! Gemini's `streamGenerateContent?alt=sse` stream, from Google's public
//! API reference: data-only SSE events, each a whole
//! `GenerateContentResponse` (`candidates[0].content.parts`, a
//! `finishReason` on the last, `usageMetadata`, `modelVersion`,
//! `responseId`); no terminating event.
//!
//! Thought text is sent as parts with `"thought": true`; a thinking
//! block's signature goes as `thoughtSignature` on the first part of the
//! block that follows it (as Gemini does). A function call comes whole in
//! one part; arguments that are not a JSON object are reported the way
//! Gemini reports a broken call: finish reason `MALFORMED_FUNCTION_CALL`.

use serde_json::{json, Value};

use crate::render::pieces;
use crate::script::{Block, SseFrame, Usage};

const MODEL: &str = "zut-scripted";

fn usage_json(usage: &Usage) -> Value {
    let mut u = json!({
        "promptTokenCount": usage.input + usage.cache_read,
        "candidatesTokenCount": usage.output,
        "totalTokenCount": usage.input + usage.cache_read + usage.output + usage.reasoning.unwrap_or(0),
    });
    if usage.cache_read > 0 {
        u["cachedContentTokenCount"] = json!(usage.cache_read);
    }
    if let Some(r) = usage.reasoning {
        u["thoughtsTokenCount"] = json!(r);
    }
    u
}

/// One response chunk holding `parts` (and a finish reason).
pub(crate) fn chunk(parts: Vec<Value>, finish: Option<&str>, usage: &Usage) -> SseFrame {
    let mut candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
    if let Some(reason) = finish {
        candidate["finishReason"] = json!(reason);
    }
    SseFrame::data(
        json!({
            "candidates": [candidate],
            "usageMetadata": usage_json(usage),
            "modelVersion": MODEL,
            "responseId": "zut-scripted-response",
        })
        .to_string(),
    )
}

/// The frames of a reply.
pub(crate) fn frames(
    blocks: &[Block],
    stop: Option<&str>,
    usage: &Usage,
    n: usize,
) -> Vec<SseFrame> {
    let mut out = Vec::new();
    let mut signature: Option<&str> = None;
    for block in blocks {
        let sign = |mut part: Value, signature: &mut Option<&str>| {
            if let Some(sig) = signature.take() {
                part["thoughtSignature"] = json!(sig);
            }
            part
        };
        match block {
            Block::Text { text } => {
                for piece in pieces(text, n) {
                    let part = sign(json!({ "text": piece }), &mut signature);
                    out.push(chunk(vec![part], None, usage));
                }
            }
            Block::Thinking {
                text,
                signature: sig,
            } => {
                for piece in pieces(text, n) {
                    out.push(chunk(
                        vec![json!({"text": piece, "thought": true})],
                        None,
                        usage,
                    ));
                }
                if !sig.is_empty() {
                    signature = Some(sig);
                }
            }
            Block::ToolCall { id, name, args } => match serde_json::from_str::<Value>(args) {
                Ok(args @ Value::Object(_)) => {
                    let mut call = json!({"name": name, "args": args});
                    if !id.is_empty() {
                        call["id"] = json!(id);
                    }
                    let part = sign(json!({ "functionCall": call }), &mut signature);
                    out.push(chunk(vec![part], None, usage));
                }
                _ => {
                    let mut c = chunk(Vec::new(), Some("MALFORMED_FUNCTION_CALL"), usage);
                    let mut v: Value = serde_json::from_str(&c.data).unwrap_or_default();
                    v["candidates"][0]["finishMessage"] =
                        json!(format!("Malformed function call: {name}{args}"));
                    c.data = v.to_string();
                    out.push(c);
                    return out;
                }
            },
        }
    }
    // The finish reason comes on a last chunk with an empty text part.
    let mut last = json!({"text": ""});
    if let Some(sig) = signature {
        last["thoughtSignature"] = json!(sig);
    }
    out.push(chunk(vec![last], Some(stop.unwrap_or("STOP")), usage));
    out
}

/// A chunk without candidates whose `promptFeedback` blocks the prompt.
pub(crate) fn prompt_blocked(reason: &str) -> SseFrame {
    SseFrame::data(
        json!({
            "promptFeedback": {"blockReason": reason, "safetyRatings": [
                {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": true}
            ]},
            "usageMetadata": {"promptTokenCount": 10, "totalTokenCount": 10},
            "modelVersion": MODEL,
        })
        .to_string(),
    )
}

/// Gemini's error object (`{"error": {"code", "message", "status"}}`).
pub(crate) fn error_json(code: u16, status: &str, message: &str) -> String {
    json!({"error": {"code": code, "message": message, "status": status}}).to_string()
}
