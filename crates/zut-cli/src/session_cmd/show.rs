//! `zut session show`: the effective transcript as text or JSON.

use serde_json::json;
use zut_session::{Block, Role, SessionMessage, Snapshot};

use super::Ctx;

/// Prints a session's effective transcript.
pub fn run(ctx: &Ctx, session: &str, as_json: bool) -> Result<(), String> {
    let path = ctx.resolve(session)?;
    let snap = zut_session::read(&path).map_err(|e| e.to_string())?;
    if as_json {
        let v = json!({
            "id": snap.meta.id,
            "path": path.display().to_string(),
            "title": snap.display_title(),
            "meta": snap.meta,
            "messages": snap.messages,
            "compactions": snap.compactions,
        });
        crate::stdio::line(&v.to_string());
        return Ok(());
    }
    crate::stdio::line(text(&snap).trim_end());
    Ok(())
}

/// The plain-text rendering.
fn text(snap: &Snapshot) -> String {
    let mut out = header(snap);
    for (i, m) in snap.messages.iter().enumerate() {
        out.push_str(&format!("\n[{}] {}\n", i + 1, label(m)));
        for b in &m.content {
            out.push_str(&block_text(b));
            out.push('\n');
        }
    }
    out
}

fn header(snap: &Snapshot) -> String {
    let m = &snap.meta;
    let mut out = format!(
        "session {}\ntitle: {}\nstarted: {}  model: {}/{}  messages: {}\nfile: {}\n",
        m.id,
        Some(snap.display_title())
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| "(untitled)".into()),
        m.started,
        m.provider,
        m.model,
        snap.messages.len(),
        snap.path.display()
    );
    if !m.parent.is_empty() {
        out.push_str(&format!(
            "branch of {} at message {}\n",
            m.parent, m.fork_point
        ));
    }
    if snap.compactions > 0 {
        out.push_str(&format!("compactions: {}\n", snap.compactions));
    }
    out
}

/// `user`, `assistant`, `tool`, `developer (hidden context)`, `summary`.
pub fn label(m: &SessionMessage) -> String {
    let role = match m.role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
        Role::Developer => "developer",
    };
    if m.meta_value("compaction") == Some("true") {
        return format!("{role} (compaction summary)");
    }
    if m.is_internal_context() {
        return format!("{role} (hidden context)");
    }
    if !m.added_tool_names.is_empty() {
        return format!("{role} (activates {})", m.added_tool_names.join(", "));
    }
    role.to_string()
}

fn block_text(b: &Block) -> String {
    match b {
        Block::Text { text, .. } => text.clone(),
        Block::Image {
            mime_type, data, ..
        } => format!("[image {mime_type}, {} bytes]", data.len() * 3 / 4),
        Block::Reasoning { summary, .. } => format!("(reasoning) {summary}"),
        Block::ToolCall {
            id,
            name,
            arguments,
            ..
        } => format!("-> {name} {arguments} ({id})"),
        Block::ToolResult {
            call_id,
            content,
            is_error,
            ..
        } => {
            let body: Vec<String> = content.iter().map(block_text).collect();
            format!(
                "<- {call_id}{}: {}",
                if *is_error { " (error)" } else { "" },
                body.join("\n")
            )
        }
    }
}
