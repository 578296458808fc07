//! Interactive tool approval (`--no-yolo`) and reasoning events, against the
//! local LLM server and a real Python extension subscribed to
//! `tool_call` and `tool_confirmation_requested` (conformance G5).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::*;
use serde_json::{json, Value};
use zut_agent::approval::{ApprovalDecision, NO_PROMPT_REFUSAL};
use zut_agent::controller::JobOutcome;
use zut_agent::{
    AgentEvent, ApprovalHook, Controller, ControllerEvent, EventStream, PromptOutcome,
};
use zut_llm_server::{Block, Format, LlmServer, Script};
use zut_providers::Part;
use zut_test_support::TestEnv;

fn text(s: &str) -> Vec<Part> {
    vec![Part::Text { text: s.into() }]
}

/// An extension that appends every event it gets to `log` (one JSON line
/// each) and, with `rewrite`, rewrites bash commands to `echo rewritten`.
fn recorder(env: &TestEnv, log: &Path, rewrite: bool) -> PathBuf {
    let intercept = if rewrite {
        r#"args = msg.get("tool_args") or {}
if msg.get("tool_name") == "bash":
    args["command"] = "echo rewritten"
emit({"type": "event_intercept_response", "id": msg["id"], "modified_args": args})"#
    } else {
        ""
    };
    let subscribe = if rewrite {
        json!({"type":"subscribe","events":["tool_call","tool_confirmation_requested"],"intercept":["tool_call"]})
    } else {
        json!({"type":"subscribe","events":["tool_call","tool_confirmation_requested"]})
    };
    py_ext(
        &scratch(env).join("recorder"),
        "recorder",
        &[subscribe],
        "",
        intercept,
        &format!(
            "with open({:?}, 'a') as f:\n    f.write(json.dumps(msg) + '\\n')",
            log.display().to_string()
        ),
    )
}

/// The events recorded so far, waiting until at least `n` arrived.
async fn recorded(log: &Path, n: usize) -> Vec<Value> {
    for _ in 0..500 {
        let lines: Vec<Value> = std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        if lines.len() >= n {
            return lines;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("fewer than {n} events recorded in {}", log.display());
}

fn named<'a>(evs: &'a [Value], name: &str) -> Vec<&'a Value> {
    evs.iter().filter(|e| e["event"] == name).collect()
}

fn bash(id: &str, command: &str) -> Script {
    Script::anthropic_tool_call(
        id,
        "bash",
        json!({"command": command, "timeout": 10}).to_string(),
    )
}

/// The next approval request in the stream (events before it are dropped).
async fn next_request(stream: &mut EventStream) -> (u64, String, String, String) {
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("no approval request")
            .expect("stream ended");
        if let ControllerEvent::Agent(AgentEvent::ToolApprovalRequested {
            request_id,
            id,
            name,
            preview,
            ..
        }) = ev
        {
            return (request_id, id, name, preview);
        }
    }
}

/// Every stream item up to the end of the next job.
async fn rest_of_job(stream: &mut EventStream) -> Vec<ControllerEvent> {
    let mut out = Vec::new();
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("stream stalled")
            .expect("stream ended");
        let end = matches!(ev, ControllerEvent::JobFinished { .. });
        out.push(ev);
        if end {
            return out;
        }
    }
}

fn approval_requests(evs: &[ControllerEvent]) -> usize {
    evs.iter()
        .filter(|e| {
            matches!(
                e,
                ControllerEvent::Agent(AgentEvent::ToolApprovalRequested { .. })
            )
        })
        .count()
}

fn confirming_agent(
    env: &TestEnv,
    server: &LlmServer,
    host: Option<std::sync::Arc<zut_ext_host::ExtensionHost>>,
) -> zut_agent::Agent {
    let mut a = agent(env, server, "anthropic", host);
    a.config_mut().confirm_tools = true;
    a
}

