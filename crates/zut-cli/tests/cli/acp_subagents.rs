//! Subagents in `zut acp` (docs/subagents.md): each child is a tool call
//! of its own (`subagent:<id>`) whose content follows what it does and
//! which ends `completed` with its final text. The real binary, a real ACP
//! client, the local LLM server answering parent and child differently.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    ContentBlock, InitializeRequest, NewSessionRequest, PromptRequest, SessionNotification,
    SessionUpdate, StopReason, TextContent, ToolCallStatus, ToolKind,
};
use agent_client_protocol::{AcpAgent, AcpAgentConfig, Client};
use common::*;
use serde_json::json;
use zut_llm_server::{LlmServer, Script};

const PARENT: &str = r#""name":"subagent""#;

#[tokio::test]
async fn a_child_is_a_tool_call_with_live_content() {
    let env = TestEnv::new();
    std::fs::write(env.project.join("notes.txt"), "the notes\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::anthropic_tool_call(
            "p1",
            "subagent",
            json!({"action": "spawn", "task": "CHILD-A: read notes.txt", "wait": 60}).to_string(),
        )
        .when(PARENT),
    );
    server.push(Script::anthropic_text("parent done").when(PARENT));
    server.push(
        Script::anthropic_tool_call("k1", "read", json!({"path": "notes.txt"}).to_string())
            .unless(PARENT)
            .when("CHILD-A"),
    );
    server.push(
        Script::anthropic_text("child finished")
            .unless(PARENT)
            .when("CHILD-A"),
    );
    let agent = AcpAgent::new(
        AcpAgentConfig::new(env!("CARGO_BIN_EXE_zut"))
            .args([
                "acp",
                "--no-ext",
                "--tools",
                "read,subagent",
                "--provider",
                "anthropic",
                "--base-url",
                &server.url(),
                "--api-key",
                "sk-acp",
                "--model",
                "test-model",
            ])
            .env("ZUT_HOME", env.home.display().to_string()),
    );
    let seen: Arc<Mutex<Vec<SessionUpdate>>> = Arc::default();
    let sink = seen.clone();
    let cwd = env.project.clone();
    let run = Client
        .v1()
        .on_receive_notification(
            async move |n: SessionNotification, _cx| {
                sink.lock().unwrap().push(n.update);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_with(agent, async move |cx| {
            cx.send_request(InitializeRequest::new(ProtocolVersion::V1))
                .block_task()
                .await?;
            let sid = cx
                .send_request(NewSessionRequest::new(cwd))
                .block_task()
                .await?
                .session_id;
            let r = cx
                .send_request(PromptRequest::new(
                    sid,
                    vec![ContentBlock::Text(TextContent::new("delegate"))],
                ))
                .block_task()
                .await?;
            assert_eq!(r.stop_reason, StopReason::EndTurn);
            Ok(())
        });
    tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("the ACP exchange timed out")
        .expect("the ACP exchange failed");
    let updates = seen.lock().unwrap().clone();

    let call = updates
        .iter()
        .find_map(|u| match u {
            SessionUpdate::ToolCall(c) if c.tool_call_id.0.starts_with("subagent:sa-1-") => {
                Some(c.clone())
            }
            _ => None,
        })
        .expect("the child's tool call");
    assert_eq!(call.kind, ToolKind::Think);
    assert!(
        call.title.contains("CHILD-A: read notes.txt"),
        "{}",
        call.title
    );
    let id = call.tool_call_id.clone();
    let mine: Vec<_> = updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::ToolCallUpdate(c) if c.tool_call_id == id => Some(c.clone()),
            _ => None,
        })
        .collect();
    let content = |c: &agent_client_protocol::v1::schema::ToolCallUpdate| {
        serde_json::to_string(&c.fields.content).unwrap()
    };
    assert!(
        mine.iter()
            .any(|c| content(c).contains("running read notes.txt")),
        "{mine:?}"
    );
    let last = mine.last().unwrap();
    assert_eq!(last.fields.status, Some(ToolCallStatus::Completed));
    assert!(content(last).contains("child finished"), "{last:?}");
    // The parent's own answer is the message.
    let text: String = updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::AgentMessageChunk(c) => match &c.content {
                ContentBlock::Text(t) => Some(t.text.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(text, "parent done");
}
