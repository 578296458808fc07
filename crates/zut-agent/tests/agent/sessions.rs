//! The agent with a session attached: rows written as the loop runs,
//! resume of transcript and deferred activations (K7), switching and
//! forking with `session_forked` / `session_switched` (G7, K4).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};
use zut_session::{Choice, NewSession, SessionWriter};
use zut_test_support::TestEnv;

fn new_session(env: &TestEnv) -> zut_session::Opened {
    zut_session::open(
        &Choice::New,
        &env.home,
        &env.project.display().to_string(),
        NewSession::default(),
    )
    .unwrap()
}

/// An extension whose `note` tool returns `details: {"v": n}` and which
/// logs every session event to `<dir>/events.jsonl`.
fn noter(env: &TestEnv) -> PathBuf {
    let dir = scratch(env).join("noter");
    py_ext(
        &dir,
        "noter",
        &[
            json!({"type":"register_tool","name":"note","description":"note n","schema":{"type":"object"}}),
            json!({"type":"subscribe","events":["session_forked","session_switched","session_compacted"]}),
        ],
        r#"emit({"type": "tool_result", "id": msg["id"], "content": [{"type": "text", "text": "noted"}], "details": msg["args"]})"#,
        "",
        &log_event_to(&dir),
    );
    dir
}

async fn events(dir: &Path, n: usize) -> Vec<Value> {
    logged_events(dir, n).await
}

