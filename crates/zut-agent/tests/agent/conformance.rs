//! Conformance cases of the loop layer (conformance-cases.md groups F, G
//! and H): real extension processes inside the real loop, against the real
//! local LLM server. Test names carry the case ids.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::{json, Value};
use zut_agent::PromptOutcome;
use zut_llm_server::{Block, Format, LlmServer, Script};
use zut_providers::Part;
use zut_test_support::TestEnv;

/// Python: append the received frame to `frames.jsonl` in the extension's
/// directory (its cwd).
const RECORD: &str = r#"open("frames.jsonl", "a").write(json.dumps(msg) + "\n")"#;

/// Python: answer a tool call with the JSON of the arguments it received.
const ECHO_ARGS: &str = r#"emit({"type": "tool_result", "id": msg["id"], "content": [{"type": "text", "text": "got " + json.dumps(msg.get("args"), sort_keys=True)}]})"#;

fn recorded(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("frames.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn echo_tool(name: &str) -> Value {
    json!({"type":"register_tool","name":name,"description":"echo the arguments",
           "input_schema":{"type":"object","properties":{"msg":{"type":"string"}}}})
}

fn ext_dir(env: &TestEnv, name: &str) -> PathBuf {
    scratch(env).join(name)
}

/// The tool results of the last recorded Anthropic request.
fn last_results(server: &LlmServer) -> Vec<(String, bool, String)> {
    let reqs = server.requests();
    let body = &reqs.last().unwrap().body;
    anthropic_tool_results(body)
}

#[tokio::test]
async fn g1_g2_g3_g4_g10_h9_subscribers_get_steps_calls_stops_and_visible_text_in_order() {
    let env = TestEnv::new();
    let rec = py_ext(
        &ext_dir(&env, "rec"),
        "rec",
        &[json!({"type":"subscribe",
                 "events":["turn_start","tool_call","turn_end","assistant_message"],
                 "intercept":["assistant_message"]})],
        "",
        r#"emit({"type": "event_intercept_response", "id": msg["id"], "replace_text": msg["text"].replace("SECRET", "[redacted]")})"#,
        RECORD,
    );
    let quiet = py_ext(&ext_dir(&env, "quiet"), "quiet", &[], "", "", RECORD);
    let (host, _ui) = start_host(&env, &[rec.clone(), quiet.clone()]).await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "t1",
        "bash",
        r#"{"command":"echo hi","timeout":5}"#,
    ));
    server.push(Script::reply(
        Format::Anthropic,
        vec![Block::text("the SECRET "), Block::text("is out")],
    ));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    let (outcome, events) = run(&mut a, "go").await;
    assert!(
        matches!(outcome, PromptOutcome::Completed { .. }),
        "{outcome:?}"
    );
    host.shutdown().await;

    let frames = recorded(&rec);
    let summary: Vec<String> = frames
        .iter()
        .map(|f| match f["event"].as_str().unwrap() {
            "turn_start" => format!("turn_start {}", f["step"]),
            "turn_end" => format!("turn_end {}", f["stop"].as_str().unwrap()),
            "tool_call" => format!(
                "tool_call {} {} {}",
                f["tool_id"].as_str().unwrap(),
                f["tool_name"].as_str().unwrap(),
                f["tool_args"]
            ),
            "assistant_message" => format!("assistant_message {}", f["text"].as_str().unwrap()),
            other => other.to_string(),
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            "turn_start 1",
            r#"tool_call t1 bash {"command":"echo hi","timeout":5}"#,
            "turn_end tool_use",
            "turn_start 2",
            // The interceptor saw the blocks joined with "\n" (§11.3) and
            // its replacement is what the user sees.
            "assistant_message the [redacted] \nis out",
            "turn_end end_turn",
        ],
        "G1/G2/G3/G10: {frames:?}"
    );
    assert!(
        recorded(&quiet).is_empty(),
        "G4: non-subscribers get no events"
    );
    // H9: the JSON event shows the replacement, the transcript the original.
    let shown = of_type(&events, "assistant_message");
    assert_eq!(shown.len(), 2, "one per assistant message");
    assert!(shown[1]["content"].to_string().contains("[redacted]"));
    assert!(!events
        .iter()
        .any(|e| e["type"] == "assistant_message" && e["content"].to_string().contains("SECRET")));
    assert!(a.transcript().iter().any(|m| m.text().contains("SECRET")));
}

