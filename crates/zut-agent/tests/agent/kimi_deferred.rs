//! Deferred tools on Kimi K3's OpenAI-compatible routes: the schema of a
//! tool activated by a tool result is loaded at that result's position in
//! Kimi's native format (a `system` message carrying `tools`); other models
//! get the complete active list on the next request (protocol.md §8.3).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};
use zut_test_support::TestEnv;

async fn two_requests(model: &str) -> Vec<Value> {
    let env = TestEnv::new();
    let dir = py_ext(
        &scratch(&env).join("loader"),
        "loader",
        &[
            json!({"type":"register_tool","name":"search_tools","description":"find more tools","schema":{"type":"object"}}),
            json!({"type":"register_tool","name":"lookup_weather","description":"weather by city","schema":{"type":"object","properties":{"city":{"type":"string"}}},"deferred":true}),
        ],
        r#"emit({"type": "tool_result", "id": msg["id"], "content": [{"type": "text", "text": "found lookup_weather"}], "activate_tools": ["lookup_weather"]})"#,
        "",
        "",
    );
    let (host, _ui) = start_host(&env, &[dir]).await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::openai_tool_call("c1", "search_tools", "{}"));
    server.push(Script::openai_text("ok"));
    let opts = zut_providers::ProviderOptions {
        provider: Some("moonshotai".into()),
        model: Some(model.into()),
        base_url: Some(server.openai_base_url()),
        api_key: Some("sk-test".into()),
        ..Default::default()
    };
    let cfg = zut_providers::resolve(&opts, &|_| None, &env.home).unwrap();
    let provider = zut_providers::Provider::new(cfg).unwrap();
    let config = zut_agent::AgentConfig::new(&env.project, &env.home);
    let mut a = zut_agent::Agent::new(provider, Some(host.clone()), config);
    run(&mut a, "weather in Paris?").await;
    host.shutdown().await;
    server.requests().into_iter().map(|r| r.body).collect()
}

#[tokio::test]
async fn kimi_k3_loads_the_schema_at_the_tool_result() {
    let bodies = two_requests("kimi-k3").await;
    assert_eq!(bodies.len(), 2);
    assert!(!offered_tools(&bodies[0]).contains(&"lookup_weather".to_string()));
    let top = offered_tools(&bodies[1]);
    assert!(top.contains(&"search_tools".to_string()), "{top:?}");
    assert!(!top.contains(&"lookup_weather".to_string()), "{top:?}");
    let messages = bodies[1]["messages"].as_array().unwrap();
    let tool_at = messages
        .iter()
        .position(|m| m["role"] == "tool" && m["tool_call_id"] == "c1")
        .unwrap();
    // The tool result, its hidden-context user text, then the loaded schema.
    let loaded = messages[tool_at + 1..]
        .iter()
        .find(|m| m.get("tools").is_some())
        .unwrap();
    assert_eq!(loaded["role"], "system");
    assert_eq!(
        loaded["tools"],
        json!([{"type": "function", "function": {"name": "lookup_weather",
            "description": "weather by city",
            "parameters": {"type":"object","properties":{"city":{"type":"string"}}}}}])
    );
}

#[tokio::test]
async fn other_models_get_the_complete_active_list() {
    let bodies = two_requests("kimi-k2.6").await;
    let top = offered_tools(&bodies[1]);
    assert!(top.contains(&"lookup_weather".to_string()), "{top:?}");
    let messages = bodies[1]["messages"].as_array().unwrap();
    assert!(messages.iter().all(|m| m.get("tools").is_none()));
}

/// A resumed session keeps the position of each activation.
#[tokio::test]
async fn a_resumed_session_loads_the_schema_where_it_was_activated() {
    let env = TestEnv::new();
    let dir = py_ext(
        &scratch(&env).join("loader"),
        "loader",
        &[
            json!({"type":"register_tool","name":"lookup_weather","description":"weather by city","schema":{"type":"object"},"deferred":true}),
        ],
        "",
        "",
        "",
    );
    let (host, _ui) = start_host(&env, &[dir]).await;
    let file = env.project.join("s.jsonl");
    std::fs::write(
        &file,
        [
            r#"{"type":"meta","meta":{"id":"k1","cwd":"/p","model":"kimi-k3","provider":"moonshotai","started":"2026-08-22T07:00:00Z","version":"0.9.1"}}"#,
            r#"{"type":"message","message":{"role":"user","content":[{"text":"weather?"}],"time":"2026-08-22T09:00:00Z"}}"#,
            r#"{"type":"message","message":{"role":"assistant","content":[{"id":"c7","name":"search_tools","arguments":{}}],"time":"2026-08-22T09:00:01Z"}}"#,
            r#"{"type":"message","message":{"role":"tool","content":[{"call_id":"c7","content":[{"text":"found"}],"is_error":false}],"time":"2026-08-22T09:00:02Z","added_tool_names":["lookup_weather"]}}"#,
            r#"{"type":"message","message":{"role":"assistant","content":[{"text":"ready"}],"time":"2026-08-22T09:00:03Z"}}"#,
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    let (w, snap) = zut_session::SessionWriter::open(&file).unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::openai_text("sunny"));
    let opts = zut_providers::ProviderOptions {
        provider: Some("moonshotai".into()),
        model: Some("kimi-k3".into()),
        base_url: Some(server.openai_base_url()),
        api_key: Some("sk-test".into()),
        ..Default::default()
    };
    let cfg = zut_providers::resolve(&opts, &|_| None, &env.home).unwrap();
    let provider = zut_providers::Provider::new(cfg).unwrap();
    let config = zut_agent::AgentConfig::new(&env.project, &env.home);
    let mut a = zut_agent::Agent::new(provider, Some(host.clone()), config);
    a.attach_session(w, Some(&snap));
    run(&mut a, "and in Paris?").await;
    host.shutdown().await;
    let body = server.requests()[0].body.clone();
    assert!(!offered_tools(&body).contains(&"lookup_weather".to_string()));
    let messages = body["messages"].as_array().unwrap();
    let tool_at = messages
        .iter()
        .position(|m| m["role"] == "tool" && m["tool_call_id"] == "c7")
        .unwrap();
    assert_eq!(messages[tool_at + 1]["role"], "system");
    assert_eq!(
        messages[tool_at + 1]["tools"][0]["function"]["name"],
        "lookup_weather"
    );
}
