//! Long sessions through the `zut` binary (issue 24): compact-and-retry in
//! `--json` and `-p`, the repetition guard and `--no-repetition-guard`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use serde_json::Value;
use zut_llm_server::{LlmServer, Script};
use zut_test_support::TestEnv;

fn json_events(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

const OVERFLOW: &str = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}"#;

#[tokio::test]
async fn json_mode_shows_the_recovery_and_completes() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let session = env.project.join("s.jsonl");
    let session_arg = session.display().to_string();
    server.push(Script::anthropic_text("first answer"));
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &["--session", &session_arg, "-p", "first"],
    ))
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    server.push(Script::json(400, OVERFLOW));
    server.push(Script::anthropic_text("SUMMARY"));
    server.push(Script::anthropic_text("second answer"));
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &["--session", &session_arg, "--json", "second"],
    ))
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let events = json_events(&r.stdout);
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    let rec = types.iter().position(|t| *t == "context_recovery").unwrap();
    let compact = types.iter().position(|t| *t == "compact_done").unwrap();
    assert!(rec < compact, "{types:?}");
    assert_eq!(types.last(), Some(&"done"));
    assert!(!types.contains(&"error"), "{types:?}");
    assert!(events[rec]["error"]
        .as_str()
        .unwrap()
        .contains("prompt is too long"));
    // The compaction is in the session: a resumed run starts from it.
    let text = std::fs::read_to_string(&session).unwrap();
    assert!(text.contains("\"compaction\""), "{text}");

    // Print mode: the answer on stdout, the notice on stderr.
    server.push(Script::json(400, OVERFLOW));
    server.push(Script::anthropic_text("SUMMARY 2"));
    server.push(Script::anthropic_text("third answer"));
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &["--session", &session_arg, "-p", "third"],
    ))
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.trim(), "third answer");
    assert!(
        r.stderr.contains("context window exceeded: compacting"),
        "{}",
        r.stderr
    );
}

#[tokio::test]
async fn the_guard_stops_a_looping_model_unless_turned_off() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "t1",
        "bash",
        r#"{"command":"echo same"}"#,
    ));
    server.set_cycle(true);
    let r = output_blocking(llm_cmd(&env, &server.url(), &["--no-session", "-p", "go"])).await;
    assert_ne!(r.code, 0);
    assert!(
        r.stderr
            .contains("repetitive loop: tool \"bash\" repeated 8 times"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("repetition guard"), "{}", r.stderr);
    assert_eq!(server.request_count(), 8);

    let before = server.request_count();
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &[
            "--no-session",
            "--no-repetition-guard",
            "--max-steps",
            "10",
            "--json",
            "go",
        ],
    ))
    .await;
    assert_ne!(r.code, 0);
    assert_eq!(server.request_count() - before, 10);
    assert!(!r.stdout.contains("repetition_guard"));
    assert!(r.stdout.contains("--max-steps"), "{}", r.stdout);
}