#[tokio::test]
async fn once_then_always_this_tool_then_no_more_requests() {
    let env = TestEnv::new();
    let log = scratch(&env).join("events.jsonl");
    let ext = recorder(&env, &log, true);
    let (host, _ui) = start_host(&env, &[ext]).await;
    let server = LlmServer::start().await.unwrap();
    server.push(bash("t1", "echo one"));
    server.push(bash("t2", "echo two"));
    server.push(bash("t3", "echo three"));
    server.push(Script::anthropic_text("done"));
    let (c, mut stream) =
        Controller::new(confirming_agent(&env, &server, Some(host.clone())), None);
    let job = c.prompt(text("run things"), None);

    // First call: the preview comes from the interceptor's rewrite.
    let (rid, id, name, preview) = next_request(&mut stream).await;
    assert_eq!((id.as_str(), name.as_str()), ("t1", "bash"));
    assert_eq!(preview, "echo rewritten");
    let pending = c.pending_approvals();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].id, rid);
    assert_eq!(pending[0].args["command"], "echo rewritten");
    // The subscriber heard of it before the answer: tool_call, then the
    // confirmation request with the effective arguments' preview.
    let evs = recorded(&log, 2).await;
    assert_eq!(evs[0]["event"], "tool_call");
    assert_eq!(evs[0]["tool_args"]["command"], "echo one");
    assert_eq!(evs[1]["event"], "tool_confirmation_requested");
    assert_eq!(evs[1]["tool_id"], "t1");
    assert_eq!(evs[1]["tool_name"], "bash");
    assert_eq!(evs[1]["tool_preview"], "echo rewritten");
    assert!(c.state().busy);
    assert!(c.answer_approval(rid, ApprovalDecision::Once));
    // Answering twice finds nothing.
    assert!(!c.answer_approval(rid, ApprovalDecision::Once));

    // "Once" is not remembered: the second call asks again.
    let (rid, id, ..) = next_request(&mut stream).await;
    assert_eq!(id, "t2");
    assert!(c.answer_approval(rid, ApprovalDecision::AlwaysTool));

    // The third bash call runs without a request.
    let rest = rest_of_job(&mut stream).await;
    assert_eq!(approval_requests(&rest), 0);
    let JobOutcome::Prompt(PromptOutcome::Completed { .. }) = job.outcome().await else {
        panic!("prompt did not complete");
    };
    let results = anthropic_tool_results(&server.requests()[3].body);
    assert_eq!(results.len(), 3);
    for (_, is_error, out) in &results {
        assert!(!is_error, "{results:?}");
        assert_eq!(out.trim(), "rewritten");
    }
    let evs = recorded(&log, 5).await;
    assert_eq!(named(&evs, "tool_call").len(), 3);
    assert_eq!(named(&evs, "tool_confirmation_requested").len(), 2);
    c.shutdown().await;
    host.shutdown().await;
}

#[tokio::test]
async fn refusal_reaches_the_model_and_always_all_covers_every_tool() {
    let env = TestEnv::new();
    std::fs::write(env.project.join("a.txt"), "alpha\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(bash("t1", "touch refused-default"));
    server.push(bash("t2", "touch refused-reason"));
    server.push(Script::anthropic_tool_call(
        "t3",
        "read",
        json!({"path": "a.txt"}).to_string(),
    ));
    server.push(bash("t4", "echo after"));
    server.push(Script::anthropic_text("ok"));
    let (c, mut stream) = Controller::new(confirming_agent(&env, &server, None), None);
    let job = c.prompt(text("go"), None);
    let (rid, ..) = next_request(&mut stream).await;
    assert!(c.answer_approval(rid, ApprovalDecision::refuse()));
    let (rid, ..) = next_request(&mut stream).await;
    assert!(c.answer_approval(
        rid,
        ApprovalDecision::Refuse {
            reason: Some("not in this repo".into())
        }
    ));
    // Read-only tools ask too (as in the Go original).
    let (rid, _, name, preview) = next_request(&mut stream).await;
    assert_eq!((name.as_str(), preview.as_str()), ("read", "a.txt"));
    assert!(c.answer_approval(rid, ApprovalDecision::AlwaysAll));
    let rest = rest_of_job(&mut stream).await;
    assert_eq!(approval_requests(&rest), 0, "bash after \"always\"");
    assert!(matches!(
        job.outcome().await,
        JobOutcome::Prompt(PromptOutcome::Completed { .. })
    ));
    let results = anthropic_tool_results(&server.requests()[4].body);
    assert!(results[0].1);
    assert_eq!(results[0].2, "tool call refused by user");
    assert_eq!(results[1].2, "not in this repo");
    assert!(!env.project.join("refused-default").exists());
    assert!(!env.project.join("refused-reason").exists());
    assert!(results[2].2.contains("alpha"), "{results:?}");
    assert_eq!(results[3].2.trim(), "after");

    // "Always" lasts for the conversation, until reset.
    server.push(bash("t5", "echo again"));
    server.push(Script::anthropic_text("ok"));
    c.prompt(text("again"), None);
    assert_eq!(approval_requests(&rest_of_job(&mut stream).await), 0);
    c.reset_approvals();
    server.push(bash("t6", "echo asked"));
    server.push(Script::anthropic_text("ok"));
    c.prompt(text("once more"), None);
    let (rid, id, ..) = next_request(&mut stream).await;
    assert_eq!(id, "t6");
    assert!(c.answer_approval(rid, ApprovalDecision::Once));
    rest_of_job(&mut stream).await;
    c.shutdown().await;
}

#[tokio::test]
async fn abort_while_waiting_ends_the_prompt_cleanly() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(bash("t1", "touch never"));
    let (c, mut stream) = Controller::new(confirming_agent(&env, &server, None), None);
    let job = c.prompt(text("go"), None);
    let (rid, ..) = next_request(&mut stream).await;
    assert!(c.abort());
    let rest = rest_of_job(&mut stream).await;
    assert!(matches!(
        job.outcome().await,
        JobOutcome::Prompt(PromptOutcome::Aborted)
    ));
    let result = rest.iter().find_map(|e| match e {
        ControllerEvent::Agent(AgentEvent::ToolResult {
            is_error, content, ..
        }) => Some((*is_error, serde_json::to_string(content).unwrap())),
        _ => None,
    });
    let (is_error, content) = result.expect("no tool_result");
    assert!(is_error);
    assert!(content.contains("aborted"), "{content}");
    assert!(!env.project.join("never").exists());
    // The request is gone with its job.
    assert!(!c.answer_approval(rid, ApprovalDecision::Once));
    assert!(c.pending_approvals().is_empty());
    // The conversation goes on.
    server.push(Script::anthropic_text("still here"));
    let job = c.prompt(text("next"), None);
    rest_of_job(&mut stream).await;
    assert!(matches!(
        job.outcome().await,
        JobOutcome::Prompt(PromptOutcome::Completed { .. })
    ));
    c.shutdown().await;
}

