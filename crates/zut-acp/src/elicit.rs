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
//! waiting for the next prompt. The set of requests sent ([`Forwarded`])
//! holds only those still waiting.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    CompleteElicitationNotification, CreateElicitationRequest, ElicitationAction,
    ElicitationFormMode, ElicitationMode, ElicitationSchema, ElicitationSessionScope,
    ElicitationUrlMode, SessionId,
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

/// The elicitations of one session sent to the client and not yet
/// settled. An id is claimed only while the controller still has it
/// pending (an `McpElicitation` event read late, e.g. by the next turn's
/// pump, is not sent again) and released when the client's answer has
/// been handed over or the request stopped waiting, so the set never
/// holds more than the requests waiting now.
#[derive(Default)]
pub(crate) struct Forwarded(Mutex<HashSet<u64>>);

impl Forwarded {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<u64>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Claims `id` for sending: `false` when it was sent already or is no
    /// longer pending. `pending` is asked under the set's lock, so a
    /// release between the two cannot let the same request out twice
    /// (the answer leaves the controller's pending list before
    /// [`Forwarded::release`] takes this lock).
    pub(crate) fn claim(&self, id: u64, pending: impl FnOnce(u64) -> bool) -> bool {
        let mut set = self.lock();
        if set.contains(&id) || !pending(id) {
            return false;
        }
        set.insert(id)
    }

    /// Forgets `id` (answered, or no longer waiting).
    pub(crate) fn release(&self, id: u64) {
        self.lock().remove(&id);
    }

    /// Keeps only the ids still pending.
    pub(crate) fn retain_pending(&self, pending: &HashSet<u64>) {
        self.lock().retain(|id| pending.contains(id));
    }

    /// How many are held.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

fn is_pending(c: &Arc<dyn ConversationHandle>, id: u64) -> bool {
    c.pending_elicitations().iter().any(|r| r.id == id)
}

/// Sends `ask` to the client unless it was sent already (the turn's
/// pump and [`watch`] may both see it) or no longer waits.
pub(crate) fn forward_once(
    conn: &ConnectionTo<Client>,
    sid: &SessionId,
    c: &Arc<dyn ConversationHandle>,
    forwarded: &Arc<Forwarded>,
    ask: Ask,
) {
    if forwarded.claim(ask.request_id, |id| is_pending(c, id)) {
        spawn(conn, sid.clone(), c.clone(), forwarded.clone(), ask);
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
            let pending = c.pending_elicitations();
            // Requests the servers stopped waiting for since the last look.
            forwarded.retain_pending(&pending.iter().map(|r| r.id).collect());
            for req in pending {
                forward_once(&conn2, &sid, &c, &forwarded, Ask::from(req));
            }
        }
        Ok(())
    });
}

/// The ACP elicitation id of request `request_id` of `server` (URL mode).
fn acp_id(server: &str, request_id: u64) -> String {
    format!("zut-{server}-{request_id}")
}

/// Tells the client that the URL flow of request `request_id` finished
/// (the MCP server's `notifications/elicitation/complete`).
pub(crate) fn complete(conn: &ConnectionTo<Client>, server: &str, request_id: u64) {
    let _ = conn.send_notification(CompleteElicitationNotification::new(acp_id(
        server, request_id,
    )));
}

/// Asks the client in a task of its own (the turn's updates keep
/// flowing), then answers the controller and releases the claim.
fn spawn(
    conn: &ConnectionTo<Client>,
    sid: SessionId,
    c: Arc<dyn ConversationHandle>,
    forwarded: Arc<Forwarded>,
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
        Some(url) => ElicitationUrlMode::new(scope, acp_id(&server, request_id), url).into(),
        None => match serde_json::from_value::<ElicitationSchema>(schema) {
            Ok(schema) => ElicitationFormMode::new(scope, schema).into(),
            Err(_) => {
                let _ = c.answer_elicitation(request_id, ElicitationAnswer::cancel());
                forwarded.release(request_id);
                return;
            }
        },
    };
    let sent = conn.send_request(CreateElicitationRequest::new(mode, message));
    let fallback = (c.clone(), forwarded.clone());
    let spawned = conn.spawn(async move {
        let a = match sent.block_task().await {
            Ok(r) => answer(r.action),
            Err(_) => ElicitationAnswer::cancel(),
        };
        if c.answer_elicitation(request_id, a).is_err() {
            // Does not fit the form (or the server stopped waiting).
            let _ = c.answer_elicitation(request_id, ElicitationAnswer::cancel());
        }
        forwarded.release(request_id);
        Ok(())
    });
    if spawned.is_err() {
        let _ = fallback
            .0
            .answer_elicitation(request_id, ElicitationAnswer::cancel());
        fallback.1.release(request_id);
    }
}

#[cfg(test)]
mod tests {
    use super::Forwarded;
    use std::collections::HashSet;

    /// A session that forwards many elicitations over its life holds only
    /// those still waiting: answered ones are released, a late event for
    /// an answered one is not sent again, closed ones are dropped.
    #[test]
    fn the_forwarded_set_holds_only_waiting_requests() {
        let f = Forwarded::default();
        let mut pending: HashSet<u64> = HashSet::new();
        let mut most = 0;
        for id in 0..1000u64 {
            pending.insert(id);
            assert!(f.claim(id, |i| pending.contains(&i)));
            // The turn's pump sees the same request: not sent twice.
            assert!(!f.claim(id, |i| pending.contains(&i)));
            most = most.max(f.len());
            if id % 3 == 0 {
                // Left waiting a little: answered on the next round.
                continue;
            }
            // The client answers: the controller drops it, then the claim.
            pending.remove(&id);
            f.release(id);
            if id % 3 == 1 {
                // The previous one is answered too.
                pending.remove(&(id - 1));
                f.release(id - 1);
            }
            // An `McpElicitation` event read late is not sent again.
            assert!(!f.claim(id, |i| pending.contains(&i)));
        }
        assert!(most <= 2, "held {most} at once");
        // Only the last one (999) is still waiting.
        assert_eq!(f.len(), 1);
        pending.remove(&999);
        f.release(999);
        assert_eq!(f.len(), 0);

        // Requests the servers stopped waiting for (closed while the
        // client never answered) go at the next look.
        for id in 2000..2010u64 {
            pending.insert(id);
            assert!(f.claim(id, |i| pending.contains(&i)));
        }
        assert_eq!(f.len(), 10);
        pending.retain(|id| *id >= 2008);
        f.retain_pending(&pending);
        assert_eq!(f.len(), 2);
    }
}
