//! Interception made visible: a tool call refused by an extension's
//! `tool_call` interceptor shows, in its tool box, who refused it. The
//! agent emits no `tool_execution_started` for such a call, and its
//! result is the interceptor's reason; unknown tools and invalid
//! arguments (also never started) are told apart by their fixed texts,
//! and nothing is called a refusal while no extension intercepts.

use std::collections::HashSet;

use zut_agent::transcript::JsonBlock;
use zut_agent::AgentEvent;

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
