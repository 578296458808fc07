//! How a prompt ended.

use zut_types::StopReason;

/// The result of the agent's `prompt`.
#[derive(Debug, Clone, PartialEq)]
pub enum PromptOutcome {
    /// The model stopped on its own.
    Completed {
        /// Stop reason of the last model call.
        stop: StopReason,
        /// The last assistant text shown to the user (after `replace_text`;
        /// empty if it was blocked or there was none).
        final_text: String,
    },
    /// A `turn_start` interceptor blocked the turn (not an error).
    Blocked {
        /// The reason to show.
        reason: String,
    },
    /// The user aborted.
    Aborted,
    /// The prompt failed (provider error, `--max-steps` reached).
    Failed {
        /// What went wrong.
        message: String,
    },
}
