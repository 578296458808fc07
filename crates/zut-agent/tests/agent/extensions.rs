//! Extensions inside the real loop: extension tools, guard interception,
//! rewrites, turn_start block/context, assistant_message replace/block,
//! deferred tools, hung and crashing tools.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use serde_json::json;
use zut_agent::PromptOutcome;
use zut_llm_server::{LlmServer, Script};
use zut_test_support::TestEnv;

#[tokio::test]
async fn rust_sdk_extension_tool_called_by_the_model() {
    let env = TestEnv::new();
    let dir = zut_test_support::install_rust_example("hello", &scratch(&env).join("hello"));
    let (host, _ui) = start_host(&env, &[dir]).await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "t1",
        "greet",
        r#"{"name":"Ada"}"#,
    ));
    server.push(Script::anthropic_text("Greeted."));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    let (outcome, events) = run(&mut a, "greet Ada").await;
    assert!(
        matches!(outcome, PromptOutcome::Completed { .. }),
        "{outcome:?}"
    );
    let reqs = server.requests();
    assert!(offered_tools(&reqs[0].body).contains(&"greet".to_string()));
    let tr = anthropic_tool_results(&reqs[1].body);
    assert_eq!(
        tr,
        vec![("t1".to_string(), false, "Hello, Ada!".to_string())]
    );
    assert_eq!(of_type(&events, "tool_execution_started").len(), 1);
    // The result is attributed to the extension that produced it.
    assert_eq!(a.tool_owner("t1"), Some("hello"));
    assert_eq!(a.tool_owner("nope"), None);
    host.shutdown().await;
}

#[tokio::test]
async fn python_extension_tool_over_openai_format() {
    let env = TestEnv::new();
    let dir = py_ext(
        &scratch(&env).join("py"),
        "pytool",
        &[
            json!({"type":"register_tool","name":"shout","description":"upper-case text",
                 "schema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}),
        ],
        r#"emit({"type": "tool_result", "id": msg["id"], "content": [{"type": "text", "text": msg["args"]["text"].upper()}]})"#,
        "",
        "",
    );
    let (host, _ui) = start_host(&env, &[dir]).await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::openai_tool_call(
        "c1",
        "shout",
        r#"{"text":"quiet"}"#,
    ));
    server.push(Script::openai_text("done"));
    let mut a = agent(&env, &server, "openai-compatible", Some(host.clone()));
    let (_, events) = run(&mut a, "shout").await;
    let results = of_type(&events, "tool_result");
    assert_eq!(results[0]["content"][0]["text"], "QUIET");
    let body = &server.requests()[1].body;
    let tool_msg = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert!(
        tool_msg["content"].to_string().contains("QUIET"),
        "{tool_msg}"
    );
    host.shutdown().await;
}

/// Runs git with a fixed identity in `dir`.
fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[tokio::test]
async fn guard_blocks_rm_rf_and_rewrites_force_push_reaching_bash() {
    let env = TestEnv::new();
    // A real repository whose remote moved on since our last fetch: a plain
    // `--force` would overwrite the other commit, `--force-with-lease`
    // refuses it ("stale info"). That tells which command bash really ran.
    let remote = scratch(&env).join("remote.git");
    std::fs::create_dir_all(&remote).unwrap();
    git(&remote, &["init", "-q", "--bare", "-b", "main"]);
    let p = &env.project;
    git(p, &["init", "-q", "-b", "main"]);
    git(p, &["remote", "add", "origin", remote.to_str().unwrap()]);
    git(p, &["commit", "-q", "--allow-empty", "-m", "A"]);
    git(p, &["push", "-q", "origin", "main"]);
    let other = scratch(&env).join("other");
    git(
        &scratch(&env),
        &["clone", "-q", remote.to_str().unwrap(), "other"],
    );
    git(&other, &["commit", "-q", "--allow-empty", "-m", "B"]);
    git(&other, &["push", "-q", "origin", "main"]);
    let theirs = git(&other, &["rev-parse", "HEAD"]);
    git(p, &["commit", "-q", "--allow-empty", "-m", "C"]);

    let dir = zut_test_support::install_rust_example("guard", &scratch(&env).join("guard"));
    let (host, _ui) = start_host(&env, &[dir]).await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "t1",
        "bash",
        r#"{"command":"rm -rf /","timeout":5}"#,
    ));
    server.push(Script::anthropic_tool_call(
        "t2",
        "bash",
        r#"{"command":"git push --force origin main","timeout":30}"#,
    ));
    server.push(Script::anthropic_text("ok"));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    let (_, events) = run(&mut a, "clean up").await;
    let results = of_type(&events, "tool_result");
    assert_eq!(results[0]["is_error"], true);
    assert!(
        results[0]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("refused"),
        "{}",
        results[0]
    );
    let out = results[1]["content"][0]["text"].as_str().unwrap();
    assert!(
        out.contains("stale info"),
        "bash ran the --force-with-lease rewrite: {out}"
    );
    assert_eq!(results[1]["is_error"], true, "the lease refused the push");
    assert_eq!(
        git(&remote, &["rev-parse", "main"]),
        theirs,
        "the other commit survived"
    );
    // Blocked call never started; the rewritten one did.
    assert_eq!(of_type(&events, "tool_execution_started").len(), 1);
    // The model's original arguments are what it sees in the transcript.
    let body = &server.requests()[2].body;
    assert!(body.to_string().contains("git push --force origin main"));
    assert!(!body.to_string().contains("force-with-lease"));
    host.shutdown().await;
}

