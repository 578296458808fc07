//! Compact-and-retry (issue 24): the local LLM server answers a request
//! with each wire's real context-length error body; zut compacts (a
//! summary request), retries the request once with the compacted
//! conversation, and the prompt completes. An overflow that persists after
//! compaction fails the prompt with a clear message and no third request.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use zut_agent::{Agent, AgentConfig, PromptOutcome};
use zut_llm_server::{Block, Format, LlmServer, Script};
use zut_providers::{Provider, ProviderOptions};
use zut_test_support::TestEnv;

/// An agent speaking `wire` to `server`.
fn wire_agent(env: &TestEnv, server: &LlmServer, wire: Format) -> Agent {
    let (provider, model, base) = match wire {
        Format::Anthropic => ("anthropic", "test-model", server.url()),
        Format::Openai => (
            "openai-compatible",
            "test-model",
            format!("{}/v1", server.url()),
        ),
        Format::Responses => (
            "openai-responses",
            "test-model",
            format!("{}/v1", server.url()),
        ),
        Format::Gemini => ("google", "gemini-2.5-flash", server.url()),
        Format::Bedrock => (
            "amazon-bedrock",
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            server.url(),
        ),
    };
    let opts = ProviderOptions {
        provider: Some(provider.to_string()),
        model: Some(model.into()),
        base_url: Some(base),
        api_key: Some("sk-test-secret".into()),
        ..Default::default()
    };
    let cfg = zut_providers::resolve(&opts, &|_| None, &env.home).unwrap();
    let mut agent_cfg = AgentConfig::new(&env.project, &env.home);
    agent_cfg.compaction.keep_tail = 2;
    Agent::new(Provider::new(cfg).unwrap(), None, agent_cfg)
}

/// Each wire's context-length error, as its provider sends it.
fn overflow(wire: Format) -> Script {
    match wire {
        Format::Anthropic => Script::json(
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}"#,
        ),
        Format::Openai => Script::json(
            400,
            r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
        ),
        Format::Responses => Script::json(
            400,
            r#"{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}"#,
        ),
        Format::Gemini => Script::gemini_error(
            400,
            400,
            "INVALID_ARGUMENT",
            "The input token count (1290443) exceeds the maximum number of tokens allowed (1048576).",
        ),
        Format::Bedrock => Script::bedrock_error(
            400,
            "ValidationException",
            "Input is too long for requested model.",
        ),
    }
}

fn text(wire: Format, t: &str) -> Script {
    Script::reply(wire, vec![Block::text(t)])
}

const WIRES: [Format; 5] = [
    Format::Anthropic,
    Format::Openai,
    Format::Responses,
    Format::Gemini,
    Format::Bedrock,
];

/// Two answered prompts, so that there is something to compact.
async fn history(a: &mut Agent, server: &LlmServer, wire: Format) {
    for (q, ans) in [
        ("alpha question", "alpha answer"),
        ("beta question", "beta answer"),
    ] {
        server.push(text(wire, ans));
        let (o, _) = run(a, q).await;
        assert!(matches!(o, PromptOutcome::Completed { .. }), "{o:?}");
    }
}

#[tokio::test]
async fn each_wire_compacts_and_retries_once() {
    for wire in WIRES {
        let env = TestEnv::new();
        let server = LlmServer::start().await.unwrap();
        let mut a = wire_agent(&env, &server, wire);
        history(&mut a, &server, wire).await;
        let before = server.request_count();
        server.push(overflow(wire));
        server.push(text(wire, "SUMMARY-OF-ALPHA"));
        server.push(text(wire, "gamma answer"));
        let (o, events) = run(&mut a, "gamma question").await;
        assert!(
            matches!(o, PromptOutcome::Completed { ref final_text, .. } if final_text == "gamma answer"),
            "{wire:?}: {o:?} {events:?}"
        );
        let t = types(&events);
        let rec = t.iter().position(|x| x == "context_recovery").unwrap();
        let done = t.iter().position(|x| x == "compact_done").unwrap();
        assert!(rec < done, "{wire:?}: {t:?}");
        let recovery = of_type(&events, "context_recovery")[0];
        assert_eq!(recovery["step"], 1);
        assert!(
            recovery["error"].as_str().unwrap().contains("HTTP 400"),
            "{wire:?}: {recovery}"
        );
        assert!(of_type(&events, "error").is_empty(), "{wire:?}: {t:?}");
        let reqs = server.requests_since(before);
        assert_eq!(reqs.len(), 3, "{wire:?}: overflow, summary, retry");
        // The summary request carries the old conversation; the retry
        // carries the summary and the new question, not the old exchange.
        assert!(reqs[1].raw_body.contains("alpha question"), "{wire:?}");
        assert!(reqs[2].raw_body.contains("SUMMARY-OF-ALPHA"), "{wire:?}");
        assert!(reqs[2].raw_body.contains("gamma question"), "{wire:?}");
        assert!(!reqs[2].raw_body.contains("alpha question"), "{wire:?}");
        assert_eq!(a.transcript().len(), 4, "{wire:?}: summary, tail, answer");
    }
}

