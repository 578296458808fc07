//! One request to a server with zut's rules: a timeout after which the
//! server is sent `notifications/cancelled`, the user's cancellation (also
//! forwarded), progress routed to the caller.

use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientNotification, ClientRequest, NumberOrString, ProgressToken, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions};
use rmcp::RoleClient;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::slot::{ProgressFn, Slot};

/// The key of a progress token in a slot's route map.
pub(crate) fn token_key(token: &ProgressToken) -> String {
    match &token.0 {
        NumberOrString::Number(n) => n.to_string(),
        NumberOrString::String(s) => s.to_string(),
    }
}

/// Why a request produced no result.
#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    /// The timeout passed; the server was told to cancel.
    Timeout(Duration),
    /// The caller cancelled; the server was told to cancel.
    Cancelled,
    /// The server answered with a JSON-RPC error, or the connection failed.
    Failed(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Timeout(d) => write!(
                f,
                "timed out after {} ms; the server was asked to cancel the call",
                d.as_millis()
            ),
            CallError::Cancelled => write!(f, "cancelled"),
            CallError::Failed(e) => write!(f, "{e}"),
        }
    }
}

/// Sends `request`, waits for its result under `timeout` and `cancel`.
pub(crate) async fn request(
    slot: &Slot,
    peer: &Peer<RoleClient>,
    request: ClientRequest,
    timeout: Duration,
    cancel: &CancellationToken,
    progress: Option<ProgressFn>,
) -> Result<ServerResult, CallError> {
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await
        .map_err(|e| CallError::Failed(e.to_string()))?;
    let id = handle.id.clone();
    let key = token_key(&handle.progress_token);
    let routed = progress.is_some();
    if routed {
        slot.set_progress_route(key.clone(), progress);
    }
    let outcome = tokio::select! {
        r = handle.await_response() => r.map_err(|e| CallError::Failed(e.to_string())),
        _ = tokio::time::sleep(timeout) => Err(CallError::Timeout(timeout)),
        _ = cancel.cancelled() => Err(CallError::Cancelled),
    };
    if routed {
        slot.set_progress_route(key, None);
    }
    if let Err(e @ (CallError::Timeout(_) | CallError::Cancelled)) = &outcome {
        let reason = match e {
            CallError::Timeout(_) => "timeout",
            _ => "cancelled by the user",
        };
        let note = CancelledNotification::new(CancelledNotificationParam::new(
            Some(id),
            Some(reason.to_string()),
        ));
        let _ = peer
            .send_notification(ClientNotification::CancelledNotification(note))
            .await;
    }
    outcome
}

/// `tools/call` of `tool` with `args`; the result as JSON.
pub(crate) async fn call_tool(
    slot: &Slot,
    peer: &Peer<RoleClient>,
    tool: &str,
    args: Value,
    timeout: Duration,
    cancel: &CancellationToken,
    progress: Option<ProgressFn>,
) -> Result<Value, CallError> {
    let mut params = CallToolRequestParams::new(tool.to_string());
    params.arguments = match args {
        Value::Object(m) => Some(m),
        Value::Null => None,
        _ => return Err(CallError::Failed("arguments must be a JSON object".into())),
    };
    let req = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    match request(slot, peer, req, timeout, cancel, progress).await? {
        ServerResult::CallToolResult(r) => {
            serde_json::to_value(r).map_err(|e| CallError::Failed(e.to_string()))
        }
        other => serde_json::to_value(other).map_err(|e| CallError::Failed(e.to_string())),
    }
}
