//! Painting a resumed conversation: the tail of its messages as the
//! agent events the transcript shows (`!cmd` outputs as their boxes), and
//! the goal it was pursuing.

use tokio::sync::mpsc;
use zut_agent::AgentEvent;
use zut_tui::TuiEvent;

/// Messages of a resumed session shown at start (the rest stay in the
/// file and in the model's context).
const REPLAYED_MESSAGES: usize = 40;

/// Sends the tail of a resumed conversation as agent events.
pub(crate) fn replay(snap: &zut_session::Snapshot, tx: &mpsc::UnboundedSender<TuiEvent>) {
    use zut_agent::transcript::{json_blocks, JsonBlock};
    let messages = zut_agent::session_bridge::to_provider(&snap.messages);
    let skip = messages.len().saturating_sub(REPLAYED_MESSAGES);
    let title = if snap.title.is_empty() {
        "untitled"
    } else {
        &snap.title
    };
    let mut note = format!("resumed session {title:?} ({} messages", messages.len());
    if skip > 0 {
        note.push_str(&format!(", the last {REPLAYED_MESSAGES} shown"));
    }
    note.push(')');
    let _ = tx.send(TuiEvent::Info(note));
    let mut events = Vec::new();
    let mut send = |ev: AgentEvent| events.push(ev);
    // `!cmd` outputs (`meta.shell_escape`) show as the box they were.
    let shell: std::collections::HashSet<String> = snap
        .messages
        .iter()
        .filter(|m| m.meta_value(zut_agent::user_context::SHELL_ESCAPE_META) == Some("true"))
        .map(|m| zut_agent::session_bridge::to_provider(std::slice::from_ref(m)))
        .filter_map(|p| p.first().map(|m| m.text()))
        .collect();
    for (n, m) in messages[skip..].iter().enumerate() {
        if m.role == zut_providers::Role::User && shell.contains(&m.text()) {
            let text = m.text();
            // zut's text: the mark, `$ cmd`, the output (the Go
            // original's has no mark).
            let (command, output) = match text.split_once('\n') {
                Some((mark, rest)) if mark.starts_with("[The user ran") => {
                    let (cmd, out) = rest.split_once('\n').unwrap_or((rest, ""));
                    (
                        cmd.strip_prefix("$ ").unwrap_or(cmd).to_string(),
                        out.to_string(),
                    )
                }
                _ => (String::new(), text.clone()),
            };
            let id = format!("shell-escape-{n}");
            send(AgentEvent::ToolCall {
                id: id.clone(),
                name: "bash".into(),
                args: serde_json::json!({ "command": command }),
            });
            send(AgentEvent::ToolResult {
                id,
                is_error: output.contains("\n[exit "),
                content: vec![JsonBlock::Text { text: output }],
            });
            continue;
        }
        let blocks = json_blocks(&m.content);
        let text: Vec<JsonBlock> = blocks
            .iter()
            .filter(|b| matches!(b, JsonBlock::Text { .. } | JsonBlock::Image { .. }))
            .cloned()
            .collect();
        match m.role {
            zut_providers::Role::User => {
                if !text.is_empty() {
                    send(AgentEvent::UserMessage {
                        content: text,
                        time: String::new(),
                    });
                }
            }
            zut_providers::Role::Assistant => {
                if !text.is_empty() {
                    let joined = zut_tui::transcript::blocks_text(&text);
                    send(AgentEvent::AssistantStart);
                    send(AgentEvent::TextDelta { delta: joined });
                    send(AgentEvent::AssistantMessage {
                        content: text,
                        time: String::new(),
                    });
                }
            }
        }
        for b in blocks {
            match b {
                JsonBlock::ToolCall { id, name, args } => {
                    send(AgentEvent::ToolCall { id, name, args })
                }
                JsonBlock::ToolResult {
                    call_id,
                    is_error,
                    content,
                } => send(AgentEvent::ToolResult {
                    id: call_id,
                    is_error,
                    content,
                }),
                _ => {}
            }
        }
    }
    let _ = tx.send(TuiEvent::Replay(events));
    // A resumed goal shows in the status bar (issue 24).
    let goals = zut_agent::goals::GoalState::from_meta(&snap.meta);
    if goals.goal.is_some() {
        let _ = tx.send(TuiEvent::Agent(goals.event()));
    }
}
