//! Tool name clashes between MCP servers, and between a server and zut's
//! other tools (built-ins, skills, extensions), for `/mcp` and `zut ext
//! doctor`.
//!
//! Two kinds:
//! - **the same zut name**: two tools would be offered as one name (server
//!   `a` with tool `b__c` and server `a__b` with tool `c` are both
//!   `mcp__a__b__c`; an extension registering `mcp__fs__read_file`). Only
//!   one is offered: a built-in, skill or extension tool wins over an MCP
//!   tool (the tool set keeps the first of a name), and between servers the
//!   one whose name sorts first (calls go to it too).
//! - **the same tool name** under different zut names (servers `fs` and
//!   `fs2` both have `read_file`, offered as `mcp__fs__read_file` and
//!   `mcp__fs2__read_file`): every one is offered; reported so the user
//!   knows which server a call reaches.

use std::collections::BTreeMap;

use crate::catalog::McpTool;

/// A tool zut offers besides the MCP servers', in the order the tool set
/// takes them (the first of a name wins).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtherTool {
    /// Its name.
    pub name: String,
    /// Who offers it: `built-in`, `skill`, `extension <name>`.
    pub owner: String,
}

/// One clash, as a line for `/mcp` and doctor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clash {
    /// The name in question (a zut name, or a server's tool name).
    pub name: String,
    /// Whether only one of them is offered (same zut name).
    pub shadowed: bool,
    /// What to tell the user: who offers it and which one wins.
    pub text: String,
}

/// Every clash among `mcp` (the ready servers' tools, as
/// [`crate::McpManager::tools`] returns them) and `others`.
pub fn clashes(mcp: &[McpTool], others: &[OtherTool]) -> Vec<Clash> {
    let mut out = Vec::new();
    // Same zut name: the providers in the order the tool set meets them.
    let mut by_name: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for o in others {
        by_name
            .entry(o.name.as_str())
            .or_default()
            .push(format!("{}'s {}", o.owner, o.name));
    }
    for t in mcp {
        by_name
            .entry(t.name.as_str())
            .or_default()
            .push(format!("server {}'s tool {}", t.server, t.tool));
    }
    for (name, who) in &by_name {
        if who.len() < 2 || !who[1..].iter().any(|w| w.starts_with("server ")) {
            // Clashes among built-ins and extensions are the extension
            // host's to report.
            continue;
        }
        out.push(Clash {
            name: name.to_string(),
            shadowed: true,
            text: format!(
                "{name}: {} is used; {} {} not offered (same name)",
                who[0],
                who[1..].join(", "),
                if who.len() == 2 { "is" } else { "are" }
            ),
        });
    }
    // Same tool name on several servers (or a server and zut's own tools),
    // offered under different names.
    let mut by_tool: BTreeMap<&str, Vec<(String, &str)>> = BTreeMap::new();
    for t in mcp {
        by_tool
            .entry(t.tool.as_str())
            .or_default()
            .push((format!("server {}", t.server), t.name.as_str()));
    }
    for list in by_tool.values_mut() {
        list.sort();
    }
    for o in others {
        if let Some(list) = by_tool.get_mut(o.name.as_str()) {
            list.insert(0, (o.owner.clone(), o.name.as_str()));
        }
    }
    for (tool, list) in &by_tool {
        let mut names: Vec<&str> = list.iter().map(|(_, n)| *n).collect();
        names.sort_unstable();
        names.dedup();
        if names.len() < 2 {
            continue;
        }
        let who: Vec<String> = list.iter().map(|(w, n)| format!("{w} as {n}")).collect();
        out.push(Clash {
            name: tool.to_string(),
            shadowed: false,
            text: format!(
                "{tool}: offered by {}; each under its own name (a call reaches the one it names)",
                who.join(", ")
            ),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(server: &str, name: &str) -> McpTool {
        McpTool {
            name: crate::naming::tool_name(server, name),
            server: server.into(),
            tool: name.into(),
            description: String::new(),
            schema: json!({"type": "object"}),
        }
    }

    #[test]
    fn same_zut_name_and_same_tool_name() {
        let mut mcp = vec![
            tool("a", "b__c"),
            tool("a__b", "c"),
            tool("fs", "read_file"),
            tool("fs2", "read_file"),
            tool("x", "only"),
        ];
        mcp.sort_by(|p, q| p.name.cmp(&q.name));
        let others = vec![
            OtherTool {
                name: "read".into(),
                owner: "built-in".into(),
            },
            OtherTool {
                name: "mcp__x__only".into(),
                owner: "extension sneaky".into(),
            },
            OtherTool {
                name: "read_file".into(),
                owner: "extension files".into(),
            },
        ];
        let c = clashes(&mcp, &others);
        let texts: Vec<&str> = c.iter().map(|c| c.text.as_str()).collect();
        assert!(texts.contains(
            &"mcp__a__b__c: server a's tool b__c is used; server a__b's tool c is not offered (same name)"
        ), "{texts:#?}");
        assert!(texts.contains(
            &"mcp__x__only: extension sneaky's mcp__x__only is used; server x's tool only is not offered (same name)"
        ), "{texts:#?}");
        assert!(texts.contains(
            &"read_file: offered by extension files as read_file, server fs as mcp__fs__read_file, server fs2 as mcp__fs2__read_file; each under its own name (a call reaches the one it names)"
        ), "{texts:#?}");
        assert_eq!(c.len(), 3, "{texts:#?}");
        assert!(clashes(&[tool("fs", "write_file")], &others).is_empty());
        assert_eq!(clashes(&[tool("fs", "read_file")], &others).len(), 1);
    }
}