#[tokio::test]
async fn an_in_stream_responses_failure_is_recovered_too() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let wire = Format::Responses;
    let mut a = wire_agent(&env, &server, wire);
    history(&mut a, &server, wire).await;
    server.push(Script::responses_failed(
        "context_length_exceeded",
        "Your input exceeds the context window of this model. Please adjust your input and try again.",
    ));
    server.push(text(wire, "SUMMARY"));
    server.push(text(wire, "gamma answer"));
    let (o, events) = run(&mut a, "gamma question").await;
    assert!(
        matches!(o, PromptOutcome::Completed { ref final_text, .. } if final_text == "gamma answer"),
        "{o:?} {events:?}"
    );
    assert_eq!(of_type(&events, "context_recovery").len(), 1);
}

#[tokio::test]
async fn an_overflow_that_persists_after_compaction_stops_without_a_loop() {
    for wire in WIRES {
        let env = TestEnv::new();
        let server = LlmServer::start().await.unwrap();
        let mut a = wire_agent(&env, &server, wire);
        history(&mut a, &server, wire).await;
        let before = server.request_count();
        server.push(overflow(wire));
        server.push(text(wire, "SUMMARY"));
        server.push(overflow(wire));
        // Would be used by a (wrong) further attempt.
        server.push(text(wire, "SUMMARY AGAIN"));
        server.push(text(wire, "never"));
        let (o, events) = run(&mut a, "gamma question").await;
        let PromptOutcome::Failed { message } = o else {
            panic!("{wire:?}: {o:?}");
        };
        assert!(
            message.contains("still too long for the model's context window after compaction"),
            "{wire:?}: {message}"
        );
        assert_eq!(server.requests_since(before).len(), 3, "{wire:?}");
        assert_eq!(of_type(&events, "context_recovery").len(), 1);
        let t = types(&events);
        assert_eq!(&t[t.len() - 2..], ["error", "done"], "{wire:?}: {t:?}");
        assert_eq!(server.pending(), 2, "{wire:?}");
    }
}

#[tokio::test]
async fn a_failed_compaction_stops_with_both_reasons() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let wire = Format::Anthropic;
    let mut a = wire_agent(&env, &server, wire);
    history(&mut a, &server, wire).await;
    server.push(overflow(wire));
    // The summary comes back empty: compaction fails.
    server.push(text(wire, ""));
    let (o, _) = run(&mut a, "gamma question").await;
    let PromptOutcome::Failed { message } = o else {
        panic!("{o:?}");
    };
    assert!(message.contains("prompt is too long"), "{message}");
    assert!(message.contains("compaction failed"), "{message}");
    // Nothing was lost: the transcript still holds the whole history.
    assert_eq!(a.transcript().len(), 5);
}

#[tokio::test]
async fn other_400s_are_not_retried() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let mut a = wire_agent(&env, &server, Format::Anthropic);
    server.push(Script::json(
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"tools.0: invalid schema"}}"#,
    ));
    let (o, events) = run(&mut a, "q").await;
    assert!(matches!(o, PromptOutcome::Failed { .. }), "{o:?}");
    assert!(of_type(&events, "context_recovery").is_empty());
    assert_eq!(server.request_count(), 1);
}

/// A scripted 200-turn session (every fourth turn uses a tool) whose
/// requests overflow the context window three times: every turn
/// completes, with no user action.
#[tokio::test]
async fn a_200_turn_session_survives_three_overflows() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.set_record(false);
    let wire = Format::Anthropic;
    let mut a = wire_agent(&env, &server, wire);
    let o = zut_session::open(
        &zut_session::Choice::New,
        &env.home,
        &env.project.display().to_string(),
        zut_session::NewSession::default(),
    )
    .unwrap();
    a.attach_session(o.writer, None);
    let overflow_at = [57, 118, 181];
    let mut recoveries = 0;
    let mut compactions = 0;
    for turn in 1..=200 {
        if overflow_at.contains(&turn) {
            server.push(overflow(wire));
            server.push(text(wire, &format!("SUMMARY at turn {turn}")));
        }
        if turn % 4 == 0 {
            server.push(Script::reply(
                wire,
                vec![Block::tool_call(
                    format!("c{turn}"),
                    "bash",
                    format!(r#"{{"command":"echo turn {turn}"}}"#),
                )],
            ));
        }
        server.push(text(wire, &format!("answer {turn}")));
        let (o, events) = run(&mut a, &format!("question {turn}")).await;
        assert!(
            matches!(o, PromptOutcome::Completed { ref final_text, .. } if *final_text == format!("answer {turn}")),
            "turn {turn}: {o:?}"
        );
        recoveries += of_type(&events, "context_recovery").len();
        compactions += of_type(&events, "compact_done").len();
    }
    assert_eq!(recoveries, 3);
    assert_eq!(compactions, 3);
    assert_eq!(server.pending(), 0);
    // The last compaction left its summary at the head of the transcript.
    let head = format!("{:?}", a.transcript()[0]);
    assert!(head.contains("SUMMARY at turn 181"), "{head}");
}
