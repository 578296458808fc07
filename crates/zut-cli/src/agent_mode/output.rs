//! Where a non-interactive run writes: stdout carries only the mode's
//! normal output (final text, live text, or JSON events); extension notes
//! and load errors go to stderr (cli.md §4, protocol.md §12.6).

use std::io::Write;
use std::sync::Mutex;

use zut_agent::{AgentEvent, UsageCounts};
use zut_ext_host::{UiEvent, UiKind, UiReceiver};

use crate::args::Mode;

/// The output side of a print, stream or JSON run.
pub struct Output {
    mode: Mode,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    usage: UsageCounts,
    steps: u64,
    streamed_text: bool,
}

impl Output {
    /// Output for `mode` (print, stream or JSON).
    pub fn new(mode: Mode) -> Self {
        Self {
            mode,
            state: Mutex::new(State::default()),
        }
    }

    /// Handles one agent event.
    pub fn agent_event(&self, ev: &AgentEvent) {
        if let Ok(mut st) = self.state.lock() {
            match ev {
                AgentEvent::Usage(u) => st.usage = u.cumulative,
                AgentEvent::TurnStart { step } => st.steps = *step,
                AgentEvent::TextDelta { .. } => st.streamed_text = true,
                _ => {}
            }
        }
        match self.mode {
            Mode::Json => write_line(&ev.to_json()),
            Mode::Stream => {
                if let AgentEvent::TextDelta { delta } = ev {
                    let mut out = std::io::stdout().lock();
                    let _ = out.write_all(delta.as_bytes());
                    let _ = out.flush();
                }
            }
            _ => {}
        }
    }

    /// Whether the stream mode printed any text (to end it with a newline).
    pub fn streamed_text(&self) -> bool {
        self.state.lock().map(|s| s.streamed_text).unwrap_or(false)
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
                write_line(&a.to_json());
            }
            return;
        }
        match &ev.kind {
            UiKind::Notify { level, message } => {
                eprintln!("[{}] {}: {}", ev.extension, level, message);
            }
            UiKind::Submit { .. } => eprintln!(
                "[{}] submit ignored: submitting a prompt needs the interactive mode",
                ev.extension
            ),
            UiKind::SubmitSlash { .. } => eprintln!(
                "[{}] submit_slash ignored: it needs the interactive mode",
                ev.extension
            ),
            UiKind::OpenPanel(_) => eprintln!(
                "[{}] open_panel ignored: panels need the interactive mode",
                ev.extension
            ),
            _ => {}
        }
    }

    /// A line on stdout in JSON mode (used for `ext_display`).
    pub fn json_line(&self, line: &str) {
        write_line(line);
    }
}

/// Writes one line to stdout; a closed stdout is ignored (the reader left).
fn write_line(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(line.as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

/// Forwards extension UI frames to `out` until every sender is gone.
pub async fn drain_ui(mut rx: UiReceiver, out: std::sync::Arc<Output>) {
    while let Some(ev) = rx.recv().await {
        out.ui_event(&ev);
    }
}
