//! Group G: lifecycle events (host side: fan-out, payloads, ordering,
//! state privacy) and the session replay on `ready`.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::json;
use zut_protocol::{Event, SessionInfo};
use zut_test_support::TestEnv;

use crate::common::*;

fn subscriber(env: &TestEnv, name: &str, events: &[&str]) -> std::path::PathBuf {
    py_ext(
        &env.global_dir(name),
        name,
        &format!(
            "hello()\nsend({{'type': 'subscribe', 'events': {}}})\nsend({{'type': 'ready'}})\nserve()",
            json!(events)
        ),
    )
}

async fn wait_events(dir: &std::path::Path, n: usize) -> Vec<serde_json::Value> {
    eventually(Duration::from_secs(10), || {
        received_of(dir, "event").len() >= n
    })
    .await;
    received_of(dir, "event")
}

#[tokio::test]
async fn g1_g2_g4_g10_payloads_subscribers_only_in_order() {
    let env = TestEnv::new();
    let all = subscriber(
        &env,
        "all",
        &["turn_start", "tool_call", "turn_end", "assistant_message"],
    );
    let ends = subscriber(&env, "ends", &["turn_end"]);
    let none = subscriber(&env, "none", &[]);
    let run = Run::start(env, |_| {}).await;
    let emit = |e: Event| run.host.emit(&e);
    for step in 1..=2u64 {
        emit(Event {
            event: "turn_start".into(),
            step,
            ..Event::default()
        });
        emit(Event {
            event: "tool_call".into(),
            tool_id: format!("call{step}"),
            tool_name: "bash".into(),
            tool_args: Some(json!({"command": "ls"})),
            ..Event::default()
        });
        emit(Event {
            event: "turn_end".into(),
            stop: if step == 1 { "tool_use" } else { "end_turn" }.into(),
            ..Event::default()
        });
    }
    emit(Event {
        event: "assistant_message".into(),
        text: "ab".into(),
        ..Event::default()
    });
    let got = wait_events(&all, 7).await;
    let names: Vec<&str> = got.iter().map(|e| e["event"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "turn_start",
            "tool_call",
            "turn_end",
            "turn_start",
            "tool_call",
            "turn_end",
            "assistant_message"
        ]
    );
    assert_eq!(got[0]["step"], 1);
    assert_eq!(got[3]["step"], 2);
    assert_eq!(got[1]["tool_id"], "call1");
    assert_eq!(got[1]["tool_name"], "bash");
    assert_eq!(got[1]["tool_args"], json!({"command": "ls"}));
    assert_eq!(got[2]["stop"], "tool_use");
    assert_eq!(got[5]["stop"], "end_turn");
    assert_eq!(got[6]["text"], "ab");
    let got = wait_events(&ends, 2).await;
    assert_eq!(got.len(), 2);
    assert!(got.iter().all(|e| e["event"] == "turn_end"));
    run.stop().await;
    assert!(received_of(&none, "event").is_empty());
    assert_eq!(received_of(&ends, "event").len(), 2);
}

#[tokio::test]
async fn g6_g9_session_events_carry_only_own_state() {
    let env = TestEnv::new();
    let a = subscriber(&env, "a", &["session_start", "session_opened"]);
    let b = subscriber(&env, "b", &["session_opened"]);
    let run = Run::start(env, |_| {}).await;
    run.host.set_states(HashMap::from([
        ("a".to_string(), json!({"mine": "a"})),
        ("b".to_string(), json!({"mine": "b"})),
    ]));
    let session = SessionInfo {
        id: "sess".into(),
        ..SessionInfo::default()
    };
    run.host
        .emit_session_event("session_start", Some(session.clone()));
    run.host.emit_session_event("session_opened", Some(session));
    let got_a = wait_events(&a, 2).await;
    let got_b = wait_events(&b, 1).await;
    assert_eq!(got_a[0]["event"], "session_start");
    assert_eq!(got_a[1]["event"], "session_opened");
    assert_eq!(got_a[1]["session"], json!({"id": "sess"}));
    assert_eq!(got_a[1]["state"], json!({"mine": "a"}));
    assert_eq!(got_b.len(), 1);
    assert_eq!(got_b[0]["state"], json!({"mine": "b"}));
    run.stop().await;
    let text = std::fs::read_to_string(a.join("received.jsonl")).unwrap();
    assert!(!text.contains("\"b\""), "A never sees B's state");
}

