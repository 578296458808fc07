//! MCP elicitation through `zut acp`: a client that declares
//! `elicitation.form` gets the MCP server's request for input as ACP
//! `elicitation/create` and its answer reaches the server's tool; a client
//! that does not is never asked, and the server is told nobody can answer.
//! The server is the official Python SDK one
//! (`zut-mcp/tests/fixtures/fastmcp_server.py`, tool `book`), passed in
//! `session/new`. URL mode (`pay`) reaches a client that declares
//! `elicitation.url`, and a request the server sends while no prompt runs
//! (`remind_later`) reaches the client at once; the server saying a URL
//! flow finished (`pay_done`) reaches it as `elicitation/complete`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    ClientCapabilities, ContentBlock, CreateElicitationRequest, CreateElicitationResponse,
    ElicitationAcceptAction, ElicitationAction, ElicitationCapabilities,
    ElicitationFormCapabilities, ElicitationMode, ElicitationUrlCapabilities, InitializeRequest,
    McpServer, McpServerStdio, NewSessionRequest, PromptRequest, StopReason, TextContent,
};
use agent_client_protocol::{AcpAgent, AcpAgentConfig, Client};
use common::*;
use zut_llm_server::{LlmServer, Script};

fn zut_acp(env: &TestEnv, server: &LlmServer) -> AcpAgent {
    AcpAgent::new(
        AcpAgentConfig::new(env!("CARGO_BIN_EXE_zut"))
            .args(["acp", "--no-ext"])
            .args([
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
    )
}

fn have_python_mcp() -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import mcp.server, pydantic"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "the Python `mcp` package is required under CI"
        );
        eprintln!("skipped: the Python `mcp` package is not installed");
    }
    ok
}

