//! Building the Responses API request body.

use serde_json::{json, Map, Value};

use crate::types::{Message, Part, Reasoning, Request, Role};

/// Starts the output of a failed tool call (`function_call_output` has no
/// error flag).
const TOOL_ERROR_PREFIX: &str = "Error: ";

/// The `reasoning.effort` value of a level (`None`: no `reasoning` object).
pub(crate) fn effort(level: Reasoning) -> Option<&'static str> {
    match level {
        Reasoning::Off => None,
        Reasoning::Minimum => Some("minimal"),
        Reasoning::Low => Some("low"),
        Reasoning::Medium => Some("medium"),
        Reasoning::High => Some("high"),
        Reasoning::XHigh => Some("xhigh"),
        Reasoning::Max => Some("max"),
    }
}

/// The JSON body of `POST {base}/responses` (streaming).
///
/// `store: false` (nothing kept server-side) with
/// `include: ["reasoning.encrypted_content"]`, so that reasoning items can
/// be sent back; the system prompt is `instructions`; the conversation is
/// `input` items: user `message`s (`input_text`, `input_image` data URLs),
/// assistant `message`s, `function_call`s, `function_call_output`s (a
/// failed result's text starts with `Error: `; tool-result images follow in
/// a user message) and `reasoning` items rebuilt from thinking signatures
/// (thinking without one is not sent back). `reasoning.effort` with
/// `summary: "auto"` when reasoning is on.
pub(crate) fn body(req: &Request, model: &str, reasoning: Reasoning) -> Value {
    let mut out = Map::new();
    out.insert("model".into(), json!(model));
    out.insert("stream".into(), json!(true));
    out.insert("store".into(), json!(false));
    out.insert("include".into(), json!(["reasoning.encrypted_content"]));
    if !req.system.is_empty() {
        out.insert("instructions".into(), json!(req.system));
    }
    out.insert("max_output_tokens".into(), json!(req.max_tokens.max(1)));
    if let Some(effort) = effort(reasoning) {
        out.insert(
            "reasoning".into(),
            json!({"effort": effort, "summary": "auto"}),
        );
    }
    let mut input = Vec::new();
    for msg in &req.messages {
        push_message(&mut input, msg);
    }
    out.insert("input".into(), Value::Array(input));
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "name": t.name,
                    "description": t.description,
                    "parameters": *t.input_schema,
                    "strict": false,
                })
            })
            .collect();
        out.insert("tools".into(), Value::Array(tools));
        out.insert("tool_choice".into(), json!("auto"));
        out.insert("parallel_tool_calls".into(), json!(true));
    }
    Value::Object(out)
}

/// A call id as the API knows it: sessions of the Go original keep
/// `call_id|item_id`.
fn call_id(id: &str) -> &str {
    id.split_once('|').map_or(id, |(call, _)| call)
}

/// Tool arguments as sent back: the JSON text of an object, `{}` for
/// anything else (arguments that were not valid JSON are kept as a string).
pub(crate) fn arguments_text(args: &Value) -> String {
    if args.is_object() {
        args.to_string()
    } else {
        "{}".to_string()
    }
}

fn input_image(mime_type: &str, data: &str) -> Value {
    json!({"type": "input_image", "detail": "auto", "image_url": format!("data:{mime_type};base64,{data}")})
}

