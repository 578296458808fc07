//! The repetition guard and the missing-answer recovery (issue 24) through
//! the local LLM server: a model that calls the same tool forever is
//! warned at 5 and stopped at 8; the same text likewise; off, it runs to
//! `--max-steps`; a reply with no answer after tools gets one recovery
//! request, and a second empty reply fails the prompt.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use zut_agent::{answer_recovery, PromptOutcome};
use zut_llm_server::{Block, Format, LlmServer, Script};
use zut_test_support::TestEnv;

fn last_texts(server: &LlmServer, i: usize) -> String {
    server.requests()[i].raw_body.clone()
}

#[tokio::test]
async fn the_same_tool_call_forever_is_warned_then_stopped() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let mut a = agent(&env, &server, "anthropic", None);
    server.push(Script::anthropic_tool_call(
        "t1",
        "bash",
        r#"{"command":"echo still-waiting"}"#,
    ));
    server.set_cycle(true);
    let (o, events) = run(&mut a, "wait for it").await;
    let PromptOutcome::Failed { message } = o else {
        panic!("{o:?}");
    };
    assert!(
        message.contains("repetitive loop: tool \"bash\" repeated 8 times"),
        "{message}"
    );
    assert_eq!(server.request_count(), 8);
    let guard = of_type(&events, "repetition_guard");
    assert_eq!(guard.len(), 2, "{guard:?}");
    assert_eq!(guard[0]["stage"], "warning");
    assert_eq!(guard[0]["kind"], "tool_call_result");
    assert_eq!(guard[0]["count"], 5);
    assert_eq!(guard[1]["stage"], "stopped");
    // The model was told, with the fifth result (request 6).
    assert!(!last_texts(&server, 4).contains("stuck repeating"));
    assert!(last_texts(&server, 5).contains("You appear to be stuck repeating tool"));
    let t = types(&events);
    assert_eq!(&t[t.len() - 2..], ["error", "done"]);
    // Every call has its result: the conversation stays valid.
    let last = a.transcript().last().unwrap();
    assert!(matches!(
        last.content.first(),
        Some(zut_providers::Part::ToolResult { .. })
    ));
}

#[tokio::test]
async fn without_the_guard_it_runs_to_max_steps() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let mut a = agent(&env, &server, "anthropic", None);
    a.config_mut().long_session.repetition_guard = false;
    a.config_mut().max_steps = 12;
    server.push(Script::anthropic_tool_call(
        "t1",
        "bash",
        r#"{"command":"echo still-waiting"}"#,
    ));
    server.set_cycle(true);
    let (o, events) = run(&mut a, "wait for it").await;
    let PromptOutcome::Failed { message } = o else {
        panic!("{o:?}");
    };
    assert!(message.contains("--max-steps"), "{message}");
    assert_eq!(server.request_count(), 12);
    assert!(of_type(&events, "repetition_guard").is_empty());
}

#[tokio::test]
async fn the_same_text_with_varying_calls_is_caught_too() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let mut a = agent(&env, &server, "anthropic", None);
    for i in 0..10 {
        server.push(Script::reply(
            Format::Anthropic,
            vec![
                Block::text("Let me check that again."),
                Block::tool_call(
                    format!("t{i}"),
                    "bash",
                    format!(r#"{{"command":"echo {i}"}}"#),
                ),
            ],
        ));
    }
    let (o, events) = run(&mut a, "check").await;
    let PromptOutcome::Failed { message } = o else {
        panic!("{o:?}");
    };
    assert!(
        message.contains("identical assistant message repeated 8 times"),
        "{message}"
    );
    let guard = of_type(&events, "repetition_guard");
    assert_eq!(guard[0]["kind"], "assistant_message");
    assert!(last_texts(&server, 5).contains("You appear to be stuck in a loop"));
}

#[tokio::test]
async fn a_reply_without_an_answer_after_tools_gets_one_recovery_request() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let mut a = agent(&env, &server, "anthropic", None);
    server.push(Script::anthropic_tool_call(
        "t1",
        "bash",
        r#"{"command":"echo 42"}"#,
    ));
    server.push(Script::reply(
        Format::Anthropic,
        vec![Block::thinking("done, I think", "SIG")],
    ));
    server.push(Script::anthropic_text("The answer is 42."));
    let (o, events) = run(&mut a, "what is it?").await;
    assert!(
        matches!(o, PromptOutcome::Completed { ref final_text, .. } if final_text == "The answer is 42."),
        "{o:?}"
    );
    let rec = of_type(&events, "turn_recovery");
    assert_eq!(rec.len(), 1);
    assert_eq!(rec[0]["reason"], "missing_answer");
    assert_eq!(rec[0]["attempt"], 1);
    assert_eq!(server.request_count(), 3);
    assert!(last_texts(&server, 2).contains("The request ended without a final answer."));
    assert!(!last_texts(&server, 1).contains("The request ended without a final answer."));
}

#[tokio::test]
async fn a_second_empty_reply_fails_the_prompt() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let mut a = agent(&env, &server, "anthropic", None);
    server.push(Script::anthropic_tool_call(
        "t1",
        "bash",
        r#"{"command":"echo 42"}"#,
    ));
    server.push(Script::anthropic_text(""));
    server.push(Script::anthropic_text("  "));
    server.push(Script::anthropic_text("never asked"));
    let (o, events) = run(&mut a, "what is it?").await;
    let PromptOutcome::Failed { message } = o else {
        panic!("{o:?}");
    };
    assert_eq!(message, answer_recovery::NO_ANSWER);
    assert_eq!(server.request_count(), 3);
    assert_eq!(of_type(&events, "turn_recovery").len(), 1);
    assert_eq!(server.pending(), 1);
}

#[tokio::test]
async fn an_empty_reply_without_tools_is_left_alone() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let mut a = agent(&env, &server, "anthropic", None);
    server.push(Script::anthropic_text(""));
    let (o, events) = run(&mut a, "say nothing").await;
    assert!(matches!(o, PromptOutcome::Completed { .. }), "{o:?}");
    assert!(of_type(&events, "turn_recovery").is_empty());
    assert_eq!(server.request_count(), 1);
}
