//! What a ready server offers: tools (validated), prompts, resources.

use serde_json::Value;

use crate::naming;

/// One MCP tool as zut offers it to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct McpTool {
    /// `mcp__<server>__<tool>`.
    pub name: String,
    /// The server's name.
    pub server: String,
    /// The tool's own name on the server.
    pub tool: String,
    /// Description (the title when there is none).
    pub description: String,
    /// The input schema as the server sent it.
    pub schema: Value,
}

/// A tool that was not offered, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct SkippedTool {
    /// The tool's own name on the server.
    pub tool: String,
    /// Why (an invalid schema, a name clash).
    pub reason: String,
}

/// A prompt template (`/mcp__<server>__<prompt>`).
#[derive(Debug, Clone, PartialEq)]
pub struct McpPrompt {
    /// The server's name.
    pub server: String,
    /// The prompt's name on the server.
    pub name: String,
    /// `mcp__<server>__<prompt>`, the slash command's name.
    pub command: String,
    /// Description.
    pub description: String,
    /// Arguments: name, description, required.
    pub arguments: Vec<(String, String, bool)>,
}

/// A resource a server lists.
#[derive(Debug, Clone, PartialEq)]
pub struct McpResource {
    /// The server's name.
    pub server: String,
    /// URI.
    pub uri: String,
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// MIME type.
    pub mime_type: String,
}

/// The lists of one server.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// Offered tools.
    pub tools: Vec<McpTool>,
    /// Tools not offered.
    pub skipped: Vec<SkippedTool>,
    /// Prompts.
    pub prompts: Vec<McpPrompt>,
    /// Resources.
    pub resources: Vec<McpResource>,
    /// The server's `instructions`.
    pub instructions: Option<String>,
}

fn s(v: &Value, k: &str) -> String {
    v.get(k).and_then(Value::as_str).unwrap_or("").to_string()
}

/// Builds the tool list from `tools/list` entries (as JSON): each input
/// schema must be an object schema that compiles; others are skipped with
/// the reason.
pub fn tools_from(server: &str, tools: &[Value]) -> (Vec<McpTool>, Vec<SkippedTool>) {
    let mut ok: Vec<McpTool> = Vec::new();
    let mut skipped = Vec::new();
    for t in tools {
        let tool = s(t, "name");
        let schema = t.get("inputSchema").cloned().unwrap_or(Value::Null);
        if let Err(reason) = check_schema(&schema) {
            skipped.push(SkippedTool { tool, reason });
            continue;
        }
        let name = naming::tool_name(server, &tool);
        if ok.iter().any(|o| o.name == name) {
            skipped.push(SkippedTool {
                reason: format!("its zut name {name} is taken by another tool of this server"),
                tool,
            });
            continue;
        }
        let mut description = s(t, "description");
        if description.is_empty() {
            description = s(t, "title");
        }
        ok.push(McpTool {
            name,
            server: server.to_string(),
            tool,
            description,
            schema,
        });
    }
    (ok, skipped)
}

/// An input schema zut can validate arguments against.
pub fn check_schema(schema: &Value) -> Result<(), String> {
    if !schema.is_object() {
        return Err("inputSchema is not a JSON object".into());
    }
    if let Some(t) = schema.get("type") {
        if t != "object" {
            return Err(format!("inputSchema type must be \"object\", not {t}"));
        }
    }
    zut_tools::ArgValidator::new(schema).map(|_| ())
}

/// Prompts from `prompts/list` entries.
pub fn prompts_from(server: &str, prompts: &[Value]) -> Vec<McpPrompt> {
    prompts
        .iter()
        .map(|p| McpPrompt {
            server: server.to_string(),
            name: s(p, "name"),
            command: naming::tool_name(server, &s(p, "name")),
            description: s(p, "description"),
            arguments: p
                .get("arguments")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .map(|a| {
                            (
                                s(a, "name"),
                                s(a, "description"),
                                a.get("required").and_then(Value::as_bool).unwrap_or(false),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect()
}

/// Resources from `resources/list` entries.
pub fn resources_from(server: &str, resources: &[Value]) -> Vec<McpResource> {
    resources
        .iter()
        .map(|r| McpResource {
            server: server.to_string(),
            uri: s(r, "uri"),
            name: s(r, "name"),
            description: s(r, "description"),
            mime_type: s(r, "mimeType"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn invalid_schemas_are_skipped_with_reason() {
        let (ok, skipped) = tools_from(
            "s",
            &[
                json!({"name": "good", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}),
                json!({"name": "bad", "inputSchema": {"type": "object", "properties": {"a": {"type": 12}}}}),
                json!({"name": "str", "inputSchema": {"type": "string"}}),
                json!({"name": "none"}),
            ],
        );
        assert_eq!(ok.len(), 1);
        assert_eq!(ok[0].name, "mcp__s__good");
        assert_eq!(skipped.len(), 3);
        assert!(
            skipped[0].reason.contains("invalid JSON Schema"),
            "{}",
            skipped[0].reason
        );
    }
}
