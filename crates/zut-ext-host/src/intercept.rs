//! Interception chains (protocol §11): serial, load order, first block
//! wins, rewrites chain.

use serde_json::Value;
use zut_protocol::{EventIntercept, EventInterceptResponse, EventName, HostFrame};

use crate::calls::RequestError;
use crate::context::join_contexts;
use crate::extension::{Extension, PendingGuard, Reply, ReplyKind};
use crate::shared::Shared;

/// Outcome of `tool_call` interception.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCallVerdict {
    /// Run the tool with `args`; `modified` if they differ from the model's.
    Allow {
        /// Effective arguments.
        args: Value,
        /// Whether an interceptor changed them.
        modified: bool,
    },
    /// Do not run the tool; the model gets `reason` as an error result.
    Block {
        /// Reason (defaulted when the extension gave none).
        reason: String,
        /// Manifest name of the blocking extension.
        extension: String,
    },
}

/// Outcome of `turn_start` interception.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnStartVerdict {
    /// Call the model; `context` (already joined and bounded) goes into
    /// this request only.
    Allow {
        /// Hidden context, if any extension returned one.
        context: Option<String>,
    },
    /// No model call; show `reason`.
    Block {
        /// Reason (defaulted).
        reason: String,
        /// Blocking extension.
        extension: String,
    },
}

/// Outcome of `assistant_message` interception.
#[derive(Debug, Clone, PartialEq)]
pub enum AssistantVerdict {
    /// Show `text` (replaced if `replaced`).
    Allow {
        /// User-visible text.
        text: String,
        /// Whether an interceptor replaced it.
        replaced: bool,
    },
    /// Do not show the message; show `reason` as a status line.
    Block {
        /// Reason (may be empty).
        reason: String,
        /// Blocking extension.
        extension: String,
    },
}

/// Asks one extension; `None` means "allow, unchanged" (timeout, dead,
/// write failure).
async fn ask(
    shared: &Shared,
    ext: &Extension,
    mut frame: EventIntercept,
) -> Option<EventInterceptResponse> {
    let id = shared.next_id();
    frame.id = id.clone();
    let event = frame.event.clone();
    let rx = ext.expect_reply(&id, ReplyKind::Intercept);
    let _guard = PendingGuard {
        ext,
        id: id.clone(),
    };
    let res: Result<(), RequestError> = match ext.outbox.push_request(
        zut_protocol::encode_line(&HostFrame::EventIntercept(frame)),
        Some(&id),
    ) {
        Err(e) => Err(RequestError::Write(e)),
        Ok(_) => match tokio::time::timeout(shared.config.timeouts.intercept, rx).await {
            Err(_) => Err(RequestError::Timeout),
            Ok(Ok(Reply::Intercept(r))) => return Some(r),
            Ok(_) => Err(match ext.outbox.broken() {
                Some(err) => RequestError::Write(format!("write: {err}")),
                None => RequestError::Disconnected,
            }),
        },
    };
    match res {
        Err(RequestError::Timeout) => {
            ext.log_marker(&format!("intercept {event} timed out; allowing"))
        }
        Err(RequestError::Write(e)) => ext.log_marker(&format!("intercept write failed: {e}")),
        _ => {}
    }
    None
}

fn interceptors(shared: &Shared, event: &str) -> Vec<std::sync::Arc<Extension>> {
    shared
        .extensions()
        .into_iter()
        .filter(|e| e.is_alive() && e.intercepts(event))
        .collect()
}

pub(crate) async fn tool_call(
    shared: &Shared,
    tool_id: &str,
    tool_name: &str,
    args: &Value,
) -> ToolCallVerdict {
    let mut current = args.clone();
    for ext in interceptors(shared, EventName::TOOL_CALL) {
        let frame = EventIntercept {
            event: EventName::TOOL_CALL.into(),
            tool_id: tool_id.into(),
            tool_name: tool_name.into(),
            // Omitted when the model sent no arguments (protocol §11.1).
            tool_args: (!current.is_null()).then(|| current.clone()),
            ..Default::default()
        };
        let Some(r) = ask(shared, &ext, frame).await else {
            continue;
        };
        if r.block {
            let reason = if r.reason.is_empty() {
                "tool call refused by extension guard".into()
            } else {
                r.reason
            };
            return ToolCallVerdict::Block {
                reason,
                extension: ext.name.clone(),
            };
        }
        match r.modified_args {
            Some(v @ Value::Object(_)) => current = v,
            Some(_) => ext.warn("modified_args must be a JSON object; ignored"),
            None => {}
        }
    }
    let modified = &current != args;
    ToolCallVerdict::Allow {
        args: current,
        modified,
    }
}

pub(crate) async fn turn_start(shared: &Shared, step: u64) -> TurnStartVerdict {
    let mut contexts = Vec::new();
    for ext in interceptors(shared, EventName::TURN_START) {
        let frame = EventIntercept {
            event: EventName::TURN_START.into(),
            step,
            ..Default::default()
        };
        let Some(r) = ask(shared, &ext, frame).await else {
            continue;
        };
        if r.block {
            let reason = if r.reason.is_empty() {
                "turn blocked by extension guard".into()
            } else {
                r.reason
            };
            return TurnStartVerdict::Block {
                reason,
                extension: ext.name.clone(),
            };
        }
        if !r.context.trim().is_empty() {
            contexts.push((ext.name.clone(), r.context));
        }
    }
    TurnStartVerdict::Allow {
        context: join_contexts(&contexts),
    }
}

pub(crate) async fn assistant_message(shared: &Shared, text: &str) -> AssistantVerdict {
    let mut current = text.to_string();
    for ext in interceptors(shared, EventName::ASSISTANT_MESSAGE) {
        let frame = EventIntercept {
            event: EventName::ASSISTANT_MESSAGE.into(),
            text: current.clone(),
            ..Default::default()
        };
        let Some(r) = ask(shared, &ext, frame).await else {
            continue;
        };
        if r.block {
            return AssistantVerdict::Block {
                reason: r.reason,
                extension: ext.name.clone(),
            };
        }
        if !r.replace_text.is_empty() && r.replace_text != current {
            current = r.replace_text;
        }
    }
    let replaced = current != text;
    AssistantVerdict::Allow {
        text: current,
        replaced,
    }
}
