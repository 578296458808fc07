//! Queued work: prompts, compactions and extension reloads, their ids,
//! handles and outcomes.

use tokio::sync::oneshot;
use zut_providers::Part;

use zut_control::{JobId, JobKind, JobOutcome};

/// What the worker runs.
pub(crate) enum Work {
    Prompt(Vec<Part>),
    Compact(Option<String>),
    Reload,
    Session(super::SessionMove),
    /// `/goal <args>` (`super::goal_loop`).
    Goal(String),
}

impl Work {
    pub(crate) fn kind(&self) -> JobKind {
        match self {
            Self::Prompt(_) => JobKind::Prompt,
            Self::Compact(_) => JobKind::Compact,
            Self::Reload => JobKind::Reload,
            Self::Session(_) => JobKind::Session,
            Self::Goal(_) => JobKind::Prompt,
        }
    }
}

/// A job waiting in the queue.
pub(crate) struct Job {
    pub(crate) id: JobId,
    pub(crate) tag: Option<String>,
    pub(crate) work: Work,
    pub(crate) done: oneshot::Sender<JobOutcome>,
}
