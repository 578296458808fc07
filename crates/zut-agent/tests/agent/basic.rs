//! The loop without extensions: plain answers, every built-in tool, retries,
//! abort, `--max-steps`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use serde_json::json;
use tokio_util::sync::CancellationToken;
use zut_agent::PromptOutcome;
use zut_llm_server::{LlmServer, Script};
use zut_providers::StopReason;
use zut_test_support::TestEnv;

#[tokio::test]
async fn plain_answer_anthropic_emits_rpc_event_sequence() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("Hello there, friend.").delta_bytes(5));
    let mut a = agent(&env, &server, "anthropic", None);
    let (outcome, events) = run(&mut a, "hi").await;
    assert_eq!(
        outcome,
        PromptOutcome::Completed {
            stop: StopReason::EndTurn,
            final_text: "Hello there, friend.".into()
        }
    );
    let t = types(&events);
    assert_eq!(t.first().map(String::as_str), Some("user_message"));
    let pos = |name: &str| {
        t.iter()
            .position(|x| x == name)
            .unwrap_or_else(|| panic!("{name} missing: {t:?}"))
    };
    assert!(pos("turn_start") < pos("request_started"));
    assert!(pos("request_started") < pos("text_delta"));
    assert!(pos("text_delta") < pos("assistant_message"));
    assert!(pos("assistant_message") < pos("turn_end"));
    assert_eq!(t.last().map(String::as_str), Some("done"));
    let deltas: String = of_type(&events, "text_delta")
        .iter()
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, "Hello there, friend.");
    assert!(
        of_type(&events, "text_delta").len() > 1,
        "streamed in several deltas"
    );
    assert_eq!(of_type(&events, "turn_end")[0]["stop"], "end_turn");
    assert_eq!(
        of_type(&events, "user_message")[0]["content"],
        json!([{"type":"text","text":"hi"}])
    );
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].body["stream"], true);
    assert_eq!(reqs[0].body["messages"][0]["role"], "user");
    assert!(reqs[0].body["system"].to_string().contains("zut"));
    let offered = offered_tools(&reqs[0].body);
    // `lsp` needs a language-server manager, which `AgentConfig::new`
    // does not set up: it is not a default tool of a bare agent.
    let defaults: Vec<&str> = zut_tools::BUILTIN_NAMES
        .iter()
        .copied()
        .filter(|n| *n != "lsp")
        .collect();
    assert_eq!(offered, defaults);
}

#[tokio::test]
async fn plain_answer_openai_compatible() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::openai_text("42").delta_bytes(1));
    let mut a = agent(&env, &server, "openai-compatible", None);
    let (outcome, events) = run(&mut a, "answer?").await;
    assert!(
        matches!(outcome, PromptOutcome::Completed { ref final_text, .. } if final_text == "42")
    );
    assert_eq!(
        of_type(&events, "assistant_message")[0]["content"],
        json!([{"type":"text","text":"42"}])
    );
    let reqs = server.requests();
    assert!(
        reqs[0].path.ends_with("/chat/completions"),
        "{}",
        reqs[0].path
    );
}

