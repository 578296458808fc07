//! Interception made visible: a tool call refused by an extension's
//! `tool_call` interceptor shows, in its tool box, who refused it. The
//! agent emits no `tool_execution_started` for such a call, and its
//! result is the interceptor's reason; unknown tools and invalid
//! arguments (also never started) are told apart by their fixed texts,
//! and nothing is called a refusal while no extension intercepts.
//!
//! While an extension intercepts `assistant_message`, a reply streams in
//! the live area and reaches the scrollback only once the agent says what
//! the user sees: unchanged, rewritten by `replace_text` (shown under a
//! `✎ rewritten by …` line) or hidden by a block (its reason shown as a
//! `⊘ … hid the assistant's message: …` line). A `turn_start` block shows
//! `⊘ … blocked the turn: …` instead of the error line.

use std::collections::HashSet;

use ratatui::text::{Line, Span};
use zut_types::AgentEvent;
use zut_types::JsonBlock;

use crate::stream::{indent, MarkdownStream};
use crate::theme::Theme;

/// What the TUI knows about interception.
#[derive(Debug, Default)]
pub struct Intercepts {
    /// Live extensions intercepting `tool_call` (from the host).
    pub tool_guards: Vec<String>,
    /// Calls that started running.
    started: HashSet<String>,
}

impl Intercepts {
    /// `ev`, with a refused call's result prefixed by who refused it
    /// (`None`: show `ev` as it is).
    pub fn annotate(&mut self, ev: &AgentEvent) -> Option<AgentEvent> {
        match ev {
            AgentEvent::ToolExecutionStarted { id, .. } => {
                self.started.insert(id.clone());
                None
            }
            AgentEvent::ToolResult {
                id,
                is_error: true,
                content,
            } if !self.started.remove(id) && !self.tool_guards.is_empty() => {
                let text = crate::transcript::blocks_text(content);
                if text.starts_with("unknown tool \"")
                    || text.starts_with("invalid arguments for tool \"")
                {
                    return None;
                }
                let who = match self.tool_guards.as_slice() {
                    [one] => one.clone(),
                    many => format!("one of {}", many.join(", ")),
                };
                Some(AgentEvent::ToolResult {
                    id: id.clone(),
                    is_error: true,
                    content: vec![JsonBlock::Text {
                        text: format!("⊘ refused by {who} (tool_call interceptor)\n{text}"),
                    }],
                })
            }
            AgentEvent::ToolResult { id, .. } => {
                self.started.remove(id);
                None
            }
            _ => None,
        }
    }
}

/// A reply held back while an extension may rewrite or hide it
/// (`assistant_message` interception): its rows as they streamed, shown
/// live until the agent's `assistant_message` says what the user sees.
#[derive(Debug)]
pub struct HeldReply {
    /// Rendered rows of the streamed text.
    pub rows: Vec<Line<'static>>,
    /// The streamed text.
    pub text: String,
    /// Characters streamed so far (counted as they arrive: the live row
    /// shows it every frame).
    pub chars: usize,
}

impl HeldReply {
    /// Nothing streamed yet.
    pub fn new() -> Self {
        Self {
            rows: Vec::new(),
            text: String::new(),
            chars: 0,
        }
    }

    /// The rows for the scrollback once the agent emitted `content` (what
    /// the user sees): the streamed rows when unchanged, else `content`'s
    /// text rendered anew under a line naming who rewrote it.
    pub fn shown(
        self,
        content: &[JsonBlock],
        guards: &[String],
        width: usize,
        theme: &Theme,
    ) -> Vec<Line<'static>> {
        let visible: String = content
            .iter()
            .filter_map(|b| match b {
                JsonBlock::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let mut rows = vec![Line::default()];
        if visible == self.text {
            rows.extend(self.rows);
            return rows;
        }
        let who = match guards {
            [one] => one.clone(),
            [] => "an extension".to_string(),
            many => format!("one of {}", many.join(", ")),
        };
        rows.extend(indent(vec![Line::from(Span::styled(
            format!("✎ rewritten by {who} (assistant_message interceptor)"),
            theme.dim,
        ))]));
        let mut md = MarkdownStream::new(width);
        md.push(&visible, theme);
        md.finish(theme);
        rows.extend(md.take_committed());
        rows
    }
}

impl Default for HeldReply {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(id: &str, text: &str) -> AgentEvent {
        AgentEvent::ToolResult {
            id: id.into(),
            is_error: true,
            content: vec![JsonBlock::Text { text: text.into() }],
        }
    }

    #[test]
    fn names_the_guard_only_for_refused_calls() {
        let mut i = Intercepts {
            tool_guards: vec!["guard".into()],
            ..Default::default()
        };
        let out = i.annotate(&result("1", "danger")).unwrap();
        let AgentEvent::ToolResult { content, .. } = out else {
            panic!()
        };
        assert_eq!(
            crate::transcript::blocks_text(&content),
            "⊘ refused by guard (tool_call interceptor)\ndanger"
        );
        // A call that ran and failed is not a refusal.
        i.annotate(&AgentEvent::ToolExecutionStarted {
            id: "2".into(),
            name: "bash".into(),
        });
        assert!(i.annotate(&result("2", "exit 1")).is_none());
        assert!(i
            .annotate(&result("3", "unknown tool \"x\"; available"))
            .is_none());
    }
}
