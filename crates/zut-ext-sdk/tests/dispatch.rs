//! Dispatch of host requests and events to handlers (conformance O6,
//! O7, O9, O10): events, interceptors, concurrency, panels, panics.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use common::Host;
use serde_json::json;
use zut_ext_sdk::{
    panel, AssistantMessageDecision, Event, Extension, PanelKey, Response, ToolCallDecision,
    ToolResult, TurnStartDecision,
};
use zut_protocol::{CommandInvoked, EventIntercept, HostFrame, PanelClose, SessionInfo, ToolCall};

fn command(id: &str, name: &str) -> HostFrame {
    HostFrame::CommandInvoked(CommandInvoked {
        id: id.into(),
        name: name.into(),
        args: String::new(),
    })
}

fn tool_call(id: &str, name: &str) -> HostFrame {
    HostFrame::ToolCall(ToolCall {
        id: id.into(),
        name: name.into(),
        args: json!({}),
    })
}

fn intercept(id: &str, event: &str) -> EventIntercept {
    EventIntercept {
        id: id.into(),
        event: event.into(),
        ..EventIntercept::default()
    }
}

#[test]
fn o6_event_handlers_receive_payloads_unchanged() {
    let (tx, rx) = mpsc::channel::<Event>();
    let mut ext = Extension::new("session-ext", "1");
    let opened = tx.clone();
    ext.on_event("session_opened", move |e| opened.send(e.clone()).unwrap());
    ext.on_event("tool_confirmation_requested", move |e| {
        tx.send(e.clone()).unwrap()
    });
    let mut host = Host::start(ext);
    host.handshake();

    let session = Event {
        session: Some(SessionInfo {
            id: "branch-1".into(),
            parent_id: "root-1".into(),
            path: "/tmp/session.jsonl".into(),
            cwd: "/tmp/project".into(),
            fork_point: 4,
        }),
        state: Some(json!({"version":1})),
        ..Event::named("session_opened")
    };
    let confirm = Event {
        tool_id: "call-1".into(),
        tool_name: "bash".into(),
        tool_preview: "go test ./...".into(),
        ..Event::named("tool_confirmation_requested")
    };
    // An event nobody subscribed to is ignored.
    host.send(&HostFrame::Event(Event::named("turn_end")));
    host.send(&HostFrame::Event(session.clone()));
    host.send(&HostFrame::Event(confirm.clone()));
    assert_eq!(rx.recv().unwrap(), session);
    assert_eq!(rx.recv().unwrap(), confirm);
    host.shutdown();
}

#[test]
fn on_all_events_receives_events_without_their_own_handler() {
    let (tx, rx) = mpsc::channel::<String>();
    let mut ext = Extension::new("all", "1");
    let own = tx.clone();
    ext.on_event("turn_end", move |_| own.send("own".into()).unwrap());
    ext.on_all_events(move |e| tx.send(format!("all:{}", e.event)).unwrap());
    let mut host = Host::start(ext);
    host.handshake();
    host.send(&HostFrame::Event(Event::named("turn_start")));
    host.send(&HostFrame::Event(Event::named("turn_end")));
    assert_eq!(rx.recv().unwrap(), "all:turn_start");
    assert_eq!(rx.recv().unwrap(), "own");
    host.shutdown();
}

#[test]
fn a_panicking_event_handler_is_logged_and_the_reader_continues() {
    let mut ext = Extension::new("fragile", "1");
    ext.on_event("turn_start", |_| panic!("boom"));
    ext.command("ping", "", |_, _| Response::display("pong"));
    let mut host = Host::start(ext);
    host.handshake();
    host.send(&HostFrame::Event(Event::named("turn_start")));
    host.send(&command("c1", "ping"));
    assert_eq!(host.next().json["display"], "pong");
    host.shutdown();
}

#[test]
fn o7_turn_start_context_is_returned_with_the_same_id() {
    let (steps_tx, steps) = mpsc::channel();
    let mut ext = Extension::new("context-ext", "1");
    ext.intercept_turn_start(move |step| {
        steps_tx.send(step).unwrap();
        TurnStartDecision::with_context("current phase: parse")
    });
    let mut host = Host::start(ext);
    host.handshake();
    host.send(&HostFrame::EventIntercept(EventIntercept {
        step: 2,
        ..intercept("intercept-1", "turn_start")
    }));
    assert_eq!(
        host.next().json,
        json!({"type":"event_intercept_response","id":"intercept-1","context":"current phase: parse"})
    );
    assert_eq!(steps.recv().unwrap(), 2);
    host.shutdown();
}

