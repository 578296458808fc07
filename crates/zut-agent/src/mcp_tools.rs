//! MCP servers' tools in the loop (`zut-mcp`): registration (deferred
//! behind `mcp_tool_search` when they exceed their share of the context
//! window), the search and resource tools, and execution. Interception,
//! validation and approval apply to them in `tool_exec.rs` exactly as to
//! built-ins, because they are ordinary [`ToolEntry`]s.

use std::sync::Arc;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use zut_mcp::{lazy, McpContent, McpManager};
use zut_providers::Part;

use crate::agent::{Agent, EventSink};
use crate::event::AgentEvent;
use crate::toolset::{ToolEntry, ToolOwner, Toolset};

/// The tool reading a resource of an MCP server.
pub const READ_RESOURCE_TOOL: &str = "mcp_read_resource";
/// Resources listed in that tool's description at most.
const LISTED_RESOURCES: usize = 30;
/// How long a call to a tool of a server that is still starting waits.
const LATE_SERVER_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

impl Agent {
    /// Attaches MCP servers: their tools join the tool set as they become
    /// ready (nothing waits for them). `None` detaches.
    pub fn set_mcp(&mut self, mcp: Option<McpManager>) {
        self.mcp = mcp;
    }

    /// The attached MCP servers.
    pub fn mcp(&self) -> Option<&McpManager> {
        self.mcp.as_ref()
    }

    /// Adds the ready servers' tools to `tools` (deferred when over the
    /// budget, with the search tool), and the resource tool when a server
    /// lists resources.
    pub(crate) fn add_mcp_tools(&self, tools: &mut Toolset) {
        let Some(mcp) = &self.mcp else { return };
        let list = mcp.tools();
        let deferred = lazy::should_defer(&list, mcp.settings(), self.context_window());
        if deferred {
            tools.push(ToolEntry {
                name: lazy::SEARCH_TOOL.to_string(),
                description: lazy::search_description(&list),
                schema: lazy::search_schema().into(),
                owner: ToolOwner::Mcp(String::new()),
                deferred: false,
            });
        }
        for t in list {
            tools.push(ToolEntry {
                name: t.name,
                description: t.description,
                schema: t.schema.into(),
                owner: ToolOwner::Mcp(t.server),
                deferred,
            });
        }
        let resources = mcp.resources();
        if !resources.is_empty() {
            let mut description = String::from(
                "Read a resource of an MCP server by its URI. Known resources (server: uri — name):\n",
            );
            for r in resources.iter().take(LISTED_RESOURCES) {
                description.push_str(&format!("- {}: {} — {}\n", r.server, r.uri, r.name));
            }
            if resources.len() > LISTED_RESOURCES {
                description.push_str(&format!(
                    "… and {} more\n",
                    resources.len() - LISTED_RESOURCES
                ));
            }
            tools.push(ToolEntry {
                name: READ_RESOURCE_TOOL.to_string(),
                description,
                schema: json!({
                    "type": "object",
                    "properties": {
                        "server": {"type": "string", "description": "The MCP server's name."},
                        "uri": {"type": "string", "description": "The resource URI."}
                    },
                    "required": ["server", "uri"]
                })
                .into(),
                owner: ToolOwner::Mcp(String::new()),
                deferred: false,
            });
        }
    }

    /// A call to `mcp__<server>__…` that is not in the tool set: its server
    /// may still be starting. Waits for it to settle, then looks again.
    pub(crate) async fn late_mcp_tool(&self, name: &str) -> Option<ToolEntry> {
        let mcp = self.mcp.as_ref()?;
        if name == lazy::SEARCH_TOOL {
            // Offered once the servers are up: wait for them, then look again.
            mcp.wait_settled(LATE_SERVER_WAIT).await;
            let mut tools = Toolset::default();
            self.add_mcp_tools(&mut tools);
            return tools.get(name).cloned();
        }
        zut_mcp::naming::server_of(name)?;
        if !mcp.wait_for_tool_server(name, LATE_SERVER_WAIT).await {
            return None;
        }
        mcp.tools()
            .into_iter()
            .find(|t| t.name == name)
            .map(|t| ToolEntry {
                name: t.name,
                description: t.description,
                schema: t.schema.into(),
                owner: ToolOwner::Mcp(t.server),
                deferred: false,
            })
    }

    /// Runs an MCP tool (or the search / resource tool); progress becomes
    /// `tool_progress` events.
    pub(crate) async fn run_mcp(
        &mut self,
        id: &str,
        name: &str,
        args: Value,
        tools: &Toolset,
        cancel: &CancellationToken,
        sink: EventSink<'_>,
    ) -> (bool, Vec<Part>) {
        let Some(mcp) = self.mcp.clone() else {
            return (true, text("MCP servers are not loaded"));
        };
        if name == lazy::SEARCH_TOOL {
            return self.search_mcp(&mcp, &args, tools);
        }
        if name == READ_RESOURCE_TOOL {
            let s = |k: &str| {
                args.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            return match mcp.read_resource(&s("server"), &s("uri"), cancel).await {
                Ok(content) => (false, parts(content)),
                Err(e) => (true, text(&e)),
            };
        }
        // A deferred tool called by its exact name is loaded from now on.
        if tools.get(name).is_some_and(|e| e.deferred) {
            self.activated.insert(name.to_string());
        }
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
        let progress: zut_mcp::ProgressFn = Arc::new(move |line| {
            let _ = tx.send(line);
        });
        let mut emit = |text: String| {
            sink(AgentEvent::ToolProgress {
                id: id.to_string(),
                text,
            })
        };
        let result = {
            let call = mcp.call_tool(name, args, cancel, Some(progress));
            tokio::pin!(call);
            loop {
                tokio::select! {
                    biased;
                    Some(line) = rx.recv() => emit(line),
                    r = &mut call => break r,
                }
            }
        };
        while let Ok(line) = rx.try_recv() {
            emit(line);
        }
        (result.is_error, parts(result.content))
    }

    fn search_mcp(&mut self, mcp: &McpManager, args: &Value, tools: &Toolset) -> (bool, Vec<Part>) {
        let query = args.get("query").and_then(Value::as_str).unwrap_or("");
        let limit = args
            .get("limit")
            .and_then(Value::as_u64)
            .map_or(lazy::MAX_MATCHES, |n| n as usize);
        let all = mcp.tools();
        let found = lazy::search(&all, query, limit);
        // Every match is a tool of a ready server (`tools` may predate it).
        let _ = tools;
        for t in &found {
            self.activated.insert(t.name.clone());
        }
        (false, text(&lazy::search_result(&found, query)))
    }
}

fn text(s: &str) -> Vec<Part> {
    vec![Part::Text {
        text: s.to_string(),
    }]
}

fn parts(content: Vec<McpContent>) -> Vec<Part> {
    content
        .into_iter()
        .map(|c| match c {
            McpContent::Text(text) => Part::Text { text },
            McpContent::Image { mime_type, data } => Part::Image { mime_type, data },
        })
        .collect()
}
