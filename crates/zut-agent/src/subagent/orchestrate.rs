//! `--orchestrate` (headless runs): the parent is a manager. It explores
//! with read-only tools, delegates the work to children with the
//! `subagent` tool, and writes the final synthesis. When it ends a reply
//! while children are still working, zut waits for the next completion and
//! hands the parent the completion notes as a new user message (a
//! "completion wave"), at most [`MAX_WAVES`] times per prompt.
//!
//! The waves are ordinary, persisted user messages (a `user_message`
//! event, a `message` row): every model call zut makes without a user
//! prompt is visible in the stream and the session file. The Go original
//! sends them as hidden context; zut shows them, so nothing is spent
//! unseen and a resumed session replays exactly what the model saw.

use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;
use zut_providers::Message;

use crate::agent::{Agent, EventSink};
use crate::event::AgentEvent;
use crate::subagent::runtime::Runtime;
use crate::toolset::{ToolOwner, Toolset};
use crate::transcript::{json_blocks, now_rfc3339};

/// Completion waves per prompt (the Go original's bound).
pub const MAX_WAVES: u32 = 32;

/// The built-in tools the orchestrating parent keeps: reading, searching,
/// the web, its plan, skills and the `subagent` tool. Everything that
/// changes the workspace or runs programs is the children's.
pub const PARENT_TOOLS: &[&str] = &[
    "read",
    "grep",
    "glob",
    "ast",
    "web_search",
    "web_open",
    "web_find",
    "web_click",
    "plan",
    "update_plan",
    "skill",
    crate::subagent::tool::TOOL_NAME,
];

/// Appended to the parent's system prompt (never to a child's).
pub const ORCHESTRATOR_PROMPT: &str = "\
You are orchestrating this task. Other agents (subagents) do the work; you plan, delegate, follow up and report.
- First look around with your read-only tools (read, grep, glob, ast without rewrite, the web tools) only as much as you need to split the task.
- Split the work into independent pieces whose files do not overlap, and start one subagent per piece with the subagent tool (action spawn). Give each a self-contained task: what to change, which files are its own, which it must not touch, and how to check the result.
- You cannot edit files or run commands yourself. When a reply of yours ends while subagents are still working, zut waits and then gives you their completion notes as a new message; follow up (status with include_result, message, resume) or start more subagents as needed.
- When every piece is done, check the results and write the final answer: what was done, by which subagent, what is left.";

/// Turns orchestration on or off in `config` (the TUI's `/orchestrator`):
/// the flag, the manager's brief in the system prompt and, when on, the
/// `subagent` tool.
pub fn set(config: &mut crate::config::AgentConfig, on: bool) {
    config.orchestrate = on;
    config.system.append.retain(|a| a != ORCHESTRATOR_PROMPT);
    if on {
        config.system.append.push(ORCHESTRATOR_PROMPT.to_string());
        let name = crate::subagent::tool::TOOL_NAME;
        if !config.builtin_tools.iter().any(|t| t == name) {
            config.builtin_tools.push(name.to_string());
        }
    }
}

/// Whether `name` may run in an orchestrating parent, and the error text
/// when it may not.
pub fn refusal(name: &str, args: &Value) -> Option<String> {
    if !PARENT_TOOLS.contains(&name) {
        return Some(format!(
            "{name}: not available while orchestrating; delegate the work with the subagent tool"
        ));
    }
    let rewrite = args.get("rewrite").is_some_and(|v| !v.is_null());
    (name == "ast" && rewrite)
        .then(|| "ast: rewrites are unavailable in read-only orchestration".to_string())
}

/// Keeps only the tools an orchestrating parent may use.
pub fn restrict(tools: &mut Toolset) {
    tools.retain(|e| {
        matches!(e.owner, ToolOwner::Subagent) || PARENT_TOOLS.contains(&e.name.as_str())
    });
}

/// Whether any child still has a turn queued or running.
pub fn busy(rt: &Runtime) -> bool {
    rt.children().iter().any(|c| {
        let s = c.status();
        !s.state.is_settled() || s.pending > 0
    })
}

/// The next completion notes: at once when some are waiting, else after
/// the next child finishes a turn. `None` when no child is working and no
/// note waits, or when `cancel` fires.
pub async fn next_updates(rt: &Runtime, cancel: &CancellationToken) -> Option<String> {
    loop {
        if let Some(text) = rt.take_updates() {
            return Some(text);
        }
        if !busy(rt) || cancel.is_cancelled() {
            return None;
        }
        let mut changes: Vec<_> = rt.children().iter().map(|c| c.changes()).collect();
        let any_change =
            futures_util::future::select_all(changes.iter_mut().map(|rx| Box::pin(rx.changed())));
        // A child records its note just after its state changes: the short
        // timeout catches a note pushed between the check and the wait.
        tokio::select! {
            _ = cancel.cancelled() => return None,
            _ = any_change => {}
            _ = tokio::time::sleep(Duration::from_millis(250)) => {}
        }
    }
}

impl Agent {
    /// At the normal end of an orchestrating parent's reply: waits for the
    /// children and adds their completion notes as the next user message
    /// (`Some(Ok(()))`: run another step), or `None` when the prompt is
    /// complete (no child working, the wave bound reached, or aborted:
    /// the step loop sees the cancellation).
    pub(crate) async fn orchestration_wave(
        &mut self,
        waves: &mut u32,
        cancel: &CancellationToken,
        sink: EventSink<'_>,
    ) -> Option<Result<(), String>> {
        if !self.config.orchestrate {
            return None;
        }
        let rt = self.subagents.clone()?;
        if *waves >= MAX_WAVES {
            // The bound is reached: what still runs is stopped rather than
            // left working after the run ends.
            if busy(&rt) {
                rt.stop_all();
            }
            return None;
        }
        let text = next_updates(&rt, cancel).await?;
        *waves += 1;
        let message = Message::user_text(text);
        sink(AgentEvent::UserMessage {
            content: json_blocks(&message.content),
            time: now_rfc3339(),
        });
        Some(self.record_message(message, Vec::new()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_parent_only_reads_and_delegates() {
        assert_eq!(refusal("read", &json!({"path": "a"})), None);
        assert_eq!(refusal("subagent", &json!({"action": "spawn"})), None);
        assert_eq!(refusal("ast", &json!({"pattern": "f($A)"})), None);
        assert_eq!(
            refusal("ast", &json!({"pattern": "f($A)", "rewrite": "g($A)"})).as_deref(),
            Some("ast: rewrites are unavailable in read-only orchestration")
        );
        for name in ["write", "edit", "bash", "python", "worktree", "mcp__x__y"] {
            let why = refusal(name, &json!({})).unwrap_or_default();
            assert!(
                why.contains("not available while orchestrating"),
                "{name}: {why}"
            );
        }
    }
}