#[test]
fn blocking_decisions_drop_context_rewrites_and_replacements() {
    let mut ext = Extension::new("blocker", "1");
    ext.intercept_turn_start(|_| TurnStartDecision {
        block: true,
        reason: "outside business hours".into(),
        context: "ignored".into(),
    });
    ext.intercept_tool_call_x(|_, _| ToolCallDecision {
        block: true,
        reason: "no".into(),
        modified_args: Some(json!({"ignored":true})),
    });
    ext.intercept_assistant_message(|_| AssistantMessageDecision {
        block: true,
        reason: "hidden".into(),
        replace_text: "ignored".into(),
    });
    let mut host = Host::start(ext);
    host.handshake();
    host.send(&HostFrame::EventIntercept(intercept("1", "turn_start")));
    assert_eq!(
        host.next().json,
        json!({"type":"event_intercept_response","id":"1","block":true,"reason":"outside business hours"})
    );
    host.send(&HostFrame::EventIntercept(intercept("2", "tool_call")));
    assert_eq!(
        host.next().json,
        json!({"type":"event_intercept_response","id":"2","block":true,"reason":"no"})
    );
    host.send(&HostFrame::EventIntercept(intercept(
        "3",
        "assistant_message",
    )));
    assert_eq!(
        host.next().json,
        json!({"type":"event_intercept_response","id":"3","block":true,"reason":"hidden"})
    );
    host.shutdown();
}

#[test]
fn tool_call_interceptors_block_or_rewrite() {
    let mut ext = Extension::new("guard", "1");
    ext.intercept_tool_call(|tool, args| {
        let command = args["command"].as_str().unwrap_or_default();
        if tool == "bash" && command.contains("rm -rf") {
            (false, "refused: matches danger pattern \"rm -rf\"".into())
        } else {
            (true, String::new())
        }
    });
    let mut host = Host::start(ext);
    host.handshake();
    host.send(&HostFrame::EventIntercept(EventIntercept {
        tool_id: "t1".into(),
        tool_name: "bash".into(),
        tool_args: Some(json!({"command":"rm -rf /tmp/foo","timeout":30})),
        ..intercept("i1", "tool_call")
    }));
    assert_eq!(
        host.next().json,
        json!({"type":"event_intercept_response","id":"i1","block":true,
               "reason":"refused: matches danger pattern \"rm -rf\""})
    );
    host.send(&HostFrame::EventIntercept(EventIntercept {
        tool_name: "bash".into(),
        tool_args: Some(json!({"command":"ls","timeout":30})),
        ..intercept("i2", "tool_call")
    }));
    assert_eq!(
        host.next().json,
        json!({"type":"event_intercept_response","id":"i2"})
    );
    host.shutdown();

    let mut ext = Extension::new("rewriter", "1");
    ext.intercept_tool_call_x(|_, args| {
        let mut args = args.clone();
        args["command"] = json!("echo GUARDED: ls");
        ToolCallDecision::rewrite(args)
    });
    let mut host = Host::start(ext);
    host.handshake();
    host.send(&HostFrame::EventIntercept(EventIntercept {
        tool_name: "bash".into(),
        tool_args: Some(json!({"command":"ls","timeout":30})),
        ..intercept("i3", "tool_call")
    }));
    assert_eq!(
        host.next().json,
        json!({"type":"event_intercept_response","id":"i3",
               "modified_args":{"command":"echo GUARDED: ls","timeout":30}})
    );
    host.shutdown();
}

#[test]
fn assistant_message_replacement_is_sent_only_when_it_changes_the_text() {
    let mut ext = Extension::new("scrubber", "1");
    ext.intercept_assistant_message(|text| {
        AssistantMessageDecision::replace(text.replace("SECRET", "[redacted]"))
    });
    let mut host = Host::start(ext);
    host.handshake();
    host.send(&HostFrame::EventIntercept(EventIntercept {
        text: "key: SECRET".into(),
        ..intercept("a1", "assistant_message")
    }));
    assert_eq!(
        host.next().json,
        json!({"type":"event_intercept_response","id":"a1","replace_text":"key: [redacted]"})
    );
    host.send(&HostFrame::EventIntercept(EventIntercept {
        text: "harmless".into(),
        ..intercept("a2", "assistant_message")
    }));
    assert_eq!(
        host.next().json,
        json!({"type":"event_intercept_response","id":"a2"})
    );
    host.shutdown();
}

#[test]
fn missing_interceptors_allow() {
    let mut host = Host::start(Extension::new("none", "1"));
    host.handshake();
    for (id, event) in [
        ("1", "tool_call"),
        ("2", "turn_start"),
        ("3", "assistant_message"),
        ("4", "future_event"),
    ] {
        host.send(&HostFrame::EventIntercept(intercept(id, event)));
        assert_eq!(
            host.next().json,
            json!({"type":"event_intercept_response","id":id})
        );
    }
    host.shutdown();
}

