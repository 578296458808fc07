//! Where a non-interactive run writes: stdout carries only the mode's
//! normal output (final text, live text, or JSON events); extension notes
//! and load errors go to stderr (cli.md §4, protocol.md §12.6).
//!
//! Live output (JSON lines, streamed text) is collected in a buffer and
//! written out by [`flush_when_idle`] whenever the run waits for something
//! (the network, a tool, an extension), or at once when the buffer holds
//! [`FLUSH_BYTES`]. A reader therefore sees every event before zut waits,
//! as with a flush per event, but a burst of deltas costs one `write` per
//! batch instead of one per event.

use std::io::Write;
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

use zut_agent::{AgentEvent, UiEvents, UsageCounts};
use zut_agent::{ControllerEvent, EventStream};
use zut_ext_host::{UiEvent, UiKind};

use crate::args::Mode;

/// Buffered output beyond this size is written at once, without waiting
/// for the run to become idle.
const FLUSH_BYTES: usize = 64 * 1024;

/// The output side of a print, stream or JSON run.
pub struct Output {
    mode: Mode,
    state: Mutex<State>,
    /// Signalled when `State::pending` holds unwritten output.
    wake: Notify,
}

#[derive(Default)]
struct State {
    usage: UsageCounts,
    steps: u64,
    /// Stream mode: whether the last text written did not end a line.
    line_open: bool,
    /// Stream mode: whether text was streamed since the current step began.
    step_text: bool,
    /// Stream mode: whether any text reached the output yet.
    wrote_text: bool,
    /// Output not yet written to stdout.
    pending: Vec<u8>,
}

impl Output {
    /// Output for `mode` (print, stream or JSON).
    pub fn new(mode: Mode) -> Self {
        Self {
            mode,
            state: Mutex::new(State::default()),
            wake: Notify::new(),
        }
    }

    /// Handles one agent event.
    pub fn agent_event(&self, ev: &AgentEvent) {
        let Ok(mut st) = self.state.lock() else {
            return;
        };
        match ev {
            AgentEvent::Usage(u) => st.usage.add(&u.this),
            AgentEvent::TurnStart { step } => st.steps = *step,
            // Goal continuations and stops are never silent (issue 24).
            AgentEvent::GoalUpdate {
                status,
                continuations,
                reason,
                ..
            } if self.mode != Mode::Json => match (status.as_str(), reason) {
                ("active", _) if *continuations > 0 => {
                    crate::errln!("zut: goal continuation {continuations}")
                }
                ("active", _) => {}
                (status, Some(reason)) => crate::errln!("zut: goal {status}: {reason}"),
                (status, None) => crate::errln!("zut: goal {status}"),
            },
            _ => {}
        }
        if self.mode != Mode::Json && Self::notice(ev) {
            return;
        }
        match self.mode {
            Mode::Json => {
                ev.write_json(&mut st.pending);
                st.pending.push(b'\n');
            }
            Mode::Stream => match ev {
                AgentEvent::TurnStart { .. } => {
                    st.step_text = false;
                    return;
                }
                AgentEvent::TextDelta { delta } if !delta.is_empty() => {
                    // A later step's text starts on a new paragraph, so the
                    // steps' replies do not run into each other.
                    if !st.step_text && st.wrote_text {
                        let sep: &[u8] = if st.line_open { b"\n\n" } else { b"\n" };
                        st.pending.extend_from_slice(sep);
                    }
                    st.step_text = true;
                    st.wrote_text = true;
                    st.line_open = !delta.ends_with('\n');
                    st.pending.extend_from_slice(delta.as_bytes());
                }
                _ => return,
            },
            _ => return,
        }
        self.queued(st);
    }

    /// Handles one event of subagent `id`: its usage counts in the run's
    /// totals (`--stats`); `--json` writes it tagged with `subagent_id`;
    /// print and stream modes write a line on stderr when one of its turns
    /// ends.
    pub fn subagent_event(&self, id: &str, ev: &AgentEvent) {
        let Ok(mut st) = self.state.lock() else {
            return;
        };
        if let AgentEvent::Usage(u) = ev {
            st.usage.add(&u.this);
        }
        match self.mode {
            Mode::Json => {
                ev.write_json_tagged(id, &mut st.pending);
                st.pending.push(b'\n');
                self.queued(st);
            }
            _ => {
                if let AgentEvent::SubagentEnd { state, error, .. } = ev {
                    drop(st);
                    match error {
                        Some(e) => crate::errln!("zut: subagent {id}: {state}: {e}"),
                        None => crate::errln!("zut: subagent {id}: {state}"),
                    }
                }
            }
        }
    }

