//! The agent loop over the Gemini and Bedrock wires: a real local LLM
//! server speaking each wire, zut's real built-in tools (whose schemas
//! must all be expressible to Gemini), a two-step tool loop.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use zut_agent::{Agent, AgentConfig, PromptOutcome};
use zut_llm_server::{Block, Format, LlmServer, Script};
use zut_providers::{Provider, ProviderOptions};
use zut_test_support::TestEnv;

fn cloud_agent(env: &TestEnv, server: &LlmServer, provider: &str, model: &str) -> Agent {
    let opts = ProviderOptions {
        provider: Some(provider.to_string()),
        model: Some(model.into()),
        base_url: Some(server.url()),
        api_key: Some("test-cloud-key".into()),
        ..Default::default()
    };
    let cfg = zut_providers::resolve(&opts, &|_| None, &env.home).unwrap();
    let cfg_agent = AgentConfig::new(&env.project, &env.home);
    Agent::new(Provider::new(cfg).unwrap(), None, cfg_agent)
}

async fn two_step_loop(
    provider: &str,
    model: &str,
    format: Format,
) -> Vec<zut_llm_server::RecordedRequest> {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::reply(
            format,
            vec![
                Block::thinking("write it first", "SIG-1"),
                Block::tool_call(
                    "t1",
                    "write",
                    r#"{"path":"notes/a.txt","content":"alpha\n"}"#,
                ),
            ],
        )
        .delta_bytes(7),
    );
    server.push(Script::reply(
        format,
        vec![Block::tool_call("t2", "read", r#"{"path":"notes/a.txt"}"#)],
    ));
    server.push(Script::reply(format, vec![Block::text("All done.")]));
    let mut agent = cloud_agent(&env, &server, provider, model);
    let (outcome, events) = run(&mut agent, "work").await;
    assert!(
        matches!(outcome, PromptOutcome::Completed { ref final_text, .. } if final_text == "All done."),
        "{provider}: {outcome:?}"
    );
    assert_eq!(
        std::fs::read_to_string(env.project.join("notes/a.txt")).unwrap(),
        "alpha\n"
    );
    let results = of_type(&events, "tool_result");
    assert_eq!(results.len(), 2, "{provider}");
    for r in &results {
        assert_eq!(r["is_error"], false, "{provider}: {r}");
    }
    server.requests()
}

#[tokio::test]
async fn gemini_two_step_tool_loop_with_every_builtin_schema() {
    let reqs = two_step_loop("google", "gemini-2.5-flash", Format::Gemini).await;
    assert_eq!(reqs.len(), 3);
    let decls = reqs[0].body["tools"][0]["functionDeclarations"]
        .as_array()
        .unwrap();
    assert!(
        decls.iter().any(|d| d["name"] == "bash"),
        "every built-in is declared"
    );
    let last = &reqs[2].body["contents"];
    let text = last.to_string();
    assert!(text.contains("\"thoughtSignature\":\"SIG-1\""), "{text}");
    let response = last
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["parts"].as_array().unwrap())
        .filter_map(|p| p.get("functionResponse"))
        .find(|r| r["name"] == "read")
        .expect("the read result goes back as a functionResponse");
    assert!(response["response"]["output"]
        .as_str()
        .unwrap()
        .contains("alpha"));
}

#[tokio::test]
async fn bedrock_two_step_tool_loop() {
    let reqs = two_step_loop(
        "amazon-bedrock",
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        Format::Bedrock,
    )
    .await;
    assert_eq!(reqs.len(), 3);
    assert_eq!(
        reqs[0].header("authorization"),
        Some("Bearer test-cloud-key")
    );
    let messages = reqs[2].body["messages"].as_array().unwrap();
    let text = serde_json::Value::Array(messages.clone()).to_string();
    assert!(text.contains("\"signature\":\"SIG-1\""), "{text}");
    let result = messages
        .iter()
        .flat_map(|m| m["content"].as_array().unwrap())
        .filter_map(|c| c.get("toolResult"))
        .find(|r| r["toolUseId"] == "t2")
        .expect("the read result goes back as a toolResult");
    assert!(result["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("alpha"));
}
