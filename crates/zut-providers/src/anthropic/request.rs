//! Building the Anthropic Messages request body.

use serde_json::{json, Map, Value};

use crate::assemble::REDACTED_THINKING_PREFIX;
use crate::types::{Message, Part, Reasoning, Request, Role};

/// Thinking budget (tokens) for a reasoning effort.
pub(crate) fn thinking_budget(reasoning: Reasoning) -> Option<u32> {
    match reasoning {
        Reasoning::Off => None,
        Reasoning::Minimum => Some(1_024),
        Reasoning::Low => Some(2_048),
        Reasoning::Medium => Some(8_192),
        Reasoning::High => Some(24_576),
        Reasoning::XHigh | Reasoning::Max => Some(32_768),
    }
}

/// The JSON body of `POST /v1/messages` (streaming).
///
/// Thinking is enabled when reasoning is not off, with a budget of 1024 /
/// 2048 / 8192 / 24576 / 32768 tokens for minimum / low / medium / high /
/// xhigh (and max); when `max_tokens` does not
/// exceed the budget the budget is added to it (Anthropic requires
/// `budget_tokens < max_tokens`). Prompt-cache breakpoints are set on the
/// system prompt, the last tool and the last message block.
#[cfg(test)]
pub(crate) fn body(req: &Request, model: &str) -> Value {
    body_with(req, model, req.reasoning)
}

/// [`body`] with the reasoning level already clamped to the model's.
pub(crate) fn body_with(req: &Request, model: &str, reasoning: Reasoning) -> Value {
    let mut max_tokens = req.max_tokens.max(1);
    let mut out = Map::new();
    out.insert("model".into(), json!(model));
    out.insert("stream".into(), json!(true));
    if let Some(budget) = thinking_budget(reasoning) {
        if max_tokens <= budget {
            max_tokens = max_tokens.saturating_add(budget);
        }
        out.insert(
            "thinking".into(),
            json!({"type": "enabled", "budget_tokens": budget}),
        );
    }
    out.insert("max_tokens".into(), json!(max_tokens));
    if !req.system.is_empty() {
        out.insert(
            "system".into(),
            json!([{"type": "text", "text": req.system, "cache_control": {"type": "ephemeral"}}]),
        );
    }
    if !req.tools.is_empty() {
        let mut tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "description": t.description,
                    "input_schema": *t.input_schema,
                })
            })
            .collect();
        if let Some(Value::Object(last)) = tools.last_mut() {
            last.insert("cache_control".into(), json!({"type": "ephemeral"}));
        }
        out.insert("tools".into(), Value::Array(tools));
    }
    let mut messages: Vec<Value> = req.messages.iter().filter_map(message).collect();
    if let Some(Value::Array(blocks)) = messages.last_mut().and_then(|m| m.get_mut("content")) {
        if let Some(Value::Object(block)) = blocks.last_mut() {
            let cacheable = !matches!(
                block.get("type").and_then(Value::as_str),
                Some("thinking" | "redacted_thinking")
            );
            if cacheable {
                block.insert("cache_control".into(), json!({"type": "ephemeral"}));
            }
        }
    }
    out.insert("messages".into(), Value::Array(messages));
    Value::Object(out)
}

/// One message; `None` when it has no sendable content.
fn message(msg: &Message) -> Option<Value> {
    let role = match msg.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    // Anthropic wants tool results first in a user message.
    let mut results = Vec::new();
    let mut others = Vec::new();
    for part in &msg.content {
        if let Some(block) = block(part, msg.role) {
            if matches!(part, Part::ToolResult { .. }) {
                results.push(block);
            } else {
                others.push(block);
            }
        }
    }
    results.extend(others);
    if results.is_empty() {
        return None;
    }
    Some(json!({"role": role, "content": results}))
}

