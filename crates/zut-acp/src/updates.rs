//! Agent events -> ACP `session/update` payloads.

use std::collections::HashMap;

use agent_client_protocol::v1::schema::{
    Content, ContentBlock, ContentChunk, Cost, Diff, SessionUpdate, TextContent, ToolCall,
    ToolCallContent, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields, ToolKind, UsageUpdate,
};
use serde_json::Value;
use zut_types::AgentEvent;
use zut_types::JsonBlock;

/// Maps one turn's events; remembers tool calls already announced.
#[derive(Default)]
pub(crate) struct Mapper {
    /// Tool calls announced (from `tool_use_start`), with their name.
    announced: HashMap<String, String>,
    /// The session's extension status items (the ACP plan).
    statuses: Option<std::sync::Arc<std::sync::Mutex<crate::plan::Statuses>>>,
    /// The session's running cost, for `usage_update`.
    usage: Option<std::sync::Arc<std::sync::Mutex<UsageTotal>>>,
}

/// A session's usage as `usage_update` reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct UsageTotal {
    /// Cost so far in US dollars.
    pub spent: f64,
    /// Whether every call so far was priced.
    pub known: bool,
    /// Calls counted.
    pub calls: u64,
    /// The model's context window (0: unknown).
    pub window: u64,
}

fn text(s: impl Into<String>) -> ContentBlock {
    ContentBlock::Text(TextContent::new(s))
}

/// The ACP kind of a zut tool.
pub(crate) fn kind(tool: &str) -> ToolKind {
    match tool {
        "read" | "ls" => ToolKind::Read,
        "write" | "edit" => ToolKind::Edit,
        "bash" => ToolKind::Execute,
        "grep" | "find" | "glob" => ToolKind::Search,
        _ => ToolKind::Other,
    }
}

/// A one-line title: the tool and its main argument.
pub(crate) fn title(tool: &str, args: &Value) -> String {
    let main = ["path", "command", "pattern", "url"]
        .iter()
        .find_map(|k| args.get(k).and_then(Value::as_str));
    match main {
        Some(m) => {
            let m: String = m.chars().take(120).collect();
            format!("{tool} {m}")
        }
        None => tool.to_string(),
    }
}

