//! The `mcpServers` of ACP `session/new` / `session/load` as server
//! definitions. ACP writes them as `{name, command, args, env: [{name,
//! value}]}` (stdio) and `{type: "http"|"sse", name, url, headers: [{name,
//! value}]}`; they need no trust answer (the editor chose them) and live as
//! long as the session.

use std::path::Path;

use serde_json::{json, Map, Value};

use crate::config::{parse_server, Scope, ServerConfig};
use crate::manager::{McpManager, McpOptions};

/// Converts ACP server objects; entries that do not parse are returned as
/// problems (`name: reason`).
pub fn servers_from_acp(servers: &[Value]) -> (Vec<ServerConfig>, Vec<String>) {
    let mut ok = Vec::new();
    let mut problems = Vec::new();
    for s in servers {
        let name = s
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let pairs = |key: &str| -> Value {
            let map: Map<String, Value> = s
                .get(key)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|p| {
                            Some((
                                p.get("name")?.as_str()?.to_string(),
                                p.get("value")?.clone(),
                            ))
                        })
                        .collect()
                })
                .unwrap_or_default();
            Value::Object(map)
        };
        let def = match s.get("type").and_then(Value::as_str) {
            Some(kind @ ("http" | "sse")) => {
                json!({"type": kind, "url": s.get("url"), "headers": pairs("headers")})
            }
            _ => {
                json!({"command": s.get("command"), "args": s.get("args").cloned().unwrap_or(json!([])), "env": pairs("env")})
            }
        };
        match parse_server(&name, &def, Scope::Session, None) {
            Ok(c) => ok.push(c),
            Err(e) => problems.push(format!(
                "{}: {e}",
                if name.is_empty() { "(unnamed)" } else { &name }
            )),
        }
    }
    (ok, problems)
}

/// The MCP servers of one ACP session: the user's and the trusted project
/// servers of `cwd`, plus the editor's (which win on a name clash).
/// Returns the lines to show once in the session.
pub fn start_for_session(
    home: &Path,
    cwd: &Path,
    acp_servers: &[Value],
) -> (McpManager, Vec<String>) {
    start_for_session_jailed(home, cwd, acp_servers, zut_tools::JailSwitch::default())
}

/// [`start_for_session`] with the session's jail switch (stdio servers
/// start under the jail while it is on).
pub fn start_for_session_jailed(
    home: &Path,
    cwd: &Path,
    acp_servers: &[Value],
    jail: zut_tools::JailSwitch,
) -> (McpManager, Vec<String>) {
    start_for_session_with(
        home,
        cwd,
        acp_servers,
        jail,
        crate::elicit::Elicitation::default(),
    )
}

/// [`start_for_session_jailed`] with the elicitation handle (declared
/// from the start when the editor can show forms).
pub fn start_for_session_with(
    home: &Path,
    cwd: &Path,
    acp_servers: &[Value],
    jail: zut_tools::JailSwitch,
    elicitation: crate::elicit::Elicitation,
) -> (McpManager, Vec<String>) {
    let (mut opts, mut notes) = McpOptions::from_env(home, cwd);
    opts.jail = jail;
    opts.elicitation = elicitation;
    let (servers, problems) = servers_from_acp(acp_servers);
    notes.extend(
        problems
            .into_iter()
            .map(|p| format!("mcp: session server {p}")),
    );
    let mut configured = crate::sources::load(home, cwd);
    crate::sources::merge_extra(&mut configured, servers, home);
    let mgr = McpManager::start_configured(opts, configured);
    notes.extend(mgr.notes());
    (mgr, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acp_shapes() {
        let (ok, bad) = servers_from_acp(&[
            json!({"name": "fs", "command": "npx", "args": ["-y", "x"], "env": [{"name": "A", "value": "b"}]}),
            json!({"type": "http", "name": "web", "url": "https://x/mcp", "headers": [{"name": "Authorization", "value": "Bearer t"}]}),
            json!({"type": "sse", "name": "old", "url": "https://x/sse", "headers": []}),
            json!({"name": "", "command": "x"}),
        ]);
        assert_eq!(ok.len(), 3);
        assert_eq!(ok[0].transport.kind(), "stdio");
        assert_eq!(ok[1].transport.kind(), "http");
        assert_eq!(ok[2].transport.kind(), "sse");
        assert_eq!(ok[0].scope, Scope::Session);
        assert_eq!(bad.len(), 1);
    }
}
