//! The leader/follower runtime under concurrency: blocking handlers,
//! many interleaved requests and events, event order, shutdown while a
//! handler blocks, panics among concurrent requests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashSet;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::Host;
use serde_json::json;
use zut_ext_sdk::{Event, Extension, ToolResult};
use zut_protocol::{EventIntercept, HostFrame, ToolCall};

const WAIT: Duration = Duration::from_secs(20);

fn tool_call(id: &str, name: &str, n: u64) -> HostFrame {
    HostFrame::ToolCall(ToolCall {
        id: id.into(),
        name: name.into(),
        args: json!({ "n": n }),
    })
}

/// An event carrying a sequence number (in `tool_id`).
fn numbered_event(n: usize) -> HostFrame {
    HostFrame::Event(Event {
        tool_id: n.to_string(),
        ..Event::named("turn_end")
    })
}

fn tool_intercept(id: &str) -> HostFrame {
    HostFrame::EventIntercept(EventIntercept {
        id: id.into(),
        event: "tool_call".into(),
        tool_name: "bash".into(),
        tool_args: Some(json!({"command": "ls"})),
        ..EventIntercept::default()
    })
}

/// A tool that blocks until released through the returned sender.
fn blocking_tool(ext: &mut Extension, name: &str) -> mpsc::Sender<()> {
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let release_rx = Mutex::new(release_rx);
    ext.tool(name, "", json!({"type":"object"}), move |_, _| {
        let _ = release_rx.lock().unwrap().recv();
        ToolResult::text("released")
    });
    release_tx
}

#[test]
fn a_blocking_tool_delays_neither_another_call_nor_an_event() {
    let (events_tx, events) = mpsc::channel::<String>();
    let mut ext = Extension::new("blocking", "1");
    let release = blocking_tool(&mut ext, "block");
    ext.tool("quick", "", json!({"type":"object"}), |_, _| {
        ToolResult::text("quick")
    });
    ext.on_event("turn_end", move |e| {
        events_tx.send(e.tool_id.clone()).unwrap()
    });
    let mut host = Host::start(ext);
    host.handshake();

    // Twice: once with the blocked handler on the thread that led first,
    // once with two handlers blocked at the same time.
    host.send(&tool_call("b1", "block", 0));
    host.send(&tool_call("q1", "quick", 0));
    assert_eq!(host.next().json["id"], "q1");
    host.send(&numbered_event(1));
    assert_eq!(events.recv_timeout(WAIT).unwrap(), "1");
    host.send(&tool_call("b2", "block", 0));
    host.send(&numbered_event(2));
    host.send(&tool_call("q2", "quick", 0));
    assert_eq!(events.recv_timeout(WAIT).unwrap(), "2");
    assert_eq!(host.next().json["id"], "q2");

    release.send(()).unwrap();
    release.send(()).unwrap();
    let mut released: Vec<String> = (0..2)
        .map(|_| host.next().json["id"].as_str().unwrap().to_string())
        .collect();
    released.sort();
    assert_eq!(released, ["b1", "b2"]);
    host.shutdown();
}

