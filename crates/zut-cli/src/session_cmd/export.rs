//! `zut session export`: the effective transcript as Markdown.

use std::path::Path;

use zut_session::{Block, Role, SessionMessage, Snapshot};

use super::Ctx;

/// Writes a session as Markdown to `output` or stdout.
pub fn run(ctx: &Ctx, session: &str, output: Option<&Path>) -> Result<(), String> {
    let path = ctx.resolve(session)?;
    let snap = zut_session::read(&path).map_err(|e| e.to_string())?;
    let md = markdown(&snap);
    match output {
        Some(file) => {
            std::fs::write(file, md).map_err(|e| format!("writing {}: {e}", file.display()))
        }
        None => {
            crate::stdio::line(md.trim_end());
            Ok(())
        }
    }
}

/// The Markdown rendering: a title, the session facts, then one section
/// per message. Hidden per-turn context is left out; reasoning is folded.
pub fn markdown(snap: &Snapshot) -> String {
    let m = &snap.meta;
    let title = snap.display_title();
    let title = if title.is_empty() { "Session" } else { &title };
    let mut out = format!(
        "# {title}\n\n- Session: `{}`\n- Started: {}\n- Model: {}/{}\n- Project: `{}`\n",
        m.id, m.started, m.provider, m.model, m.cwd
    );
    if !m.parent.is_empty() {
        out.push_str(&format!(
            "- Branch of `{}` at message {}\n",
            m.parent, m.fork_point
        ));
    }
    for msg in snap.messages.iter().filter(|m| !m.is_internal_context()) {
        out.push_str(&format!("\n## {}\n\n", heading(msg)));
        for b in &msg.content {
            out.push_str(&block_md(b));
            out.push_str("\n\n");
        }
        while out.ends_with("\n\n\n") {
            out.pop();
        }
    }
    out
}

fn heading(m: &SessionMessage) -> &'static str {
    if m.meta_value("compaction") == Some("true") {
        return "Context summary";
    }
    match m.role {
        Role::User => "User",
        Role::Assistant => "Assistant",
        Role::Tool => "Tool results",
        Role::Developer => "Developer",
    }
}

/// A fence longer than any backtick run in `text`.
fn fence(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

fn block_md(b: &Block) -> String {
    match b {
        Block::Text { text, .. } => text.clone(),
        Block::Image {
            mime_type, data, ..
        } => format!("*[image {mime_type}, {} bytes]*", data.len() * 3 / 4),
        Block::Reasoning { summary, .. } if summary.is_empty() => "*(reasoning)*".into(),
        Block::Reasoning { summary, .. } => {
            format!("<details><summary>Reasoning</summary>\n\n{summary}\n\n</details>")
        }
        Block::ToolCall {
            id,
            name,
            arguments,
            ..
        } => {
            let args = serde_json::to_string_pretty(arguments).unwrap_or_default();
            let f = fence(&args);
            format!("**Tool call** `{name}` (`{id}`)\n\n{f}json\n{args}\n{f}")
        }
        Block::ToolResult {
            call_id,
            content,
            is_error,
            ..
        } => {
            let body: Vec<String> = content
                .iter()
                .map(|b| match b {
                    Block::Text { text, .. } => text.clone(),
                    other => block_md(other),
                })
                .collect();
            let body = body.join("\n");
            let f = fence(&body);
            format!(
                "**Tool result** (`{call_id}`{})\n\n{f}\n{body}\n{f}",
                if *is_error { ", error" } else { "" }
            )
        }
    }
}
