//! Building the `streamGenerateContent` request body.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use crate::error::ProviderError;
use crate::levels::{budget, effort, Effort};
use crate::types::{Message, Part, Reasoning, Request, Role};

/// The JSON body of `POST .../models/{model}:streamGenerateContent?alt=sse`.
///
/// The system prompt is `systemInstruction`; user and assistant turns are
/// `contents` with roles `user` and `model`; tool calls are
/// `functionCall` parts and their results `functionResponse` parts
/// (`{"output": text}` or `{"error": text}`, named after the call);
/// images are `inlineData`. Thought signatures are sent back on the part
/// they came with: a thought part keeps its own, and a signature that came
/// on a text or function-call part (kept as an empty thinking part just
/// before it) is put back on that part. Tool schemas are mapped to
/// Gemini's subset ([`super::schema`]); one it cannot express fails the
/// request with a [`ProviderError::Config`] naming the tool.
pub(crate) fn body(
    provider: &str,
    req: &Request,
    model: &str,
    temperature: Option<f32>,
    reasoning: Reasoning,
) -> Result<Value, ProviderError> {
    let mut out = Map::new();
    let mut names: HashMap<&str, &str> = HashMap::new();
    let mut contents = Vec::new();
    for msg in &req.messages {
        let parts = parts_of(msg, &mut names);
        if parts.is_empty() {
            continue;
        }
        let role = match msg.role {
            Role::User => "user",
            Role::Assistant => "model",
        };
        contents.push(json!({"role": role, "parts": parts}));
    }
    out.insert("contents".into(), Value::Array(contents));
    if !req.system.is_empty() {
        out.insert(
            "systemInstruction".into(),
            json!({"parts": [{"text": req.system}]}),
        );
    }
    if !req.tools.is_empty() {
        let mut decls = Vec::with_capacity(req.tools.len());
        for tool in &req.tools {
            let params = super::schema::to_gemini(&tool.input_schema).map_err(|why| {
                ProviderError::Config(format!(
                    "{provider}: tool {:?} cannot be declared to Gemini: its input schema at {why}",
                    tool.name
                ))
            })?;
            let mut decl = json!({"name": tool.name, "description": tool.description});
            if !super::schema::is_empty_object(&params) {
                decl["parameters"] = params;
            }
            decls.push(decl);
        }
        out.insert("tools".into(), json!([{ "functionDeclarations": decls }]));
    }
    let mut generation = Map::new();
    generation.insert("maxOutputTokens".into(), json!(req.max_tokens.max(1)));
    if let Some(t) = temperature {
        generation.insert("temperature".into(), json!(t));
    }
    if let Some(thinking) = thinking_config(model, effort(reasoning)) {
        generation.insert("thinkingConfig".into(), thinking);
    }
    out.insert("generationConfig".into(), Value::Object(generation));
    Ok(Value::Object(out))
}

/// `generationConfig.thinkingConfig` for a model and effort (as the Go
/// original): Gemini 3 models take a `thinkingLevel` (`MINIMAL` / `LOW` /
/// `MEDIUM` / `HIGH`; Pro models have neither `MINIMAL` nor `MEDIUM` and
/// are clamped to `LOW` / `HIGH`), Gemini 2.5 models a `thinkingBudget`
/// capped at 32768 (Pro) or 24576 (Flash, Flash-Lite); other models get
/// none. `None` also when reasoning is off (the model's default applies).
pub(crate) fn thinking_config(model: &str, effort: Effort) -> Option<Value> {
    if effort == Effort::Off {
        return None;
    }
    let id = model.to_ascii_lowercase();
    if id.contains("gemini-3") {
        let pro = id.contains("-pro");
        let level = match effort {
            Effort::Minimum if pro => "LOW",
            Effort::Minimum => "MINIMAL",
            Effort::Low => "LOW",
            Effort::Medium if pro => "HIGH",
            Effort::Medium => "MEDIUM",
            _ => "HIGH",
        };
        return Some(json!({"includeThoughts": true, "thinkingLevel": level}));
    }
    let cap = if id.contains("2.5-pro") {
        32768
    } else if id.contains("2.5-flash") {
        24576
    } else {
        return None;
    };
    Some(json!({"includeThoughts": true, "thinkingBudget": budget(effort).min(cap)}))
}

fn parts_of<'m>(msg: &'m Message, names: &mut HashMap<&'m str, &'m str>) -> Vec<Value> {
    let mut parts = Vec::new();
    let mut pending_signature: Option<&str> = None;
    for part in &msg.content {
        let mut value = match part {
            Part::Text { text } => {
                if text.is_empty() {
                    continue;
                }
                json!({ "text": text })
            }
            Part::Image { mime_type, data } => {
                json!({"inlineData": {"mimeType": mime_type, "data": data}})
            }
            Part::Thinking { text, signature } => {
                if text.is_empty() {
                    // A signature that came with the next part.
                    pending_signature = signature.as_deref();
                    continue;
                }
                let mut v = json!({"text": text, "thought": true});
                if let Some(sig) = signature {
                    v["thoughtSignature"] = json!(sig);
                }
                parts.push(v);
                continue;
            }
            Part::ToolCall { id, name, args } => {
                names.insert(id, name);
                let args = if args.is_object() {
                    args.clone()
                } else {
                    json!({})
                };
                json!({"functionCall": {"id": id, "name": name, "args": args}})
            }
            Part::ToolResult {
                call_id,
                is_error,
                content,
            } => {
                let mut text = String::new();
                let mut images = Vec::new();
                for c in content {
                    match c {
                        Part::Text { text: t } => {
                            if !text.is_empty() {
                                text.push('\n');
                            }
                            text.push_str(t);
                        }
                        Part::Image { mime_type, data } => images
                            .push(json!({"inlineData": {"mimeType": mime_type, "data": data}})),
                        _ => {}
                    }
                }
                let key = if *is_error { "error" } else { "output" };
                let name = names.get(call_id.as_str()).copied().unwrap_or(call_id);
                parts.push(json!({"functionResponse": {
                    "id": call_id,
                    "name": name,
                    "response": { key: text },
                }}));
                parts.extend(images);
                continue;
            }
        };
        if let Some(sig) = pending_signature.take() {
            value["thoughtSignature"] = json!(sig);
        }
        parts.push(value);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinking_per_model() {
        assert_eq!(
            thinking_config("gemini-3-pro-preview", Effort::Medium),
            Some(json!({"includeThoughts": true, "thinkingLevel": "HIGH"}))
        );
        assert_eq!(
            thinking_config("gemini-3-flash", Effort::Minimum),
            Some(json!({"includeThoughts": true, "thinkingLevel": "MINIMAL"}))
        );
        assert_eq!(
            thinking_config("gemini-2.5-flash", Effort::Max),
            Some(json!({"includeThoughts": true, "thinkingBudget": 24576}))
        );
        assert_eq!(thinking_config("gemini-2.0-flash", Effort::High), None);
        assert_eq!(thinking_config("gemini-2.5-pro", Effort::Off), None);
    }
}