#[test]
fn a_thousand_interleaved_requests_and_events_are_each_handled_once_in_order() {
    const N: usize = 1000;
    let seen_events = Arc::new(Mutex::new(Vec::<usize>::new()));
    let tool_runs = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut ext = Extension::new("busy", "1");
    let runs = Arc::clone(&tool_runs);
    ext.tool("echo", "", json!({"type":"object"}), move |args, ctx| {
        let n = args["n"].as_u64().unwrap();
        // Vary handler length so that several run at once.
        if n.is_multiple_of(5) {
            std::thread::sleep(Duration::from_micros(200 * (n % 3)));
        }
        runs.lock().unwrap().push(ctx.request_id().to_string());
        ToolResult::text(n.to_string())
    });
    ext.intercept_tool_call(|_, _| (true, String::new()));
    let seen = Arc::clone(&seen_events);
    ext.on_event("turn_end", move |e| {
        seen.lock().unwrap().push(e.tool_id.parse().unwrap());
    });
    let mut host = Host::start(ext);
    host.handshake();

    // All at once: the reader buffer holds many frames when a leader
    // hands off, and handlers run on many threads at once.
    let mut batch = Vec::new();
    for i in 0..N {
        batch.extend(zut_protocol::encode_line(&tool_call(
            &format!("t{i}"),
            "echo",
            i as u64,
        )));
        batch.extend(zut_protocol::encode_line(&numbered_event(i)));
        if i.is_multiple_of(4) {
            batch.extend(zut_protocol::encode_line(&tool_intercept(&format!("i{i}"))));
        }
    }
    host.send_bytes(&batch);

    let intercepts = N.div_ceil(4);
    let mut tools = HashSet::new();
    let mut guards = HashSet::new();
    for _ in 0..N + intercepts {
        let line = host.next().json;
        let id = line["id"].as_str().unwrap().to_string();
        match line["type"].as_str().unwrap() {
            "tool_result" => {
                let n: usize = id[1..].parse().unwrap();
                assert_eq!(line["content"][0]["text"], n.to_string());
                assert!(tools.insert(id.clone()), "duplicate reply {id}");
            }
            "event_intercept_response" => {
                assert!(guards.insert(id.clone()), "duplicate reply {id}");
            }
            other => panic!("unexpected frame {other}: {line}"),
        }
    }
    assert_eq!(tools.len(), N);
    assert_eq!(guards.len(), intercepts);
    let runs = tool_runs.lock().unwrap().clone();
    assert_eq!(runs.len(), N, "every tool handler ran exactly once");
    assert_eq!(runs.iter().collect::<HashSet<_>>().len(), N);
    // Every event is handled once, in the order sent, even though tool
    // handlers ran between them on other threads.
    host.send(&HostFrame::Shutdown);
    let rest: Vec<_> = std::iter::from_fn(|| host.try_next()).collect();
    assert_eq!(common::types(&rest), ["shutdown_ack"], "nothing left over");
    host.finish().unwrap();
    assert_eq!(*seen_events.lock().unwrap(), (0..N).collect::<Vec<_>>());
}

#[test]
fn shutdown_returns_from_run_while_a_handler_is_blocked() {
    let mut ext = Extension::new("stuck", "1");
    let release = blocking_tool(&mut ext, "block");
    let mut host = Host::start(ext);
    host.handshake();
    host.send(&tool_call("b1", "block", 0));
    host.send(&tool_call("b2", "block", 0));
    // `shutdown` checks for `shutdown_ack`, then that `run` returned Ok,
    // with both handlers still blocked.
    host.shutdown();
    drop(release);
}

#[test]
fn end_of_input_while_a_handler_is_blocked_ends_run() {
    let mut ext = Extension::new("stuck", "1");
    let release = blocking_tool(&mut ext, "block");
    let mut host = Host::start(ext);
    host.handshake();
    host.send(&tool_call("b1", "block", 0));
    host.close_stdin();
    host.finish().unwrap();
    drop(release);
}

#[test]
fn panics_among_concurrent_requests_become_replies() {
    let mut ext = Extension::new("panicky", "1");
    ext.tool("maybe", "", json!({"type":"object"}), |args, _| {
        let n = args["n"].as_u64().unwrap();
        assert!(n.is_multiple_of(2), "odd {n}");
        ToolResult::text("even")
    });
    ext.intercept_tool_call(|_, _| panic!("guard down"));
    let mut host = Host::start(ext);
    host.handshake();
    for i in 0..40u64 {
        host.send(&tool_call(&format!("t{i}"), "maybe", i));
        host.send(&tool_intercept(&format!("i{i}")));
    }
    let mut ids = HashSet::new();
    for _ in 0..80 {
        let line = host.next().json;
        let id = line["id"].as_str().unwrap().to_string();
        if let Some(n) = id.strip_prefix('t') {
            let n: u64 = n.parse().unwrap();
            if n.is_multiple_of(2) {
                assert_eq!(line["content"][0]["text"], "even");
            } else {
                assert_eq!(line["is_error"], true);
                assert_eq!(line["content"][0]["text"], format!("panic: odd {n}"));
            }
        } else {
            assert_eq!(
                line,
                json!({"type":"event_intercept_response","id":id,"block":true,
                       "reason":"intercept panic: guard down"})
            );
        }
        assert!(ids.insert(id));
    }
    host.shutdown();
}
