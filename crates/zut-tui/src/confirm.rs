//! The tool confirmation dialog (`--no-yolo`): a call waiting for approval
//! is shown with its tool and preview and answered once / always this tool
//! / always / refuse (with an optional reason the model sees).
//!
//! Focus (protocol.md §12.1, §12.5): an extension panel takes the keys over
//! the dialog and closing it gives them back unanswered; while notes are
//! shown the dialog waits unfocused (keys go to the editor) until Esc
//! dismisses them — that Esc answers nothing and stops nothing.

use std::collections::VecDeque;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::text::{Line, Span};
use zut_types::AgentEvent;
use zut_types::ApprovalDecision;

use crate::app::{App, Effect};
use crate::theme::Theme;
use crate::wrap;

/// The four answers, in dialog order.
const CHOICES: [&str; 4] = [
    "yes (run this call)",
    "yes, always this tool (no more questions for it in this session)",
    "yes, always (no more questions in this session)",
    "no (refuse; type a reason the model will see)",
];

/// Longest refusal reason kept.
const MAX_REASON: usize = 500;
/// Rows of a call's diff shown in the dialog.
const DETAIL_ROWS: usize = 24;

/// One call waiting for approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The controller's request id.
    pub request_id: u64,
    /// The tool call's id.
    pub call_id: String,
    /// Tool name.
    pub tool: String,
    /// One-line summary of the arguments.
    pub preview: String,
    /// What the call would do (an `edit`'s or `ast` rewrite's diff).
    pub detail: Option<String>,
}

/// Calls waiting for approval (the first one is asked), the selected
/// answer and the refusal reason being typed.
#[derive(Debug, Clone, Default)]
pub struct Confirms {
    /// Waiting calls, oldest first.
    pub queue: VecDeque<Pending>,
    /// Selected answer (0..4).
    pub selected: usize,
    /// Refusal reason typed so far.
    pub reason: String,
}

impl Confirms {
    /// The call being asked about.
    pub fn current(&self) -> Option<&Pending> {
        self.queue.front()
    }

    fn answered(&mut self) -> Option<Pending> {
        self.selected = 0;
        self.reason.clear();
        self.queue.pop_front()
    }

    /// Forgets the call `call_id` (it ran, failed or was aborted).
    fn drop_call(&mut self, call_id: &str) {
        let was_first = self.current().is_some_and(|p| p.call_id == call_id);
        self.queue.retain(|p| p.call_id != call_id);
        if was_first {
            self.selected = 0;
            self.reason.clear();
        }
    }
}

/// Whether the dialog has the keys: a call waits, no panel is open and no
/// note is shown.
pub fn focused(app: &App) -> bool {
    !app.confirms.queue.is_empty() && app.chrome.panel.is_none() && app.notes.is_empty()
}

/// What the keys do while a call waits for an answer, for the status bar
/// (in place of `esc to stop`, which would refuse the call instead).
pub fn keys_hint(app: &App) -> Option<String> {
    if app.confirms.queue.is_empty() || app.chrome.panel.is_some() {
        return None;
    }
    Some(if focused(app) {
        "1-4/enter answer · esc refuse · ctrl+c stop".into()
    } else {
        "esc hides the notes, then answer".into()
    })
}

/// Follows the agent's events: a request opens the dialog; the call
/// starting, finishing, or the turn ending closes it.
pub(crate) fn on_event(app: &mut App, ev: &AgentEvent) {
    match ev {
        AgentEvent::ToolApprovalRequested {
            request_id,
            id,
            name,
            preview,
            detail,
            ..
        } => {
            app.confirms.queue.push_back(Pending {
                request_id: *request_id,
                call_id: id.clone(),
                tool: name.clone(),
                preview: preview.clone(),
                detail: detail.clone(),
            });
            app.status.activity = Some(format!("waiting for approval: {name}"));
            app.bell_pending |= app.alerts_enabled;
        }
        AgentEvent::ToolExecutionStarted { id, .. } | AgentEvent::ToolResult { id, .. } => {
            app.confirms.drop_call(id);
        }
        AgentEvent::Done | AgentEvent::Error { .. } => {
            app.confirms = Confirms::default();
        }
        _ => {}
    }
}

/// The job ended (aborted included): nothing waits any more.
pub(crate) fn job_finished(app: &mut App) {
    app.confirms = Confirms::default();
}

