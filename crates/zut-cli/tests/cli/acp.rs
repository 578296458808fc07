//! `zut acp` end to end: the real binary driven by a real ACP client (the
//! client side of the `agent-client-protocol` crate) over stdio, against
//! the local LLM server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    CancelNotification, ContentBlock, InitializeRequest, NewSessionRequest, PromptRequest,
    SessionId, SessionNotification, SessionUpdate, StopReason, TextContent, ToolCallStatus,
    ToolKind,
};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{AcpAgent, AcpAgentConfig, Agent, Client};
use common::*;
use serde_json::Value;
use zut_llm_server::{LlmServer, Script};

/// The `zut acp` process as an ACP agent for the client.
fn zut_acp(env: &TestEnv, server: &LlmServer) -> AcpAgent {
    zut_acp_with(env, server, &["--no-ext"])
}

/// `zut acp` with extra flags (before the provider flags).
fn zut_acp_with(env: &TestEnv, server: &LlmServer, extra: &[&str]) -> AcpAgent {
    let mut args: Vec<String> = vec!["acp".into()];
    args.extend(extra.iter().map(|s| s.to_string()));
    AcpAgent::new(
        AcpAgentConfig::new(env!("CARGO_BIN_EXE_zut"))
            .args(args)
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

fn text(s: &str) -> Vec<ContentBlock> {
    vec![ContentBlock::Text(TextContent::new(s))]
}

type Seen = Arc<Mutex<Vec<SessionUpdate>>>;

/// Runs `body` with a connected client; every `session/update` lands in
/// the returned list.
async fn with_client<F>(agent: AcpAgent, body: F) -> Vec<SessionUpdate>
where
    F: AsyncFnOnce(ConnectionTo<Agent>) -> Result<(), agent_client_protocol::Error>
        + Send
        + 'static,
{
    let seen: Seen = Arc::default();
    let sink = seen.clone();
    let run = Client
        .v1()
        .on_receive_notification(
            async move |n: SessionNotification, _cx| {
                sink.lock().unwrap().push(n.update);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_with(agent, body);
    tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("the ACP exchange timed out")
        .expect("the ACP exchange failed");
    let out = seen.lock().unwrap().clone();
    out
}

/// `initialize` (protocol v1), then `session/new` in `cwd`: its id.
async fn open_session(
    cx: &ConnectionTo<Agent>,
    cwd: std::path::PathBuf,
) -> Result<SessionId, agent_client_protocol::Error> {
    cx.send_request(InitializeRequest::new(ProtocolVersion::V1))
        .block_task()
        .await?;
    Ok(cx
        .send_request(NewSessionRequest::new(cwd))
        .block_task()
        .await?
        .session_id)
}

fn message_text(updates: &[SessionUpdate]) -> String {
    let mut out = String::new();
    for u in updates {
        if let SessionUpdate::AgentMessageChunk(c) = u {
            if let ContentBlock::Text(t) = &c.content {
                out.push_str(&t.text);
            }
        }
    }
    out
}

#[tokio::test]
async fn initialize_new_session_and_two_prompts_with_a_tool_call() {
    let env = TestEnv::new();
    std::fs::write(env.project.join("notes.txt"), "the secret is 42\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "call_1",
        "read",
        r#"{"path":"notes.txt"}"#,
    ));
    server.push(Script::anthropic_text("The secret is 42."));
    server.push(Script::anthropic_text("Second answer."));
    let cwd = env.project.clone();
    let updates = with_client(zut_acp(&env, &server), async move |cx| {
        let init = cx
            .send_request(InitializeRequest::new(ProtocolVersion::V1))
            .block_task()
            .await?;
        assert_eq!(init.agent_info.unwrap().name, "zut");
        // Sessions are kept in files, so session/load is offered.
        assert!(init.agent_capabilities.load_session);
        let session = cx
            .send_request(NewSessionRequest::new(cwd))
            .block_task()
            .await?;
        let sid = session.session_id;
        let r1 = cx
            .send_request(PromptRequest::new(sid.clone(), text("what is the secret?")))
            .block_task()
            .await?;
        assert_eq!(r1.stop_reason, StopReason::EndTurn);
        let r2 = cx
            .send_request(PromptRequest::new(sid.clone(), text("again")))
            .block_task()
            .await?;
        assert_eq!(r2.stop_reason, StopReason::EndTurn);
        // An unknown session is a JSON-RPC error, and the agent lives on.
        let bad = cx
            .send_request(PromptRequest::new("nope".to_string(), text("x")))
            .block_task()
            .await;
        let err = bad.expect_err("unknown session must fail");
        assert_eq!(i32::from(err.code), -32602, "{err:?}");
        Ok(())
    })
    .await;
    assert_eq!(message_text(&updates), "The secret is 42.Second answer.");
    let call = updates
        .iter()
        .find_map(|u| match u {
            SessionUpdate::ToolCall(c) => Some(c.clone()),
            _ => None,
        })
        .expect("a tool_call update");
    assert_eq!(call.tool_call_id.0.as_ref(), "call_1");
    assert_eq!(call.kind, ToolKind::Read);
    let statuses: Vec<ToolCallStatus> = updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::ToolCallUpdate(c) => c.fields.status,
            _ => None,
        })
        .collect();
    assert_eq!(
        statuses,
        vec![ToolCallStatus::InProgress, ToolCallStatus::Completed]
    );
    let output = updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::ToolCallUpdate(c) => c.fields.content.clone(),
            _ => None,
        })
        .flatten()
        .map(|c| serde_json::to_string(&c).unwrap())
        .collect::<String>();
    assert!(output.contains("the secret is 42"), "{output}");
    let titled = updates.iter().any(|u| match u {
        SessionUpdate::ToolCallUpdate(c) => c.fields.title.as_deref() == Some("read notes.txt"),
        SessionUpdate::ToolCall(c) => c.title == "read notes.txt",
        _ => false,
    });
    assert!(titled, "{updates:?}");
    // The model saw the tool result and both prompts.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert!(reqs[1].raw_body.contains("the secret is 42"));
    assert!(reqs[2].raw_body.contains("again"));
}

