//! The thinking indicator: while the model streams reasoning
//! (`AgentEvent::ReasoningDelta`) a live `✻ thinking…` row counts it; when
//! the answer (or a tool call, or the end of the turn) follows, one
//! collapsed row `✻ thought for 3s · 1.2k characters · ctrl+t` goes to the
//! transcript. Ctrl+T prints the last reasoning in full (dim, italic),
//! as Ctrl+O does for a tool's output.

use std::time::Instant;

use ratatui::text::{Line, Span};
use zut_types::AgentEvent;

use crate::app::App;
use crate::theme::Theme;

/// Reasoning in progress.
#[derive(Debug, Clone, Default)]
pub struct Thinking {
    /// When the current reasoning started (`None`: not thinking).
    pub since: Option<Instant>,
    /// Characters of reasoning so far.
    pub chars: usize,
    /// The reasoning so far (its first [`MAX_KEPT`] bytes).
    pub text: String,
    /// The last finished reasoning, for Ctrl+T.
    pub last: String,
    /// Whether `last` is only the start of that reasoning.
    pub last_cut: bool,
}

/// Bytes of one reasoning kept for Ctrl+T (the count goes on).
pub const MAX_KEPT: usize = 256 * 1024;

/// `1234` → `1.2k`.
fn count(n: usize) -> String {
    if n >= 1000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

impl Thinking {
    /// The last finished reasoning as transcript rows (empty if none).
    pub fn last_rows(&self, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        if self.last.trim().is_empty() {
            return Vec::new();
        }
        let mut rows = vec![Line::from(Span::styled("  ✻ reasoning", theme.accent))];
        let style = theme.dim.add_modifier(ratatui::style::Modifier::ITALIC);
        rows.extend(crate::transcript::plain_rows(
            self.last.trim(),
            width,
            style,
        ));
        if self.last_cut {
            rows.push(Line::from(Span::styled(
                "    … (the rest was not kept)",
                theme.dim,
            )));
        }
        rows
    }

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
            if t.text.len() < MAX_KEPT {
                let room = MAX_KEPT - t.text.len();
                let mut cut = delta.len().min(room);
                while !delta.is_char_boundary(cut) {
                    cut -= 1;
                }
                t.text.push_str(&delta[..cut]);
            }
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
    let t = &mut app.thinking;
    let Some(since) = t.since.take() else {
        return;
    };
    let chars = std::mem::take(&mut t.chars);
    t.last = std::mem::take(&mut t.text);
    t.last_cut = chars > t.last.chars().count();
    let secs = now.saturating_duration_since(since).as_secs_f64();
    let row = Line::from(vec![
        Span::styled("  ✻ ", app.theme.accent),
        Span::styled(
            format!(
                "thought for {secs:.0}s · {} characters · ctrl+t",
                count(chars)
            ),
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