/// Runs one prompt whose model calls `mcp__py__book`; the client declares
/// form elicitation when `forms`, answering with `name` and `guests`.
/// Returns what the client was asked and the second model request's body.
async fn book(forms: bool) -> (Vec<(String, String)>, String) {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "c1",
        "mcp__py__book",
        r#"{"day":"monday"}"#,
    ));
    server.push(Script::anthropic_text("Done."));
    let cwd = env.project.clone();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../zut-mcp/tests/fixtures/fastmcp_server.py");
    let asked: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
    let log = asked.clone();
    let run = Client
        .v1()
        .on_receive_request(
            async move |req: CreateElicitationRequest, responder, _cx| {
                let schema = match &req.mode {
                    ElicitationMode::Form(f) => serde_json::to_string(&f.requested_schema).unwrap(),
                    _ => String::new(),
                };
                log.lock().unwrap().push((req.message.clone(), schema));
                let content: BTreeMap<_, _> = [
                    ("name".to_string(), "Ada".into()),
                    ("guests".to_string(), 4i64.into()),
                ]
                .into();
                responder.respond(CreateElicitationResponse::new(ElicitationAction::Accept(
                    ElicitationAcceptAction::new().content(content),
                )))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_with(zut_acp(&env, &server), async move |cx| {
            let mut caps = ClientCapabilities::new();
            if forms {
                caps = caps.elicitation(
                    ElicitationCapabilities::new().form(ElicitationFormCapabilities::new()),
                );
            }
            cx.send_request(InitializeRequest::new(ProtocolVersion::V1).client_capabilities(caps))
                .block_task()
                .await?;
            let servers = vec![McpServer::Stdio(
                McpServerStdio::new("py", "python3").args(vec![script.display().to_string()]),
            )];
            let sid = cx
                .send_request(NewSessionRequest::new(cwd).mcp_servers(servers))
                .block_task()
                .await?
                .session_id;
            let r = cx
                .send_request(PromptRequest::new(
                    sid,
                    vec![ContentBlock::Text(TextContent::new("book monday"))],
                ))
                .block_task()
                .await?;
            assert_eq!(r.stop_reason, StopReason::EndTurn);
            Ok(())
        });
    tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the ACP exchange timed out")
        .expect("the ACP exchange failed");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let body = reqs[1].raw_body.clone();
    let asked = asked.lock().unwrap().clone();
    (asked, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_with_forms_is_asked_and_the_answer_reaches_the_tool() {
    if !have_python_mcp() {
        return;
    }
    let (asked, body) = book(true).await;
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].0, "Book a table on monday?");
    assert!(asked[0].1.contains("\"guests\""), "{}", asked[0].1);
    assert!(
        body.contains("booked for Ada, 4 guests, vegetarian=False"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_forms_is_never_asked() {
    if !have_python_mcp() {
        return;
    }
    let (asked, body) = book(false).await;
    assert!(asked.is_empty(), "{asked:?}");
    assert!(body.contains("not booked"), "{body}");
}

/// One URL-mode request the client saw: message, URL, whether the prompt
/// had already returned.
type UrlAsk = (String, String, bool);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn url_requests_reach_the_client_also_between_prompts() {
    if !have_python_mcp() {
        return;
    }
    let env = TestEnv::new();
    let later = env.home.join("later.txt");
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "c1",
        "mcp__py__pay",
        r#"{"amount":12}"#,
    ));
    server.push(Script::anthropic_tool_call(
        "c2",
        "mcp__py__remind_later",
        serde_json::json!({"path": later.display().to_string()}).to_string(),
    ));
    server.push(Script::anthropic_text("Done."));
    let cwd = env.project.clone();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../zut-mcp/tests/fixtures/fastmcp_server.py");
    let asked: Arc<Mutex<Vec<UrlAsk>>> = Arc::default();
    let turn_over = Arc::new(AtomicBool::new(false));
    let (log, over) = (asked.clone(), turn_over.clone());
    let later2 = later.clone();
    let run = Client
        .v1()
        .on_receive_request(
            async move |req: CreateElicitationRequest, responder, _cx| {
                let ElicitationMode::Url(u) = &req.mode else {
                    return responder
                        .respond(CreateElicitationResponse::new(ElicitationAction::Cancel));
                };
                let done = over.load(Ordering::SeqCst);
                log.lock()
                    .unwrap()
                    .push((req.message.clone(), u.url.clone(), done));
                // Accept the payment, decline the reminder.
                responder.respond(CreateElicitationResponse::new(if done {
                    ElicitationAction::Decline
                } else {
                    ElicitationAction::Accept(ElicitationAcceptAction::new())
                }))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_with(zut_acp(&env, &server), async move |cx| {
            let caps = ClientCapabilities::new().elicitation(
                ElicitationCapabilities::new()
                    .form(ElicitationFormCapabilities::new())
                    .url(ElicitationUrlCapabilities::new()),
            );
            cx.send_request(InitializeRequest::new(ProtocolVersion::V1).client_capabilities(caps))
                .block_task()
                .await?;
            let servers = vec![McpServer::Stdio(
                McpServerStdio::new("py", "python3").args(vec![script.display().to_string()]),
            )];
            let sid = cx
                .send_request(NewSessionRequest::new(cwd).mcp_servers(servers))
                .block_task()
                .await?
                .session_id;
            let r = cx
                .send_request(PromptRequest::new(
                    sid,
                    vec![ContentBlock::Text(TextContent::new("pay, then remind me"))],
                ))
                .block_task()
                .await?;
            assert_eq!(r.stop_reason, StopReason::EndTurn);
            turn_over.store(true, Ordering::SeqCst);
            // Only now may the server ask again; no prompt follows.
            std::fs::write(format!("{}.go", later2.display()), "").unwrap();
            for _ in 0..600 {
                if std::fs::read_to_string(&later2).is_ok_and(|s| !s.is_empty()) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Ok(())
        });
    tokio::time::timeout(Duration::from_secs(90), run)
        .await
        .expect("the ACP exchange timed out")
        .expect("the ACP exchange failed");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert!(
        reqs[1]
            .raw_body
            .contains("payment accept; declared form=True url=True"),
        "{}",
        reqs[1].raw_body
    );
    let asked = asked.lock().unwrap().clone();
    assert_eq!(
        asked,
        vec![
            (
                "Confirm paying 12 EUR".to_string(),
                "https://pay.example.com/confirm?amount=12".to_string(),
                false
            ),
            (
                "Renew your subscription".to_string(),
                "https://pay.example.com/renew".to_string(),
                true
            ),
        ]
    );
    assert_eq!(std::fs::read_to_string(&later).unwrap(), "decline");
}

/// The MCP server's `notifications/elicitation/complete` for a URL request
/// the client accepted (`pay_done`) reaches the client as ACP
/// `elicitation/complete` with the id of the `elicitation/create` it
/// answered; the server's completion for an id it never sent does not.
/// (Read during a turn; one that arrives after the turn ended goes out with
/// the next turn's events, hence the second prompt.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_url_flow_reaches_the_client_as_elicitation_complete() {
    use agent_client_protocol::v1::schema::CompleteElicitationNotification;
    if !have_python_mcp() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "c1",
        "mcp__py__pay_done",
        r#"{"amount":5}"#,
    ));
    server.push(Script::anthropic_text("Paid."));
    server.push(Script::anthropic_text("You are welcome."));
    let cwd = env.project.clone();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../zut-mcp/tests/fixtures/fastmcp_server.py");
    let asked: Arc<Mutex<Vec<String>>> = Arc::default();
    let completed: Arc<Mutex<Vec<String>>> = Arc::default();
    let (ask_log, done_log) = (asked.clone(), completed.clone());
    let done_seen = completed.clone();
    let run = Client
        .v1()
        .on_receive_request(
            async move |req: CreateElicitationRequest, responder, _cx| {
                let ElicitationMode::Url(u) = &req.mode else {
                    return responder
                        .respond(CreateElicitationResponse::new(ElicitationAction::Cancel));
                };
                ask_log.lock().unwrap().push(u.elicitation_id.to_string());
                responder.respond(CreateElicitationResponse::new(ElicitationAction::Accept(
                    ElicitationAcceptAction::new(),
                )))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |n: CompleteElicitationNotification, _cx| {
                done_log.lock().unwrap().push(n.elicitation_id.to_string());
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_with(zut_acp(&env, &server), async move |cx| {
            let caps = ClientCapabilities::new()
                .elicitation(ElicitationCapabilities::new().url(ElicitationUrlCapabilities::new()));
            cx.send_request(InitializeRequest::new(ProtocolVersion::V1).client_capabilities(caps))
                .block_task()
                .await?;
            let servers = vec![McpServer::Stdio(
                McpServerStdio::new("py", "python3").args(vec![script.display().to_string()]),
            )];
            let sid = cx
                .send_request(NewSessionRequest::new(cwd).mcp_servers(servers))
                .block_task()
                .await?
                .session_id;
            for text in ["pay 5", "thanks"] {
                let r = cx
                    .send_request(PromptRequest::new(
                        sid.clone(),
                        vec![ContentBlock::Text(TextContent::new(text))],
                    ))
                    .block_task()
                    .await?;
                assert_eq!(r.stop_reason, StopReason::EndTurn);
            }
            // The notification is written before the last turn's answer.
            for _ in 0..100 {
                if !done_seen.lock().unwrap().is_empty() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Ok(())
        });
    tokio::time::timeout(Duration::from_secs(90), run)
        .await
        .expect("the ACP exchange timed out")
        .expect("the ACP exchange failed");
    let reqs = server.requests();
    assert!(
        reqs[1].raw_body.contains("payment accept"),
        "{}",
        reqs[1].raw_body
    );
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].starts_with("zut-py-"), "{asked:?}");
    assert_eq!(completed.lock().unwrap().clone(), asked);
}