#[tokio::test]
async fn edits_show_a_diff_and_cancel_ends_the_turn() {
    let env = TestEnv::new();
    std::fs::write(env.project.join("a.txt"), "old line\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "call_e",
        "edit",
        r#"{"path":"a.txt","edits":[{"oldText":"old line","newText":"new line"}]}"#,
    ));
    server.push(Script::anthropic_text("edited"));
    server.push(Script::hang());
    let cwd = env.project.clone();
    let updates = with_client(zut_acp(&env, &server), async move |cx| {
        let sid = open_session(&cx, cwd).await?;
        let r = cx
            .send_request(PromptRequest::new(sid.clone(), text("edit it")))
            .block_task()
            .await?;
        assert_eq!(r.stop_reason, StopReason::EndTurn);
        let pending = cx.send_request(PromptRequest::new(sid.clone(), text("hang")));
        tokio::time::sleep(Duration::from_millis(200)).await;
        cx.send_notification(CancelNotification::new(sid.clone()))?;
        let r = pending.block_task().await?;
        assert_eq!(r.stop_reason, StopReason::Cancelled);
        Ok(())
    })
    .await;
    assert_eq!(
        std::fs::read_to_string(env.project.join("a.txt")).unwrap(),
        "new line\n"
    );
    let diff = updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::ToolCall(c) => Some(serde_json::to_value(&c.content).unwrap()),
            SessionUpdate::ToolCallUpdate(c) => c
                .fields
                .content
                .as_ref()
                .map(|x| serde_json::to_value(x).unwrap()),
            _ => None,
        })
        .find(|v| v.to_string().contains("\"diff\""))
        .expect("a diff");
    let d = &diff[0];
    assert_eq!(d["oldText"], "old line");
    assert_eq!(d["newText"], "new line");
    assert_eq!(d["path"], "a.txt");
    let kinds: Vec<ToolKind> = updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::ToolCall(c) => Some(c.kind),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, vec![ToolKind::Edit]);
}

