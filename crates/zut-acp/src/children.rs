//! Subagents in ACP (docs/subagents.md): each child is shown as a tool
//! call of its own (id `subagent:<child id>`, kind `think`), announced when
//! it is spawned, `in_progress` while it works, its content replaced by
//! what it does now (the tool it calls, then its reply), and `completed` or
//! `failed` with its final text or error when its turn ends. Its tokens
//! and cost are not in ACP's `usage_update` (which follows the parent's
//! context window).

use agent_client_protocol::v1::schema::{
    Content, ContentBlock, SessionUpdate, TextContent, ToolCall, ToolCallContent, ToolCallStatus,
    ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};
use zut_types::text::clip;
use zut_types::{AgentEvent, JsonBlock};

fn content(s: impl Into<String>) -> Vec<ToolCallContent> {
    vec![ToolCallContent::Content(Content::new(ContentBlock::Text(
        TextContent::new(s),
    )))]
}

fn text_of(blocks: &[JsonBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            JsonBlock::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("")
}

/// The ACP tool-call id of child `id`.
pub(crate) fn call_id(id: &str) -> String {
    format!("subagent:{id}")
}

/// The updates for one event of child `id` (often none).
pub(crate) fn map(id: &str, ev: &AgentEvent) -> Vec<SessionUpdate> {
    let update = |fields: ToolCallUpdateFields| {
        vec![SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
            call_id(id),
            fields,
        ))]
    };
    match ev {
        AgentEvent::SubagentStart { task, .. } => vec![SessionUpdate::ToolCall(
            ToolCall::new(call_id(id), format!("subagent {id}: {}", clip(task, 80)))
                .kind(ToolKind::Think)
                .status(ToolCallStatus::Pending),
        )],
        AgentEvent::UserMessage { .. } => {
            update(ToolCallUpdateFields::new().status(ToolCallStatus::InProgress))
        }
        AgentEvent::ToolCall { name, args, .. } => update(
            ToolCallUpdateFields::new()
                .status(ToolCallStatus::InProgress)
                .content(content(format!(
                    "running {}",
                    crate::updates::title(name, args)
                ))),
        ),
        AgentEvent::AssistantMessage { content: c, .. } => {
            let t = text_of(c);
            if t.trim().is_empty() {
                return Vec::new();
            }
            update(ToolCallUpdateFields::new().content(content(clip(&t, 2000))))
        }
        AgentEvent::SubagentEnd {
            state,
            final_text,
            error,
            ..
        } => {
            let status = if state == "completed" {
                ToolCallStatus::Completed
            } else {
                ToolCallStatus::Failed
            };
            let shown = match error {
                Some(e) => format!("{state}: {e}"),
                None if final_text.is_empty() => state.clone(),
                None => final_text.clone(),
            };
            update(
                ToolCallUpdateFields::new()
                    .status(status)
                    .content(content(shown)),
            )
        }
        _ => Vec::new(),
    }
}
