//! Interactive tool approval (`--no-yolo`, protocol.md §11.1 and the
//! `tool_confirmation_requested` event of §10).
//!
//! With [`crate::AgentConfig::confirm_tools`] on, every tool call that
//! `tool_call` interception allowed, that names a known tool and whose
//! arguments are valid waits for a decision before it runs, unless a
//! remembered approval covers it ("always this tool" or "always"). Like the
//! Go original, every tool needs approval, read-only ones included (the
//! spec's own example confirms a `read`). Just before waiting, subscribed
//! extensions get `tool_confirmation_requested` and the event sink gets
//! [`crate::AgentEvent::ToolApprovalRequested`]; the decision comes back
//! through the [`PendingApproval`] handed to the [`ApprovalHook`].

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

/// Preview length limit in bytes (protocol.md §10 `tool_preview`).
pub const PREVIEW_MAX: usize = 120;

/// Refusal text when the user gives no reason (protocol.md §11.1).
pub const DEFAULT_REFUSAL: &str = "tool call refused by user";

/// Refusal text when approvals are on but nothing can answer them.
pub const NO_PROMPT_REFUSAL: &str = "tool call refused: --no-yolo is active and there is no interactive prompt in this mode; ask the user what to do instead";

/// Refusal text when the answering side went away without deciding.
pub const DROPPED_REFUSAL: &str = "tool call refused: the approval request was dropped unanswered";

/// One call waiting for approval.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRequest {
    /// Unique per agent (and per controller): the key to answer with.
    pub id: u64,
    /// The model's tool call id.
    pub tool_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// The short summary (see [`preview`]).
    pub preview: String,
    /// The effective arguments (after interceptors' rewrites).
    pub args: Value,
    /// What the call would do (see `zut_tools::preview_builtin`).
    pub detail: Option<String>,
}

pub use zut_types::approval::ApprovalDecision;

/// A request plus the channel its answer goes back on.
#[derive(Debug)]
pub struct PendingApproval {
    /// What to decide on.
    pub request: ApprovalRequest,
    reply: oneshot::Sender<ApprovalDecision>,
}

impl PendingApproval {
    /// Answers; `false` when the agent no longer waits (aborted).
    pub fn answer(self, decision: ApprovalDecision) -> bool {
        self.reply.send(decision).is_ok()
    }
}

/// Receives every approval request, synchronously, before the agent
/// emits [`crate::AgentEvent::ToolApprovalRequested`] (so an answer given
/// on seeing the event always finds the request stored). Dropping the
/// [`PendingApproval`] unanswered refuses the call ([`DROPPED_REFUSAL`]).
#[derive(Clone)]
pub struct ApprovalHook(Arc<dyn Fn(PendingApproval) + Send + Sync>);

impl ApprovalHook {
    /// A hook calling `f` for each request.
    pub fn new(f: impl Fn(PendingApproval) + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    /// A hook sending each request into a channel.
    pub fn channel() -> (Self, mpsc::UnboundedReceiver<PendingApproval>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (
            Self::new(move |p| {
                let _ = tx.send(p);
            }),
            rx,
        )
    }
}

impl std::fmt::Debug for ApprovalHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApprovalHook")
    }
}

/// Remembered approvals and the hook, owned by the agent.
#[derive(Debug, Default)]
pub(crate) struct ApprovalGate {
    pub(crate) hook: Option<ApprovalHook>,
    allow_all: bool,
    allowed: HashSet<String>,
    next_id: u64,
}

/// What the gate says before asking.
pub(crate) enum Gate {
    /// Covered by a remembered approval: run without asking.
    Allowed,
    /// Nothing can answer: refuse with this text.
    Refused(String),
    /// Ask: the request was handed to the hook; wait on this.
    Ask(ApprovalRequest, oneshot::Receiver<ApprovalDecision>),
}

impl ApprovalGate {
    /// Whether the call is covered; otherwise hands a request to the hook.
    /// Whether a remembered approval covers `tool_name` (no need to ask).
    pub(crate) fn covers(&self, tool_name: &str) -> bool {
        self.allow_all || self.allowed.contains(tool_name)
    }

