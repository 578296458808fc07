//! MCP elicitations as ACP `elicitation/create` requests (form or URL
//! mode, scoped to the session), for a client that declared that mode
//! (`elicitation.form`, `elicitation.url`); the client's answer goes back
//! to the controller. A schema the ACP types cannot carry, a failed
//! request or an unknown action cancel.
//!
//! A request is sent when it starts waiting, during a prompt turn or
//! between prompts ([`watch`]): ACP lets the agent send a session-scoped
//! `elicitation/create` at any time, so an MCP server asking while no
//! prompt runs (a background call, a server's own timer) is not kept
//! waiting for the next prompt.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    CreateElicitationRequest, ElicitationAction, ElicitationFormMode, ElicitationMode,
    ElicitationSchema, ElicitationSessionScope, ElicitationUrlMode, SessionId,
};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::Client;
use serde_json::{Map, Value};

use zut_control::ConversationHandle;
use zut_types::ElicitationAnswer;

/// The answer for the client's action.
fn answer(action: ElicitationAction) -> ElicitationAnswer {
    match action {
        ElicitationAction::Accept(a) => {
            let content = a
                .content
                .and_then(|c| serde_json::to_value(c).ok())
                .and_then(|v| match v {
                    Value::Object(m) => Some(m),
                    _ => None,
                })
                .unwrap_or_else(Map::new);
            ElicitationAnswer::accept(content)
        }
        ElicitationAction::Decline => ElicitationAnswer::decline(),
        _ => ElicitationAnswer::cancel(),
    }
}

/// One MCP elicitation to forward.
pub(crate) struct Ask {
    /// The controller's request id.
    pub request_id: u64,
    /// The asking server.
    pub server: String,
    /// The server's message.
    pub message: String,
    /// The form (form mode).
    pub schema: Value,
    /// The page to open (URL mode).
    pub url: Option<String>,
}

impl From<zut_types::ElicitationRequest> for Ask {
    fn from(r: zut_types::ElicitationRequest) -> Self {
        Self {
            request_id: r.id,
            server: r.server,
            message: r.message,
            schema: r.schema,
            url: r.url,
        }
    }
}

/// Sends `ask` to the client unless it was sent already (the turn's
/// pump and [`watch`] may both see it).
pub(crate) fn forward_once(
    conn: &ConnectionTo<Client>,
    sid: &SessionId,
    c: &Arc<dyn ConversationHandle>,
    forwarded: &Mutex<HashSet<u64>>,
    ask: Ask,
) {
    let first = forwarded
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(ask.request_id);
    if first {
        spawn(conn, sid.clone(), c.clone(), ask);
    }
}

/// Forwards every elicitation as soon as it starts waiting, also while no
/// prompt runs (the pump only reads the event stream during a turn). Ends
/// with the conversation (it holds it weakly).
pub(crate) fn watch(conn: &ConnectionTo<Client>, sid: SessionId, s: &crate::sessions::Session) {
    let Some(mut rx) = s.controller.elicitation_watch() else {
        return;
    };
    let c = Arc::downgrade(&s.controller);
    let forwarded = s.forwarded.clone();
    let conn2 = conn.clone();
    let _ = conn.spawn(async move {
        while rx.changed().await.is_ok() {
            let Some(c) = c.upgrade() else { break };
            for req in c.pending_elicitations() {
                forward_once(&conn2, &sid, &c, &forwarded, Ask::from(req));
            }
        }
        Ok(())
    });
}

/// Asks the client in a task of its own (the turn's updates keep
/// flowing), then answers the controller.
pub(crate) fn spawn(
    conn: &ConnectionTo<Client>,
    sid: SessionId,
    c: Arc<dyn ConversationHandle>,
    ask: Ask,
) {
    let Ask {
        request_id,
        server,
        message,
        schema,
        url,
    } = ask;
    let scope = ElicitationSessionScope::new(sid);
    let mode: ElicitationMode = match url {
        Some(url) => {
            ElicitationUrlMode::new(scope, format!("zut-{server}-{request_id}"), url).into()
        }
        None => match serde_json::from_value::<ElicitationSchema>(schema) {
            Ok(schema) => ElicitationFormMode::new(scope, schema).into(),
            Err(_) => {
                let _ = c.answer_elicitation(request_id, ElicitationAnswer::cancel());
                return;
            }
        },
    };
    let sent = conn.send_request(CreateElicitationRequest::new(mode, message));
    let fallback = c.clone();
    let spawned = conn.spawn(async move {
        let a = match sent.block_task().await {
            Ok(r) => answer(r.action),
            Err(_) => ElicitationAnswer::cancel(),
        };
        if c.answer_elicitation(request_id, a).is_err() {
            // Does not fit the form (or the server stopped waiting).
            let _ = c.answer_elicitation(request_id, ElicitationAnswer::cancel());
        }
        Ok(())
    });
    if spawned.is_err() {
        let _ = fallback.answer_elicitation(request_id, ElicitationAnswer::cancel());
    }
}
