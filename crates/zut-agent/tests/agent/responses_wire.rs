//! The loop on the OpenAI Responses wire: a two-step tool loop, reasoning
//! carried across steps, and tool arguments that are not JSON.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use serde_json::{json, Value};
use zut_agent::PromptOutcome;
use zut_llm_server::{Block, Format, LlmServer, Script};
use zut_test_support::TestEnv;

fn input_of(body: &Value) -> Vec<Value> {
    body["input"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn two_step_tool_loop_with_reasoning_carried() {
    let env = TestEnv::new();
    std::fs::write(env.project.join("a.txt"), "alpha\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::reply(
            Format::Responses,
            vec![
                Block::thinking("I need the file.", "enc-1"),
                Block::tool_call("call_1", "read", r#"{"path":"a.txt"}"#),
            ],
        )
        .delta_bytes(4),
    );
    server.push(Script::responses_text("It says alpha."));
    let mut a = agent(&env, &server, "openai-responses", None);
    let (outcome, events) = run(&mut a, "what is in a.txt?").await;
    assert!(
        matches!(outcome, PromptOutcome::Completed { ref final_text, .. } if final_text == "It says alpha."),
        "{outcome:?}"
    );
    let results = of_type(&events, "tool_result");
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["is_error"], false, "{}", results[0]);

    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert!(reqs[0].path.ends_with("/responses"), "{}", reqs[0].path);
    let offered: Vec<&str> = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(offered.contains(&"read"), "{offered:?}");
    let input = input_of(&reqs[1].body);
    let kinds: Vec<&str> = input
        .iter()
        .map(|i| i["type"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        kinds,
        vec![
            "message",
            "reasoning",
            "function_call",
            "function_call_output",
            "message"
        ],
        "{input:#?}"
    );
    assert_eq!(input[1]["encrypted_content"], "enc-1");
    assert_eq!(input[1]["summary"][0]["text"], "I need the file.");
    assert_eq!(input[2]["call_id"], "call_1");
    assert_eq!(input[3]["call_id"], "call_1");
    assert!(
        input[3]["output"].as_str().unwrap().contains("alpha"),
        "{}",
        input[3]
    );
}

#[tokio::test]
async fn arguments_that_are_not_json_are_told_to_the_model() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::responses_tool_call("call_1", "read", r#"{"path": "a.t"#).delta_bytes(3));
    server.push(Script::responses_text("Sorry, retrying later."));
    let mut a = agent(&env, &server, "openai-responses", None);
    let (outcome, events) = run(&mut a, "read it").await;
    assert!(
        matches!(outcome, PromptOutcome::Completed { ref final_text, .. } if final_text == "Sorry, retrying later."),
        "{outcome:?}"
    );
    let results = of_type(&events, "tool_result");
    assert_eq!(results[0]["is_error"], true);
    assert!(
        of_type(&events, "tool_execution_started").is_empty(),
        "nothing ran"
    );
    let reqs = server.requests();
    let input = input_of(&reqs[1].body);
    let call = input.iter().find(|i| i["type"] == "function_call").unwrap();
    assert_eq!(call["arguments"], "{}", "sent back as an empty object");
    let output = input
        .iter()
        .find(|i| i["type"] == "function_call_output")
        .unwrap();
    let text = output["output"].as_str().unwrap();
    assert!(
        text.starts_with("Error: the arguments of this call to \"read\" are not valid JSON"),
        "{text}"
    );
    assert!(text.contains(r#"{"path": "a.t"#), "{text}");
    assert_eq!(json!(results.len()), json!(1));
}