    /// Print and stream modes: the recovery steps zut takes on its own
    /// (repetition guard, missing answer, context overflow) as a line on
    /// stderr, so stdout keeps only the answer. Whether `ev` was one.
    fn notice(ev: &AgentEvent) -> bool {
        match ev {
            AgentEvent::RepetitionGuard {
                stage: "warning",
                count,
                ..
            } => {
                crate::errln!(
                    "zut: repetition guard: the same step {count} times; the model is told"
                );
                true
            }
            AgentEvent::TurnRecovery { .. } => {
                crate::errln!("zut: continuing: no final answer received");
                true
            }
            AgentEvent::ContextRecovery { error, .. } => {
                crate::errln!(
                    "zut: context window exceeded: compacting, then retrying once ({error})"
                );
                true
            }
            _ => false,
        }
    }

    /// Output was appended to `st.pending`: write it now if there is a lot,
    /// else let [`flush_when_idle`] write it.
    fn queued(&self, mut st: std::sync::MutexGuard<'_, State>) {
        if st.pending.len() >= FLUSH_BYTES {
            write_out(&mut st.pending);
        } else {
            drop(st);
            self.wake.notify_one();
        }
    }

    /// Writes out everything buffered so far.
    pub fn flush(&self) {
        if let Ok(mut st) = self.state.lock() {
            write_out(&mut st.pending);
        }
    }

    /// Whether the stream mode left a line open (to end it with a newline).
    pub fn line_open(&self) -> bool {
        self.state.lock().map(|s| s.line_open).unwrap_or(false)
    }

    /// Running token totals and the number of model calls.
    pub fn totals(&self) -> (UsageCounts, u64) {
        self.state
            .lock()
            .map(|s| (s.usage, s.steps))
            .unwrap_or_default()
    }

    /// Handles one extension UI frame.
    pub fn ui_event(&self, ev: &UiEvent) {
        if self.mode == Mode::Json {
            if let Some(a) = AgentEvent::from_ui(ev) {
                self.json_line(&a.to_json());
            }
            return;
        }
        match &ev.kind {
            UiKind::Notify { level, message } => {
                crate::errln!("[{}] {}: {}", ev.extension, level, message);
            }
            UiKind::Submit { .. } => crate::errln!(
                "[{}] submit ignored: submitting a prompt needs the interactive mode",
                ev.extension
            ),
            UiKind::SubmitSlash { .. } => crate::errln!(
                "[{}] submit_slash ignored: it needs the interactive mode",
                ev.extension
            ),
            UiKind::OpenPanel(_) => crate::errln!(
                "[{}] open_panel ignored: panels need the interactive mode",
                ev.extension
            ),
            _ => {}
        }
    }

    /// A line on stdout in JSON mode (used for `ext_display`).
    pub fn json_line(&self, line: &str) {
        let Ok(mut st) = self.state.lock() else {
            return;
        };
        st.pending.extend_from_slice(line.as_bytes());
        st.pending.push(b'\n');
        self.queued(st);
    }
}

/// Writes `pending` to stdout and empties it; a closed stdout is ignored
/// (the reader left).
fn write_out(pending: &mut Vec<u8>) {
    if pending.is_empty() {
        return;
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(pending);
    let _ = out.flush();
    pending.clear();
}

/// Writes buffered output whenever the runtime has nothing else to do:
/// this task only runs when the run is waiting (for the network, a tool or
/// an extension), so what was produced before the wait is on stdout before
/// zut waits. Runs until aborted; call [`Output::flush`] afterwards.
pub async fn flush_when_idle(out: Arc<Output>) {
    loop {
        out.wake.notified().await;
        out.flush();
    }
}

/// Writes the conversation's events to `out` until the stream ends
/// (after the extensions' last frames).
pub async fn pump(mut events: EventStream, out: Arc<Output>) {
    while let Some(ev) = events.next().await {
        match ev {
            ControllerEvent::Agent(a) => out.agent_event(&a),
            ControllerEvent::Ui(u) => out.ui_event(&u),
            ControllerEvent::ExtensionsReady { errors } => {
                for err in errors {
                    crate::errln!("extension load: {err}");
                }
            }
            ControllerEvent::Subagent { id, event } => out.subagent_event(&id, &event),
            ControllerEvent::JobStarted { .. }
            | ControllerEvent::JobFinished { .. }
            | ControllerEvent::Note(_) => {}
        }
    }
}
