//! The session plan (the `plan` tool's checklist): steps with a status, as
//! the Go original persists them in the session meta (`plan.steps`) and
//! sends them in `plan_update` events.

use serde::{Deserialize, Serialize};

/// The status of one plan step.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    /// Not started.
    #[default]
    Pending,
    /// Being worked on (several steps may be).
    InProgress,
    /// Done.
    Completed,
}

impl PlanStatus {
    /// Parses `pending`, `in_progress` or `completed`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(Self::Pending),
            "in_progress" => Some(Self::InProgress),
            "completed" => Some(Self::Completed),
            _ => None,
        }
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
        }
    }

    /// The one-character checkbox mark: `x`, `~` or a space.
    pub fn marker(self) -> char {
        match self {
            Self::Completed => 'x',
            Self::InProgress => '~',
            Self::Pending => ' ',
        }
    }
}

/// One plan step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlanStep {
    /// The step's text.
    pub step: String,
    /// Its status.
    pub status: PlanStatus,
}

/// `(current, total)` for a status line `plan:<current>/<total>`: current
/// is the 1-based position of the first in-progress step (0 when none).
pub fn plan_progress(plan: &[PlanStep]) -> (usize, usize) {
    let current = plan
        .iter()
        .position(|s| s.status == PlanStatus::InProgress)
        .map_or(0, |i| i + 1);
    (current, plan.len())
}