/// A key while the dialog has focus.
pub(crate) fn key(app: &mut App, key: &KeyEvent) -> Vec<Effect> {
    if key.kind == KeyEventKind::Release {
        return Vec::new();
    }
    let c = &mut app.confirms;
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let decision = match key.code {
        KeyCode::Up => {
            c.selected = (c.selected + CHOICES.len() - 1) % CHOICES.len();
            None
        }
        KeyCode::Down | KeyCode::Tab => {
            c.selected = (c.selected + 1) % CHOICES.len();
            None
        }
        KeyCode::Char(d @ '1'..='4') if c.reason.is_empty() && !ctrl => {
            c.selected = usize::from(d as u8 - b'1');
            Some(choice(c))
        }
        KeyCode::Enter => Some(choice(c)),
        KeyCode::Esc => Some(ApprovalDecision::Refuse {
            reason: reason(&c.reason),
        }),
        // Ctrl+C: refuse and stop the turn.
        KeyCode::Char('c') if ctrl => {
            let Some(p) = c.answered() else {
                return Vec::new();
            };
            return vec![
                Effect::Approve {
                    request_id: p.request_id,
                    decision: ApprovalDecision::refuse(),
                },
                Effect::Abort,
            ];
        }
        KeyCode::Backspace => {
            c.reason.pop();
            None
        }
        KeyCode::Char(ch) if !ctrl && !ch.is_control() => {
            // Typing writes the refusal reason.
            c.selected = 3;
            if c.reason.chars().count() < MAX_REASON {
                c.reason.push(ch);
            }
            None
        }
        _ => None,
    };
    let Some(decision) = decision else {
        return Vec::new();
    };
    let Some(p) = c.answered() else {
        return Vec::new();
    };
    if app.confirms.queue.is_empty() {
        app.status.activity = Some(format!("running {}", p.tool));
    }
    vec![Effect::Approve {
        request_id: p.request_id,
        decision,
    }]
}

/// A paste while the dialog has focus goes into the refusal reason.
pub(crate) fn paste(app: &mut App, text: &str) {
    let c = &mut app.confirms;
    c.selected = 3;
    let room = MAX_REASON.saturating_sub(c.reason.chars().count());
    c.reason
        .extend(crate::sanitize::clean_line(text).chars().take(room));
}

fn reason(text: &str) -> Option<String> {
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

fn choice(c: &Confirms) -> ApprovalDecision {
    match c.selected {
        0 => ApprovalDecision::Once,
        1 => ApprovalDecision::AlwaysTool,
        2 => ApprovalDecision::AlwaysAll,
        _ => ApprovalDecision::Refuse {
            reason: reason(&c.reason),
        },
    }
}

/// The dialog's rows at `width` (`focused`: whether it has the keys), with
/// at most `diff_rows` (and never more than [`DETAIL_ROWS`]) rows of a
/// call's diff.
pub fn rows(
    c: &Confirms,
    width: usize,
    focused: bool,
    theme: &Theme,
    diff_rows: usize,
) -> Vec<Line<'static>> {
    let Some(p) = c.current() else {
        return Vec::new();
    };
    let border = if focused { theme.accent } else { theme.border };
    let frame_box = wrap::CentredBox::new(width, 100, border);
    let frame = |content: Line<'static>| frame_box.row(content);
    let mut title = " confirm tool call ".to_string();
    if c.queue.len() > 1 {
        title = format!(" confirm tool call (1 of {}) ", c.queue.len());
    }
    let mut out = vec![frame_box.top(title, theme.accent)];
    out.push(frame(Line::default()));
    out.push(frame(Line::from(vec![
        Span::raw("  "),
        Span::styled(crate::sanitize::clean_line(&p.tool), theme.tool_name),
        Span::raw("  "),
        Span::styled(crate::sanitize::clean_line(&p.preview), theme.text),
    ])));
    if let Some(detail) = &p.detail {
        // The diff the call would make, coloured like `edit`'s box, cut to
        // a screenful.
        let rows = crate::diff_view::unified_rows(detail, theme);
        let shown = diff_rows.clamp(3, DETAIL_ROWS);
        let more = rows.len().saturating_sub(shown);
        out.push(frame(Line::default()));
        for row in rows.into_iter().take(shown) {
            let mut spans = vec![Span::raw("  ")];
            spans.extend(row.spans);
            out.push(frame(Line::from(spans)));
        }
        if more > 0 {
            out.push(frame(Line::from(Span::styled(
                format!("  … {more} more line{}", if more == 1 { "" } else { "s" }),
                theme.dim,
            ))));
        }
    }
    out.push(frame(Line::default()));
    let hint = if focused {
        " choose (↑/↓ or 1-4, enter to pick, esc to refuse, ctrl+c to refuse and stop):"
    } else {
        " waiting: esc dismisses the notes above, then answer here"
    };
    out.push(frame(Line::from(Span::styled(hint, theme.dim))));
    for (i, text) in CHOICES.iter().enumerate() {
        let chosen = i == c.selected && focused;
        let style = if chosen { theme.selected } else { theme.text };
        let marker = if chosen { "› " } else { "  " };
        let mut spans = vec![
            Span::styled(marker, theme.accent),
            Span::styled(format!("{}. {text}", i + 1), style),
        ];
        if i == 3 && !c.reason.is_empty() {
            spans.push(Span::styled(": ", style));
            spans.push(Span::styled(c.reason.clone(), theme.warn));
        }
        out.push(frame(Line::from(spans)));
    }
    out.push(frame(Line::default()));
    out.push(frame_box.bottom());
    out
}