fn rewriter(env: &TestEnv, name: &str, suffix: &str) -> std::path::PathBuf {
    py_ext(
        &scratch(env).join(name),
        name,
        &[json!({"type":"subscribe","intercept":["tool_call"]})],
        "",
        &format!(
            r#"args = msg.get("tool_args") or {{}}
args["command"] = args.get("command", "") + " {suffix}"
emit({{"type": "event_intercept_response", "id": msg["id"], "modified_args": args}})"#
        ),
        "",
    )
}

#[tokio::test]
async fn two_interceptors_chain_rewrites_in_load_order() {
    let env = TestEnv::new();
    let a_dir = rewriter(&env, "rw-a", "A");
    let b_dir = rewriter(&env, "rw-b", "B");
    let (host, _ui) = start_host(&env, &[a_dir, b_dir]).await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "t1",
        "bash",
        r#"{"command":"echo start","timeout":5}"#,
    ));
    server.push(Script::anthropic_text("ok"));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    let (_, events) = run(&mut a, "x").await;
    let out = of_type(&events, "tool_result")[0]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(out.contains("start A B"), "{out}");
    // The tool_call event carries the model's original args.
    assert_eq!(
        of_type(&events, "tool_call")[0]["args"]["command"],
        "echo start"
    );
    host.shutdown().await;
}

#[tokio::test]
async fn turn_start_context_reaches_only_the_next_request() {
    let env = TestEnv::new();
    let dir = py_ext(
        &scratch(&env).join("ctx"),
        "ctx",
        &[json!({"type":"subscribe","intercept":["turn_start"]})],
        "",
        r#"ctx = "remember the milk" if msg.get("step") == 1 else ""
emit({"type": "event_intercept_response", "id": msg["id"], "context": ctx})"#,
        "",
    );
    let (host, _ui) = start_host(&env, &[dir]).await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "t1",
        "bash",
        r#"{"command":"true","timeout":5}"#,
    ));
    server.push(Script::anthropic_text("ok"));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    let (_, _) = run(&mut a, "x").await;
    let reqs = server.requests();
    assert!(reqs[0].raw_body.contains("remember the milk"));
    assert!(
        reqs[0].raw_body.contains("[ctx]"),
        "header line names the extension"
    );
    assert!(
        !reqs[1].raw_body.contains("remember the milk"),
        "context is never stored"
    );
    assert!(!a
        .transcript()
        .iter()
        .any(|m| m.text().contains("remember the milk")));
    host.shutdown().await;
}

#[tokio::test]
async fn turn_start_block_stops_the_turn_without_a_model_call() {
    let env = TestEnv::new();
    let dir = py_ext(
        &scratch(&env).join("blk"),
        "blk",
        &[json!({"type":"subscribe","intercept":["turn_start"]})],
        "",
        r#"emit({"type": "event_intercept_response", "id": msg["id"], "block": True, "reason": "quiet hours"})"#,
        "",
    );
    let (host, _ui) = start_host(&env, &[dir]).await;
    let server = LlmServer::start().await.unwrap();
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    let (outcome, events) = run(&mut a, "x").await;
    assert_eq!(
        outcome,
        PromptOutcome::Blocked {
            reason: "quiet hours".into()
        }
    );
    assert_eq!(
        types(&events),
        vec!["user_message", "turn_start", "turn_end", "done"]
    );
    assert_eq!(of_type(&events, "turn_end")[0]["error"], "quiet hours");
    assert_eq!(server.requests().len(), 0);
    host.shutdown().await;
}

fn assistant_interceptor(env: &TestEnv, decision: &str) -> std::path::PathBuf {
    py_ext(
        &scratch(env).join("am"),
        "am",
        &[json!({"type":"subscribe","intercept":["assistant_message"]})],
        "",
        &format!(
            r#"emit(dict({{"type": "event_intercept_response", "id": msg["id"]}}, **{decision}))"#
        ),
        "",
    )
}

