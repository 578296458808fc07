//! Jobs as front ends see them: ids, kinds, handles and outcomes.

use tokio::sync::oneshot;

use crate::PromptOutcome;

/// A job's number, unique within one controller (1, 2, …).
pub type JobId = u64;

/// What a job does (as announced in [`crate::ControllerEvent::JobStarted`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// A user prompt (or a command's `prompt` action).
    Prompt,
    /// A compaction.
    Compact,
    /// An extension reload.
    Reload,
    /// A session move (new, resume, fork, checkout, rename).
    Session,
}

/// How a job ended.
#[derive(Debug, Clone, PartialEq)]
pub enum JobOutcome {
    /// A prompt's outcome.
    Prompt(PromptOutcome),
    /// A compaction: the summary, or why it failed (`Err` also when it was
    /// aborted).
    Compact(Result<String, String>),
    /// A reload: what loaded and what failed.
    Reload(ReloadSummary),
    /// A session move: where the conversation is now, or why it stayed.
    Session(Result<crate::SessionMoved, String>),
    /// The controller shut down before the job ran.
    Dropped,
}

/// The result of an extension reload (protocol.md §14).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReloadSummary {
    /// Extensions stopped.
    pub stopped: usize,
    /// Extensions registered after the reload.
    pub loaded: usize,
    /// Of those, ready when the wait ended.
    pub ready: usize,
    /// Load errors, one text each.
    pub errors: Vec<String>,
}

/// A queued job: its id and its outcome once it ran.
#[derive(Debug)]
pub struct JobHandle {
    /// The job's id (matches the stream's job markers).
    pub id: JobId,
    outcome: oneshot::Receiver<JobOutcome>,
}

impl JobHandle {
    pub fn new(id: JobId, outcome: oneshot::Receiver<JobOutcome>) -> Self {
        Self { id, outcome }
    }

    /// Waits until the job finished.
    pub async fn outcome(self) -> JobOutcome {
        self.outcome.await.unwrap_or(JobOutcome::Dropped)
    }
}
