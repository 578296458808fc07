//! Compaction through the local LLM server: the summary request, the
//! `compaction` row, the next request carrying the summary and not the
//! compacted messages, `session_compacted` (G8), failure leaving everything
//! as it was, and automatic compaction at a share of the context window.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use zut_agent::{Agent, AgentEvent};
use zut_llm_server::{LlmServer, Script};
use zut_session::{Choice, NewSession};
use zut_test_support::TestEnv;

fn attach_new(env: &TestEnv, a: &mut Agent) -> std::path::PathBuf {
    let o = zut_session::open(
        &Choice::New,
        &env.home,
        &env.project.display().to_string(),
        NewSession::default(),
    )
    .unwrap();
    let path = o.writer.path().to_path_buf();
    a.attach_session(o.writer, None);
    path
}

async fn compact(a: &mut Agent) -> (Result<String, String>, Vec<Value>) {
    let mut events = Vec::new();
    let mut sink =
        |ev: AgentEvent| events.push(serde_json::from_str::<Value>(&ev.to_json()).unwrap());
    let r = a.compact(None, &CancellationToken::new(), &mut sink).await;
    (r, events)
}

/// Three prompts (six messages); keep_tail 2 keeps the last exchange.
async fn three_prompts(a: &mut Agent, server: &LlmServer) {
    for (q, ans) in [
        ("alpha question", "alpha answer"),
        ("beta question", "beta answer"),
        ("gamma question", "gamma answer"),
    ] {
        server.push(Script::anthropic_text(ans));
        run(a, q).await;
    }
}

#[tokio::test]
async fn manual_compaction_summarises_persists_and_the_next_request_uses_it() {
    let env = TestEnv::new();
    let dir = scratch(&env).join("obs");
    let log = dir.join("events.jsonl");
    let ext = py_ext(
        &dir,
        "obs",
        &[json!({"type":"subscribe","events":["session_compacted"]})],
        "",
        "",
        &format!(
            "with open({:?}, 'a') as f:\n    f.write(json.dumps(msg) + '\\n')",
            log.display().to_string()
        ),
    );
    let (host, _ui) = start_host_with(&env, &[ext], |c| {
        c.persist_state = true;
        c.states.insert("obs".into(), json!({"kept": true}));
    })
    .await;
    let server = LlmServer::start().await.unwrap();
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    a.config_mut().compaction.keep_tail = 2;
    let path = attach_new(&env, &mut a);
    three_prompts(&mut a, &server).await;

    server.push(Script::anthropic_text(
        "SUMMARY: alpha and beta were discussed.",
    ));
    let (r, events) = compact(&mut a).await;
    assert_eq!(r.as_deref(), Ok("SUMMARY: alpha and beta were discussed."));
    let kinds = types(&events);
    assert_eq!(kinds.first().map(String::as_str), Some("request_started"));
    assert!(kinds.contains(&"text_delta".to_string()));
    assert_eq!(kinds.last().map(String::as_str), Some("compact_done"));
    assert!(!kinds.contains(&"done".to_string()));
    assert_eq!(
        events.last().unwrap()["summary"],
        "SUMMARY: alpha and beta were discussed."
    );

    // The summary request: the summarised part as text, no tools.
    let req = server.requests()[3].body.clone();
    let body = req.to_string();
    assert!(body.contains("alpha question") && body.contains("beta answer"));
    assert!(
        !body.contains("gamma question"),
        "the kept tail is not summarised"
    );
    assert!(req["tools"].as_array().is_none_or(|t| t.is_empty()));
    assert!(req["system"].to_string().contains("handoff summaries"));

    // The compaction row: summary message + the preserved tail.
    let snap = zut_session::read(&path).unwrap();
    assert_eq!(snap.compactions, 1);
    assert_eq!(snap.messages.len(), 3);
    let first = &snap.messages[0];
    assert_eq!(first.meta_value("compaction"), Some("true"));
    assert!(first.meta_value("tokens_before").is_some());
    assert!(first
        .first_text()
        .unwrap()
        .starts_with("## Context Summary (compacted)\n\nSUMMARY: alpha"));
    assert_eq!(snap.messages[1].first_text(), Some("gamma question"));

    // G8: session_compacted with the session and the subscriber's state.
    let mut ev: Vec<Value> = Vec::new();
    for _ in 0..100 {
        ev = std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        if !ev.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(30)).await;
    }
    assert_eq!(ev[0]["event"], "session_compacted");
    assert_eq!(ev[0]["session"]["id"], snap.meta.id);
    assert_eq!(ev[0]["state"], json!({"kept": true}));

    // The next request carries the summary, not the compacted messages.
    server.push(Script::anthropic_text("delta answer"));
    run(&mut a, "delta question").await;
    let next = server.requests()[4].raw_body.clone();
    assert!(next.contains("SUMMARY: alpha and beta"));
    assert!(next.contains("gamma question"));
    assert!(!next.contains("alpha question") && !next.contains("beta answer"));
    host.shutdown().await;
}

#[tokio::test]
async fn a_failed_summary_request_changes_nothing() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let mut a = agent(&env, &server, "anthropic", None);
    let path = attach_new(&env, &mut a);
    three_prompts(&mut a, &server).await;
    let before = std::fs::read(&path).unwrap();
    let transcript = a.transcript().to_vec();
    server.push(Script::status(400).message("context too long"));
    let (r, events) = compact(&mut a).await;
    let err = r.unwrap_err();
    assert!(
        err.contains("summary request failed") && err.contains("context too long"),
        "{err}"
    );
    assert_eq!(types(&events).last().map(String::as_str), Some("error"));
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(a.transcript(), &transcript[..]);
    // An empty conversation has nothing to compact.
    let mut empty = agent(&env, &server, "anthropic", None);
    let (r, _) = compact(&mut empty).await;
    assert!(r.unwrap_err().contains("nothing to compact"));
}

#[tokio::test]
async fn automatic_compaction_runs_before_a_request_that_would_not_fit() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let mut a = agent(&env, &server, "anthropic", None);
    a.config_mut().compaction.context_window = Some(2000);
    a.config_mut().compaction.keep_tail = 2;
    let path = attach_new(&env, &mut a);
    let long = "x".repeat(2500);
    for i in 0..2 {
        server.push(Script::anthropic_text(format!("answer {i} {long}")));
        run(&mut a, &format!("question {i}")).await;
    }
    // ~1,300 tokens < 1,600 (0.8 x 2,000): no compaction yet.
    assert_eq!(server.request_count(), 2);
    server.push(Script::anthropic_text("AUTO SUMMARY"));
    server.push(Script::anthropic_text("final"));
    let (_, events) = run(&mut a, &format!("question 2 {long}")).await;
    assert_eq!(server.request_count(), 4);
    let summary_req = server.requests()[2].raw_body.clone();
    assert!(summary_req.contains("question 0"));
    let main_req = server.requests()[3].raw_body.clone();
    assert!(main_req.contains("AUTO SUMMARY"));
    assert!(!main_req.contains("question 0"));
    let kinds = types(&events);
    assert!(kinds.contains(&"compact_done".to_string()));
    assert!(
        !events
            .iter()
            .any(|e| e["type"] == "text_delta" && e["delta"].to_string().contains("AUTO")),
        "the automatic summary is not part of the answer"
    );
    assert_eq!(zut_session::read(&path).unwrap().compactions, 1);
}
