//! Lazy loading: when the MCP tools' definitions exceed a share of the
//! context window they are offered deferred, and one search tool finds and
//! activates them (the `activate_tools` path extensions use).

use serde_json::{json, Value};

use crate::catalog::McpTool;
use crate::settings::{LazyMode, McpSettings};

/// The search tool's name.
pub const SEARCH_TOOL: &str = "mcp_tool_search";
/// Tools a search activates at most.
pub const MAX_MATCHES: usize = 8;

/// Rough token count of a tool definition (bytes of its JSON / 4).
pub fn estimate_tokens(tool: &McpTool) -> usize {
    let bytes = tool.name.len() + tool.description.len() + tool.schema.to_string().len() + 32;
    bytes.div_ceil(4)
}

/// Whether `tools` are to be deferred for a model with `context_window`
/// tokens.
pub fn should_defer(tools: &[McpTool], settings: &McpSettings, context_window: u64) -> bool {
    match settings.lazy {
        LazyMode::Never => false,
        LazyMode::Always => !tools.is_empty(),
        LazyMode::Auto => {
            let total: usize = tools.iter().map(estimate_tokens).sum();
            (total as f64) > settings.tool_budget * context_window as f64
        }
    }
}

/// The search tool's description (lists the servers whose tools it finds).
pub fn search_description(tools: &[McpTool]) -> String {
    let mut servers: Vec<&str> = tools.iter().map(|t| t.server.as_str()).collect();
    servers.dedup();
    format!(
        "Find MCP tools by keywords and make them callable. {} tools from the MCP servers {} are \
         not loaded yet; search with words describing the task (or a tool's exact name, or \
         `server:<name>` for all of one server's tools). Matching tools become available from \
         the next step on; call them by the names returned.",
        tools.len(),
        servers.join(", ")
    )
}

/// The search tool's input schema.
pub fn search_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Keywords, an exact tool name, or server:<name>."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 20, "description": "Most tools to load (default 8)."}
        },
        "required": ["query"]
    })
}

/// Ranks `tools` for `query`: exact name first, then by how many query
/// words appear in the name (weighted) and description.
pub fn search<'a>(tools: &'a [McpTool], query: &str, limit: usize) -> Vec<&'a McpTool> {
    let q = query.trim().to_lowercase();
    if let Some(server) = q.strip_prefix("server:") {
        return tools
            .iter()
            .filter(|t| t.server.to_lowercase() == server.trim())
            .take(limit.max(1) * 4)
            .collect();
    }
    if let Some(t) = tools
        .iter()
        .find(|t| t.name.to_lowercase() == q || t.tool.to_lowercase() == q)
    {
        return vec![t];
    }
    let words: Vec<&str> = q
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 1)
        .collect();
    let mut scored: Vec<(usize, &McpTool)> = tools
        .iter()
        .map(|t| {
            let name = t.name.to_lowercase();
            let desc = t.description.to_lowercase();
            let score = words
                .iter()
                .map(|w| 3 * usize::from(name.contains(w)) + usize::from(desc.contains(w)))
                .sum();
            (score, t)
        })
        .filter(|(s, _)| *s > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
    scored
        .into_iter()
        .take(limit.max(1))
        .map(|(_, t)| t)
        .collect()
}

/// The search tool's result text for `found`.
pub fn search_result(found: &[&McpTool], query: &str) -> String {
    if found.is_empty() {
        return format!("No MCP tool matches \"{query}\". Try other words or server:<name>.");
    }
    let mut out = format!("Loaded {} MCP tool(s); call them by name:\n", found.len());
    for t in found {
        let first = t.description.lines().next().unwrap_or("");
        out.push_str(&format!("- {}: {first}\n", t.name));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(server: &str, name: &str, desc: &str) -> McpTool {
        McpTool {
            name: crate::naming::tool_name(server, name),
            server: server.into(),
            tool: name.into(),
            description: desc.into(),
            schema: json!({"type": "object"}),
        }
    }

    #[test]
    fn ranks_and_defers() {
        let tools = vec![
            tool("gh", "create_issue", "Create a GitHub issue"),
            tool("gh", "list_issues", "List issues of a repository"),
            tool("fs", "read_file", "Read a file"),
        ];
        let found = search(&tools, "create issue", 8);
        assert_eq!(found[0].tool, "create_issue");
        assert_eq!(found.len(), 2);
        assert_eq!(search(&tools, "mcp__fs__read_file", 8).len(), 1);
        assert_eq!(search(&tools, "server:gh", 8).len(), 2);
        let mut s = McpSettings::default();
        assert!(!should_defer(&tools, &s, 200_000));
        assert!(should_defer(&tools, &s, 100));
        s.lazy = LazyMode::Never;
        assert!(!should_defer(&tools, &s, 100));
    }
}