#[test]
fn o10_unknown_and_panicking_handlers_answer_with_errors() {
    let mut ext = Extension::new("panicky", "1");
    ext.command("explode", "", |_, _| panic!("command went wrong"));
    ext.tool("explode", "", json!({"type":"object"}), |_, _| {
        panic!("{}", String::from("tool went wrong"))
    });
    ext.intercept_turn_start(|_| panic!("guard went wrong"));
    let mut host = Host::start(ext);
    host.handshake();

    host.send(&command("c1", "nope"));
    assert_eq!(
        host.next().json,
        json!({"type":"command_response","id":"c1","action":"noop","error":"no handler for /nope"})
    );
    host.send(&command("c2", "explode"));
    assert_eq!(
        host.next().json,
        json!({"type":"command_response","id":"c2","action":"noop","error":"panic: command went wrong"})
    );
    host.send(&tool_call("t1", "nope"));
    assert_eq!(
        host.next().json,
        json!({"type":"tool_result","id":"t1","content":[{"type":"text","text":"no handler for tool \"nope\""}],"is_error":true})
    );
    host.send(&tool_call("t2", "explode"));
    assert_eq!(
        host.next().json,
        json!({"type":"tool_result","id":"t2","content":[{"type":"text","text":"panic: tool went wrong"}],"is_error":true})
    );
    host.send(&HostFrame::EventIntercept(intercept("i1", "turn_start")));
    assert_eq!(
        host.next().json,
        json!({"type":"event_intercept_response","id":"i1","block":true,"reason":"intercept panic: guard went wrong"})
    );
    host.shutdown();
}

#[test]
fn handlers_get_args_and_context() {
    let mut ext = Extension::new("ctx", "1");
    ext.command("echo", "", |args, ctx| {
        Response::display(format!("{args}|{}|{}", ctx.request_id(), ctx.host().cwd))
    });
    ext.tool("echo", "", json!({"type":"object"}), |args, ctx| {
        ctx.handle().set_status("calls", "1").unwrap();
        ToolResult::text(format!("{}|{}", args["x"], ctx.request_id()))
    });
    let mut host = Host::start(ext);
    host.handshake();
    host.send(&HostFrame::CommandInvoked(CommandInvoked {
        id: "c9".into(),
        name: "echo".into(),
        args: "a  b".into(),
    }));
    assert_eq!(host.next().json["display"], "a  b|c9|/tmp/project");
    host.send(&HostFrame::ToolCall(ToolCall {
        id: "t9".into(),
        name: "echo".into(),
        args: json!({"x":5}),
    }));
    assert_eq!(host.next().json["type"], "status");
    assert_eq!(host.next().json["content"][0]["text"], "5|t9");
    host.shutdown();
}

/// O9: a tool handler opens a panel and blocks until a key decides.
fn gate_extension(decisions: &Arc<Mutex<Vec<String>>>) -> Extension {
    let mut ext = Extension::new("gate-ext", "1");
    let log = Arc::clone(decisions);
    ext.command("ping", "", |_, _| Response::display("pong"));
    ext.tool(
        "gate",
        "needs approval",
        json!({"type":"object"}),
        move |_, ctx| {
            let handle = ctx.handle().clone();
            let (tx, rx) = mpsc::channel::<bool>();
            let keys = tx.clone();
            let closer = handle.clone();
            handle.on_panel_key("gate-panel", move |key: &PanelKey| {
                let answer = match (key.key.as_str(), key.text.as_str()) {
                    ("rune", "y") => Some(true),
                    ("rune", "n") => Some(false),
                    _ => None,
                };
                if let Some(answer) = answer {
                    let _ = closer.close_panel("gate-panel");
                    let _ = keys.send(answer);
                }
            });
            handle.on_panel_close("gate-panel", move || {
                let _ = tx.send(false);
            });
            handle
                .open_panel(panel(
                    "gate-panel",
                    "Approve?",
                    ["  y  approve", "  n  deny"],
                    "y/n",
                ))
                .unwrap();
            let approved = rx.recv().unwrap_or(false);
            log.lock().unwrap().push(format!("{approved}"));
            if approved {
                ToolResult::text("approved")
            } else {
                ToolResult::error("denied")
            }
        },
    );
    ext
}

fn panel_key(text: &str) -> HostFrame {
    HostFrame::PanelKey(PanelKey {
        panel_id: "gate-panel".into(),
        key: "rune".into(),
        text: text.into(),
    })
}

