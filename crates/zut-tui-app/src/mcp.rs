//! `/mcp` in the TUI: the servers picker (each server's state: starting,
//! ready with N tools, failed with the reason, disabled, untrusted…) and,
//! on Enter, one server's actions (enable, disable, reconnect), which run
//! as `/mcp <action> <server>` through the controller like in every front
//! end. The facts and words are the controller's (`zut_agent::controller::mcp`).

use tokio::sync::mpsc;
use zut_agent::controller::mcp::{origin_text, state_text};
use zut_mcp::ServerStatus;
use zut_tui::pickers::{Picker, PickerItem, PickerKind};
use zut_tui::TuiEvent;

const NO_SERVERS: &str =
    "no MCP servers configured: mcpServers in config.json, .mcp.json or .zut/mcp.json (docs/mcp.md)";

/// The servers picker.
pub fn servers(ctrl: &zut_agent::Controller) -> Picker {
    let Some(o) = ctrl.mcp_overview().filter(|o| !o.servers.is_empty()) else {
        return Picker::new(PickerKind::Mcp, "mcp servers", Vec::new()).empty_text(NO_SERVERS);
    };
    let mut items: Vec<PickerItem> = o
        .servers
        .iter()
        .map(|s| {
            PickerItem::new(s.name.clone(), s.name.clone()).detail(format!(
                "{} · {}",
                state_text(s),
                origin_text(s)
            ))
        })
        .collect();
    items.push(PickerItem::new("tools", "").detail(format!(
        "{} offered (≈{} tokens) · {}",
        o.tools, o.tool_tokens, o.lazy
    )));
    for c in &o.clashes {
        items.push(PickerItem::new("name clash", "").detail(c.clone()));
    }
    let ready = o
        .servers
        .iter()
        .filter(|s| s.status == ServerStatus::Ready)
        .count();
    Picker::new(
        PickerKind::Mcp,
        &format!("mcp servers · {ready} of {} ready", o.servers.len()),
        items,
    )
}

/// The servers picker with `name` selected (after an action on it).
pub fn servers_at(ctrl: &zut_agent::Controller, name: &str) -> Picker {
    let p = servers(ctrl);
    match p.items.iter().position(|i| i.value == name) {
        Some(at) => p.select(at),
        None => p,
    }
}

/// One server's actions, with its state, log and skipped tools.
pub fn server(ctrl: &zut_agent::Controller, name: &str) -> Option<Picker> {
    let o = ctrl.mcp_overview()?;
    let s = o.servers.iter().find(|s| s.name == name)?;
    let mut items = Vec::new();
    match s.status {
        ServerStatus::Untrusted => {
            items.push(
                PickerItem::new("trust and start", format!("trust {name}"))
                    .detail(format!("run `{}` from now on", s.target)),
            );
        }
        ServerStatus::Disabled | ServerStatus::Stopped => {
            items.push(
                PickerItem::new("enable", format!("enable {name}")).detail("start it for this run"),
            );
        }
        _ => {
            items.push(
                PickerItem::new("reconnect", format!("reconnect {name}"))
                    .detail("drop the connection and connect again"),
            );
            items.push(
                PickerItem::new("disable", format!("disable {name}"))
                    .detail("stop it for this run; its tools leave"),
            );
        }
    }
    items.push(PickerItem::new("state", "").detail(state_text(s)));
    items.push(PickerItem::new("server", "").detail(origin_text(s)));
    items.push(PickerItem::new("runs", "").detail(s.target.clone()));
    if let Some(file) = &s.source {
        items.push(PickerItem::new("from", "").detail(file.display().to_string()));
    }
    items.push(PickerItem::new("log", "").detail(s.log.display().to_string()));
    for t in &s.skipped {
        items.push(PickerItem::new("skipped tool", "").detail(format!("{}: {}", t.tool, t.reason)));
    }
    Some(Picker::new(
        PickerKind::McpServer,
        &format!("mcp · {name} · {}", s.status.word()),
        items,
    ))
}

/// How long an open picker waits for servers still starting.
const SETTLE_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Answers `open_picker(Mcp)`: the servers now, and again once those
/// still starting have settled (if the picker is still open then).
pub fn open(
    ctrl: &zut_agent::Controller,
    rt: &tokio::runtime::Handle,
    tx: &mpsc::UnboundedSender<TuiEvent>,
) {
    let _ = tx.send(TuiEvent::Picker(servers(ctrl)));
    refresh_when_settled(ctrl, rt, tx);
}

/// While servers start, sends the servers picker again once they settled.
pub fn refresh_when_settled(
    ctrl: &zut_agent::Controller,
    rt: &tokio::runtime::Handle,
    tx: &mpsc::UnboundedSender<TuiEvent>,
) {
    if !ctrl.mcp_starting() {
        return;
    }
    let (ctrl, tx) = (ctrl.clone(), tx.clone());
    rt.spawn(async move {
        ctrl.mcp_settled(SETTLE_WAIT).await;
        let _ = tx.send(TuiEvent::PickerUpdate(servers(&ctrl)));
    });
}

/// A server picked in the servers picker: its actions.
pub fn pick(ctrl: &zut_agent::Controller, name: &str, tx: &mpsc::UnboundedSender<TuiEvent>) {
    match server(ctrl, name) {
        Some(p) => {
            let _ = tx.send(TuiEvent::Picker(p));
        }
        None => {
            let _ = tx.send(TuiEvent::CommandDone {
                label: "/mcp".into(),
                outcome: zut_tui::CommandOutcome::Error(format!("no MCP server named {name:?}")),
            });
        }
    }
}
