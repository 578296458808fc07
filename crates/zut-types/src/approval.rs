//! A user's answer to a tool call waiting for approval.

/// The user's answer to a tool call waiting for approval (`--no-yolo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalDecision {
    /// Run this call.
    Once,
    /// Run it, and every later call of this tool without asking.
    AlwaysTool,
    /// Run it, and every later call of any tool without asking.
    AlwaysAll,
    /// Do not run it; the model gets `reason` as the tool error (default
    /// `tool call refused by user`).
    Refuse {
        /// Shown to the model; empty or `None` means the default text.
        reason: Option<String>,
    },
}

impl ApprovalDecision {
    /// A refusal with the default text.
    pub fn refuse() -> Self {
        Self::Refuse { reason: None }
    }
}