    pub(crate) fn check(
        &mut self,
        tool_id: &str,
        tool_name: &str,
        args: &Value,
        detail: Option<String>,
    ) -> Gate {
        if self.covers(tool_name) {
            return Gate::Allowed;
        }
        let Some(hook) = &self.hook else {
            return Gate::Refused(NO_PROMPT_REFUSAL.to_string());
        };
        self.next_id += 1;
        let request = ApprovalRequest {
            id: self.next_id,
            tool_id: tool_id.to_string(),
            tool_name: tool_name.to_string(),
            preview: preview(args),
            args: args.clone(),
            detail,
        };
        let (tx, rx) = oneshot::channel();
        (hook.0)(PendingApproval {
            request: request.clone(),
            reply: tx,
        });
        Gate::Ask(request, rx)
    }

    /// Records a decision; `Err(reason)` for a refusal.
    pub(crate) fn decide(&mut self, tool_name: &str, d: ApprovalDecision) -> Result<(), String> {
        match d {
            ApprovalDecision::Once => Ok(()),
            ApprovalDecision::AlwaysTool => {
                self.allowed.insert(tool_name.to_string());
                Ok(())
            }
            ApprovalDecision::AlwaysAll => {
                self.allow_all = true;
                Ok(())
            }
            ApprovalDecision::Refuse { reason } => Err(reason
                .map(|r| r.trim().to_string())
                .filter(|r| !r.is_empty())
                .unwrap_or_else(|| DEFAULT_REFUSAL.to_string())),
        }
    }

    /// Forgets every remembered approval.
    pub(crate) fn reset(&mut self) {
        self.allow_all = false;
        self.allowed.clear();
    }
}

/// The confirmation summary of `args` (protocol.md §10 `tool_preview`): the
/// first non-empty string among `command`, `path`, `file_path`, `url`,
/// `query`, `name`, else the compact JSON; trimmed, and cut to
/// [`PREVIEW_MAX`] bytes (on a character boundary) ending in `...` when
/// longer.
pub fn preview(args: &Value) -> String {
    let picked = ["command", "path", "file_path", "url", "query", "name"]
        .iter()
        .find_map(|k| {
            args.get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        });
    let text = match picked {
        Some(s) => s.to_string(),
        None if args.is_null() => String::new(),
        None => args.to_string(),
    };
    truncate(text.trim())
}

fn truncate(s: &str) -> String {
    if s.len() <= PREVIEW_MAX {
        return s.to_string();
    }
    let mut end = PREVIEW_MAX - 3;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn preview_picks_the_first_readable_field() {
        assert_eq!(preview(&json!({"path":"a.rs","command":" ls / "})), "ls /");
        assert_eq!(preview(&json!({"command":"","path":"a.rs"})), "a.rs");
        assert_eq!(preview(&json!({"name":"x","url":"u"})), "u");
        assert_eq!(preview(&json!({"n":1})), r#"{"n":1}"#);
        assert_eq!(preview(&Value::Null), "");
    }

    #[test]
    fn preview_is_cut_to_120_bytes_on_a_char_boundary() {
        let long = "é".repeat(100);
        let p = preview(&json!({ "command": long }));
        assert!(p.len() <= PREVIEW_MAX, "{}", p.len());
        assert!(p.ends_with("..."));
        let exact = "a".repeat(120);
        assert_eq!(preview(&json!({ "command": exact.clone() })), exact);
        let p = preview(&json!({ "command": "a".repeat(121) }));
        assert_eq!(p.len(), 120);
    }

    #[test]
    fn decisions_are_remembered_per_tool_or_for_all() {
        let mut g = ApprovalGate::default();
        assert!(matches!(
            g.check("1", "bash", &json!({}), None),
            Gate::Refused(_)
        ));
        assert_eq!(
            g.decide("bash", ApprovalDecision::refuse()),
            Err(DEFAULT_REFUSAL.to_string())
        );
        assert_eq!(
            g.decide(
                "bash",
                ApprovalDecision::Refuse {
                    reason: Some(" no ".into())
                }
            ),
            Err("no".to_string())
        );
        g.decide("bash", ApprovalDecision::AlwaysTool).unwrap();
        assert!(matches!(
            g.check("2", "bash", &json!({}), None),
            Gate::Allowed
        ));
        assert!(matches!(
            g.check("3", "read", &json!({}), None),
            Gate::Refused(_)
        ));
        g.decide("read", ApprovalDecision::AlwaysAll).unwrap();
        assert!(matches!(
            g.check("4", "edit", &json!({}), None),
            Gate::Allowed
        ));
        g.reset();
        assert!(matches!(
            g.check("5", "bash", &json!({}), None),
            Gate::Refused(_)
        ));
    }
}
