//! Numeric limits and timeouts of protocol v2, in one place.
//!
//! Values marked "spec" are fixed by the protocol; the others are zut's own
//! documented choices where the Go original had none.

use std::time::Duration;

/// Longest line an extension may send, including the terminating LF (spec).
pub const MAX_INBOUND_LINE: usize = 4 * 1024 * 1024;
/// Longest RPC-mode stdin line (spec).
pub const MAX_RPC_LINE: usize = 16 * 1024 * 1024;
/// How long the host waits for the first `hello` line (zut's choice; Go has none).
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(10);
/// Grace after stdout EOF before `hello` for the process to exit (spec).
pub const EXIT_GRACE_BEFORE_HELLO: Duration = Duration::from_secs(1);
/// Idle window after which an extension that never sent `ready` is auto-readied (spec).
pub const AUTO_READY_IDLE: Duration = Duration::from_millis(250);
/// Shared deadline for all extensions to become ready at start-up (spec).
pub const READY_TIMEOUT: Duration = Duration::from_secs(3);
/// Reply deadline for `command_invoked` (spec, interactive).
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);
/// Default reply deadline for `tool_call` (spec).
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(60);
/// Reply deadline for one `event_intercept`, per extension (spec).
pub const INTERCEPT_TIMEOUT: Duration = Duration::from_secs(5);
/// Shutdown grace before SIGTERM (spec).
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);
/// Wait between SIGTERM and SIGKILL (spec).
pub const TERM_TO_KILL: Duration = Duration::from_secs(1);
/// Largest `tool_result.details` snapshot the host persists (spec).
pub const MAX_STATE_BYTES: usize = 256 * 1024;
/// Bound of the joined `turn_start` context, marker included (spec).
pub const MAX_CONTEXT_BYTES: usize = 16 * 1024;
/// Marker appended to a truncated `turn_start` context (spec).
pub const CONTEXT_TRUNCATED_MARKER: &str = "\n[extension context truncated]";
/// Per-extension queue of one-way host frames (events); oldest dropped when full (spec: 64 for session events).
pub const EVENT_QUEUE: usize = 64;
/// `ext doctor`'s overall spawn context (spec).
pub const DOCTOR_CONTEXT: Duration = Duration::from_secs(5);
/// `ext doctor`'s shutdown grace (spec).
pub const DOCTOR_SHUTDOWN_GRACE: Duration = Duration::from_millis(500);
