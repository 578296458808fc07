//! Subagents seen by extensions (`subagent_start`, events tagged with
//! `subagent_id`, `subagent_end`) and the `config.json` ceiling
//! (`queue_timeout`, `allowed_tools`, `allowed_roots`), end to end
//! through `zut -p` against the scripted local LLM server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::subagents::*;
use common::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};

/// A Python extension that subscribes to `events` and appends every
/// event frame it gets to `log`, one JSON line each.
fn recorder(env: &TestEnv, log: &std::path::Path, events: &[&str]) {
    let dir = env.global_dir("recorder");
    zut_test_support::python_extension(
        &dir,
        "recorder",
        &format!(
            r#"import json, sys
LOG = {log:?}
EVENTS = {events}
def emit(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
emit({{"type": "hello", "protocol_version": 2, "name": "recorder", "version": "1.0.0"}})
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello_ack":
        emit({{"type": "subscribe", "events": EVENTS}})
        emit({{"type": "ready"}})
    elif msg["type"] == "event":
        with open(LOG, "a") as f:
            f.write(json.dumps(msg) + "\n")
    elif msg["type"] == "shutdown":
        emit({{"type": "shutdown_ack"}})
        break
"#,
            log = log.display().to_string(),
            events = serde_json::to_string(events).unwrap(),
        ),
    );
}

fn lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test]
async fn extensions_see_the_child_session_and_its_tagged_events() {
    let env = TestEnv::new();
    let log = env.home.join("ext-events.jsonl");
    recorder(
        &env,
        &log,
        &[
            "session_start",
            "turn_start",
            "tool_call",
            "turn_end",
            "subagent_start",
            "subagent_end",
        ],
    );
    std::fs::write(env.project.join("notes.txt"), "child reads this\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(parent(call(
        "c1",
        json!({"action": "spawn", "task": "EXT-CHILD look at notes", "wait": 60}),
    )));
    server.push(parent(Script::anthropic_text("parent done")));
    server.push(child(
        "EXT-CHILD",
        Script::anthropic_tool_call("r1", "read", json!({"path": "notes.txt"}).to_string()),
    ));
    server.push(child("EXT-CHILD", Script::anthropic_text("child says hi")));
    let r = run_p(
        &env,
        &server,
        &[],
        &["--tools", "read,subagent", "-p", "go"],
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("parent done"), "{r:?}");

    let events = lines(&log);
    let names = |tagged: bool| -> Vec<String> {
        events
            .iter()
            .filter(|e| e.get("subagent_id").is_some() == tagged)
            .map(|e| e["event"].as_str().unwrap().to_string())
            .collect()
    };
    // The parent's own events: one session_start, untagged.
    assert_eq!(
        names(false),
        [
            "session_start",
            "turn_start",
            "tool_call",
            "turn_end",
            "turn_start",
            "turn_end"
        ],
        "{events:#?}"
    );
    // The child's: bracketed by subagent_start and subagent_end.
    assert_eq!(
        names(true),
        [
            "subagent_start",
            "turn_start",
            "tool_call",
            "turn_end",
            "turn_start",
            "turn_end",
            "subagent_end"
        ],
        "{events:#?}"
    );
    let tagged: Vec<&Value> = events
        .iter()
        .filter(|e| e.get("subagent_id").is_some())
        .collect();
    let id = tagged[0]["subagent_id"].as_str().unwrap();
    assert!(id.starts_with("sa-1-"), "{id}");
    assert!(tagged.iter().all(|e| e["subagent_id"] == id));
    assert_eq!(tagged[2]["tool_name"], "read");

    // The child's session, its parent the parent's session.
    let dirs = child_dirs(&env);
    assert_eq!(dirs.len(), 1);
    let transcript = dirs[0].join("transcript.jsonl");
    let child_meta = &rows(&transcript)[0]["meta"];
    let parent_meta = &rows(&parent_session(&env))[0]["meta"];
    let start = tagged[0];
    assert_eq!(
        start["session"],
        json!({
            "id": child_meta["id"],
            "parent_id": parent_meta["id"],
            "path": transcript.display().to_string(),
            "cwd": env.project.display().to_string(),
        }),
        "{start}"
    );
    assert_eq!(start["text"], "EXT-CHILD look at notes");
    let end = tagged.last().unwrap();
    assert_eq!(end["stop"], "completed", "{end}");
    assert_eq!(end["text"], "child says hi");
    assert_eq!(end["session"], start["session"]);
    // session_start stays the parent's.
    assert_eq!(events[0]["session"]["id"], parent_meta["id"]);
}

