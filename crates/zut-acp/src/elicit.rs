//! MCP elicitations as ACP `elicitation/create` requests (form mode,
//! scoped to the session), for a client that declared `elicitation.form`;
//! the client's answer goes back to the controller. A schema the ACP types
//! cannot carry, a failed request or an unknown action cancel.

use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    CreateElicitationRequest, ElicitationAction, ElicitationFormMode, ElicitationSchema,
    ElicitationSessionScope, SessionId,
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

/// Asks the client in a task of its own (the turn's updates keep
/// flowing), then answers the controller.
pub(crate) fn spawn(
    conn: &ConnectionTo<Client>,
    sid: SessionId,
    c: Arc<dyn ConversationHandle>,
    request_id: u64,
    message: String,
    schema: Value,
) {
    let schema: ElicitationSchema = match serde_json::from_value(schema) {
        Ok(s) => s,
        Err(_) => {
            let _ = c.answer_elicitation(request_id, ElicitationAnswer::cancel());
            return;
        }
    };
    let mode = ElicitationFormMode::new(ElicitationSessionScope::new(sid), schema);
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
