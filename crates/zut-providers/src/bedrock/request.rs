//! Building the Converse-Stream request body.

use serde_json::{json, Map, Value};

use crate::assemble::REDACTED_THINKING_PREFIX;
use crate::levels::{budget, effort, Effort};
use crate::types::{Message, Part, Reasoning, Request, Role};

/// The JSON body of `POST {base}/model/{modelId}/converse-stream`.
///
/// The system prompt is a `system` text block; turns are `messages` with
/// `text`, `image` (`format` + base64 `source.bytes`), `toolUse` /
/// `toolResult` (`status: "error"` for failures) and `reasoningContent`
/// (`reasoningText` with its signature, or `redactedContent`) blocks;
/// `inferenceConfig.maxTokens`; tools as `toolConfig.tools[].toolSpec`
/// with `inputSchema.json`. Claude models get prompt-cache points after
/// the system prompt and the tools, and — when reasoning is on — Anthropic's
/// `thinking` with a budget through `additionalModelRequestFields`
/// (`maxTokens` raised above the budget when needed).
pub(crate) fn body(
    req: &Request,
    model: &str,
    temperature: Option<f32>,
    reasoning: Reasoning,
) -> Value {
    let claude = is_claude(model);
    let mut out = Map::new();
    let mut max_tokens = req.max_tokens.max(1);
    let effort = effort(reasoning);
    let thinking = claude && effort != Effort::Off;
    if thinking {
        let budget = budget(effort);
        if max_tokens <= budget {
            max_tokens = max_tokens.saturating_add(budget);
        }
        out.insert(
            "additionalModelRequestFields".into(),
            json!({"thinking": {"type": "enabled", "budget_tokens": budget}}),
        );
    }
    let mut inference = Map::new();
    inference.insert("maxTokens".into(), json!(max_tokens));
    // Claude refuses a temperature while thinking is on.
    if let (Some(t), false) = (temperature, thinking) {
        inference.insert("temperature".into(), json!(t));
    }
    out.insert("inferenceConfig".into(), Value::Object(inference));
    if !req.system.is_empty() {
        let mut system = vec![json!({ "text": req.system })];
        if claude {
            system.push(json!({"cachePoint": {"type": "default"}}));
        }
        out.insert("system".into(), Value::Array(system));
    }
    let messages: Vec<Value> = req.messages.iter().filter_map(message).collect();
    out.insert("messages".into(), Value::Array(messages));
    if !req.tools.is_empty() {
        let mut tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| {
                json!({"toolSpec": {
                    "name": t.name,
                    "description": t.description,
                    "inputSchema": {"json": *t.input_schema},
                }})
            })
            .collect();
        if claude {
            tools.push(json!({"cachePoint": {"type": "default"}}));
        }
        out.insert("toolConfig".into(), json!({ "tools": tools }));
    }
    Value::Object(out)
}

/// Whether a Bedrock model id (possibly an inference profile such as
/// `us.anthropic.claude-...` or an ARN) is an Anthropic Claude model.
pub(crate) fn is_claude(model: &str) -> bool {
    model.contains("anthropic.") || model.contains("claude")
}

fn message(msg: &Message) -> Option<Value> {
    let role = match msg.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    let content: Vec<Value> = msg.content.iter().filter_map(block).collect();
    if content.is_empty() {
        return None;
    }
    Some(json!({"role": role, "content": content}))
}

fn block(part: &Part) -> Option<Value> {
    Some(match part {
        Part::Text { text } => {
            if text.is_empty() {
                return None;
            }
            json!({ "text": text })
        }
        Part::Image { mime_type, data } => image(mime_type, data),
        Part::Thinking { text, signature } => {
            if let Some(data) = signature
                .as_deref()
                .and_then(|s| s.strip_prefix(REDACTED_THINKING_PREFIX))
            {
                return Some(json!({"reasoningContent": {"redactedContent": data}}));
            }
            // Unsigned reasoning cannot be sent back (Claude checks it).
            let signature = signature.as_deref()?;
            json!({"reasoningContent": {"reasoningText": {"text": text, "signature": signature}}})
        }
        Part::ToolCall { id, name, args } => {
            let input = if args.is_object() {
                args.clone()
            } else {
                json!({})
            };
            json!({"toolUse": {"toolUseId": id, "name": name, "input": input}})
        }
        Part::ToolResult {
            call_id,
            is_error,
            content,
        } => {
            let mut inner: Vec<Value> = content
                .iter()
                .filter_map(|c| match c {
                    Part::Text { text } => Some(json!({ "text": text })),
                    Part::Image { mime_type, data } => Some(image(mime_type, data)),
                    _ => None,
                })
                .collect();
            if inner.is_empty() {
                inner.push(json!({"text": ""}));
            }
            let mut result = json!({"toolUseId": call_id, "content": inner});
            if *is_error {
                result["status"] = json!("error");
            }
            json!({ "toolResult": result })
        }
    })
}

fn image(mime_type: &str, data: &str) -> Value {
    let format = mime_type.strip_prefix("image/").unwrap_or(mime_type);
    let format = if format == "jpg" { "jpeg" } else { format };
    json!({"image": {"format": format, "source": {"bytes": data}}})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{fixtures, ToolSpec};

    #[test]
    fn claude_body_with_thinking_tools_and_cache_points() {
        let req = Request {
            model: String::new(),
            system: "be brief".into(),
            messages: vec![
                Message::user_text("hi"),
                fixtures::assistant(vec![
                    fixtures::thinking("hmm", Some("sig")),
                    fixtures::call("t1", "ls", json!({"p": 1})),
                ]),
                fixtures::result("t1", true, "no"),
            ],
            tools: vec![ToolSpec {
                name: "ls".into(),
                description: "list".into(),
                input_schema: json!({"type": "object"}).into(),
                activated_after: None,
            }],
            max_tokens: 1000,
            reasoning: Reasoning::Low,
        };
        let body = body(
            &req,
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            Some(0.5),
            req.reasoning,
        );
        assert_eq!(body["inferenceConfig"], json!({"maxTokens": 3048}));
        assert_eq!(
            body["additionalModelRequestFields"]["thinking"]["budget_tokens"],
            2048
        );
        assert_eq!(
            body["system"][1],
            json!({"cachePoint": {"type": "default"}})
        );
        assert_eq!(
            body["messages"][1]["content"][0]["reasoningContent"]["reasoningText"]["signature"],
            "sig"
        );
        assert_eq!(
            body["messages"][2]["content"][0]["toolResult"]["status"],
            "error"
        );
        assert_eq!(
            body["toolConfig"]["tools"][1]["cachePoint"]["type"],
            "default"
        );
    }
}
