//! `/mcp` for every front end: the MCP servers' states (configured,
//! starting, ready with N tools, failed with the reason…), whether their
//! tools are deferred behind `mcp_tool_search`, and `enable`, `disable`,
//! `reconnect` of one server, `trust` of a project server. The TUI draws the same facts as a picker.

use zut_mcp::{LazyMode, ServerInfo, ServerStatus};

use super::Controller;

/// The MCP side of the conversation as front ends show it.
#[derive(Debug, Clone)]
pub struct McpOverview {
    /// Every configured server, sorted by name.
    pub servers: Vec<ServerInfo>,
    /// Tools offered by the ready servers.
    pub tools: usize,
    /// Their definitions' estimated tokens.
    pub tool_tokens: usize,
    /// Whether they are deferred behind `mcp_tool_search` now.
    pub deferred: bool,
    /// One line: the tool search mode and the budget.
    pub lazy: String,
    /// Tool name clashes (same zut name: which one is used; the same tool
    /// name on several servers or a server and zut's own tools), one line
    /// each (`zut_mcp::clash`).
    pub clashes: Vec<String>,
}

/// A server's state in a few words: `ready · 12 tools, 2 prompts`,
/// `failed: <reason>`, `untrusted: run zut mcp trust`, ….
pub fn state_text(info: &ServerInfo) -> String {
    match &info.status {
        ServerStatus::Ready => {
            let mut t = format!(
                "ready · {} tool{}",
                info.tools,
                if info.tools == 1 { "" } else { "s" }
            );
            if info.prompts > 0 {
                t.push_str(&format!(", {} prompts", info.prompts));
            }
            if info.resources > 0 {
                t.push_str(&format!(", {} resources", info.resources));
            }
            if !info.skipped.is_empty() {
                t.push_str(&format!(" ({} skipped)", info.skipped.len()));
            }
            t
        }
        ServerStatus::Starting => "starting…".into(),
        ServerStatus::Disabled => "disabled".into(),
        ServerStatus::Untrusted => "untrusted: run `zut mcp trust` to start it".into(),
        ServerStatus::NeedsLogin(why) => {
            format!("needs login: `zut mcp login {}` ({why})", info.name)
        }
        ServerStatus::Failed(why) => format!("failed: {why}"),
        ServerStatus::Stopped => "stopped".into(),
    }
}

/// Where a server comes from and how it is reached: `stdio · user`, with
/// its restarts after crashes.
pub fn origin_text(info: &ServerInfo) -> String {
    let mut t = format!("{} · {}", info.transport, info.scope.as_str());
    if let Some(w) = info.sandbox.filter(|w| *w != "unconfined") {
        t.push_str(&format!(" · {w}"));
    }
    if info.restarts > 0 {
        t.push_str(&format!(
            " · {} restart{}",
            info.restarts,
            if info.restarts == 1 { "" } else { "s" }
        ));
    }
    t
}

/// How long the text `/mcp` waits for servers still starting.
const LISTING_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

const NO_SERVERS: &str =
    "no MCP servers configured (mcpServers in config.json, .mcp.json or .zut/mcp.json; see docs/mcp.md)";

impl Controller {
    /// The MCP servers and their tools' deferral (`None` without an MCP
    /// manager).
    pub fn mcp_overview(&self) -> Option<McpOverview> {
        let mcp = self.shared.mcp.as_ref()?;
        let list = mcp.tools();
        let settings = mcp.settings();
        let window = self
            .shared
            .agent_config
            .compaction
            .context_window
            .or_else(|| crate::compaction::known_context_window(&self.state().model))
            .unwrap_or(crate::compaction::DEFAULT_CONTEXT_WINDOW);
        let deferred = zut_mcp::lazy::should_defer(&list, settings, window);
        let tool_tokens = list.iter().map(zut_mcp::lazy::estimate_tokens).sum();
        let lazy = match settings.lazy {
            LazyMode::Never => "tool search never: every tool is loaded".to_string(),
            LazyMode::Always => "tool search always: tools load through mcp_tool_search".into(),
            LazyMode::Auto => format!(
                "tool search auto: deferred past {:.0}% of the {}k-token context ({})",
                settings.tool_budget * 100.0,
                window / 1000,
                if deferred {
                    "deferred now"
                } else {
                    "all loaded"
                }
            ),
        };
        let clashes = zut_mcp::clash::clashes(&list, &self.other_tools())
            .into_iter()
            .map(|c| c.text)
            .collect();
        Some(McpOverview {
            servers: mcp.servers(),
            tools: list.len(),
            tool_tokens,
            deferred,
            lazy,
            clashes,
        })
    }