#[tokio::test]
async fn yolo_emits_nothing_and_no_hook_refuses() {
    let env = TestEnv::new();
    let log = scratch(&env).join("events.jsonl");
    let ext = recorder(&env, &log, false);
    let (host, _ui) = start_host(&env, &[ext]).await;
    let server = LlmServer::start().await.unwrap();
    // Yolo (the default): the call runs, no request anywhere.
    server.push(bash("t1", "echo yolo"));
    server.push(Script::anthropic_text("ok"));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    let (_, events) = run(&mut a, "go").await;
    assert!(of_type(&events, "tool_approval_requested").is_empty());
    assert_eq!(
        anthropic_tool_results(&server.requests()[1].body)[0]
            .2
            .trim(),
        "yolo"
    );
    // Approvals on but nothing to answer them: refused with a clear text.
    a.config_mut().confirm_tools = true;
    server.push(bash("t2", "touch nobody"));
    server.push(Script::anthropic_text("ok"));
    let (_, events) = run(&mut a, "go").await;
    assert!(of_type(&events, "tool_approval_requested").is_empty());
    let r = anthropic_tool_results(&server.requests()[3].body);
    assert_eq!(r.last().unwrap().2, NO_PROMPT_REFUSAL);
    assert!(!env.project.join("nobody").exists());
    // A hook that drops the request refuses the call too.
    a.set_approval_hook(Some(ApprovalHook::new(|_pending| {})));
    server.push(bash("t3", "touch dropped"));
    server.push(Script::anthropic_text("ok"));
    let (_, events) = run(&mut a, "go").await;
    assert_eq!(of_type(&events, "tool_approval_requested").len(), 1);
    assert!(!env.project.join("dropped").exists());
    let evs = recorded(&log, 4).await;
    assert_eq!(named(&evs, "tool_call").len(), 3);
    // Only the call that really waited was announced as a confirmation.
    assert_eq!(named(&evs, "tool_confirmation_requested").len(), 1);
    assert_eq!(
        named(&evs, "tool_confirmation_requested")[0]["tool_id"],
        "t3"
    );
    host.shutdown().await;
}

#[tokio::test]
async fn reasoning_deltas_only_when_asked_for() {
    for format in [Format::Anthropic, Format::Openai, Format::Responses] {
        let env = TestEnv::new();
        let server = LlmServer::start().await.unwrap();
        let reply = || {
            let mut s = Script::reply(
                format,
                vec![
                    Block::thinking("let me think", "sig"),
                    Block::text("answer"),
                ],
            );
            s.delta_bytes = Some(4);
            s
        };
        server.push(reply());
        server.push(reply());
        let kind = match format {
            Format::Anthropic => "anthropic",
            Format::Openai => "openai-compatible",
            Format::Responses => "openai-responses",
            other => panic!("not exercised here: {other:?}"),
        };
        let mut a = agent(&env, &server, kind, None);
        // Off by default: the JSON event stream has no reasoning.
        let (_, events) = run(&mut a, "q").await;
        assert!(of_type(&events, "reasoning_delta").is_empty());
        a.config_mut().reasoning_events = true;
        let (_, events) = run(&mut a, "q").await;
        let thought: String = of_type(&events, "reasoning_delta")
            .iter()
            .map(|e| e["delta"].as_str().unwrap())
            .collect();
        assert_eq!(thought, "let me think", "{format:?}");
        let t = types(&events);
        let first_reasoning = t.iter().position(|x| x == "reasoning_delta").unwrap();
        let first_text = t.iter().position(|x| x == "text_delta").unwrap();
        assert!(first_reasoning < first_text);
    }
}