#[tokio::test]
async fn the_loop_writes_each_row_and_a_fork_switches_with_state() {
    let env = TestEnv::new();
    let dir = noter(&env);
    let (host, _ui) =
        start_host_with(&env, std::slice::from_ref(&dir), |c| c.persist_state = true).await;
    let server = LlmServer::start().await.unwrap();
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    let opened = new_session(&env);
    let parent_path = opened.writer.path().to_path_buf();
    a.attach_session(opened.writer, None);

    server.push(Script::anthropic_tool_call("t1", "note", r#"{"v":1}"#));
    server.push(Script::anthropic_text("first"));
    run(&mut a, "one").await;
    server.push(Script::anthropic_tool_call("t2", "note", r#"{"v":2}"#));
    server.push(Script::anthropic_text("second"));
    run(&mut a, "two").await;
    let parent = zut_session::read(&parent_path).unwrap();
    assert_eq!(parent.messages.len(), 8);
    assert_eq!(parent.states["noter"].get(), r#"{"v":2}"#);
    assert_eq!(parent.usage.len(), 4);
    assert_eq!(
        parent.cumulative().input_tokens,
        parent
            .usage
            .iter()
            .map(|u| u.usage.input_tokens)
            .sum::<u64>()
    );

    // Fork after the first prompt: the state of that point (v1).
    let path = a.fork_session(4, false).unwrap();
    assert_ne!(path, parent_path);
    assert_eq!(a.transcript().len(), 4);
    let ev = events(&dir, 2).await;
    assert_eq!(ev[0]["event"], "session_forked");
    assert_eq!(ev[1]["event"], "session_switched");
    let child = zut_session::read(&path).unwrap();
    for e in &ev {
        assert_eq!(e["session"]["id"], child.meta.id);
        assert_eq!(e["session"]["parent_id"], parent.meta.id);
        assert_eq!(e["session"]["fork_point"], 4);
        assert_eq!(e["state"], json!({"v":1}));
    }
    assert_eq!(host.states()["noter"], json!({"v":1}));
    // The branch continues: the next request has the first prompt only.
    server.push(Script::anthropic_text("branched"));
    run(&mut a, "three").await;
    let body = server.requests().last().unwrap().raw_body.clone();
    assert!(body.contains("one") && !body.contains("two") && body.contains("three"));
    assert_eq!(zut_session::read(&path).unwrap().messages.len(), 6);

    // Back to the root file: only session_switched, with its state (v2).
    let (w, snap) = SessionWriter::open(&parent_path).unwrap();
    a.switch_session(w, &snap);
    let ev = events(&dir, 3).await;
    assert_eq!(ev.len(), 3);
    assert_eq!(ev[2]["event"], "session_switched");
    assert_eq!(ev[2]["session"]["id"], parent.meta.id);
    assert_eq!(ev[2]["state"], json!({"v":2}));
    assert_eq!(a.transcript().len(), 8);
    host.shutdown().await;
}

/// K7: deferred tools activated in a resumed file are offered at once.
#[tokio::test]
async fn resumed_activations_offer_deferred_tools() {
    let env = TestEnv::new();
    let dir = py_ext(
        &scratch(&env).join("def"),
        "def",
        &[
            json!({"type":"register_tool","name":"secret_tool","description":"hidden until activated","schema":{"type":"object"},"deferred":true}),
        ],
        "",
        "",
        "",
    );
    let (host, _ui) = start_host(&env, &[dir]).await;
    let file = env.project.join("s.jsonl");
    std::fs::write(
        &file,
        [
            r#"{"type":"meta","meta":{"id":"d1","cwd":"/p","model":"m","provider":"anthropic","started":"2026-08-22T07:00:00Z","version":"0.9.1"}}"#,
            r#"{"type":"message","message":{"role":"user","content":[{"text":"unlock"}],"time":"2026-08-22T09:00:00Z"}}"#,
            r#"{"type":"message","message":{"role":"tool","content":[{"text":"deferred tools activated"}],"time":"2026-08-22T09:00:02Z","added_tool_names":["secret_tool"]}}"#,
            r#"{"type":"message","message":{"role":"assistant","content":[{"text":"ready"}],"time":"2026-08-22T09:00:03Z"}}"#,
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    let (w, snap) = SessionWriter::open(&file).unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("ok"));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    a.attach_session(w, Some(&snap));
    assert!(a.activated_tools().contains("secret_tool"));
    run(&mut a, "use it").await;
    assert!(offered_tools(&server.requests()[0].body).contains(&"secret_tool".to_string()));
    host.shutdown().await;
}

/// RPC and ACP open their file before any prompt: the first prompt titles
/// it as print mode would (a repeated `meta` row), later prompts and
/// resumed or already titled files keep their title.
#[tokio::test]
async fn an_untitled_session_is_titled_by_its_first_prompt() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let mut a = agent(&env, &server, "anthropic", None);
    let opened = new_session(&env);
    let path = opened.writer.path().to_path_buf();
    assert_eq!(zut_session::read(&path).unwrap().title, "");
    a.attach_session(opened.writer, None);
    server.push(Script::anthropic_text("one"));
    run(&mut a, "  \"Title: Fix the\n  parser\"  ").await;
    server.push(Script::anthropic_text("two"));
    run(&mut a, "something else").await;
    let snap = zut_session::read(&path).unwrap();
    assert_eq!(snap.title, zut_session::title_from_prompt("Fix the parser"));
    assert_eq!(snap.meta.title, snap.title);
    assert_eq!(snap.messages.len(), 4);
    let rows = std::fs::read_to_string(&path).unwrap();
    let types: Vec<String> = rows
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(&types[..3], ["meta", "meta", "message"], "{rows}");
    assert_eq!(types.iter().filter(|t| *t == "meta").count(), 2);
    let dir = zut_session::sessions_dir(&env.home, &env.project.display().to_string());
    assert_eq!(
        zut_session::list(&dir, true)
            .iter()
            .find(|s| s.path == path)
            .map(|s| s.title.clone()),
        Some(snap.title.clone())
    );

    // A resumed conversation keeps its title; a `clear` does not retitle.
    a.close_session();
    let (w, snap) = SessionWriter::open(&path).unwrap();
    let mut b = agent(&env, &server, "anthropic", None);
    b.attach_session(w, Some(&snap));
    b.clear();
    server.push(Script::anthropic_text("three"));
    run(&mut b, "a new subject").await;
    assert_eq!(zut_session::read(&path).unwrap().title, snap.title);

    // A file created with a title (print mode) is not retitled.
    let titled = zut_session::open(
        &Choice::New,
        &env.home,
        &env.project.display().to_string(),
        NewSession {
            title: "given".into(),
            ..NewSession::default()
        },
    )
    .unwrap();
    let titled_path = titled.writer.path().to_path_buf();
    let mut c = agent(&env, &server, "anthropic", None);
    c.attach_session(titled.writer, None);
    server.push(Script::anthropic_text("four"));
    run(&mut c, "other words").await;
    assert_eq!(zut_session::read(&titled_path).unwrap().title, "given");
}
