//! `zut mcp list` and `zut mcp get`.

use std::time::Duration;

use serde_json::{json, Value};

use super::{out, Ctx};
use crate::manager::{McpManager, McpOptions};
use crate::sources::{self, ConfiguredServer};
use crate::status::{ServerInfo, ServerStatus};

/// Longest `list`/`get` waits for servers to connect.
const LIST_WAIT: Duration = Duration::from_secs(15);

async fn connect_all(ctx: &Ctx) -> (McpManager, sources::Configured) {
    let (opts, warnings) = McpOptions::from_env(&ctx.home, &ctx.project);
    for w in warnings {
        super::err(&format!("warning: {w}"));
    }
    let configured = sources::load(&ctx.home, &ctx.project);
    let mgr = McpManager::start_configured(opts, configured.clone());
    mgr.wait_settled(LIST_WAIT).await;
    (mgr, configured)
}

pub(super) async fn list(ctx: &Ctx, args: &[String]) -> Result<i32, String> {
    let json_out = args.iter().any(|a| a == "--json");
    let (mgr, configured) = connect_all(ctx).await;
    let infos = mgr.servers();
    if json_out {
        let servers: Vec<Value> = configured
            .servers
            .iter()
            .map(|s| {
                let info = infos.iter().find(|i| i.name == s.config.name);
                json!({
                    "name": s.config.name,
                    "scope": s.config.scope.as_str(),
                    "transport": s.config.transport.kind(),
                    "source": s.config.source.as_ref().map(|p| p.display().to_string()),
                    "status": info.map(|i| i.status.word()),
                    "reason": info.and_then(|i| reason(&i.status)),
                    "tools": info.map(|i| i.tools),
                    "overrides": s.overrides.iter().map(|o| o.scope.as_str()).collect::<Vec<_>>(),
                })
            })
            .collect();
        let problems: Vec<String> = configured.problems.iter().map(|p| p.to_string()).collect();
        out(
            &serde_json::to_string_pretty(&json!({"servers": servers, "problems": problems}))
                .unwrap_or_default(),
        );
    } else {
        for note in mgr.notes() {
            out(&note);
        }
        if configured.servers.is_empty() {
            out("No MCP servers configured. Add one with `zut mcp add` or a .mcp.json file.");
        }
        for s in &configured.servers {
            if let Some(info) = infos.iter().find(|i| i.name == s.config.name) {
                out(&line(s, info));
            }
        }
    }
    mgr.shutdown().await;
    Ok(0)
}

fn reason(status: &ServerStatus) -> Option<String> {
    match status {
        ServerStatus::Failed(r) | ServerStatus::NeedsLogin(r) => Some(r.clone()),
        _ => None,
    }
}

fn line(s: &ConfiguredServer, info: &ServerInfo) -> String {
    let state = match &info.status {
        ServerStatus::Ready => format!("ready, {} tools", info.tools),
        ServerStatus::Failed(r) => format!("failed: {r}"),
        ServerStatus::NeedsLogin(r) => format!("needs login: {r}"),
        ServerStatus::Untrusted => "not trusted: run `zut mcp trust`".to_string(),
        other => other.word().to_string(),
    };
    format!(
        "{}: {} ({}, {}) - {}",
        s.config.name,
        s.config.transport.shown(),
        s.config.transport.kind(),
        s.config.scope.as_str(),
        state
    )
}

/// Header and env values are shown only when they are `${VAR}` references.
fn masked(v: &Value) -> Value {
    let mut v = v.clone();
    for key in ["headers", "env"] {
        if let Some(map) = v.get_mut(key).and_then(Value::as_object_mut) {
            for (_, val) in map.iter_mut() {
                if let Some(s) = val.as_str() {
                    if !s.contains("${") && s.len() > 4 {
                        *val = Value::String(format!(
                            "{}…",
                            &s[..s.char_indices().nth(4).map_or(s.len(), |(i, _)| i)]
                        ));
                    }
                }
            }
        }
    }
    v
}

pub(super) async fn get(ctx: &Ctx, args: &[String]) -> Result<i32, String> {
    let Some(name) = args.first() else {
        return Err("usage: zut mcp get <name>".into());
    };
    let (mgr, configured) = connect_all(ctx).await;
    let Some(s) = configured.get(name) else {
        mgr.shutdown().await;
        return Err(format!("no MCP server named {name}"));
    };
    let info = mgr.servers().into_iter().find(|i| &i.name == name);
    out(&format!("{name}:"));
    out(&format!("  scope: {}", s.config.scope.as_str()));
    if let Some(src) = &s.config.source {
        out(&format!("  source: {}", src.display()));
    }
    for o in &s.overrides {
        out(&format!(
            "  overrides: the {} definition in {}",
            o.scope.as_str(),
            o.source
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        ));
    }
    out(&format!("  transport: {}", s.config.transport.kind()));
    out(&format!(
        "  definition: {}",
        serde_json::to_string(&masked(&s.config.raw)).unwrap_or_default()
    ));
    if let Some(info) = &info {
        out(&format!("  status: {}", info.status.word()));
        if let Some(r) = reason(&info.status) {
            out(&format!("  reason: {r}"));
        }
        out(&format!("  log: {}", info.log.display()));
    }
    let tools: Vec<_> = mgr
        .tools()
        .into_iter()
        .filter(|t| &t.server == name)
        .collect();
    if !tools.is_empty() {
        out(&format!("  tools ({}):", tools.len()));
        for t in tools {
            out(&format!(
                "    {} - {}",
                t.name,
                t.description.lines().next().unwrap_or("")
            ));
        }
    }
    if let Some(info) = &info {
        for sk in &info.skipped {
            out(&format!("  skipped tool {}: {}", sk.tool, sk.reason));
        }
    }
    for p in mgr.prompts().into_iter().filter(|p| &p.server == name) {
        out(&format!("  prompt /{} - {}", p.command, p.description));
    }
    for r in mgr.resources().into_iter().filter(|r| &r.server == name) {
        out(&format!("  resource {} - {}", r.uri, r.name));
    }
    mgr.shutdown().await;
    Ok(0)
}
