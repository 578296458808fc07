//! Building the chat completions request body.

use serde_json::{json, Map, Value};

use crate::types::{Message, Part, Reasoning, Request, Role, ToolSpec};

/// Starts the text of a failed tool result (chat completions have no
/// `is_error` flag).
const TOOL_ERROR_PREFIX: &str = "Error: ";

/// The JSON body of `POST /chat/completions` (streaming, usage included).
///
/// The system prompt is a `system` message; tool results become `tool`
/// messages (their images follow in a `user` message, since most servers
/// only accept text in tool messages; a failed result's text starts with
/// `Error: `); images are `image_url` data URLs;
/// thinking parts are not sent back; `reasoning_effort` is set when
/// reasoning is not off.
#[cfg(test)]
pub(crate) fn body(req: &Request, model: &str, max_completion_tokens: bool) -> Value {
    body_with(req, model, max_completion_tokens, req.reasoning)
}

/// [`body`] with the reasoning level already clamped to the model's.
pub(crate) fn body_with(
    req: &Request,
    model: &str,
    max_completion_tokens: bool,
    reasoning: Reasoning,
) -> Value {
    let mut out = Map::new();
    out.insert("model".into(), json!(model));
    out.insert("stream".into(), json!(true));
    out.insert("stream_options".into(), json!({"include_usage": true}));
    let cap = if max_completion_tokens {
        "max_completion_tokens"
    } else {
        "max_tokens"
    };
    out.insert(cap.into(), json!(req.max_tokens.max(1)));
    // Many compatible servers only accept low / medium / high.
    let effort = match reasoning {
        Reasoning::Off => None,
        Reasoning::Minimum | Reasoning::Low => Some("low"),
        Reasoning::Medium => Some("medium"),
        Reasoning::High | Reasoning::XHigh | Reasoning::Max => Some("high"),
    };
    if let Some(effort) = effort {
        out.insert("reasoning_effort".into(), json!(effort));
    }
    let kimi = kimi_deferred_format(model);
    // Kimi's native deferred-tool format: a tool activated by a tool
    // result is loaded right after that result, in a `system` message
    // carrying `tools`, and is left out of the top-level list.
    let loaded_at = |t: &ToolSpec| {
        t.activated_after
            .filter(|i| kimi && *i < req.messages.len())
    };
    let mut messages = Vec::new();
    if !req.system.is_empty() {
        messages.push(json!({"role": "system", "content": req.system}));
    }
    for (i, msg) in req.messages.iter().enumerate() {
        push_message(&mut messages, msg);
        let loaded: Vec<Value> = req
            .tools
            .iter()
            .filter(|t| loaded_at(t) == Some(i))
            .map(tool_json)
            .collect();
        if !loaded.is_empty() {
            messages.push(json!({"role": "system", "tools": loaded}));
        }
    }
    out.insert("messages".into(), Value::Array(messages));
    let tools: Vec<Value> = req
        .tools
        .iter()
        .filter(|t| loaded_at(t).is_none())
        .map(tool_json)
        .collect();
    if !tools.is_empty() {
        out.insert("tools".into(), Value::Array(tools));
    }
    Value::Object(out)
}

/// Whether `model` is a Kimi K3 route (`kimi-k3`, `<vendor>/kimi-k3`), which
/// takes deferred tools in Kimi's native format.
pub(crate) fn kimi_deferred_format(model: &str) -> bool {
    let model = model.trim().to_ascii_lowercase();
    model == "kimi-k3" || model.ends_with("/kimi-k3")
}

fn tool_json(t: &ToolSpec) -> Value {
    json!({
        "type": "function",
        "function": {
            "name": t.name,
            "description": t.description,
            "parameters": *t.input_schema,
        },
    })
}

fn data_url(mime_type: &str, data: &str) -> Value {
    json!({"type": "image_url", "image_url": {"url": format!("data:{mime_type};base64,{data}")}})
}

/// A user `content` value: a plain string when there are only texts.
fn user_content(parts: &[&Part]) -> Option<Value> {
    let has_image = parts.iter().any(|p| matches!(p, Part::Image { .. }));
    if !has_image {
        let text: Vec<&str> = parts
            .iter()
            .filter_map(|p| match p {
                Part::Text { text } if !text.is_empty() => Some(text.as_str()),
                _ => None,
            })
            .collect();
        return (!text.is_empty()).then(|| json!(text.join("\n")));
    }
    let items: Vec<Value> = parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } if !text.is_empty() => Some(json!({"type": "text", "text": text})),
            Part::Image { mime_type, data } => Some(data_url(mime_type, data)),
            _ => None,
        })
        .collect();
    (!items.is_empty()).then_some(Value::Array(items))
}