#[tokio::test]
async fn assistant_message_replace_is_shown_but_transcript_keeps_original() {
    let env = TestEnv::new();
    let dir = assistant_interceptor(&env, r#"{"replace_text": "[redacted]"}"#);
    let (host, _ui) = start_host(&env, &[dir]).await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("the secret is 1234"));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    let (outcome, events) = run(&mut a, "x").await;
    assert!(
        matches!(outcome, PromptOutcome::Completed { ref final_text, .. } if final_text == "[redacted]")
    );
    assert_eq!(
        of_type(&events, "assistant_message")[0]["content"],
        json!([{"type":"text","text":"[redacted]"}])
    );
    assert_eq!(a.transcript().last().unwrap().text(), "the secret is 1234");
    host.shutdown().await;
}

#[tokio::test]
async fn assistant_message_block_hides_the_message() {
    let env = TestEnv::new();
    let dir = assistant_interceptor(&env, r#"{"block": True, "reason": "nope"}"#);
    let (host, _ui) = start_host(&env, &[dir]).await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("hidden words"));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    let (outcome, events) = run(&mut a, "x").await;
    assert!(
        matches!(outcome, PromptOutcome::Completed { ref final_text, .. } if final_text.is_empty()),
        "{outcome:?}"
    );
    assert!(of_type(&events, "assistant_message").is_empty());
    assert_eq!(a.transcript().last().unwrap().text(), "hidden words");
    host.shutdown().await;
}

#[tokio::test]
async fn deferred_tool_activation_changes_the_next_request() {
    let env = TestEnv::new();
    let dir = py_ext(
        &scratch(&env).join("def"),
        "def",
        &[
            json!({"type":"register_tool","name":"unlock","description":"unlock more tools","schema":{"type":"object"}}),
            json!({"type":"register_tool","name":"secret_tool","description":"hidden until activated","schema":{"type":"object"},"deferred":true}),
        ],
        r#"emit({"type": "tool_result", "id": msg["id"], "content": [{"type": "text", "text": "unlocked"}], "activate_tools": ["secret_tool", "no_such_tool"]})"#,
        "",
        "",
    );
    let (host, _ui) = start_host(&env, &[dir]).await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call("t1", "unlock", "{}"));
    server.push(Script::anthropic_text("ok"));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    run(&mut a, "x").await;
    let reqs = server.requests();
    let first = offered_tools(&reqs[0].body);
    let second = offered_tools(&reqs[1].body);
    assert!(first.contains(&"unlock".to_string()));
    assert!(!first.contains(&"secret_tool".to_string()));
    assert!(second.contains(&"secret_tool".to_string()));
    assert!(!second.contains(&"no_such_tool".to_string()));
    host.shutdown().await;
}

#[tokio::test]
async fn hung_extension_tool_times_out_with_an_error_to_the_model() {
    let env = TestEnv::new();
    let dir = py_ext(
        &scratch(&env).join("hang"),
        "hang",
        &[
            json!({"type":"register_tool","name":"slow","description":"never answers","schema":{"type":"object"}}),
        ],
        "pass",
        "",
        "",
    );
    let (host, _ui) = start_host_with(&env, &[dir], |c| {
        c.timeouts.tool = std::time::Duration::from_millis(500)
    })
    .await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call("t1", "slow", "{}"));
    server.push(Script::anthropic_text("ok"));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    let (outcome, _) = run(&mut a, "x").await;
    assert!(matches!(outcome, PromptOutcome::Completed { .. }));
    let tr = anthropic_tool_results(&server.requests()[1].body);
    assert!(tr[0].1, "is_error");
    assert!(
        tr[0].2.contains("timeout waiting for hang/slow"),
        "{}",
        tr[0].2
    );
    host.shutdown().await;
}

#[tokio::test]
async fn extension_crashing_mid_call_fails_the_call_at_once() {
    let env = TestEnv::new();
    let dir = py_ext(
        &scratch(&env).join("crash"),
        "crash",
        &[
            json!({"type":"register_tool","name":"boom","description":"crashes","schema":{"type":"object"}}),
        ],
        "sys.exit(3)",
        "",
        "",
    );
    // A long tool timeout: the error must come from the crash, not the timer.
    let (host, _ui) = start_host_with(&env, &[dir], |c| {
        c.timeouts.tool = std::time::Duration::from_secs(60)
    })
    .await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call("t1", "boom", "{}"));
    server.push(Script::anthropic_text("ok"));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    let started = std::time::Instant::now();
    let (outcome, _) = run(&mut a, "x").await;
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "failed immediately, not at the 60 s timeout"
    );
    assert!(matches!(outcome, PromptOutcome::Completed { .. }));
    let tr = anthropic_tool_results(&server.requests()[1].body);
    assert!(tr[0].1);
    assert!(tr[0].2.contains("crash/boom"), "{}", tr[0].2);
    assert!(tr[0].2.contains("disconnected"), "{}", tr[0].2);
    host.shutdown().await;
}