#[tokio::test]
async fn approvals_can_be_switched_on_and_off_between_jobs() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    // Starts in yolo mode: no request.
    let (c, mut stream) = Controller::new(agent(&env, &server, "anthropic", None), None);
    server.push(bash("t1", "echo yolo"));
    server.push(Script::anthropic_text("ok"));
    c.prompt(text("a"), None);
    assert_eq!(approval_requests(&rest_of_job(&mut stream).await), 0);
    // On: the next call asks.
    c.set_confirm_tools(true);
    server.push(bash("t2", "echo asked"));
    server.push(Script::anthropic_text("ok"));
    c.prompt(text("b"), None);
    let (rid, id, ..) = next_request(&mut stream).await;
    assert_eq!(id, "t2");
    assert!(c.answer_approval(rid, ApprovalDecision::Once));
    rest_of_job(&mut stream).await;
    // Off again: yolo.
    c.set_confirm_tools(false);
    server.push(bash("t3", "echo yolo again"));
    server.push(Script::anthropic_text("ok"));
    c.prompt(text("c"), None);
    assert_eq!(approval_requests(&rest_of_job(&mut stream).await), 0);
    c.shutdown().await;
}

/// The request's `detail` (the diff a mutating built-in call would make),
/// or `None`.
async fn next_detail(stream: &mut EventStream) -> (u64, String, Option<String>) {
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(20), stream.next())
            .await
            .expect("no approval request")
            .expect("stream ended");
        if let ControllerEvent::Agent(AgentEvent::ToolApprovalRequested {
            request_id,
            name,
            detail,
            ..
        }) = ev
        {
            return (request_id, name, detail);
        }
    }
}

#[tokio::test]
async fn edit_and_ast_rewrite_show_their_diff_before_anything_is_written() {
    let env = TestEnv::new();
    let file = env.project.join("m.py");
    std::fs::write(&file, "x = old_fn(1)\ny = old_fn(2)\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "e1",
        "edit",
        json!({"path": "m.py", "edits": [{"oldText": "x = old_fn(1)", "newText": "x = mid_fn(1)"}]})
            .to_string(),
    ));
    server.push(Script::anthropic_tool_call(
        "a1",
        "ast",
        json!({"pattern": "old_fn($A)", "rewrite": "new_fn($A)", "language": "python", "path": "."})
            .to_string(),
    ));
    server.push(bash("b1", "echo plain"));
    server.push(Script::anthropic_text("done"));
    let (c, mut stream) = Controller::new(confirming_agent(&env, &server, None), None);
    let job = c.prompt(text("go"), None);

    let (rid, name, detail) = next_detail(&mut stream).await;
    assert_eq!(name, "edit");
    let d = detail.expect("an edit's diff");
    assert!(
        d.contains("-x = old_fn(1)") && d.contains("+x = mid_fn(1)"),
        "{d}"
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "x = old_fn(1)\ny = old_fn(2)\n",
        "nothing written before the answer"
    );
    assert_eq!(c.pending_approvals()[0].detail.as_deref(), Some(d.as_str()));
    assert!(c.answer_approval(rid, ApprovalDecision::Once));

    // The rewrite is planned on the file as the edit left it.
    let (rid, name, detail) = next_detail(&mut stream).await;
    assert_eq!(name, "ast");
    let d = detail.expect("a rewrite's diff");
    assert!(d.starts_with("Would rewrite 1 match in 1 file."), "{d}");
    assert!(
        d.contains("-y = old_fn(2)") && d.contains("+y = new_fn(2)"),
        "{d}"
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "x = mid_fn(1)\ny = old_fn(2)\n"
    );
    assert!(c.answer_approval(rid, ApprovalDecision::Once));

    // Tools without a preview carry none.
    let (rid, name, detail) = next_detail(&mut stream).await;
    assert_eq!((name.as_str(), detail), ("bash", None));
    assert!(c.answer_approval(rid, ApprovalDecision::Once));
    let JobOutcome::Prompt(PromptOutcome::Completed { .. }) = job.outcome().await else {
        panic!("prompt did not complete");
    };
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "x = mid_fn(1)\ny = new_fn(2)\n"
    );
    c.shutdown().await;
}
