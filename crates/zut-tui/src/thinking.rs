//! The thinking indicator: while the model streams reasoning
//! (`AgentEvent::ReasoningDelta`) a live `✻ thinking…` row counts it; when
//! the answer (or a tool call, or the end of the turn) follows, one
//! collapsed row `✻ thought for 3s · 1.2k characters` goes to the
//! transcript. The reasoning text itself is not printed.

use std::time::Instant;

use ratatui::text::{Line, Span};
use zut_agent::AgentEvent;

use crate::app::App;
use crate::theme::Theme;

/// Reasoning in progress.
#[derive(Debug, Clone, Default)]
pub struct Thinking {
    /// When the current reasoning started (`None`: not thinking).
    pub since: Option<Instant>,
    /// Characters of reasoning so far.
    pub chars: usize,
}

/// `1234` → `1.2k`.
fn count(n: usize) -> String {
    if n >= 1000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

impl Thinking {
    /// The live row while thinking.
    pub fn live_row(&self, theme: &Theme, now: Instant) -> Option<Line<'static>> {
        let since = self.since?;
        let secs = now.saturating_duration_since(since).as_secs();
        Some(Line::from(vec![
            Span::styled("  ✻ thinking… ", theme.accent),
            Span::styled(
                format!("{secs}s · {} characters", count(self.chars)),
                theme.dim,
            ),
        ]))
    }
}

/// Follows the agent's events, before the transcript sees them (so the
/// collapsed row precedes the answer).
pub(crate) fn on_event(app: &mut App, ev: &AgentEvent, now: Instant) {
    match ev {
        AgentEvent::ReasoningDelta { delta } => {
            let t = &mut app.thinking;
            t.since.get_or_insert(now);
            t.chars += delta.chars().count();
            app.status.activity = Some("thinking".into());
        }
        AgentEvent::TextDelta { .. }
        | AgentEvent::ToolUseStart { .. }
        | AgentEvent::ToolCall { .. }
        | AgentEvent::AssistantMessage { .. }
        | AgentEvent::Done
        | AgentEvent::Error { .. } => finish(app, now),
        _ => {}
    }
}

/// Reasoning ended: its collapsed row goes to the transcript.
pub(crate) fn finish(app: &mut App, now: Instant) {
    let t = std::mem::take(&mut app.thinking);
    let Some(since) = t.since else {
        return;
    };
    let secs = now.saturating_duration_since(since).as_secs_f64();
    let row = Line::from(vec![
        Span::styled("  ✻ ", app.theme.accent),
        Span::styled(
            format!("thought for {secs:.0}s · {} characters", count(t.chars)),
            app.theme.dim,
        ),
    ]);
    app.transcript.push_block(vec![row]);
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn counts_read_short() {
        assert_eq!(count(999), "999");
        assert_eq!(count(1234), "1.2k");
        assert_eq!(count(25_000), "25.0k");
    }
}