fn block(part: &Part, role: Role) -> Option<Value> {
    match part {
        Part::Text { text } => {
            if text.is_empty() {
                None
            } else {
                Some(json!({"type": "text", "text": text}))
            }
        }
        Part::Image { mime_type, data } => Some(image(mime_type, data)),
        Part::Thinking { text, signature } => {
            let signature = replayable(role, signature.as_deref())?;
            if let Some(data) = signature.strip_prefix(REDACTED_THINKING_PREFIX) {
                return Some(json!({"type": "redacted_thinking", "data": data}));
            }
            Some(json!({"type": "thinking", "thinking": text, "signature": signature}))
        }
        Part::ToolCall { id, name, args } => {
            let input = if args.is_object() {
                args.clone()
            } else {
                json!({})
            };
            Some(json!({"type": "tool_use", "id": id, "name": name, "input": input}))
        }
        Part::ToolResult {
            call_id,
            is_error,
            content,
        } => {
            let inner: Vec<Value> = content
                .iter()
                .filter_map(|p| match p {
                    Part::Text { text } if !text.is_empty() => {
                        Some(json!({"type": "text", "text": text}))
                    }
                    Part::Image { mime_type, data } => Some(image(mime_type, data)),
                    _ => None,
                })
                .collect();
            let mut out = json!({"type": "tool_result", "tool_use_id": call_id});
            // An empty result is sent without `content` (an empty list is not
            // a useful message and some gateways reject it).
            if !inner.is_empty() {
                out["content"] = Value::Array(inner);
            }
            if *is_error {
                out["is_error"] = json!(true);
            }
            Some(out)
        }
    }
}

/// The signature of thinking that can be sent back: only the assistant's own
/// signed thinking, and not a Responses reasoning item (another wire's).
pub(super) fn replayable(role: Role, signature: Option<&str>) -> Option<&str> {
    if role != Role::Assistant {
        return None;
    }
    signature.filter(|s| !s.starts_with(crate::responses::REASONING_PREFIX))
}

fn image(mime_type: &str, data: &str) -> Value {
    json!({
        "type": "image",
        "source": {"type": "base64", "media_type": mime_type, "data": data},
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::fixtures;

    fn request(messages: Vec<Message>) -> Request {
        Request {
            max_tokens: 1000,
            reasoning: Reasoning::Off,
            ..fixtures::request(messages)
        }
    }

    #[test]
    fn serializes_every_part_kind() {
        let body = body(
            &request(vec![
                Message::user_text("hi"),
                fixtures::assistant(vec![
                    fixtures::thinking("hmm", Some("sig")),
                    fixtures::thinking("", Some(&format!("{REDACTED_THINKING_PREFIX}abc"))),
                    fixtures::thinking("unsigned", None),
                    fixtures::call("t1", "read", json!({"path": "a"})),
                ]),
                Message {
                    role: Role::User,
                    content: vec![
                        Part::Text {
                            text: "after".into(),
                        },
                        Part::ToolResult {
                            call_id: "t1".into(),
                            is_error: true,
                            content: vec![
                                Part::Text { text: "no".into() },
                                Part::Image {
                                    mime_type: "image/png".into(),
                                    data: "AAA=".into(),
                                },
                            ],
                        },
                    ],
                },
            ]),
            "model-x",
        );
        assert_eq!(body["model"], "model-x");
        assert_eq!(body["stream"], true);
        assert_eq!(body["system"][0]["text"], "sys");
        assert!(body.get("thinking").is_none());
        let assistant = &body["messages"][1]["content"];
        assert_eq!(assistant.as_array().unwrap().len(), 3);
        assert_eq!(assistant[0]["signature"], "sig");
        assert_eq!(assistant[1]["type"], "redacted_thinking");
        assert_eq!(assistant[1]["data"], "abc");
        assert_eq!(assistant[2]["input"]["path"], "a");
        let user = &body["messages"][2]["content"];
        assert_eq!(user[0]["type"], "tool_result");
        assert_eq!(user[0]["is_error"], true);
        assert_eq!(user[0]["content"][1]["source"]["media_type"], "image/png");
        assert_eq!(user[1]["text"], "after");
        assert_eq!(user[1]["cache_control"]["type"], "ephemeral");
        assert_eq!(body["tools"][0]["cache_control"]["type"], "ephemeral");
    }

    #[test]
    fn thinking_budget_fits_under_max_tokens() {
        let mut req = request(vec![Message::user_text("x")]);
        req.reasoning = Reasoning::High;
        let b = body(&req, "m");
        assert_eq!(b["thinking"]["budget_tokens"], 24_576);
        assert_eq!(b["max_tokens"], 25_576);
        req.max_tokens = 64_000;
        req.reasoning = Reasoning::Low;
        let b = body(&req, "m");
        assert_eq!(b["max_tokens"], 64_000);
        assert_eq!(b["thinking"]["budget_tokens"], 2_048);
    }
}
