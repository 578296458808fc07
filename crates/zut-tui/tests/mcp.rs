//! `/mcp` in the TUI: the command asks the conversation for the servers
//! picker; Enter on a server asks for its actions; Enter on an action runs
//! `/mcp <action> <server>` through the conversation. The rows are built
//! by the conversation side (zut-tui-app `mcp`); here, rows of that shape.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Instant;

use common::{app, live};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use zut_tui::app::{App, Effect};
use zut_tui::pickers::{Picker, PickerItem, PickerKind};

fn key(a: &mut App, code: KeyCode) -> Vec<Effect> {
    a.key(&KeyEvent::new(code, KeyModifiers::NONE), Instant::now())
}

fn typ(a: &mut App, text: &str) {
    for c in text.chars() {
        key(a, KeyCode::Char(c));
    }
}

#[test]
fn mcp_lists_servers_then_one_servers_actions() {
    let mut a = app(96, 16);
    typ(&mut a, "/mcp");
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        vec![Effect::OpenPicker(PickerKind::Mcp)]
    );
    // With arguments it is the conversation's command.
    typ(&mut a, "/mcp reconnect fs");
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        vec![Effect::Command {
            name: "mcp".into(),
            args: "reconnect fs".into()
        }]
    );
    a.picker = Some(Picker::new(
        PickerKind::Mcp,
        "mcp servers · 1 of 3 ready",
        vec![
            PickerItem::new("fs", "fs").detail("ready · 12 tools, 1 resources · stdio · user"),
            PickerItem::new("remote", "remote")
                .detail("failed: HTTP 404 Not Found from http://127.0.0.1:9/mcp · http · project"),
            PickerItem::new("slow", "slow").detail("starting… · stdio · project"),
            PickerItem::new("tools", "").detail(
                "12 offered (≈2100 tokens) · tool search auto: deferred past 10% of the 200k-token context (all loaded)",
            ),
        ],
    ));
    let servers = live(&mut a);
    key(&mut a, KeyCode::Down);
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        vec![Effect::Pick {
            kind: PickerKind::Mcp,
            value: "remote".into()
        }]
    );
    a.picker = Some(Picker::new(
        PickerKind::McpServer,
        "mcp · remote · failed",
        vec![
            PickerItem::new("reconnect", "reconnect remote")
                .detail("drop the connection and connect again"),
            PickerItem::new("disable", "disable remote")
                .detail("stop it for this run; its tools leave"),
            PickerItem::new("state", "")
                .detail("failed: HTTP 404 Not Found from http://127.0.0.1:9/mcp"),
            PickerItem::new("log", "").detail("~/.zut/logs/mcp-remote.log"),
        ],
    ));
    let actions = live(&mut a);
    insta::assert_snapshot!(format!("{servers}\n=== enter on remote ===\n{actions}"));
    key(&mut a, KeyCode::Down);
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        vec![Effect::Command {
            name: "mcp".into(),
            args: "disable remote".into()
        }]
    );
    assert!(a.picker.is_none());
}

#[test]
fn an_update_replaces_only_an_open_picker_of_its_kind() {
    let servers = |state: &str| {
        Picker::new(
            PickerKind::Mcp,
            "mcp servers",
            vec![
                PickerItem::new("a", "a").detail("ready · 1 tool"),
                PickerItem::new("b", "b").detail(state.to_string()),
            ],
        )
    };
    let mut a = app(80, 12);
    // Closed: dropped.
    zut_tui::pickers::update(&mut a, servers("ready · 2 tools"));
    assert!(a.picker.is_none());
    a.picker = Some(servers("starting…"));
    key(&mut a, KeyCode::Down);
    zut_tui::pickers::update(&mut a, servers("ready · 2 tools"));
    let p = a.picker.as_ref().unwrap();
    assert_eq!(p.items[1].detail, "ready · 2 tools");
    assert_eq!(p.selected_item().unwrap().value, "b", "the selection stays");
    // Another picker is open: left alone.
    a.picker = Some(Picker::new(PickerKind::Skills, "skills", Vec::new()));
    zut_tui::pickers::update(&mut a, servers("failed: x"));
    assert_eq!(a.picker.as_ref().unwrap().kind, PickerKind::Skills);
}

/// A URL-mode dialog the server says is finished elsewhere
/// (`notifications/elicitation/complete`, `McpElicitationComplete`)
/// closes with a note saying so, and the close that follows adds no
/// "stopped waiting" note; a completion after the user answered only
/// notes it.
#[test]
fn a_finished_url_flow_closes_its_dialog_with_a_note() {
    use zut_types::AgentEvent;
    let mut a = app(96, 20);
    a.agent(&AgentEvent::McpElicitation {
        request_id: 4,
        server: "pay".into(),
        message: "Pay on your phone".into(),
        schema: serde_json::json!({"type": "object", "properties": {}}),
        order: Vec::new(),
        url: Some("https://pay.example.com/phone".into()),
    });
    assert_eq!(a.elicits.queue.len(), 1);
    assert!(live(&mut a).contains("pay.example.com"));
    a.agent(&AgentEvent::McpElicitationComplete {
        request_id: 4,
        server: "pay".into(),
    });
    a.agent(&AgentEvent::McpElicitationClosed { request_id: 4 });
    assert!(a.elicits.queue.is_empty());
    let notes: Vec<&str> = a.notes.iter().map(|n| n.text.as_str()).collect();
    assert_eq!(notes, vec!["pay: the page's flow finished"]);
    let screen = live(&mut a);
    assert!(!screen.contains("Pay on your phone"), "{screen}");
    assert!(screen.contains("pay: the page's flow finished"), "{screen}");

    // After an answer: a note only.
    a.agent(&AgentEvent::McpElicitationComplete {
        request_id: 9,
        server: "pay".into(),
    });
    assert_eq!(a.notes.len(), 2);
}