#[tokio::test]
async fn details_update_state_and_replay_on_ready() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("stateful"),
        "stateful",
        "hello()\nsend({'type': 'register_tool', 'name': 'save'})\nsend({'type': 'ready'})\n\
         serve(lambda f: dict(text(f, 'saved'), details=f['args']['d']) if f['type'] == 'tool_call' else None)",
    );
    let late = subscriber(&env, "watcher", &["session_opened"]);
    let mut run = Run::start(env, |c| c.persist_state = true).await;
    run.host.emit_session_event(
        "session_opened",
        Some(SessionInfo {
            id: "s".into(),
            ..SessionInfo::default()
        }),
    );
    let out = run.host.call_tool("save", json!({"d": {"v": 1}})).await;
    assert_eq!(out.details, Some(json!({"v": 1})));
    assert_eq!(run.host.states().get("stateful"), Some(&json!({"v": 1})));
    // Over 256 KiB: the result is replaced, the state is not recorded.
    let big = "x".repeat(300 * 1024);
    let out = run.host.call_tool("save", json!({"d": {"big": big}})).await;
    assert!(out.is_error);
    assert_eq!(out.text(), "tool result state could not be persisted");
    assert_eq!(run.host.states().get("stateful"), Some(&json!({"v": 1})));
    // `null` clears it.
    run.host.call_tool("save", json!({"d": null})).await;
    assert!(!run.host.states().contains_key("stateful"));
    run.host
        .set_states(HashMap::from([("watcher".to_string(), json!(7))]));
    // A respawned subscriber gets the remembered event on `ready`.
    std::fs::remove_file(late.join("received.jsonl")).unwrap();
    run.host.reload().await;
    let got = wait_events(&late, 1).await;
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["event"], "session_opened");
    assert_eq!(got[0]["session"]["id"], "s");
    assert_eq!(got[0]["state"], json!(7));
    run.stop().await;
}

#[tokio::test]
async fn absent_tool_args_are_omitted_from_events_and_intercepts() {
    let env = TestEnv::new();
    let dir = py_ext(
        &env.global_dir("nullargs"),
        "nullargs",
        "hello()\nsend({'type': 'subscribe', 'events': ['tool_call'], 'intercept': ['tool_call']})\n\
         send({'type': 'ready'})\n\
         serve(lambda f: {'type': 'event_intercept_response', 'id': f['id']} if f['type'] == 'event_intercept' else None)",
    );
    let run = Run::start(env, |_| {}).await;
    run.host.emit(&Event {
        event: "tool_call".into(),
        tool_id: "c1".into(),
        tool_name: "read".into(),
        tool_args: Some(serde_json::Value::Null),
        ..Event::default()
    });
    let verdict = run
        .host
        .intercept_tool_call("c1", "read", &serde_json::Value::Null)
        .await;
    assert_eq!(
        verdict,
        zut_ext_host::ToolCallVerdict::Allow {
            args: serde_json::Value::Null,
            modified: false
        }
    );
    // With arguments, they are sent.
    run.host
        .intercept_tool_call("c2", "read", &json!({"path": "x"}))
        .await;
    let events = wait_events(&dir, 1).await;
    assert_eq!(events[0]["tool_id"], "c1");
    assert!(events[0].get("tool_args").is_none(), "{}", events[0]);
    let intercepts = received_of(&dir, "event_intercept");
    assert_eq!(intercepts.len(), 2);
    assert!(
        intercepts[0].get("tool_args").is_none(),
        "no `tool_args: null`: {}",
        intercepts[0]
    );
    assert_eq!(intercepts[1]["tool_args"], json!({"path": "x"}));
    let raw = std::fs::read_to_string(dir.join("received.jsonl")).unwrap();
    assert!(!raw.contains(":null"), "{raw}");
    run.stop().await;
}