fn push_message(out: &mut Vec<Value>, msg: &Message) {
    match msg.role {
        Role::Assistant => {
            for part in &msg.content {
                match part {
                    Part::Text { text } if !text.is_empty() => out.push(json!({
                        "type": "message",
                        "role": "assistant",
                        "content": text,
                    })),
                    Part::ToolCall { id, name, args } => out.push(json!({
                        "type": "function_call",
                        "call_id": call_id(id),
                        "name": name,
                        "arguments": arguments_text(args),
                    })),
                    Part::Thinking {
                        text,
                        signature: Some(signature),
                    } => {
                        if let Some((id, encrypted)) = super::parse_signature(signature) {
                            let summary = if text.is_empty() {
                                json!([])
                            } else {
                                json!([{"type": "summary_text", "text": text}])
                            };
                            let mut item = json!({
                                "type": "reasoning",
                                "id": id,
                                "summary": summary,
                            });
                            if !encrypted.is_empty() {
                                item["encrypted_content"] = json!(encrypted);
                            }
                            out.push(item);
                        }
                    }
                    _ => {}
                }
            }
        }
        Role::User => {
            let mut result_images: Vec<Value> = Vec::new();
            for part in &msg.content {
                if let Part::ToolResult {
                    call_id: id,
                    is_error,
                    content,
                } = part
                {
                    let mut text = String::new();
                    for inner in content {
                        match inner {
                            Part::Text { text: t } => {
                                if !text.is_empty() {
                                    text.push('\n');
                                }
                                text.push_str(t);
                            }
                            Part::Image { mime_type, data } => {
                                result_images.push(input_image(mime_type, data));
                            }
                            _ => {}
                        }
                    }
                    if text.is_empty() && content.iter().any(|p| matches!(p, Part::Image { .. })) {
                        text = "(image attached below)".to_string();
                    }
                    if *is_error {
                        text = format!("{TOOL_ERROR_PREFIX}{text}");
                    }
                    out.push(json!({
                        "type": "function_call_output",
                        "call_id": call_id(id),
                        "output": text,
                    }));
                }
            }
            let mut items: Vec<Value> = msg
                .content
                .iter()
                .filter_map(|p| match p {
                    Part::Text { text } if !text.is_empty() => {
                        Some(json!({"type": "input_text", "text": text}))
                    }
                    Part::Image { mime_type, data } => Some(input_image(mime_type, data)),
                    _ => None,
                })
                .collect();
            items.extend(result_images);
            if !items.is_empty() {
                out.push(json!({"type": "message", "role": "user", "content": items}));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::fixtures::{self, request};

    #[test]
    fn serializes_a_conversation_as_input_items() {
        let req = request(vec![
            fixtures::look_at_image(),
            fixtures::assistant(vec![
                fixtures::thinking("plan", Some(&super::super::signature("rs_1", "enc"))),
                fixtures::thinking("anthropic thinking", Some("EqQB")),
                Part::Text {
                    text: "reading".into(),
                },
                fixtures::call("call_1|fc_1", "read", json!({"path": "x"})),
                fixtures::call("call_2", "read", json!("{not json")),
            ]),
            Message {
                role: Role::User,
                content: vec![
                    Part::ToolResult {
                        call_id: "call_1|fc_1".into(),
                        is_error: false,
                        content: vec![Part::Image {
                            mime_type: "image/png".into(),
                            data: "BBB=".into(),
                        }],
                    },
                    Part::ToolResult {
                        call_id: "call_2".into(),
                        is_error: true,
                        content: vec![Part::Text { text: "bad".into() }],
                    },
                ],
            },
        ]);
        let body = body(&req, "gpt-5", Reasoning::High);
        assert_eq!(body["store"], false);
        assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
        assert_eq!(body["instructions"], "sys");
        assert_eq!(body["max_output_tokens"], 100);
        assert_eq!(
            body["reasoning"],
            json!({"effort": "high", "summary": "auto"})
        );
        assert_eq!(body["tools"][0]["name"], "read");
        assert_eq!(body["tools"][0]["parameters"]["type"], "object");
        let input = body["input"].as_array().unwrap();
        assert_eq!(input[0]["role"], "user");
        assert_eq!(
            input[0]["content"][0],
            json!({"type": "input_text", "text": "look"})
        );
        assert_eq!(
            input[0]["content"][1]["image_url"],
            "data:image/png;base64,AAA="
        );
        assert_eq!(
            input[1],
            json!({"type": "reasoning", "id": "rs_1", "encrypted_content": "enc",
                   "summary": [{"type": "summary_text", "text": "plan"}]})
        );
        assert_eq!(input[2]["content"], "reading");
        assert_eq!(input[3]["call_id"], "call_1");
        assert_eq!(input[3]["arguments"], "{\"path\":\"x\"}");
        assert_eq!(input[4]["arguments"], "{}");
        assert_eq!(
            input[5],
            json!({"type": "function_call_output", "call_id": "call_1", "output": "(image attached below)"})
        );
        assert_eq!(input[6]["output"], "Error: bad");
        assert_eq!(
            input[7]["content"][0]["image_url"],
            "data:image/png;base64,BBB="
        );
        assert_eq!(input.len(), 8);
    }

    #[test]
    fn no_reasoning_object_when_off_and_efforts_per_level() {
        let mut req = request(vec![Message::user_text("hi")]);
        req.tools.clear();
        req.system.clear();
        let b = body(&req, "m", Reasoning::Off);
        assert!(b.get("reasoning").is_none());
        assert!(b.get("tools").is_none());
        assert!(b.get("instructions").is_none());
        assert_eq!(effort(Reasoning::XHigh), Some("xhigh"));
        assert_eq!(effort(Reasoning::Minimum), Some("minimal"));
        assert_eq!(effort(Reasoning::Max), Some("max"));
    }
}