fn push_message(out: &mut Vec<Value>, msg: &Message) {
    match msg.role {
        Role::Assistant => {
            let text = msg.text();
            let calls: Vec<Value> = msg
                .tool_calls()
                .map(|(id, name, args)| json!({
                    "id": id,
                    "type": "function",
                    "function": {"name": name, "arguments": crate::responses::request::arguments_text(args)},
                }))
                .collect();
            if text.is_empty() && calls.is_empty() {
                return;
            }
            let mut m = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
            if !calls.is_empty() {
                m["tool_calls"] = Value::Array(calls);
            }
            out.push(m);
        }
        Role::User => {
            // Tool messages must directly follow the assistant's tool calls.
            let mut result_images: Vec<&Part> = Vec::new();
            for part in &msg.content {
                if let Part::ToolResult {
                    call_id,
                    is_error,
                    content,
                } = part
                {
                    let text: Vec<&str> = content
                        .iter()
                        .filter_map(|p| match p {
                            Part::Text { text } => Some(text.as_str()),
                            _ => None,
                        })
                        .collect();
                    let mut text = text.join("\n");
                    let images: Vec<&Part> = content
                        .iter()
                        .filter(|p| matches!(p, Part::Image { .. }))
                        .collect();
                    if text.is_empty() && !images.is_empty() {
                        text = "(image attached below)".into();
                    }
                    // Chat completions have no error flag for tool results:
                    // say it in the text, as Anthropic's `is_error` would.
                    if *is_error {
                        text = format!("{TOOL_ERROR_PREFIX}{text}");
                    }
                    result_images.extend(images);
                    out.push(json!({"role": "tool", "tool_call_id": call_id, "content": text}));
                }
            }
            let mut rest: Vec<&Part> = msg
                .content
                .iter()
                .filter(|p| matches!(p, Part::Text { .. } | Part::Image { .. }))
                .collect();
            rest.extend(result_images);
            if let Some(content) = user_content(&rest) {
                out.push(json!({"role": "user", "content": content}));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{fixtures, ToolSpec};

    #[test]
    fn serializes_conversation() {
        let req = fixtures::request(vec![
            fixtures::look_at_image(),
            fixtures::assistant(vec![
                fixtures::thinking("hmm", None),
                fixtures::call("c1", "read", json!({"path": "x"})),
            ]),
            fixtures::result("c1", false, "contents"),
        ]);
        let body = body(&req, "model-x", true);
        assert_eq!(body["max_completion_tokens"], 100);
        assert_eq!(body["reasoning_effort"], "high");
        assert_eq!(body["stream_options"]["include_usage"], true);
        let msgs = body["messages"].as_array().unwrap();
        assert_eq!(msgs[0]["role"], "system");
        assert_eq!(
            msgs[1]["content"][1]["image_url"]["url"],
            "data:image/png;base64,AAA="
        );
        assert_eq!(msgs[2]["content"], Value::Null);
        assert_eq!(
            msgs[2]["tool_calls"][0]["function"]["arguments"],
            "{\"path\":\"x\"}"
        );
        assert_eq!(msgs[3]["role"], "tool");
        assert_eq!(msgs[3]["tool_call_id"], "c1");
        assert_eq!(msgs[3]["content"], "contents");
        assert_eq!(msgs.len(), 4);
        assert_eq!(body["tools"][0]["function"]["parameters"]["type"], "object");
    }

    #[test]
    fn failed_tool_results_say_so_in_the_text() {
        let req = Request {
            model: "m".into(),
            system: String::new(),
            messages: vec![fixtures::result("c1", true, "no such file")],
            tools: vec![],
            max_tokens: 7,
            reasoning: Reasoning::Off,
        };
        let body = body(&req, "m", true);
        assert_eq!(body["messages"][0]["content"], "Error: no such file");
    }

    #[test]
    fn kimi_k3_loads_activated_tools_at_the_tool_result() {
        let tool = |name: &str, activated_after: Option<usize>| ToolSpec {
            name: name.into(),
            description: format!("{name} tool"),
            input_schema: json!({"type": "object"}).into(),
            activated_after,
        };
        let req = Request {
            model: "m".into(),
            system: "sys".into(),
            messages: vec![
                Message::user_text("weather?"),
                fixtures::assistant(vec![fixtures::call("c1", "search_tools", json!({}))]),
                fixtures::result("c1", false, "found"),
            ],
            tools: vec![tool("search_tools", None), tool("lookup_weather", Some(2))],
            max_tokens: 7,
            reasoning: Reasoning::Off,
        };
        for model in ["kimi-k3", "moonshotai/Kimi-K3"] {
            let b = body(&req, model, false);
            let names: Vec<&str> = b["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap())
                .collect();
            assert_eq!(names, vec!["search_tools"], "{model}");
            let msgs = b["messages"].as_array().unwrap();
            assert_eq!(msgs[3]["role"], "tool");
            assert_eq!(
                msgs[4],
                json!({"role": "system", "tools": [{"type": "function", "function": {
                    "name": "lookup_weather", "description": "lookup_weather tool",
                    "parameters": {"type": "object"}}}]})
            );
            assert_eq!(msgs.len(), 5);
        }
        // Any other model: the complete active list, no loading message.
        let b = body(&req, "kimi-k2.6", false);
        assert_eq!(b["tools"].as_array().unwrap().len(), 2);
        assert_eq!(b["messages"].as_array().unwrap().len(), 4);
    }

    #[test]
    fn plain_max_tokens_and_no_effort_when_off() {
        let req = Request {
            model: "m".into(),
            system: String::new(),
            messages: vec![Message::user_text("hi")],
            tools: vec![],
            max_tokens: 7,
            reasoning: Reasoning::Off,
        };
        let body = body(&req, "m", false);
        assert_eq!(body["max_tokens"], 7);
        assert!(body.get("reasoning_effort").is_none());
        assert!(body.get("tools").is_none());
        assert_eq!(body["messages"][0]["content"], "hi");
    }
}
