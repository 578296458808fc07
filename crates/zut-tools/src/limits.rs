//! Caps that keep tool results small enough for a model's context and keep
//! memory bounded while tools run. Every cap that cuts output says so in the
//! output, with a hint how to see more.

use std::time::Duration;

/// `read`: lines returned when no `limit` is given.
pub const READ_DEFAULT_LINES: usize = 2000;
/// `read`: longest line (in characters) shown before it is cut.
pub const READ_MAX_LINE_CHARS: usize = 2000;
/// `read`: most bytes of numbered text returned by one call.
pub const READ_MAX_BYTES: usize = 50 * 1024;
/// `read`: largest image file returned inline (3.75 MiB raw, 5 MiB base64).
pub const READ_MAX_IMAGE_BYTES: u64 = 3 * 1024 * 1024 + 768 * 1024;
/// `read`: bytes inspected for NUL / invalid UTF-8 to detect binary files.
pub const READ_SNIFF_BYTES: usize = 8 * 1024;
/// `read`: after the shown window, lines are still counted (to report the
/// file's total) only while the file is at most this large.
pub const READ_COUNT_LINES_MAX_FILE: u64 = 64 * 1024 * 1024;

/// `edit`: largest file it will edit.
pub const EDIT_MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;
/// `edit`: longest diff returned (the edit itself is never cut).
pub const EDIT_MAX_DIFF_BYTES: usize = 30 * 1024;

/// `bash`: largest `timeout` accepted, in seconds (one hour).
pub const BASH_MAX_TIMEOUT_SECS: u64 = 3600;
/// `bash`: bytes kept from the start of the output.
pub const BASH_HEAD_BYTES: usize = 16 * 1024;
/// `bash`: bytes kept from the end of the output.
pub const BASH_TAIL_BYTES: usize = 32 * 1024;
/// `bash`: time between SIGTERM and SIGKILL to the process group.
pub const BASH_KILL_GRACE: Duration = Duration::from_secs(2);
/// `bash`: after the shell exits, how long to keep reading output that
/// background processes still write to the inherited pipe.
pub const BASH_DRAIN_AFTER_EXIT: Duration = Duration::from_secs(2);

/// `grep`: matches returned when no `max_results` is given.
pub const GREP_DEFAULT_MAX_RESULTS: u64 = 200;
/// `grep`: largest `max_results` accepted.
pub const GREP_MAX_RESULTS: u64 = 2000;
/// `grep`: most bytes of result lines returned.
pub const GREP_MAX_BYTES: usize = 50 * 1024;
/// `grep`: longest matching line (in characters) shown before it is cut.
pub const GREP_MAX_LINE_CHARS: usize = 500;

/// `glob`: largest argument object accepted, serialized (as the Go original).
pub const GLOB_MAX_ARGS_BYTES: usize = 4 * 1024;
/// `glob`: matches returned; the walk stops at this many.
pub const GLOB_MAX_MATCHES: usize = 500;
/// `glob`: directory levels below the search root that are entered.
pub const GLOB_MAX_DEPTH: usize = 24;
/// `glob`: entries visited before the walk gives up (with a note).
pub const GLOB_MAX_VISITED: u64 = 1_000_000;

/// `python`: largest `timeout` advertised, in seconds (the Go original's
/// schema maximum: the largest whole second a nanosecond duration holds).
pub const PYTHON_MAX_TIMEOUT_SECS: u64 = 9_223_372_036;
/// `python`: output bytes kept for the model.
pub const PYTHON_MAX_BYTES: usize = 50 * 1024;
/// `python`: output lines kept for the model.
pub const PYTHON_MAX_LINES: usize = 2000;
/// `python`: most bytes of output saved to the full-output file.
pub const PYTHON_MAX_LOG_BYTES: u64 = 32 * 1024 * 1024;
/// `python`: time allowed for probing one interpreter candidate.
pub const PYTHON_PROBE_TIMEOUT: Duration = Duration::from_secs(5);
/// `python`: after the interpreter exits, how long output from processes
/// it left behind is still read before they are killed.
pub const PYTHON_DRAIN_AFTER_EXIT: Duration = Duration::from_secs(2);

/// `ast`: most bytes of result text (the Go original's 60 KiB).
pub const AST_MAX_BYTES: usize = 60 * 1024;
/// `ast`: source lines shown per search match.
pub const AST_MAX_MATCH_LINES: usize = 8;

/// Most steps the `plan` tool keeps.
pub const PLAN_MAX_STEPS: usize = 200;
/// Most characters of one plan step's text.
pub const PLAN_MAX_STEP_CHARS: usize = 1_000;
