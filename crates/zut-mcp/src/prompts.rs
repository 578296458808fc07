//! MCP prompts as slash commands: `/mcp__<server>__<prompt> args`.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::catalog::McpPrompt;

/// Splits `/mcp__s__p a b` or `/mcp__s__p key=value …` into the prompt and
/// its arguments: `key=value` words go to that argument; other words fill
/// the declared arguments in order, the last one taking the rest.
pub fn parse_command<'a>(
    prompts: &'a [McpPrompt],
    text: &str,
) -> Option<(&'a McpPrompt, BTreeMap<String, String>)> {
    let rest = text.trim_start().strip_prefix('/')?;
    let (cmd, args) = match rest.split_once(char::is_whitespace) {
        Some((c, a)) => (c, a.trim()),
        None => (rest, ""),
    };
    let prompt = prompts.iter().find(|p| p.command == cmd)?;
    let mut out = BTreeMap::new();
    let mut positional: Vec<&str> = Vec::new();
    for word in args.split_whitespace() {
        match word.split_once('=') {
            Some((k, v)) if prompt.arguments.iter().any(|a| a.0 == k) => {
                out.insert(k.to_string(), v.to_string());
            }
            _ => positional.push(word),
        }
    }
    let free: Vec<&String> = prompt
        .arguments
        .iter()
        .map(|a| &a.0)
        .filter(|n| !out.contains_key(*n))
        .collect();
    for (i, name) in free.iter().enumerate() {
        if positional.is_empty() {
            break;
        }
        let value = if i + 1 == free.len() {
            std::mem::take(&mut positional).join(" ")
        } else {
            positional.remove(0).to_string()
        };
        out.insert((*name).clone(), value);
    }
    Some((prompt, out))
}

/// The `messages` of a `prompts/get` result as one text.
pub fn render_messages(result: &Value) -> String {
    let messages = result
        .get("messages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let many = messages.len() > 1;
    messages
        .iter()
        .map(|m| {
            let role = m.get("role").and_then(Value::as_str).unwrap_or("user");
            let content = m.get("content").cloned().unwrap_or(Value::Null);
            let blocks = match content {
                Value::Array(a) => a,
                other => vec![other],
            };
            let text = blocks
                .iter()
                .map(|b| match b.get("type").and_then(Value::as_str) {
                    Some("text") => b
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    Some("resource") => match crate::content::map_resource(
                        b.get("resource").unwrap_or(&Value::Null),
                    ) {
                        crate::content::McpContent::Text(t) => t,
                        crate::content::McpContent::Image { mime_type, .. } => {
                            format!("[image {mime_type}]")
                        }
                    },
                    Some(other) => format!("[{other} content]"),
                    None => String::new(),
                })
                .collect::<Vec<_>>()
                .join("\n");
            if many {
                format!("[{role}]\n{text}")
            } else {
                text
            }
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn prompt() -> McpPrompt {
        McpPrompt {
            server: "s".into(),
            name: "review".into(),
            command: "mcp__s__review".into(),
            description: String::new(),
            arguments: vec![
                ("file".into(), String::new(), true),
                ("focus".into(), String::new(), false),
            ],
        }
    }

    #[test]
    fn parses_arguments() {
        let ps = vec![prompt()];
        let (_, a) = parse_command(&ps, "/mcp__s__review main.rs error handling").unwrap();
        assert_eq!(a["file"], "main.rs");
        assert_eq!(a["focus"], "error handling");
        let (_, a) = parse_command(&ps, "/mcp__s__review focus=speed x.rs").unwrap();
        assert_eq!(a["focus"], "speed");
        assert_eq!(a["file"], "x.rs");
        assert!(parse_command(&ps, "/other").is_none());
    }

    #[test]
    fn renders() {
        let v = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]});
        assert_eq!(render_messages(&v), "hi");
    }
}
