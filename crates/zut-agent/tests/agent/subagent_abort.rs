//! Aborting the parent's prompt stops its children (a real agent against
//! the scripted local LLM server: the parent spawns a child whose request
//! hangs, then the parent's own next request hangs; the prompt is
//! cancelled).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use tokio_util::sync::CancellationToken;
use zut_agent::{Agent, AgentConfig, PromptOutcome};
use zut_llm_server::{LlmServer, Script};
use zut_providers::{Part, Provider, ProviderOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aborting_the_parent_stops_its_children() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let server = LlmServer::start().await.unwrap();
    let parent = r#""name":"subagent""#;
    server.push(
        Script::anthropic_tool_call(
            "c1",
            "subagent",
            r#"{"action":"spawn","task":"HANGING CHILD"}"#,
        )
        .when(parent),
    );
    server.push(Script::hang().when(parent));
    server.push(Script::hang().unless(parent));
    let opts = ProviderOptions {
        provider: Some("anthropic".into()),
        model: Some("m".into()),
        base_url: Some(server.url()),
        api_key: Some("k".into()),
        ..Default::default()
    };
    let config = zut_providers::resolve(&opts, &|_| None, &home).unwrap();
    let mut cfg = AgentConfig::new(&project, &home);
    cfg.builtin_tools = vec!["read".into(), "subagent".into()];
    let mut agent = Agent::new(Provider::new(config).unwrap(), None, cfg);
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    let server_ref = &server;
    let canceller = async move {
        // Both the child's and the parent's second request are in flight.
        for _ in 0..200 {
            if server_ref.request_count() >= 3 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        c2.cancel();
    };
    let mut sink = |_ev| {};
    let (outcome, ()) = tokio::join!(
        agent.prompt(vec![Part::Text { text: "go".into() }], &cancel, &mut sink),
        canceller
    );
    assert_eq!(outcome, PromptOutcome::Aborted);
    let rt = agent.subagents().expect("the tool was used").clone();
    let child = rt.children()[0].clone();
    assert!(child.wait_settled(Duration::from_secs(10)).await);
    assert_eq!(child.status().state.as_str(), "stopped");
}