#[test]
fn o9_blocking_tool_waits_for_panel_key_while_reader_keeps_going() {
    let decisions = Arc::new(Mutex::new(Vec::new()));
    let mut host = Host::start(gate_extension(&decisions));
    host.handshake();

    host.send(&tool_call("tc-001", "gate"));
    assert_eq!(host.next().json["type"], "open_panel");
    // The tool handler is blocked; the reader still answers a command and
    // ignores an irrelevant key.
    host.send(&command("c1", "ping"));
    assert_eq!(
        host.next().json,
        json!({"type":"command_response","id":"c1","action":"display","display":"pong"})
    );
    host.send(&HostFrame::PanelKey(PanelKey {
        panel_id: "gate-panel".into(),
        key: "down".into(),
        text: String::new(),
    }));
    host.send(&panel_key("y"));
    assert_eq!(
        host.next().json,
        json!({"type":"panel_close","panel_id":"gate-panel"})
    );
    assert_eq!(
        host.next().json,
        json!({"type":"tool_result","id":"tc-001","content":[{"type":"text","text":"approved"}]})
    );

    host.send(&tool_call("tc-002", "gate"));
    assert_eq!(host.next().json["type"], "open_panel");
    host.send(&panel_key("n"));
    assert_eq!(host.next().json["type"], "panel_close");
    assert_eq!(
        host.next().json,
        json!({"type":"tool_result","id":"tc-002","content":[{"type":"text","text":"denied"}],"is_error":true})
    );

    host.send(&tool_call("tc-003", "gate"));
    assert_eq!(host.next().json["type"], "open_panel");
    host.send(&HostFrame::PanelClose(PanelClose {
        panel_id: "gate-panel".into(),
    }));
    assert_eq!(host.next().json["is_error"], true);

    assert_eq!(*decisions.lock().unwrap(), ["true", "false", "false"]);
    host.shutdown();
}

#[test]
fn panel_keys_of_one_panel_are_delivered_in_order() {
    let ext = Extension::new("keys", "1");
    let handle = ext.handle();
    let (tx, rx) = mpsc::channel::<String>();
    let tx = Mutex::new(tx);
    handle.on_panel_key("p", move |key| {
        tx.lock().unwrap().send(key.text.clone()).unwrap();
    });
    let mut host = Host::start(ext);
    host.handshake();
    let keys: Vec<String> = (0..50).map(|i| i.to_string()).collect();
    for text in &keys {
        host.send(&HostFrame::PanelKey(PanelKey {
            panel_id: "p".into(),
            key: "rune".into(),
            text: text.clone(),
        }));
    }
    let got: Vec<String> = (0..50).map(|_| rx.recv().unwrap()).collect();
    assert_eq!(got, keys);
    host.shutdown();
}

#[test]
fn concurrent_requests_are_answered_out_of_order() {
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let release_rx = Mutex::new(release_rx);
    let mut ext = Extension::new("slow", "1");
    ext.tool("slow", "", json!({"type":"object"}), move |_, _| {
        release_rx.lock().unwrap().recv().unwrap();
        ToolResult::text("slow done")
    });
    ext.tool("fast", "", json!({"type":"object"}), |_, _| {
        ToolResult::text("fast done")
    });
    let mut host = Host::start(ext);
    host.handshake();
    host.send(&tool_call("1", "slow"));
    host.send(&tool_call("2", "fast"));
    assert_eq!(host.next().json["id"], "2");
    release_tx.send(()).unwrap();
    assert_eq!(host.next().json["id"], "1");
    host.shutdown();
}

#[test]
fn handler_threads_are_reused_and_a_blocked_one_delays_nobody() {
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let release_rx = Mutex::new(release_rx);
    let mut ext = Extension::new("pool", "1");
    ext.tool("slow", "", json!({"type":"object"}), move |_, _| {
        release_rx.lock().unwrap().recv().unwrap();
        ToolResult::text("slow done")
    });
    ext.tool("who", "", json!({"type":"object"}), |_, _| {
        ToolResult::text(format!("{:?}", std::thread::current().id()))
    });
    let mut host = Host::start(ext);
    host.handshake();
    // Sequential requests reuse pooled threads (the reading role and the
    // handlers alternate between two of them).
    let mut threads = std::collections::HashSet::new();
    for i in 0..20 {
        host.send(&tool_call(&format!("w{i}"), "who"));
        let reply = host.next().json;
        assert_eq!(reply["id"], format!("w{i}"));
        threads.insert(reply["content"][0]["text"].as_str().unwrap().to_string());
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(threads.len() <= 3, "{} threads for 20 calls", threads.len());
    // A handler that blocks holds its worker; everything else is answered.
    host.send(&tool_call("s", "slow"));
    for i in 0..50 {
        host.send(&tool_call(&format!("q{i}"), "who"));
    }
    let mut answered: Vec<String> = (0..50)
        .map(|_| host.next().json["id"].as_str().unwrap().to_string())
        .collect();
    answered.sort();
    let mut want: Vec<String> = (0..50).map(|i| format!("q{i}")).collect();
    want.sort();
    assert_eq!(answered, want);
    release_tx.send(()).unwrap();
    let slow = host.next().json;
    assert_eq!(slow["id"], "s");
    assert_eq!(slow["content"][0]["text"], "slow done");
    host.shutdown();
}
