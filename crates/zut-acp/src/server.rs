//! The ACP agent: request handlers and the turn pump.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, ContentBlock, Implementation, InitializeRequest,
    InitializeResponse, LoadSessionRequest, LoadSessionResponse, NewSessionRequest,
    NewSessionResponse, PromptCapabilities, PromptRequest, PromptResponse, SessionId,
    SessionNotification, StopReason,
};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{Agent, Client, Error, Stdio};
use futures::FutureExt;
use zut_control::{
    CommandOutcome, ControllerEvent, ConversationHandle, JobOutcome, PromptOutcome, UiEvents,
};
use zut_types::AgentEvent;
use zut_types::Part;

use crate::sessions::{Session, Sessions};
use crate::updates::Mapper;
use crate::Backend;

/// Serves ACP on stdin/stdout until the client closes stdin.
pub async fn serve_stdio(backend: Arc<dyn Backend>) -> Result<(), String> {
    let table = Sessions::default();
    let (t1, t2, t3) = (table.clone(), table.clone(), table.clone());
    let can_load = backend.can_load();
    Agent
        .v1()
        .name("zut")
        .on_receive_request(
            async move |req: InitializeRequest, responder, _cx| {
                {
                    let mut t = t1.lock();
                    t.initialized = true;
                    let fs = &req.client_capabilities.fs;
                    t.fs = (fs.read_text_file, fs.write_text_file);
                    let e = req.client_capabilities.elicitation.as_ref();
                    t.elicitation = zut_types::ElicitationModes {
                        form: e.is_some_and(|e| e.form.is_some()),
                        url: e.is_some_and(|e| e.url.is_some()),
                    };
                }
                responder.respond(
                    InitializeResponse::new(req.protocol_version)
                        .agent_capabilities(
                            AgentCapabilities::new()
                                .load_session(can_load)
                                // zut-mcp starts the servers `session/new` lists.
                                .mcp_capabilities(
                                    agent_client_protocol::v1::schema::McpCapabilities::new()
                                        .http(true)
                                        .sse(true),
                                )
                                .prompt_capabilities(
                                    PromptCapabilities::new().image(true).embedded_context(true),
                                ),
                        )
                        .agent_info(Implementation::new("zut", env!("CARGO_PKG_VERSION"))),
                )
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let backend = backend.clone();
                async move |req: NewSessionRequest, responder, cx: ConnectionTo<Client>| {
                    if !t2.lock().initialized {
                        return responder.respond_with_error(not_initialized());
                    }
                    // Opening a conversation starts extensions: off the
                    // dispatch loop, so other requests keep flowing.
                    let (backend, table, conn) = (backend.clone(), t2.clone(), cx.clone());
                    let mcp = mcp_json(&req.mcp_servers);
                    cx.spawn(async move {
                        match open(&backend, &table, &conn, req.cwd, None, mcp).await {
                            Ok((id, session)) => {
                                responder.respond(NewSessionResponse::new(id.clone()))?;
                                let sid = SessionId::new(id);
                                advertise(&conn, &sid, &*session.controller);
                                Ok(())
                            }
                            Err(e) => responder.respond_with_error(e),
                        }
                    })
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let (backend, table) = (backend.clone(), table.clone());
                async move |req: LoadSessionRequest, responder, cx: ConnectionTo<Client>| {
                    if !table.lock().initialized {
                        return responder.respond_with_error(not_initialized());
                    }
                    if !backend.can_load() {
                        return responder.respond_with_error(Error::invalid_request().data(
                            "session/load needs session files, which this zut acp does not keep (--no-session)",
                        ));
                    }
                    let (backend, table, conn) = (backend.clone(), table.clone(), cx.clone());
                    let id = req.session_id.0.to_string();
                    let mcp = mcp_json(&req.mcp_servers);
                    cx.spawn(async move {
                        let existing = table.lock().sessions.get(&id).cloned();
                        let session = match existing {
                            Some(s) => s,
                            None => match open(&backend, &table, &conn, req.cwd, Some(id.clone()), mcp)
                                .await
                            {
                                Ok((_, s)) => s,
                                Err(e) => return responder.respond_with_error(e),
                            },
                        };
                        // The history first, then the answer (ACP: the
                        // client shows the replay before the load returns).
                        let messages = session.controller.messages();
                        for update in crate::replay::updates(&messages) {
                            let _ = conn.send_notification(SessionNotification::new(
                                req.session_id.clone(),
                                update,
                            ));
                        }
                        responder.respond(LoadSessionResponse::new())?;
                        advertise(&conn, &req.session_id, &*session.controller);
                        Ok(())
                    })
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: PromptRequest, responder, cx: ConnectionTo<Client>| {
                let session = match lookup(&t3, &req.session_id.0) {
                    Ok(s) => s,
                    Err(e) => return responder.respond_with_error(e),
                };
                let command = crate::commands::parse(&req.prompt, &*session.controller);
                let parts = prompt_parts(&req.prompt);
                let sid = req.session_id.clone();
                let conn = cx.clone();
                cx.spawn(async move {
                    let result = match command {
                        Some((name, args)) => run_command(&session, &name, &args, &conn, &sid).await,
                        None => run_turn(&session, parts, &conn, &sid).await,
                    };
                    match result {
                        Ok(stop) => responder.respond(PromptResponse::new(stop)),
                        Err(msg) => responder.respond_with_error(Error::internal_error().data(msg)),
                    }
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            {
                let table = table.clone();
                async move |n: CancelNotification, _cx| {
                    if let Ok(s) = lookup(&table, &n.session_id.0) {
                        s.cancelled.store(true, Ordering::SeqCst);
                        s.controller.abort();
                    }
                    Ok(())
                }
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(Stdio::new())
        .await
        .map_err(|e| e.to_string())?;
    // stdin closed: stop every conversation (extensions get `shutdown`).
    let sessions: Vec<Session> = table.lock().sessions.drain().map(|(_, s)| s).collect();
    for s in sessions {
        // Closes the session file (a new one that got no content is
        // removed) and stops its extensions and MCP servers.
        let _ = s.controller.close().await;
    }
    Ok(())
}

/// Opens a conversation through the backend (`resume`: the session id of
/// `session/load`) and registers it; its ACP id is the session file's id
/// when there is one.
async fn open(
    backend: &Arc<dyn Backend>,
    table: &Sessions,
    conn: &ConnectionTo<Client>,
    cwd: std::path::PathBuf,
    resume: Option<String>,
    mcp_servers: Vec<serde_json::Value>,
) -> Result<(String, Session), Error> {
    let ((read, write), elicitation) = {
        let t = table.lock();
        (t.fs, t.elicitation)
    };
    let cell = Arc::new(std::sync::OnceLock::new());
    let files: Option<Arc<dyn zut_tools::FileAccess>> = if read || write {
        Some(Arc::new(crate::files::ClientFiles {
            conn: conn.clone(),
            session: cell.clone(),
            read,
            write,
        }))
    } else {
        None
    };
    let conv = backend
        .open(crate::OpenRequest {
            cwd,
            files,
            resume: resume.clone(),
            mcp_servers,
            elicitation,
        })
        .await
        .map_err(|e| Error::internal_error().data(e))?;
    let mut t = table.lock();
    t.next += 1;
    let id = resume
        .or(conv.session_id)
        .unwrap_or_else(|| format!("zut-{}", t.next));
    let _ = cell.set(SessionId::new(id.clone()));
    let session = Session {
        controller: conv.controller,
        events: Arc::new(tokio::sync::Mutex::new(conv.events)),
        cancelled: Default::default(),
        statuses: Default::default(),
        usage: Arc::new(std::sync::Mutex::new(crate::updates::UsageTotal {
            window: conv.context_window,
            ..Default::default()
        })),
        forwarded: Default::default(),
    };
    if elicitation.any() {
        crate::elicit::watch(conn, SessionId::new(id.clone()), &session);
    }
    t.sessions.insert(id.clone(), session.clone());
    Ok((id, session))
}

fn not_initialized() -> Error {
    Error::invalid_request().data("initialize must be called first")
}

/// The session `id`, or the JSON-RPC error for the client.
fn lookup(table: &Sessions, id: &str) -> Result<Session, Error> {
    let t = table.lock();
    if !t.initialized {
        return Err(not_initialized());
    }
    t.sessions
        .get(id)
        .cloned()
        .ok_or_else(|| Error::invalid_params().data(format!("unknown session {id:?}")))
}

/// The prompt's text (resources and links as their text or URI) and
/// images (base64, as the providers take them).
fn prompt_parts(blocks: &[ContentBlock]) -> Vec<Part> {
    let mut text = String::new();
    let mut images = Vec::new();
    for b in blocks {
        match b {
            ContentBlock::Text(t) => text.push_str(&t.text),
            ContentBlock::Image(i) => images.push(Part::Image {
                mime_type: i.mime_type.clone(),
                data: i.data.clone(),
            }),
            ContentBlock::ResourceLink(l) => {
                text.push_str(&format!("\n[{}]({})\n", l.name, l.uri));
            }
            ContentBlock::Resource(r) => {
                if let Ok(v) = serde_json::to_value(&r.resource) {
                    let uri = v.get("uri").and_then(|u| u.as_str()).unwrap_or_default();
                    let body = v.get("text").and_then(|u| u.as_str()).unwrap_or_default();
                    text.push_str(&format!("\n<file uri={uri:?}>\n{body}\n</file>\n"));
                }
            }
            _ => {}
        }
    }
    let mut parts = Vec::with_capacity(1 + images.len());
    if !text.is_empty() || images.is_empty() {
        parts.push(Part::Text { text });
    }
    parts.extend(images);
    parts
}

/// Queues the prompt and forwards its events as `session/update`s until
/// its job finishes.
async fn run_turn(
    s: &Session,
    parts: Vec<Part>,
    conn: &ConnectionTo<Client>,
    sid: &agent_client_protocol::v1::schema::SessionId,
) -> Result<StopReason, String> {
    let mut events = s.events.lock().await;
    s.cancelled.store(false, Ordering::SeqCst);
    let job = s.controller.prompt(parts, None);
    pump(s, &mut events, job, conn, sid).await
}

/// Sends the conversation's commands to the client (after `session/new`,
/// `session/load` and `/reload-ext`).
fn advertise(conn: &ConnectionTo<Client>, sid: &SessionId, controller: &dyn ConversationHandle) {
    let update = crate::commands::available(controller);
    let _ = conn.send_notification(SessionNotification::new(sid.clone(), update));
}

/// Runs a slash command (`/name args`, one the conversation offers). A
/// queued job (`prompt` action, `/compact`, `/reload-ext`) streams like a
/// prompt; a command's text (`display`, a setting's confirmation, an
/// error) comes back as an agent message. A panel has no place in ACP: the
/// client is told so and the extension gets `panel_close`.
async fn run_command(
    s: &Session,
    name: &str,
    args: &str,
    conn: &ConnectionTo<Client>,
    sid: &SessionId,
) -> Result<StopReason, String> {
    let mut events = s.events.lock().await;
    s.cancelled.store(false, Ordering::SeqCst);
    let outcome = s.controller.command(name, args, None).await;
    // What the command pushed on the stream (its `display`) goes out
    // first, in order.
    flush(&mut events, conn, sid, &s.statuses, &s.usage);
    let say = |t: String| {
        let _ = conn.send_notification(SessionNotification::new(
            sid.clone(),
            crate::updates::note_update(&t),
        ));
    };
    match outcome {
        Ok(CommandOutcome::Queued(job)) => {
            let reload = name.eq_ignore_ascii_case("reload-ext");
            let stop = pump(s, &mut events, job, conn, sid).await;
            if reload {
                advertise(conn, sid, &*s.controller);
            }
            stop
        }
        // Shown by `flush` (the stream's `ext_display`).
        Ok(CommandOutcome::Display { .. }) | Ok(CommandOutcome::Noop) => Ok(StopReason::EndTurn),
        Ok(CommandOutcome::Insert { extension, text }) => {
            say(format!("[{extension}] {text}"));
            Ok(StopReason::EndTurn)
        }
        Ok(CommandOutcome::OpenPanel { extension, panel }) => {
            s.controller.panel_close(&extension, &panel.id);
            say(format!(
                "[{extension}] /{name} opens a panel ({:?}); panels have no place in ACP: use zut's terminal UI for it",
                panel.title
            ));
            Ok(StopReason::EndTurn)
        }
        Ok(CommandOutcome::Done(text)) => {
            say(text);
            Ok(StopReason::EndTurn)
        }
        Err(e) => {
            say(format!("error: {e}"));
            Ok(StopReason::EndTurn)
        }
    }
}

/// Forwards what is already on the stream, without waiting.
fn flush(
    events: &mut zut_control::EventStream,
    conn: &ConnectionTo<Client>,
    sid: &SessionId,
    statuses: &Arc<std::sync::Mutex<crate::plan::Statuses>>,
    usage: &Arc<std::sync::Mutex<crate::updates::UsageTotal>>,
) {
    let mut mapper = Mapper::with_statuses(statuses.clone(), usage.clone());
    let mut batch = Vec::new();
    while let Some(true) = events.next_batch(&mut batch).now_or_never() {
        for ev in batch.drain(..) {
            let agent_ev = match ev {
                ControllerEvent::Agent(a) => a,
                ControllerEvent::Ui(u) => match AgentEvent::from_ui(&u) {
                    Some(a) => a,
                    None => continue,
                },
                ControllerEvent::Subagent { id, event } => {
                    for update in crate::children::map(&id, &event) {
                        let _ =
                            conn.send_notification(SessionNotification::new(sid.clone(), update));
                    }
                    continue;
                }
                _ => continue,
            };
            for update in mapper.map(&agent_ev) {
                let _ = conn.send_notification(SessionNotification::new(sid.clone(), update));
            }
        }
    }
}

/// Forwards the stream as `session/update`s until `job` finished; its stop
/// reason.
async fn pump(
    s: &Session,
    events: &mut zut_control::EventStream,
    job: zut_control::JobHandle,
    conn: &ConnectionTo<Client>,
    sid: &SessionId,
) -> Result<StopReason, String> {
    let id = job.id;
    let mut mapper = Mapper::with_statuses(s.statuses.clone(), s.usage.clone());
    let mut mine = false;
    let mut stop = StopReason::EndTurn;
    let mut error = None;
    while let Some(ev) = events.next().await {
        let agent_ev = match ev {
            ControllerEvent::JobStarted { job, .. } => {
                mine = job == id;
                continue;
            }
            ControllerEvent::JobFinished { job } if job == id => break,
            ControllerEvent::JobFinished { .. } => continue,
            ControllerEvent::Agent(a) => a,
            // Other front ends' own markers: nothing for ACP.
            ControllerEvent::Note(_) | ControllerEvent::ExtensionsReady { .. } => continue,
            // Children: tool calls of their own (crate::children).
            ControllerEvent::Subagent { id, event } => {
                for update in crate::children::map(&id, &event) {
                    let _ = conn.send_notification(SessionNotification::new(sid.clone(), update));
                }
                continue;
            }
            ControllerEvent::Ui(u) => match AgentEvent::from_ui(&u) {
                Some(a) => a,
                None => continue,
            },
        };
        match agent_ev {
            AgentEvent::McpElicitation {
                request_id,
                server,
                message,
                schema,
                url,
                ..
            } => {
                let ask = crate::elicit::Ask {
                    request_id,
                    server,
                    message,
                    schema,
                    url,
                };
                crate::elicit::forward_once(conn, sid, &s.controller, &s.forwarded, ask);
                continue;
            }
            // The server stopped waiting: the client's answer, if it
            // comes, is refused by the controller.
            AgentEvent::McpElicitationClosed { request_id } => {
                s.forwarded.release(request_id);
                continue;
            }
            // The server says the URL flow finished: the client drops
            // what it still shows for it (ACP `elicitation/complete`).
            AgentEvent::McpElicitationComplete { request_id, server } => {
                crate::elicit::complete(conn, &server, request_id);
                continue;
            }
            _ => {}
        }
        if let AgentEvent::ToolApprovalRequested {
            request_id,
            id,
            name,
            args,
            ..
        } = agent_ev
        {
            let ask = crate::permission::Ask {
                request_id,
                tool_id: id,
                tool: name,
                args,
            };
            crate::permission::spawn(conn, sid.clone(), s.controller.clone(), ask);
            continue;
        }
        match &agent_ev {
            AgentEvent::TurnEnd { stop: "length", .. } if mine => stop = StopReason::MaxTokens,
            AgentEvent::Error { message } if mine => error = Some(message.clone()),
            _ => {}
        }
        for update in mapper.map(&agent_ev) {
            let _ = conn.send_notification(SessionNotification::new(sid.clone(), update));
        }
    }
    let outcome = job.outcome().await;
    if s.cancelled.swap(false, Ordering::SeqCst) {
        return Ok(StopReason::Cancelled);
    }
    match outcome {
        JobOutcome::Prompt(PromptOutcome::Aborted) => Ok(StopReason::Cancelled),
        JobOutcome::Prompt(PromptOutcome::Failed { message }) => Err(message),
        JobOutcome::Dropped => Err("the conversation was shut down".into()),
        JobOutcome::Compact(Err(e)) => Err(e),
        JobOutcome::Compact(Ok(_)) => {
            let _ = conn.send_notification(SessionNotification::new(
                sid.clone(),
                crate::updates::note_update("conversation compacted"),
            ));
            Ok(stop)
        }
        JobOutcome::Reload(r) => {
            let mut text = format!(
                "extensions reloaded: {} loaded, {} ready",
                r.loaded, r.ready
            );
            for e in &r.errors {
                text.push_str(&format!("\nfailed: {e}"));
            }
            let _ = conn.send_notification(SessionNotification::new(
                sid.clone(),
                crate::updates::note_update(&text),
            ));
            Ok(stop)
        }
        _ => match error {
            Some(e) if stop != StopReason::MaxTokens => Err(e),
            _ => Ok(stop),
        },
    }
}

/// The client's MCP servers as JSON for [`crate::OpenRequest::mcp_servers`].
fn mcp_json(servers: &[agent_client_protocol::v1::schema::McpServer]) -> Vec<serde_json::Value> {
    servers
        .iter()
        .filter_map(|s| serde_json::to_value(s).ok())
        .collect()
}
