//! The MCP part of `zut ext doctor`: the configured MCP servers (trusted
//! ones only, as a session starts them) are started next to the
//! extensions, and tool name clashes between them, the extensions and the
//! built-ins are reported with the one that wins (`zut_mcp::clash`).

use std::time::Duration;

use zut_mcp::clash::{Clash, OtherTool};
use zut_mcp::{McpManager, ServerInfo, ServerStatus};

/// How long doctor waits for MCP servers to be ready.
pub const MCP_TIMEOUT: Duration = Duration::from_secs(5);

/// What doctor reports about MCP servers.
#[derive(Debug, Default)]
pub struct McpReport {
    /// Every configured server.
    pub servers: Vec<ServerInfo>,
    /// Tools offered by the ready ones.
    pub tools: usize,
    /// Name clashes.
    pub clashes: Vec<Clash>,
}

/// Waits for `mgr`'s servers (at most [`MCP_TIMEOUT`]) and compares their
/// tools with the built-ins and the extensions' tools; stops the servers.
pub async fn report(
    mgr: McpManager,
    builtins: &[String],
    host: &zut_ext_host::ExtensionHost,
) -> McpReport {
    mgr.wait_settled(MCP_TIMEOUT).await;
    let tools = mgr.tools();
    let mut others: Vec<OtherTool> = builtins
        .iter()
        .map(|n| OtherTool {
            name: n.clone(),
            owner: "built-in".into(),
        })
        .collect();
    others.extend(host.tools().into_iter().map(|t| OtherTool {
        name: t.name,
        owner: format!("extension {}", t.extension),
    }));
    let report = McpReport {
        servers: mgr.servers(),
        tools: tools.len(),
        clashes: zut_mcp::clash::clashes(&tools, &others),
    };
    mgr.shutdown().await;
    report
}

/// The lines doctor prints (nothing when no MCP server is configured).
pub fn render(r: &McpReport) -> String {
    if r.servers.is_empty() {
        return String::new();
    }
    let ready = r
        .servers
        .iter()
        .filter(|s| s.status == ServerStatus::Ready)
        .count();
    let mut out = format!(
        "\nmcp servers: {ready} of {} ready, {} tools\n",
        r.servers.len(),
        r.tools
    );
    for s in r.servers.iter().filter(|s| s.status != ServerStatus::Ready) {
        let why = match &s.status {
            ServerStatus::Failed(w) | ServerStatus::NeedsLogin(w) => format!(": {w}"),
            _ => String::new(),
        };
        out.push_str(&format!("  {}: {}{why}\n", s.name, s.status.word()));
    }
    if r.clashes.is_empty() {
        out.push_str("mcp tool names: no clashes with built-ins, extensions or other servers\n");
    } else {
        out.push_str("mcp tool name clashes:\n");
        for c in &r.clashes {
            out.push_str(&format!("  {}\n", c.text));
        }
    }
    out
}