#[tokio::test]
async fn multi_step_loop_with_every_builtin_tool() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "t1",
        "write",
        r#"{"path":"notes/a.txt","content":"alpha\nbeta\n"}"#,
    ));
    server.push(Script::anthropic_tool_call(
        "t2",
        "read",
        r#"{"path":"notes/a.txt"}"#,
    ));
    server.push(Script::anthropic_tool_call(
        "t3",
        "edit",
        r#"{"path":"notes/a.txt","edits":[{"oldText":"beta","newText":"gamma"}]}"#,
    ));
    server.push(Script::anthropic_tool_call(
        "t4",
        "bash",
        r#"{"command":"cat notes/a.txt","timeout":10}"#,
    ));
    server.push(Script::anthropic_tool_call(
        "t5",
        "grep",
        r#"{"pattern":"gam+a"}"#,
    ));
    server.push(Script::anthropic_text("All done."));
    let mut a = agent(&env, &server, "anthropic", None);
    let (outcome, events) = run(&mut a, "work").await;
    assert!(
        matches!(outcome, PromptOutcome::Completed { ref final_text, .. } if final_text == "All done."),
        "{outcome:?}"
    );
    assert_eq!(
        std::fs::read_to_string(env.project.join("notes/a.txt")).unwrap(),
        "alpha\ngamma\n"
    );
    let results = of_type(&events, "tool_result");
    assert_eq!(results.len(), 5);
    for r in &results {
        assert_eq!(r["is_error"], false, "{r}");
    }
    assert_eq!(of_type(&events, "turn_start").len(), 6);
    let caches = of_type(&events, "cache_diagnostics");
    assert_eq!(caches.len(), 6, "one per model call");
    assert_eq!(
        *caches[0],
        serde_json::json!({"type":"cache_diagnostics","eligible":true,"mode":"explicit",
            "transport":"http-sse","continuation":false})
    );
    assert_eq!(caches[5]["continuation"], true);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 6);
    let tr = anthropic_tool_results(&reqs[5].body);
    assert_eq!(tr.len(), 5);
    assert!(tr[1].2.contains("alpha"), "read result: {}", tr[1].2);
    assert!(tr[3].2.contains("gamma"), "bash result: {}", tr[3].2);
    assert!(tr[4].2.contains("a.txt"), "grep result: {}", tr[4].2);
    assert_eq!(a.tool_owner("t4"), None, "built-ins have no owner");
    // bash's live output arrived as tool_progress, before its result.
    let progress: String = of_type(&events, "tool_progress")
        .iter()
        .inspect(|p| assert_eq!(p["id"], "t4", "{p}"))
        .map(|p| p["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(progress, "alpha\ngamma\n");
    let t = types(&events);
    let pos = |ty: &str| t.iter().position(|x| x == ty).unwrap();
    let bash_result = results.iter().position(|r| r["id"] == "t4").unwrap();
    let result_positions: Vec<usize> = t
        .iter()
        .enumerate()
        .filter(|(_, x)| *x == "tool_result")
        .map(|(i, _)| i)
        .collect();
    assert!(pos("tool_progress") < result_positions[bash_result]);
}

#[tokio::test]
async fn invalid_arguments_become_a_readable_error_result() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "t1",
        "bash",
        r#"{"command":"echo hi"}"#,
    ));
    server.push(Script::anthropic_tool_call("t2", "nope", r#"{}"#));
    server.push(Script::anthropic_text("ok"));
    let mut a = agent(&env, &server, "anthropic", None);
    let (_, events) = run(&mut a, "x").await;
    let results = of_type(&events, "tool_result");
    assert_eq!(results[0]["is_error"], true);
    let text = results[0]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("timeout"), "{text}");
    assert_eq!(results[1]["is_error"], true);
    assert!(results[1]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("unknown tool"));
    // Neither ran.
    assert!(of_type(&events, "tool_execution_started").is_empty());
}

#[tokio::test]
async fn retries_then_succeeds_and_reports_the_retry() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::status(429).retry_after(0));
    server.push(Script::anthropic_text("after retry"));
    let mut a = agent(&env, &server, "anthropic", None);
    let (outcome, events) = run(&mut a, "x").await;
    assert!(
        matches!(outcome, PromptOutcome::Completed { .. }),
        "{outcome:?}"
    );
    assert_eq!(of_type(&events, "retry_scheduled").len(), 1);
    assert_eq!(of_type(&events, "request_started").len(), 2);
}

#[tokio::test]
async fn clean_error_after_last_retry_without_the_key() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    for _ in 0..10 {
        server.push(Script::status(500).message("backend exploded"));
    }
    let mut a = agent(&env, &server, "anthropic", None);
    let (outcome, events) = run(&mut a, "x").await;
    let PromptOutcome::Failed { message } = outcome else {
        panic!("{outcome:?}")
    };
    assert!(message.contains("500"), "{message}");
    assert!(message.contains("backend exploded"), "{message}");
    assert!(!message.contains("sk-test-secret"));
    let end = of_type(&events, "turn_end");
    assert_eq!(end[0]["stop"], "error");
    assert_eq!(of_type(&events, "error").len(), 1);
    let t = types(&events);
    assert_eq!(&t[t.len() - 2..], ["error", "done"], "rpc.md §4.2");
}

#[tokio::test]
async fn abort_mid_stream() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::anthropic_text("partial answer that never ends")
            .delta_bytes(4)
            .hang_after(4),
    );
    let mut a = agent(&env, &server, "anthropic", None);
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        c2.cancel();
    });
    let (outcome, events) = run_with(&mut a, "x", &cancel).await;
    assert_eq!(outcome, PromptOutcome::Aborted);
    assert!(!of_type(&events, "text_delta").is_empty());
    assert_eq!(of_type(&events, "turn_end")[0]["stop"], "aborted");
}

#[tokio::test]
async fn max_steps_stops_the_loop() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    for i in 0..3 {
        server.push(Script::anthropic_tool_call(
            format!("t{i}"),
            "bash",
            r#"{"command":"true","timeout":5}"#,
        ));
    }
    let mut cfg = zut_agent::AgentConfig::new(&env.project, &env.home);
    cfg.max_steps = 2;
    let mut a = zut_agent::Agent::new(provider(&server, "anthropic", &env.home), None, cfg);
    let (outcome, _) = run(&mut a, "loop").await;
    let PromptOutcome::Failed { message } = outcome else {
        panic!("{outcome:?}")
    };
    assert!(message.contains("--max-steps"), "{message}");
    assert_eq!(server.requests().len(), 2);
}