#[tokio::test]
async fn queue_timeout_fails_a_turn_that_waits_too_long_for_a_slot() {
    let env = TestEnv::new();
    std::fs::write(
        env.home.join("config.json"),
        r#"{"subagents": {"max_concurrent": 1, "queue_timeout": "1s"}}"#,
    )
    .unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(parent(call(
        "c1",
        json!({"action": "spawn", "task": "QT-A slow"}),
    )));
    server.push(parent(call(
        "c2",
        json!({"action": "spawn", "task": "QT-B waits"}),
    )));
    server.push(parent(call("c3", json!({"action": "wait", "wait": 60}))));
    server.push(parent(Script::anthropic_text("queue seen")));
    server.push(child(
        "QT-A",
        Script::anthropic_text("a done").delay_ms(3000),
    ));
    server.push(child("QT-B", Script::anthropic_text("b never")));
    let r = run_p(
        &env,
        &server,
        &[],
        &["--tools", "read,subagent", "-p", "go"],
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    let results = tool_results(&server);
    let waited: Value = serde_json::from_str(&results[2]).unwrap();
    let agents = waited["agents"].as_array().unwrap();
    assert_eq!(agents[0]["state"], "completed", "{waited}");
    assert_eq!(agents[1]["state"], "failed", "{waited}");
    let e = agents[1]["error"].as_str().unwrap_or_default();
    assert!(e.contains("queue timeout after 1s"), "{waited}");
    // The failed turn made no model call.
    assert!(!server
        .requests()
        .iter()
        .any(|q| q.raw_body.contains("QT-B") && !q.raw_body.contains(PARENT)));
}

#[tokio::test]
async fn allowed_tools_is_a_ceiling_for_every_child() {
    let env = TestEnv::new();
    std::fs::write(
        env.home.join("config.json"),
        r#"{"subagents": {"allowed_tools": ["read", "grep"]}}"#,
    )
    .unwrap();
    let profiles = env.project.join(".agents/agents");
    std::fs::create_dir_all(&profiles).unwrap();
    std::fs::write(
        profiles.join("shell.md"),
        "---\nname: shell\ntools: [read, bash]\n---\nYou run commands.\n",
    )
    .unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(parent(call(
        "c1",
        json!({"action": "spawn", "task": "AT-PLAIN work", "wait": 60}),
    )));
    server.push(parent(call(
        "c2",
        json!({"action": "spawn", "task": "AT-SHELL work", "agent": "shell", "wait": 60}),
    )));
    server.push(parent(Script::anthropic_text("ceiling seen")));
    server.push(child(
        "AT-PLAIN",
        Script::anthropic_tool_call("b1", "bash", json!({"command": "echo hi"}).to_string()),
    ));
    server.push(child("AT-PLAIN", Script::anthropic_text("plain done")));
    server.push(child("AT-SHELL", Script::anthropic_text("shell done")));
    let r = run_p(
        &env,
        &server,
        &[],
        &["--tools", "read,grep,bash,write,subagent", "-p", "go"],
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    let offered_to = |marker: &str| -> Vec<String> {
        let req = server
            .requests()
            .into_iter()
            .find(|q| q.raw_body.contains(marker) && !q.raw_body.contains(PARENT))
            .unwrap();
        let mut names = offered(&req.body);
        names.sort();
        names
    };
    assert_eq!(offered_to("AT-PLAIN"), ["grep", "read"]);
    assert_eq!(offered_to("AT-SHELL"), ["read"]);
    let results = tool_results(&server);
    assert!(
        results[1].contains("note: subagents.allowed_tools leaves out the profile's bash"),
        "{results:?}"
    );
    // A call of a tool the child was not given is refused.
    let child_results: Vec<String> = server
        .requests()
        .iter()
        .filter(|q| q.raw_body.contains("AT-PLAIN") && !q.raw_body.contains(PARENT))
        .map(|q| q.raw_body.clone())
        .collect();
    assert!(
        child_results
            .iter()
            .any(|b| b.contains(r#"unknown tool \"bash\""#)),
        "{child_results:?}"
    );
}

#[tokio::test]
async fn allowed_roots_refuses_a_child_outside_them() {
    for (roots, allowed) in [(r#"["~/elsewhere"]"#, false), (r#"["."]"#, true)] {
        let env = TestEnv::new();
        std::fs::write(
            env.home.join("config.json"),
            format!(r#"{{"subagents": {{"allowed_roots": {roots}}}}}"#),
        )
        .unwrap();
        let server = LlmServer::start().await.unwrap();
        server.push(parent(call(
            "c1",
            json!({"action": "spawn", "task": "AR-CHILD work", "wait": 60}),
        )));
        server.push(parent(Script::anthropic_text("roots seen")));
        server.push(child("AR-CHILD", Script::anthropic_text("child done")));
        let r = run_p(
            &env,
            &server,
            &[],
            &["--tools", "read,subagent", "-p", "go"],
        )
        .await;
        assert_eq!(r.code, 0, "{r:?}");
        let results = tool_results(&server);
        if allowed {
            assert!(results[0].contains("final: child done"), "{results:?}");
        } else {
            assert!(
                results[0].contains("is outside subagents.allowed_roots")
                    && results[0].contains("elsewhere"),
                "{results:?}"
            );
            assert!(child_dirs(&env).is_empty(), "nothing was created");
        }
    }
}