    /// The tools offered besides the MCP servers', in the order the tool
    /// set takes them: enabled built-ins, `skill`, extension tools.
    fn other_tools(&self) -> Vec<zut_mcp::clash::OtherTool> {
        use zut_mcp::clash::OtherTool;
        let config = &self.shared.agent_config;
        let mut out: Vec<OtherTool> = config
            .builtin_tools
            .iter()
            .map(|n| OtherTool {
                name: n.clone(),
                owner: "built-in".into(),
            })
            .collect();
        if config.skills {
            out.push(OtherTool {
                name: crate::skills::SKILL_TOOL.to_string(),
                owner: "skill".into(),
            });
        }
        if let Some(host) = self.host() {
            let mut tools = host.tools();
            tools.sort_by(|a, b| a.name.cmp(&b.name));
            out.extend(tools.into_iter().map(|t| OtherTool {
                name: t.name,
                owner: format!("extension {}", t.extension),
            }));
        }
        out
    }

    /// `server:uri` of every resource the ready servers list, for `@`
    /// completion in an editor (`@server:uri` mentions).
    pub fn mcp_mention_candidates(&self) -> Vec<String> {
        self.shared.mcp.as_ref().map_or_else(Vec::new, |m| {
            m.resources()
                .into_iter()
                .map(|r| format!("{}:{}", r.server, r.uri))
                .collect()
        })
    }

    /// Whether any server is still starting.
    pub fn mcp_starting(&self) -> bool {
        self.shared.mcp.as_ref().is_some_and(|m| {
            m.servers()
                .iter()
                .any(|s| s.status == ServerStatus::Starting)
        })
    }

    /// Waits (at most `max`) until no server is starting any more.
    pub async fn mcp_settled(&self, max: std::time::Duration) {
        if let Some(mcp) = &self.shared.mcp {
            mcp.wait_settled(max).await;
        }
    }

    /// `/mcp [enable|disable|reconnect <name>]`: the servers as text, or
    /// the action's confirmation.
    pub(super) async fn mcp_command(&self, args: &str) -> Result<String, String> {
        let mut words = args.split_whitespace();
        let action = words.next().unwrap_or("").to_ascii_lowercase();
        let name = words.next();
        if action.is_empty() {
            // Servers still starting get a moment to say how it went.
            if let Some(mcp) = &self.shared.mcp {
                mcp.wait_settled(LISTING_WAIT).await;
            }
            return Ok(self.mcp_listing());
        }
        let usage = "use /mcp, or /mcp enable|disable|reconnect|trust <server>";
        let (Some(name), None) = (name, words.next()) else {
            return Err(format!("/mcp {}: {usage}", args.trim()));
        };
        let mcp = self
            .shared
            .mcp
            .as_ref()
            .ok_or_else(|| NO_SERVERS.to_string())?;
        match action.as_str() {
            "disable" => {
                mcp.disable(name).await?;
                Ok(format!("mcp: {name} disabled for this run"))
            }
            "enable" => match mcp.enable(name)? {
                ServerStatus::Untrusted => Err(format!(
                    "mcp: {name} is a project server not trusted yet: run `zut mcp trust` first"
                )),
                s => Ok(format!("mcp: {name} {}", s.word())),
            },
            "trust" => {
                let status = mcp.trust(name)?;
                Ok(format!("mcp: {name} trusted, {}", status.word()))
            }
            "reconnect" => {
                let info = mcp
                    .servers()
                    .into_iter()
                    .find(|s| s.name == name)
                    .ok_or_else(|| format!("no MCP server named {name:?}"))?;
                match info.status {
                    ServerStatus::Disabled | ServerStatus::Untrusted | ServerStatus::Stopped => {
                        Err(format!(
                            "mcp: {name} is {}: /mcp enable {name} starts it",
                            info.status.word()
                        ))
                    }
                    _ => {
                        mcp.reconnect(name);
                        Ok(format!("mcp: reconnecting {name}"))
                    }
                }
            }
            other => Err(format!("/mcp {other}: {usage}")),
        }
    }

    /// `/mcp` as text (print, RPC, ACP).
    fn mcp_listing(&self) -> String {
        let Some(o) = self.mcp_overview().filter(|o| !o.servers.is_empty()) else {
            return NO_SERVERS.to_string();
        };
        let mut out = format!(
            "MCP servers: {} tools (≈{} tokens); {}\n",
            o.tools, o.tool_tokens, o.lazy
        );
        let width = o.servers.iter().map(|s| s.name.len()).max().unwrap_or(0);
        for s in &o.servers {
            out.push_str(&format!(
                "  {:width$}  {} · {}\n",
                s.name,
                state_text(s),
                origin_text(s)
            ));
        }
        if !o.clashes.is_empty() {
            out.push_str("Tool name clashes:\n");
            for c in &o.clashes {
                out.push_str(&format!("  {c}\n"));
            }
        }
        out.push_str("/mcp enable|disable|reconnect|trust <server>");
        out
    }
}