/// Diffs shown for `write` and `edit` calls (before they run).
pub(crate) fn diffs(tool: &str, args: &Value) -> Vec<ToolCallContent> {
    let Some(path) = args.get("path").and_then(Value::as_str) else {
        return Vec::new();
    };
    match tool {
        "write" => args
            .get("content")
            .and_then(Value::as_str)
            .map(|c| vec![ToolCallContent::Diff(Diff::new(path, c))])
            .unwrap_or_default(),
        "edit" => args
            .get("edits")
            .and_then(Value::as_array)
            .map(|edits| {
                edits
                    .iter()
                    .filter_map(|e| {
                        let old = e.get("oldText")?.as_str()?;
                        let new = e.get("newText")?.as_str()?;
                        Some(ToolCallContent::Diff(
                            Diff::new(path, new).old_text(old.to_string()),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

fn blocks_text(blocks: &[JsonBlock]) -> String {
    let mut out = String::new();
    for b in blocks {
        match b {
            JsonBlock::Text { text } => out.push_str(text),
            JsonBlock::Image { mime_type, bytes } => {
                out.push_str(&format!("[image {mime_type}, {bytes} bytes]"))
            }
            _ => {}
        }
    }
    out
}

impl Mapper {
    /// A mapper that keeps `statuses` (the session's) up to date and sends
    /// the plan when they change.
    pub(crate) fn with_statuses(
        statuses: std::sync::Arc<std::sync::Mutex<crate::plan::Statuses>>,
        usage: std::sync::Arc<std::sync::Mutex<UsageTotal>>,
    ) -> Self {
        Self {
            statuses: Some(statuses),
            usage: Some(usage),
            ..Self::default()
        }
    }

    /// The updates for one event (often none).
    pub(crate) fn map(&mut self, ev: &AgentEvent) -> Vec<SessionUpdate> {
        if let Some(statuses) = &self.statuses {
            if matches!(
                ev,
                AgentEvent::ExtStatus { .. }
                    | AgentEvent::ExtChromeClear { .. }
                    | AgentEvent::PlanUpdate { .. }
                    | AgentEvent::GoalUpdate { .. }
            ) {
                let mut s = statuses.lock().unwrap_or_else(|e| e.into_inner());
                return s.apply(ev).into_iter().collect();
            }
        }
        if let AgentEvent::PlanUpdate { .. } = ev {
            // No session statuses: the agent's plan alone.
            return crate::plan::Statuses::default()
                .apply(ev)
                .into_iter()
                .collect();
        }
        match ev {
            AgentEvent::TextDelta { delta } if !delta.is_empty() => {
                vec![SessionUpdate::AgentMessageChunk(ContentChunk::new(text(
                    delta.clone(),
                )))]
            }
            AgentEvent::ReasoningDelta { delta } if !delta.is_empty() => {
                vec![SessionUpdate::AgentThoughtChunk(ContentChunk::new(text(
                    delta.clone(),
                )))]
            }
            AgentEvent::ToolUseStart { id, name } => {
                self.announced.insert(id.clone(), name.clone());
                vec![SessionUpdate::ToolCall(
                    ToolCall::new(id.clone(), name.clone())
                        .kind(kind(name))
                        .status(ToolCallStatus::Pending),
                )]
            }
            AgentEvent::ToolCall { id, name, args } => {
                let content = diffs(name, args);
                let fields = ToolCallUpdateFields::new()
                    .title(title(name, args))
                    .kind(kind(name))
                    .raw_input(args.clone());
                let fields = if content.is_empty() {
                    fields
                } else {
                    fields.content(content.clone())
                };
                if self.announced.contains_key(id) {
                    vec![SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
                        id.clone(),
                        fields,
                    ))]
                } else {
                    self.announced.insert(id.clone(), name.clone());
                    vec![SessionUpdate::ToolCall(
                        ToolCall::new(id.clone(), title(name, args))
                            .kind(kind(name))
                            .status(ToolCallStatus::Pending)
                            .content(content),
                    )]
                }
            }
            AgentEvent::ToolExecutionStarted { id, .. } => {
                vec![SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
                    id.clone(),
                    ToolCallUpdateFields::new().status(ToolCallStatus::InProgress),
                ))]
            }
            AgentEvent::ToolResult {
                id,
                is_error,
                content,
            } => {
                let status = if *is_error {
                    ToolCallStatus::Failed
                } else {
                    ToolCallStatus::Completed
                };
                let mut fields = ToolCallUpdateFields::new().status(status);
                let out = blocks_text(content);
                // Edits keep their diff as content; others show the output.
                let is_edit = self
                    .announced
                    .get(id)
                    .is_some_and(|n| kind(n) == ToolKind::Edit);
                if !out.is_empty() && (!is_edit || *is_error) {
                    fields =
                        fields.content(vec![ToolCallContent::Content(Content::new(text(out)))]);
                }
                vec![SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
                    id.clone(),
                    fields,
                ))]
            }
            AgentEvent::ExtNotify {
                extension,
                level,
                message,
            } => vec![note(&format!("[{extension}] {level}: {message}"))],
            AgentEvent::ExtAlert {
                extension,
                kind,
                reason,
            } => vec![note(&format!("[{extension}] alert {kind}: {reason}"))],
            AgentEvent::ExtDisplay { extension, text } if !text.is_empty() => {
                vec![note(&format!("[{extension}] {text}"))]
            }
            AgentEvent::Error { message } => vec![note(&format!("error: {message}"))],
            AgentEvent::Usage(u) => {
                let Some(total) = &self.usage else {
                    return Vec::new();
                };
                let mut t = total.lock().unwrap_or_else(|e| e.into_inner());
                t.known = u.this.cost_known && (t.known || t.calls == 0);
                t.calls += 1;
                t.spent += u.this.cost_usd;
                let used = u.this.cache_measured_prompt + u.this.output;
                let meta: serde_json::Map<String, Value> = [(
                    "zut".to_string(),
                    serde_json::json!({"cost_known": t.known}),
                )]
                .into_iter()
                .collect();
                vec![SessionUpdate::UsageUpdate(
                    UsageUpdate::new(used, t.window)
                        .cost(Cost::new(t.spent, "USD"))
                        .meta(meta),
                )]
            }
            _ => Vec::new(),
        }
    }
}

/// A line of zut's own (a command's answer), as its own agent message
/// line.
pub(crate) fn note_update(s: &str) -> SessionUpdate {
    note(s)
}

/// An extension's note, as its own agent message line.
fn note(s: &str) -> SessionUpdate {
    SessionUpdate::AgentMessageChunk(ContentChunk::new(text(format!("\n{s}\n"))))
}