/// Raw JSON-RPC lines: malformed JSON and requests before `initialize`
/// get errors, and the agent keeps serving.
#[test]
fn bad_input_gets_json_rpc_errors_and_the_agent_lives_on() {
    let env = TestEnv::new();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_zut"))
        .args(["acp", "--no-ext", "--api-key", "x"])
        .env("ZUT_HOME", &env.home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut ask = |line: &str| -> Value {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let l = lines.next().expect("an answer").unwrap();
        serde_json::from_str(&l).unwrap()
    };
    let cwd = env.project.display().to_string();
    let new_session = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"session/new","params":{{"cwd":{cwd:?},"mcpServers":[]}}}}"#
    );
    let r = ask(&new_session);
    assert_eq!(r["id"], 2, "{r}");
    assert_eq!(r["error"]["code"], -32600, "{r}");
    let r = ask(
        r#"{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"zut-1","prompt":[]}}"#,
    );
    assert_eq!(r["error"]["code"], -32600, "{r}");
    let r = ask("{not json");
    assert_eq!(r["error"]["code"], -32700, "{r}");
    let r = ask(r#"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":1}}"#);
    assert_eq!(r["id"], 4, "{r}");
    assert_eq!(r["result"]["protocolVersion"], 1, "{r}");
    let r = ask(
        r#"{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"zut-9","prompt":[]}}"#,
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(r["error"]["data"].to_string().contains("zut-9"), "{r}");
    let r = ask(r#"{"jsonrpc":"2.0","id":6,"method":"no/such","params":{}}"#);
    assert_eq!(r["error"]["code"], -32601, "{r}");
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

/// What the test client answers to `session/request_permission`, in order:
/// an option id, or `None` to hold the request until the test cancels.
type Choices = Arc<Mutex<std::collections::VecDeque<Option<&'static str>>>>;

/// The issue's required exchange: a real ACP client over stdio through
/// `initialize`, `session/new`, two prompts with tool calls that ask for
/// permission (`--no-yolo`: allowed once, then refused), thought chunks,
/// an image block, and a third prompt cancelled while its permission
/// request is open.
#[tokio::test]
async fn permission_requests_thoughts_images_and_cancel() {
    use agent_client_protocol::v1::schema::{
        ImageContent, RequestPermissionOutcome, RequestPermissionRequest,
        RequestPermissionResponse, SelectedPermissionOutcome,
    };
    use zut_llm_server::{Block, Format};

    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    // Prompt 1: reasoning, then bash (allowed once).
    server.push(Script::reply(
        Format::Anthropic,
        vec![
            Block::thinking("I should list files", "sig"),
            Block::tool_call(
                "call_b",
                "bash",
                r#"{"command":"echo from-bash","timeout":10}"#,
            ),
        ],
    ));
    server.push(Script::anthropic_text("ran it"));
    // Prompt 2 (with an image): write (refused).
    server.push(Script::anthropic_tool_call(
        "call_w",
        "write",
        r#"{"path":"out.txt","content":"nope"}"#,
    ));
    server.push(Script::anthropic_text("ok, not written"));
    // Prompt 3: bash again, cancelled while waiting for permission.
    server.push(Script::anthropic_tool_call(
        "call_c",
        "bash",
        r#"{"command":"touch cancelled","timeout":10}"#,
    ));
    let choices: Choices = Arc::new(Mutex::new(
        [Some("allow_once"), Some("reject"), None].into(),
    ));
    let asked: Arc<Mutex<Vec<RequestPermissionRequest>>> = Arc::default();
    let release = Arc::new(tokio::sync::Notify::new());
    let seen: Seen = Arc::default();
    let (sink, asked2, release2) = (seen.clone(), asked.clone(), release.clone());
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
        .on_receive_request(
            async move |req: RequestPermissionRequest, responder, cx: ConnectionTo<Agent>| {
                asked2.lock().unwrap().push(req);
                let choice = choices.lock().unwrap().pop_front().flatten();
                match choice {
                    Some(option) => responder.respond(RequestPermissionResponse::new(
                        RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(option)),
                    )),
                    None => {
                        // Held until the turn is cancelled, then answered
                        // `cancelled` as the protocol asks.
                        let release = release2.clone();
                        cx.spawn(async move {
                            release.notified().await;
                            responder.respond(RequestPermissionResponse::new(
                                RequestPermissionOutcome::Cancelled,
                            ))
                        })
                    }
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_with(
            zut_acp_with(&env, &server, &["--no-ext", "--no-yolo"]),
            async move |cx: ConnectionTo<Agent>| {
                let init = cx
                    .send_request(InitializeRequest::new(ProtocolVersion::V1))
                    .block_task()
                    .await?;
                assert!(init.agent_capabilities.prompt_capabilities.image);
                let sid = cx
                    .send_request(NewSessionRequest::new(cwd))
                    .block_task()
                    .await?
                    .session_id;
                let r = cx
                    .send_request(PromptRequest::new(sid.clone(), text("list")))
                    .block_task()
                    .await?;
                assert_eq!(r.stop_reason, StopReason::EndTurn);
                let mut blocks = text("what is in this picture?");
                blocks.push(ContentBlock::Image(ImageContent::new(
                    "iVBORw0KGgoAAAANSUhEUg==",
                    "image/png",
                )));
                let r = cx
                    .send_request(PromptRequest::new(sid.clone(), blocks))
                    .block_task()
                    .await?;
                assert_eq!(r.stop_reason, StopReason::EndTurn);
                let pending = cx.send_request(PromptRequest::new(sid.clone(), text("again")));
                // Wait until the permission request is open, then cancel.
                for _ in 0..500 {
                    if asked.lock().unwrap().len() == 3 {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                assert_eq!(asked.lock().unwrap().len(), 3);
                cx.send_notification(CancelNotification::new(sid.clone()))?;
                release.notify_one();
                let r = pending.block_task().await?;
                assert_eq!(r.stop_reason, StopReason::Cancelled);
                let asked = asked.lock().unwrap();
                assert_eq!(asked[0].tool_call.tool_call_id.0.as_ref(), "call_b");
                assert_eq!(
                    asked[0].tool_call.fields.title.as_deref(),
                    Some("bash echo from-bash")
                );
                assert_eq!(asked[0].tool_call.fields.kind, Some(ToolKind::Execute));
                let ids: Vec<&str> = asked[0].options.iter().map(|o| &*o.option_id.0).collect();
                assert_eq!(ids, ["allow_once", "allow_tool", "allow_all", "reject"]);
                assert_eq!(asked[1].tool_call.fields.kind, Some(ToolKind::Edit));
                Ok(())
            },
        );
    tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("the ACP exchange timed out")
        .expect("the ACP exchange failed");
    let updates = seen.lock().unwrap().clone();
    // Reasoning arrives as thought chunks, not message text.
    let thought: String = updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::AgentThoughtChunk(c) => match &c.content {
                ContentBlock::Text(t) => Some(t.text.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(thought, "I should list files");
    assert_eq!(message_text(&updates), "ran itok, not written");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 5);
    // Allowed: the model got bash's output. Refused: the default reason,
    // and nothing was written. Cancelled: nothing ran.
    assert!(
        reqs[1].raw_body.contains("from-bash"),
        "{}",
        reqs[1].raw_body
    );
    assert!(reqs[3].raw_body.contains("tool call refused by user"));
    assert!(!env.project.join("out.txt").exists());
    assert!(!env.project.join("cancelled").exists());
    // The image reached the provider as an image block.
    assert!(reqs[2].raw_body.contains("iVBORw0KGgoAAAANSUhEUg=="));
    assert!(
        reqs[2].raw_body.contains(r#""type":"image""#),
        "{}",
        reqs[2].raw_body
    );
}

/// `fs/*` delegation: a client offering `readTextFile` / `writeTextFile`
/// serves its (unsaved) buffers to `read`, `edit` and `write`.
#[tokio::test]
async fn file_tools_go_through_the_clients_buffers() {
    use agent_client_protocol::v1::schema::{
        ClientCapabilities, FileSystemCapabilities, ReadTextFileRequest, ReadTextFileResponse,
        WriteTextFileRequest, WriteTextFileResponse,
    };
    use std::collections::HashMap;
    use std::path::PathBuf;

    let env = TestEnv::new();
    let root = env.project.canonicalize().unwrap();
    std::fs::write(root.join("notes.txt"), "saved on disk\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "r1",
        "read",
        r#"{"path":"notes.txt"}"#,
    ));
    server.push(Script::anthropic_tool_call(
        "e1",
        "edit",
        r#"{"path":"notes.txt","edits":[{"oldText":"unsaved","newText":"edited"}]}"#,
    ));
    server.push(Script::anthropic_tool_call(
        "w1",
        "write",
        r#"{"path":"new.txt","content":"fresh\n"}"#,
    ));
    server.push(Script::anthropic_text("done"));
    let buffers: Arc<Mutex<HashMap<PathBuf, String>>> = Arc::new(Mutex::new(
        [(root.join("notes.txt"), "unsaved buffer text\n".to_string())].into(),
    ));
    let (b1, b2) = (buffers.clone(), buffers.clone());
    let run = Client
        .v1()
        .on_receive_request(
            async move |req: ReadTextFileRequest, responder, _cx| {
                let text = b1.lock().unwrap().get(&req.path).cloned();
                match text {
                    Some(t) => responder.respond(ReadTextFileResponse::new(t)),
                    None => responder.respond_with_error(
                        agent_client_protocol::Error::invalid_params().data("not open"),
                    ),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: WriteTextFileRequest, responder, _cx| {
                b2.lock().unwrap().insert(req.path, req.content);
                responder.respond(WriteTextFileResponse::new())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_with(zut_acp(&env, &server), {
            let root = root.clone();
            async move |cx: ConnectionTo<Agent>| {
                let fs = FileSystemCapabilities::new()
                    .read_text_file(true)
                    .write_text_file(true);
                cx.send_request(
                    InitializeRequest::new(ProtocolVersion::V1)
                        .client_capabilities(ClientCapabilities::new().fs(fs)),
                )
                .block_task()
                .await?;
                let sid = cx
                    .send_request(NewSessionRequest::new(root))
                    .block_task()
                    .await?
                    .session_id;
                let r = cx
                    .send_request(PromptRequest::new(sid, text("work on notes")))
                    .block_task()
                    .await?;
                assert_eq!(r.stop_reason, StopReason::EndTurn);
                Ok(())
            }
        });
    tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("the ACP exchange timed out")
        .expect("the ACP exchange failed");
    let reqs = server.requests();
    // read saw the buffer, not the disk.
    assert!(
        reqs[1].raw_body.contains("unsaved buffer text"),
        "{}",
        reqs[1].raw_body
    );
    assert!(!reqs[1].raw_body.contains("saved on disk"));
    // edit and write went back to the buffers; the disk is untouched.
    let b = buffers.lock().unwrap();
    assert_eq!(b[&root.join("notes.txt")], "edited buffer text\n");
    assert_eq!(b[&root.join("new.txt")], "fresh\n");
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "saved on disk\n"
    );
    assert!(!root.join("new.txt").exists());
}

/// `session/load`: a second `zut acp` process resumes the session file the
/// first one wrote, replays it, and the conversation goes on.
#[tokio::test]
async fn session_load_replays_the_history_and_continues() {
    use agent_client_protocol::v1::schema::LoadSessionRequest;

    let env = TestEnv::new();
    std::fs::write(env.project.join("notes.txt"), "the secret is 42\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "call_1",
        "read",
        r#"{"path":"notes.txt"}"#,
    ));
    server.push(Script::anthropic_text("It is 42."));
    server.push(Script::anthropic_text("Still 42."));
    let cwd = env.project.clone();
    let id: Arc<Mutex<String>> = Arc::default();
    let id2 = id.clone();
    with_client(zut_acp(&env, &server), async move |cx| {
        let sid = open_session(&cx, cwd).await?;
        *id2.lock().unwrap() = sid.0.to_string();
        cx.send_request(PromptRequest::new(sid, text("what is the secret?")))
            .block_task()
            .await?;
        Ok(())
    })
    .await;
    let sid = id.lock().unwrap().clone();
    assert!(!sid.starts_with("zut-"), "the session file's id: {sid}");
    let (cwd, sid2) = (env.project.clone(), sid.clone());
    let replayed = with_client(zut_acp(&env, &server), async move |cx| {
        cx.send_request(InitializeRequest::new(ProtocolVersion::V1))
            .block_task()
            .await?;
        cx.send_request(LoadSessionRequest::new(sid2.clone(), cwd.clone()))
            .block_task()
            .await?;
        let r = cx
            .send_request(PromptRequest::new(sid2.clone(), text("and now?")))
            .block_task()
            .await?;
        assert_eq!(r.stop_reason, StopReason::EndTurn);
        // An id no file has is a clear error.
        let bad = cx
            .send_request(LoadSessionRequest::new("no-such-session", cwd))
            .block_task()
            .await;
        assert!(bad.is_err());
        Ok(())
    })
    .await;
    let users: String = replayed
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::UserMessageChunk(c) => match &c.content {
                ContentBlock::Text(t) => Some(t.text.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(users, "what is the secret?");
    assert_eq!(message_text(&replayed), "It is 42.Still 42.");
    let tool = replayed.iter().find_map(|u| match u {
        SessionUpdate::ToolCall(c) => Some(c.title.clone()),
        _ => None,
    });
    assert_eq!(tool.as_deref(), Some("read notes.txt"));
    // The model saw the resumed history.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert!(reqs[2].raw_body.contains("the secret is 42"));
    assert!(reqs[2].raw_body.contains("and now?"));
    // The new session's file was titled by its first prompt; the loaded
    // one kept that title.
    let dir = zut_session::sessions_dir(
        &env.home,
        &env.project.canonicalize().unwrap().display().to_string(),
    );
    let listed = zut_session::list(&dir, true);
    let file = listed
        .iter()
        .find(|s| s.id == sid)
        .expect("the session file");
    let snap = zut_session::read(&file.path).unwrap();
    assert_eq!(snap.meta.title, "what is the secret?");
}

/// An extension whose process dies in the middle of a turn: its tool call
/// fails, the turn ends normally, the next prompt works.
#[tokio::test]
async fn an_extension_dying_mid_turn_fails_its_call_only() {
    let env = TestEnv::new();
    let ext = zut_test_support::python_extension(
        &env.home.parent().unwrap().join("crasher"),
        "crasher",
        r#"import json, os, sys
def emit(o):
    sys.stdout.write(json.dumps(o) + "\n")
    sys.stdout.flush()
emit({"type": "hello", "protocol_version": 2, "name": "crasher", "version": "1.0.0"})
for line in sys.stdin:
    msg = json.loads(line)
    t = msg.get("type")
    if t == "hello_ack":
        emit({"type": "register_tool", "name": "crash", "description": "dies",
              "schema": {"type": "object", "properties": {}}})
        emit({"type": "ready"})
    elif t == "tool_call":
        os._exit(3)
    elif t == "shutdown":
        emit({"type": "shutdown_ack"})
        break
"#,
    );
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call("c1", "crash", "{}"));
    server.push(Script::anthropic_text("the tool failed"));
    server.push(Script::anthropic_text("still alive"));
    let cwd = env.project.clone();
    let ext_arg = ext.display().to_string();
    let updates = with_client(
        zut_acp_with(&env, &server, &["--no-ext", "--ext", &ext_arg]),
        async move |cx| {
            let sid = open_session(&cx, cwd).await?;
            let r = cx
                .send_request(PromptRequest::new(sid.clone(), text("crash it")))
                .block_task()
                .await?;
            assert_eq!(r.stop_reason, StopReason::EndTurn);
            let r = cx
                .send_request(PromptRequest::new(sid, text("again")))
                .block_task()
                .await?;
            assert_eq!(r.stop_reason, StopReason::EndTurn);
            Ok(())
        },
    )
    .await;
    let failed = updates.iter().any(|u| match u {
        SessionUpdate::ToolCallUpdate(c) => c.fields.status == Some(ToolCallStatus::Failed),
        _ => false,
    });
    assert!(failed, "{updates:?}");
    assert!(message_text(&updates).contains("still alive"));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert!(reqs[1].raw_body.contains("crasher"), "{}", reqs[1].raw_body);
}

#[tokio::test]
async fn extension_status_items_are_the_plan() {
    let env = TestEnv::new();
    let ext = zut_test_support::python_extension(
        &env.home.parent().unwrap().join("phases"),
        "phases",
        r#"import json, sys
def emit(o):
    sys.stdout.write(json.dumps(o) + "\n")
    sys.stdout.flush()
emit({"type": "hello", "protocol_version": 2, "name": "phases", "version": "1.0.0"})
for line in sys.stdin:
    msg = json.loads(line)
    t = msg.get("type")
    if t == "hello_ack":
        emit({"type": "subscribe", "events": ["turn_start", "turn_end"]})
        emit({"type": "ready"})
    elif t == "event" and msg.get("event") == "turn_start":
        emit({"type": "status", "key": "phase", "level": "info", "text": "building"})
    elif t == "event" and msg.get("event") == "turn_end":
        emit({"type": "status", "key": "phase", "level": "success", "text": "built"})
    elif t == "shutdown":
        break
"#,
    );
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("first"));
    server.push(Script::anthropic_text("second"));
    let cwd = env.project.clone();
    let ext_arg = ext.display().to_string();
    let updates = with_client(
        zut_acp_with(&env, &server, &["--no-ext", "--ext", &ext_arg]),
        async move |cx| {
            let sid = open_session(&cx, cwd).await?;
            for prompt in ["one", "two"] {
                cx.send_request(PromptRequest::new(sid.clone(), text(prompt)))
                    .block_task()
                    .await?;
            }
            Ok(())
        },
    )
    .await;
    let plans: Vec<Vec<(String, String)>> = updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::Plan(p) => Some(
                p.entries
                    .iter()
                    .map(|e| {
                        let status = serde_json::to_value(&e.status).unwrap();
                        (e.content.clone(), status.as_str().unwrap().to_string())
                    })
                    .collect(),
            ),
            _ => None,
        })
        .collect();
    // One entry, updated in place: building, then built (completed).
    assert!(
        plans.contains(&vec![(
            "phases: building".to_string(),
            "in_progress".to_string()
        )]),
        "{plans:?}"
    );
    assert!(
        plans.contains(&vec![(
            "phases: built".to_string(),
            "completed".to_string()
        )]),
        "{plans:?}"
    );
    assert!(plans.iter().all(|p| p.len() <= 1), "{plans:?}");
}

#[tokio::test]
async fn slash_commands_are_advertised_and_run() {
    let env = TestEnv::new();
    let ext = zut_test_support::python_extension(
        &env.home.parent().unwrap().join("cmds"),
        "cmds",
        r#"import json, sys
def emit(o):
    sys.stdout.write(json.dumps(o) + "\n")
    sys.stdout.flush()
emit({"type": "hello", "protocol_version": 2, "name": "cmds", "version": "1.0.0"})
for line in sys.stdin:
    m = json.loads(line)
    t = m.get("type")
    if t == "hello_ack":
        emit({"type": "register_command", "name": "show", "description": "shows a line"})
        emit({"type": "register_command", "name": "ask", "description": "asks the model"})
        emit({"type": "register_command", "name": "pick", "description": "a panel"})
        emit({"type": "register_command", "name": "bad", "description": "fails"})
        emit({"type": "ready"})
    elif t == "command_invoked":
        n, i = m["name"], m["id"]
        if n == "show":
            emit({"type": "command_response", "id": i, "action": "display", "display": "shown " + m.get("args", "")})
        elif n == "ask":
            emit({"type": "command_response", "id": i, "action": "prompt", "prompt": "asked " + m.get("args", "")})
        elif n == "pick":
            emit({"type": "command_response", "id": i, "action": "open_panel",
                  "open_panel": {"id": "p1", "title": "Pick", "lines": ["a"]}})
        else:
            emit({"type": "command_response", "id": i, "action": "noop", "error": "nope"})
    elif t == "shutdown":
        emit({"type": "shutdown_ack"})
        break
"#,
    );
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("answered the ask"));
    server.push(Script::anthropic_text("a path is not a command"));
    let cwd = env.project.clone();
    let ext_arg = ext.display().to_string();
    let updates = with_client(
        zut_acp_with(&env, &server, &["--no-ext", "--ext", &ext_arg]),
        async move |cx| {
            let sid = open_session(&cx, cwd).await?;
            for p in [
                "/show  two words ",
                "/ASK it",
                "/pick",
                "/bad",
                "/etc/hosts?",
            ] {
                let r = cx
                    .send_request(PromptRequest::new(sid.clone(), text(p)))
                    .block_task()
                    .await?;
                assert_eq!(r.stop_reason, StopReason::EndTurn, "{p}");
            }
            Ok(())
        },
    )
    .await;
    let names: Vec<String> = updates
        .iter()
        .find_map(|u| match u {
            SessionUpdate::AvailableCommandsUpdate(a) => Some(
                a.available_commands
                    .iter()
                    .map(|c| c.name.clone())
                    .collect(),
            ),
            _ => None,
        })
        .expect("no available_commands_update");
    for n in [
        "compact",
        "model",
        "reasoning",
        "reload-ext",
        "show",
        "ask",
        "pick",
        "bad",
    ] {
        assert!(names.iter().any(|x| x == n), "{n} missing from {names:?}");
    }
    assert!(!names.iter().any(|x| x == "clear"), "{names:?}");
    let said = message_text(&updates);
    assert!(said.contains("[cmds] shown two words"), "{said}");
    assert!(said.contains("answered the ask"), "{said}");
    assert!(said.contains("panels have no place in ACP"), "{said}");
    assert!(said.contains("error: /bad (cmds): nope"), "{said}");
    assert!(said.contains("a path is not a command"), "{said}");
    // Two model requests: the `prompt` action and the path-like prompt.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2, "{said}");
    assert!(
        reqs[0].raw_body.contains("asked it"),
        "{}",
        reqs[0].raw_body
    );
    assert!(
        reqs[1].raw_body.contains("/etc/hosts?"),
        "{}",
        reqs[1].raw_body
    );
}

/// MCP servers given in `session/new` start for that session (zut-mcp):
/// the model calls a tool of one and the result reaches the next request;
/// a server that cannot start does not hold the session up.
#[tokio::test]
async fn mcp_servers_in_session_new_start_for_the_session() {
    use agent_client_protocol::v1::schema::{McpServer, McpServerStdio};

    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "c1",
        "mcp__files__echo",
        r#"{"text":"from-acp-mcp"}"#,
    ));
    server.push(Script::anthropic_text("Hello."));
    let cwd = env.project.clone();
    let fake =
        zut_test_support::workspace_root().join("crates/zut-mcp/tests/fixtures/fake_server.py");
    let updates = with_client(zut_acp(&env, &server), async move |cx| {
        cx.send_request(InitializeRequest::new(ProtocolVersion::V1))
            .block_task()
            .await?;
        let servers = vec![
            McpServer::Stdio(
                McpServerStdio::new("files", "python3")
                    .args(vec![fake.display().to_string(), "normal".to_string()]),
            ),
            McpServer::Stdio(McpServerStdio::new("git", "/nonexistent/mcp-git")),
        ];
        let sid = cx
            .send_request(NewSessionRequest::new(cwd).mcp_servers(servers))
            .block_task()
            .await?
            .session_id;
        let r = cx
            .send_request(PromptRequest::new(sid, text("hi")))
            .block_task()
            .await?;
        assert_eq!(r.stop_reason, StopReason::EndTurn);
        Ok(())
    })
    .await;
    let said = message_text(&updates);
    assert!(said.ends_with("Hello."), "{said}");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert!(
        reqs[1].raw_body.contains("from-acp-mcp"),
        "{}",
        reqs[1].raw_body
    );
}

/// Two live sessions in one `zut acp` process, prompted in turn: each
/// keeps its own history and file. Loading a session file another process
/// is writing is refused with a clear error; the others go on.
#[tokio::test]
async fn two_live_sessions_in_one_process_and_a_busy_file_refused() {
    use agent_client_protocol::v1::schema::LoadSessionRequest;

    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    for word in ["A one.", "B one.", "A two."] {
        server.push(Script::anthropic_text(word));
    }
    // A session file another writer holds (this test process).
    let project = env.project.canonicalize().unwrap();
    let dir = zut_session::sessions_dir(&env.home, &project.display().to_string());
    let busy = zut_session::SessionWriter::create(
        &dir,
        zut_session::NewSession {
            cwd: project.display().to_string(),
            ..Default::default()
        },
    )
    .unwrap();
    let busy_id = busy.meta().id.clone();
    let cwd = env.project.clone();
    let ids: Arc<Mutex<Vec<String>>> = Arc::default();
    let ids2 = ids.clone();
    let updates = with_client(zut_acp(&env, &server), async move |cx| {
        let a = open_session(&cx, cwd.clone()).await?;
        let b = cx
            .send_request(NewSessionRequest::new(cwd.clone()))
            .block_task()
            .await?
            .session_id;
        assert_ne!(a, b);
        *ids2.lock().unwrap() = vec![a.0.to_string(), b.0.to_string()];
        for (sid, words) in [
            (&a, "first for A"),
            (&b, "first for B"),
            (&a, "second for A"),
        ] {
            let r = cx
                .send_request(PromptRequest::new(sid.clone(), text(words)))
                .block_task()
                .await?;
            assert_eq!(r.stop_reason, StopReason::EndTurn);
        }
        let err = cx
            .send_request(LoadSessionRequest::new(busy_id.clone(), cwd.clone()))
            .block_task()
            .await
            .expect_err("a file another process writes must be refused");
        let shown = format!("{err:?}");
        assert!(
            shown.contains("lock") || shown.contains("busy") || shown.contains("another"),
            "{shown}"
        );
        Ok(())
    })
    .await;
    drop(busy);
    assert_eq!(message_text(&updates), "A one.B one.A two.");
    // Each request carried only its own session's history.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert!(reqs[1].raw_body.contains("first for B") && !reqs[1].raw_body.contains("first for A"));
    assert!(reqs[2].raw_body.contains("first for A") && reqs[2].raw_body.contains("second for A"));
    assert!(!reqs[2].raw_body.contains("first for B"));
    // And each its own file.
    let ids = ids.lock().unwrap().clone();
    let listed = zut_session::list(&dir, true);
    let count = |id: &str| {
        let file = listed.iter().find(|s| s.id == id).expect("session file");
        zut_session::read(&file.path).unwrap().messages.len()
    };
    assert_eq!(count(&ids[0]), 4);
    assert_eq!(count(&ids[1]), 2);
}