#[tokio::test]
async fn f1_empty_arguments_reach_the_extension_as_an_empty_object() {
    let env = TestEnv::new();
    let dir = py_ext(
        &ext_dir(&env, "echo"),
        "echo",
        &[echo_tool("echo")],
        &format!("{RECORD}\n{ECHO_ARGS}"),
        "",
        "",
    );
    let (host, _ui) = start_host(&env, std::slice::from_ref(&dir)).await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call("t1", "echo", "{}"));
    server.push(Script::anthropic_tool_call("t2", "echo", r#"{"msg":"hi"}"#));
    server.push(Script::anthropic_text("done"));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    run(&mut a, "go").await;
    host.shutdown().await;
    let calls = recorded(&dir);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["args"], json!({}));
    assert_eq!(calls[0]["name"], "echo");
    assert_eq!(calls[1]["args"], json!({"msg":"hi"}));
    let results = last_results(&server);
    assert_eq!(results[0], ("t1".into(), false, "got {}".into()));
    assert_eq!(
        results[1],
        ("t2".into(), false, r#"got {"msg": "hi"}"#.into())
    );
}

#[tokio::test]
async fn f8_extension_tools_are_offered_and_run_with_no_builtin_tools() {
    let env = TestEnv::new();
    let dir = py_ext(
        &ext_dir(&env, "echo"),
        "echo",
        &[echo_tool("echo")],
        ECHO_ARGS,
        "",
        "",
    );
    let (host, _ui) = start_host_with(&env, &[dir], |c| c.builtin_tools.clear()).await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call("t1", "echo", r#"{"msg":"x"}"#));
    server.push(Script::anthropic_text("done"));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    a.config_mut().builtin_tools.clear();
    run(&mut a, "go").await;
    let reqs = server.requests();
    assert_eq!(offered_tools(&reqs[0].body), vec!["echo"]);
    assert_eq!(
        last_results(&server)[0],
        ("t1".into(), false, r#"got {"msg": "x"}"#.into())
    );
    host.shutdown().await;
}

#[tokio::test]
async fn f6_inactive_builtin_may_be_registered_but_reserved_names_never() {
    let env = TestEnv::new();
    let dir = py_ext(
        &ext_dir(&env, "shadow"),
        "shadow",
        &[
            echo_tool("read"),
            echo_tool("bash"),
            echo_tool("grep"),
            echo_tool("web_search"),
        ],
        ECHO_ARGS,
        "",
        "",
    );
    // As with `--tools read`: bash is not active, so an extension may own it.
    let (host, _ui) = start_host_with(&env, &[dir], |c| {
        c.builtin_tools = vec!["read".to_string()];
    })
    .await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call("t1", "bash", r#"{"msg":"x"}"#));
    server.push(Script::anthropic_text("done"));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    a.config_mut().builtin_tools = vec!["read".to_string()];
    run(&mut a, "go").await;
    let reqs = server.requests();
    assert_eq!(offered_tools(&reqs[0].body), vec!["read", "bash"]);
    assert_eq!(
        last_results(&server)[0],
        ("t1".into(), false, r#"got {"msg": "x"}"#.into()),
        "the extension's bash received the call"
    );
    host.shutdown().await;
}

#[tokio::test]
async fn f9_h6_extension_tool_receives_chained_rewrites_while_the_transcript_keeps_the_original() {
    let env = TestEnv::new();
    let first = py_ext(
        &ext_dir(&env, "first"),
        "first",
        &[json!({"type":"subscribe","intercept":["tool_call"]})],
        "",
        r#"emit({"type": "event_intercept_response", "id": msg["id"], "modified_args": {"msg": msg["tool_args"]["msg"] + "+first"}})"#,
        "",
    );
    let second = py_ext(
        &ext_dir(&env, "second"),
        "second",
        &[json!({"type":"subscribe","intercept":["tool_call"]})],
        "",
        r#"emit({"type": "event_intercept_response", "id": msg["id"], "modified_args": {"msg": msg["tool_args"]["msg"] + "+second"}})"#,
        "",
    );
    let echo = py_ext(
        &ext_dir(&env, "echo"),
        "echo",
        &[echo_tool("echo")],
        ECHO_ARGS,
        "",
        "",
    );
    let (host, _ui) = start_host(&env, &[first, second, echo]).await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "t1",
        "echo",
        r#"{"msg":"orig"}"#,
    ));
    server.push(Script::anthropic_text("done"));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    let (_, events) = run(&mut a, "go").await;
    assert_eq!(
        last_results(&server)[0].2,
        r#"got {"msg": "orig+first+second"}"#
    );
    assert_eq!(
        of_type(&events, "tool_call")[0]["args"],
        json!({"msg":"orig"})
    );
    let original = a
        .transcript()
        .iter()
        .flat_map(|m| m.content.iter())
        .find_map(|p| match p {
            Part::ToolCall { args, .. } => Some(args.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(original, json!({"msg":"orig"}));
    // The second request replays the model's original arguments.
    let reqs = server.requests();
    assert!(reqs[1].raw_body.contains(r#""input":{"msg":"orig"}"#));
    host.shutdown().await;
}

#[tokio::test]
async fn h3_h4_h8_bare_reply_empty_block_reason_and_non_object_rewrite() {
    let env = TestEnv::new();
    let dir = py_ext(
        &ext_dir(&env, "picky"),
        "picky",
        &[json!({"type":"subscribe","intercept":["tool_call","turn_start","assistant_message"]})],
        "",
        r#"cmd = (msg.get("tool_args") or {}).get("command", "")
if "second" in cmd:
    emit({"type": "event_intercept_response", "id": msg["id"], "block": True})
elif "third" in cmd:
    emit({"type": "event_intercept_response", "id": msg["id"], "modified_args": [1, 2]})
else:
    emit({"type": "event_intercept_response", "id": msg["id"]})"#,
        "",
    );
    let (host, _ui) = start_host(&env, &[dir]).await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::reply(
        Format::Anthropic,
        vec![
            Block::tool_call("t1", "bash", r#"{"command":"echo first","timeout":5}"#),
            Block::tool_call("t2", "bash", r#"{"command":"echo second","timeout":5}"#),
            Block::tool_call("t3", "bash", r#"{"command":"echo third","timeout":5}"#),
        ],
    ));
    server.push(Script::anthropic_text("plain"));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    let (outcome, events) = run(&mut a, "go").await;
    assert!(
        matches!(outcome, PromptOutcome::Completed { ref final_text, .. } if final_text == "plain"),
        "H3: a bare assistant_message reply leaves the text alone: {outcome:?}"
    );
    let results = last_results(&server);
    assert_eq!(results[0], ("t1".into(), false, "first".into()), "H3");
    assert_eq!(
        results[1],
        (
            "t2".into(),
            true,
            "tool call refused by extension guard".into()
        ),
        "H4"
    );
    assert_eq!(results[2], ("t3".into(), false, "third".into()), "H8");
    // A blocked call never starts executing.
    let started: Vec<&str> = of_type(&events, "tool_execution_started")
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(started, vec!["t1", "t3"]);
    host.shutdown().await;
    let log = std::fs::read_to_string(env.home.join("logs/ext-picky.log")).unwrap_or_default();
    assert!(
        log.contains("modified_args must be a JSON object"),
        "H8 diagnostic in the extension's log: {log}"
    );
}

#[tokio::test]
async fn h12_h13_turn_start_contexts_join_in_load_order_and_are_bounded() {
    let env = TestEnv::new();
    let alpha = py_ext(
        &ext_dir(&env, "alpha"),
        "alpha",
        &[json!({"type":"subscribe","intercept":["turn_start"]})],
        "",
        r#"emit({"type": "event_intercept_response", "id": msg["id"], "context": "  a  "})"#,
        "",
    );
    let beta = py_ext(
        &ext_dir(&env, "beta"),
        "beta",
        &[json!({"type":"subscribe","intercept":["turn_start"]})],
        "",
        r#"emit({"type": "event_intercept_response", "id": msg["id"], "context": "b" if msg["step"] == 1 else "界" * 16384})"#,
        "",
    );
    let (host, _ui) = start_host(&env, &[alpha, beta]).await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "t1",
        "bash",
        r#"{"command":"true","timeout":5}"#,
    ));
    server.push(Script::anthropic_text("ok"));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    run(&mut a, "x").await;
    let reqs = server.requests();
    assert!(
        reqs[0]
            .raw_body
            .contains(r#"[Extension context]\n[alpha]\na\n\n[beta]\nb"#),
        "H12: {}",
        reqs[0].raw_body
    );
    let hidden = hidden_text(&reqs[1].body);
    let ctx = hidden
        .split_once("[Extension context]\n")
        .map(|(_, c)| c.trim_end_matches("\n</context>"))
        .unwrap();
    assert!(ctx.len() <= 16 * 1024, "H13: {} bytes", ctx.len());
    assert!(ctx.ends_with("\n[extension context truncated]"), "H13");
    assert!(ctx.starts_with("[alpha]\na\n\n[beta]\n界"));
    assert!(
        !reqs[1].raw_body.contains("[beta]\nb"),
        "step 1's context is not repeated"
    );
    host.shutdown().await;
}

/// The hidden context text block of a recorded Anthropic request.
fn hidden_text(body: &Value) -> String {
    let last = body["messages"].as_array().unwrap().last().unwrap();
    last["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .find(|t| t.starts_with("<context>"))
        .unwrap()
        .to_string()
}
