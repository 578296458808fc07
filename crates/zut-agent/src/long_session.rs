//! Settings of the machinery that keeps long sessions working (issue 24,
//! docs/long-sessions.md): the stale-read projection
//! ([`crate::projection`]), the tool-result budget
//! ([`crate::result_budget`]), the repetition guard
//! ([`crate::repetition`]) and the missing-answer recovery
//! ([`crate::answer_recovery`]). Compact-and-retry
//! ([`crate::context_overflow`]) is always on.

/// Long-session settings (all on by default).
#[derive(Debug, Clone, PartialEq)]
pub struct LongSessionConfig {
    /// Replace a `read` result by a short marker in the request when a
    /// later `read` of the same file covers the same lines.
    pub stale_read_projection: bool,
    /// Cap each tool result at [`LongSessionConfig::result_bytes`] and all
    /// of a request's tool results at [`LongSessionConfig::results_total_bytes`].
    pub result_budget: bool,
    /// Text bytes kept of one tool result in a request (Go: 32 KiB).
    pub result_bytes: usize,
    /// Text bytes of tool results in one request, newest first (Go: 128 KiB).
    pub results_total_bytes: usize,
    /// The repetition guard (`--no-repetition-guard` turns it off).
    pub repetition_guard: bool,
    /// One recovery request when a turn ends with tool results but no text.
    pub answer_recovery: bool,
}

impl Default for LongSessionConfig {
    fn default() -> Self {
        Self {
            stale_read_projection: true,
            result_budget: true,
            result_bytes: crate::result_budget::RESULT_BYTES,
            results_total_bytes: crate::result_budget::RESULTS_TOTAL_BYTES,
            repetition_guard: true,
            answer_recovery: true,
        }
    }
}
