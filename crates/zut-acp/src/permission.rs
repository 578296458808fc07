//! `--no-yolo`: the controller's approval requests as
//! `session/request_permission` calls to the client.

use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    SessionId, ToolCallUpdate, ToolCallUpdateFields,
};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::Client;
use serde_json::Value;
use std::sync::Arc;

use zut_control::ConversationHandle;
use zut_types::ApprovalDecision;

use crate::updates::{kind, title};

/// Option ids offered to the client, with the decision each stands for.
pub(crate) const ALLOW_ONCE: &str = "allow_once";
/// "Always allow this tool" (for the rest of the session).
pub(crate) const ALLOW_TOOL: &str = "allow_tool";
/// "Always allow every tool" (for the rest of the session).
pub(crate) const ALLOW_ALL: &str = "allow_all";
/// Refuse this call.
pub(crate) const REJECT: &str = "reject";

/// One approval request as the client sees it.
pub(crate) struct Ask {
    /// The controller's request id.
    pub request_id: u64,
    /// The tool call id.
    pub tool_id: String,
    /// The tool's name.
    pub tool: String,
    /// Its effective arguments.
    pub args: Value,
}

fn options(tool: &str) -> Vec<PermissionOption> {
    vec![
        PermissionOption::new(ALLOW_ONCE, "Allow once", PermissionOptionKind::AllowOnce),
        PermissionOption::new(
            ALLOW_TOOL,
            format!("Always allow {tool}"),
            PermissionOptionKind::AllowAlways,
        ),
        PermissionOption::new(
            ALLOW_ALL,
            "Always allow every tool",
            PermissionOptionKind::AllowAlways,
        ),
        PermissionOption::new(REJECT, "Refuse", PermissionOptionKind::RejectOnce),
    ]
}

/// The decision for an option id (unknown ids refuse).
pub(crate) fn decision(option: &str) -> ApprovalDecision {
    match option {
        ALLOW_ONCE => ApprovalDecision::Once,
        ALLOW_TOOL => ApprovalDecision::AlwaysTool,
        ALLOW_ALL => ApprovalDecision::AlwaysAll,
        REJECT => ApprovalDecision::refuse(),
        other => ApprovalDecision::Refuse {
            reason: Some(format!(
                "tool call refused: the client chose an unknown option {other:?}"
            )),
        },
    }
}

/// Asks the client in a task of its own (the turn's updates keep flowing),
/// then answers the controller. A cancelled or failed request refuses the
/// call; an answer that comes after an abort finds nothing and is dropped.
pub(crate) fn spawn(
    conn: &ConnectionTo<Client>,
    sid: SessionId,
    c: Arc<dyn ConversationHandle>,
    ask: Ask,
) {
    let fields = ToolCallUpdateFields::new()
        .title(title(&ask.tool, &ask.args))
        .kind(kind(&ask.tool))
        .raw_input(ask.args.clone());
    let req = RequestPermissionRequest::new(
        sid,
        ToolCallUpdate::new(ask.tool_id.clone(), fields),
        options(&ask.tool),
    );
    let sent = conn.send_request(req);
    let (request_id, fallback) = (ask.request_id, c.clone());
    let spawned = conn.spawn(async move {
        let d = match sent.block_task().await {
            Ok(r) => match r.outcome {
                RequestPermissionOutcome::Selected(s) => decision(&s.option_id.0),
                RequestPermissionOutcome::Cancelled => ApprovalDecision::refuse(),
                _ => ApprovalDecision::refuse(),
            },
            Err(e) => ApprovalDecision::Refuse {
                reason: Some(format!("tool call refused: permission request failed: {e}")),
            },
        };
        c.answer_approval(request_id, d);
        Ok(())
    });
    if spawned.is_err() {
        // The connection is closing: nothing can answer.
        fallback.answer_approval(request_id, ApprovalDecision::refuse());
    }
}