/// The 256 KiB cap on `details` is measured on the bytes the extension
/// wrote, not on a re-serialisation (protocol §8.5).
#[tokio::test]
async fn details_cap_is_measured_on_the_raw_bytes() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("rawstate"),
        "rawstate",
        "hello()\nsend({'type': 'register_tool', 'name': 'save'})\nsend({'type': 'ready'})\n\
         def on(f):\n    if f['type'] != 'tool_call':\n        return None\n\
         \x20   if f['args']['kind'] == 'padded':\n\
         \x20       # 3,000 small numbers padded with spaces: ~300 KiB as written, ~6 KiB compact.\n\
         \x20       details = '[' + (',' + ' ' * 100).join(['1'] * 3000) + ']'\n\
         \x20   else:\n\
         \x20       # 60,000 × `1e2`: ~240 KiB as written, ~360 KiB re-serialised as 100.0.\n\
         \x20       details = '[' + ','.join(['1e2'] * 60000) + ']'\n\
         \x20   raw('{\"type\":\"tool_result\",\"id\":' + json.dumps(f['id']) + ',\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"details\":' + details + '}\\n')\n\
         serve(on)",
    );
    let run = Run::start(env, |c| c.persist_state = true).await;
    let out = run.host.call_tool("save", json!({"kind": "padded"})).await;
    assert!(out.is_error, "{out:?}");
    assert_eq!(out.text(), "tool result state could not be persisted");
    assert!(!run.host.states().contains_key("rawstate"));
    let r = run.report_of("rawstate");
    assert!(
        has_diag(&r, "over the 262144-byte limit"),
        "{:?}",
        r.diagnostics
    );
    assert!(run
        .env
        .log("rawstate")
        .contains("tool result state could not be persisted"));

    let out = run.host.call_tool("save", json!({"kind": "short"})).await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(out.text(), "ok");
    let state = run.host.states().get("rawstate").cloned().unwrap();
    assert_eq!(state.as_array().map(Vec::len), Some(60_000));
    run.stop().await;
}

/// An extension that gets a session event live before its `ready` (it
/// missed the ready deadline) is not sent the same event again as the
/// replay on `ready`; a later event still reaches it.
#[tokio::test]
async fn a_session_event_got_live_is_not_replayed_on_ready() {
    let env = TestEnv::new();
    let late = py_ext(
        &env.global_dir("late"),
        "late",
        "hello()\nsend({'type': 'subscribe', 'events': ['session_start', 'session_opened']})\n\
         for f in frames():\n    if f['type'] == 'event':\n        break\n\
         send({'type': 'ready'})\nserve()",
    );
    let run = Run::start(env, |c| c.timeouts.ready = Duration::from_millis(100)).await;
    let session = SessionInfo {
        id: "s".into(),
        ..SessionInfo::default()
    };
    run.host
        .emit_session_event("session_start", Some(session.clone()));
    // `ready` follows the event; give its replay the chance to happen.
    eventually(Duration::from_secs(10), || {
        std::fs::read_to_string(late.join("received.jsonl"))
            .map(|t| t.contains("session_start"))
            .unwrap_or(false)
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    run.host.emit_session_event("session_opened", Some(session));
    let got = wait_events(&late, 2).await;
    let names: Vec<&str> = got.iter().map(|e| e["event"].as_str().unwrap()).collect();
    assert_eq!(names, ["session_start", "session_opened"]);
    run.stop().await;
}
