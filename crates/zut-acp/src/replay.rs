//! `session/load`: a resumed transcript replayed as `session/update`s
//! (user and agent message chunks, thoughts, tool calls with their final
//! status and output).

use agent_client_protocol::v1::schema::{
    Content, ContentBlock, ContentChunk, ImageContent, SessionUpdate, TextContent, ToolCall,
    ToolCallContent, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields,
};
use zut_types::{Message, Part, Role};

use crate::updates::{diffs, kind, title};

fn text(s: &str) -> ContentBlock {
    ContentBlock::Text(TextContent::new(s))
}

/// The updates that show `messages` as the client would have seen them.
pub(crate) fn updates(messages: &[Message]) -> Vec<SessionUpdate> {
    let mut out = Vec::new();
    for m in messages {
        for p in &m.content {
            match (m.role, p) {
                (Role::User, Part::Text { text: t }) if !t.is_empty() => {
                    out.push(SessionUpdate::UserMessageChunk(ContentChunk::new(text(t))))
                }
                (Role::User, Part::Image { mime_type, data }) => {
                    out.push(SessionUpdate::UserMessageChunk(ContentChunk::new(
                        ContentBlock::Image(ImageContent::new(data.clone(), mime_type.clone())),
                    )))
                }
                (Role::Assistant, Part::Text { text: t }) if !t.is_empty() => {
                    out.push(SessionUpdate::AgentMessageChunk(ContentChunk::new(text(t))))
                }
                (Role::Assistant, Part::Thinking { text: t, .. }) if !t.is_empty() => {
                    out.push(SessionUpdate::AgentThoughtChunk(ContentChunk::new(text(t))))
                }
                (_, Part::ToolCall { id, name, args }) => out.push(SessionUpdate::ToolCall(
                    ToolCall::new(id.clone(), title(name, args))
                        .kind(kind(name))
                        .status(ToolCallStatus::Pending)
                        .raw_input(args.clone())
                        .content(diffs(name, args)),
                )),
                (
                    _,
                    Part::ToolResult {
                        call_id,
                        is_error,
                        content,
                    },
                ) => {
                    let status = if *is_error {
                        ToolCallStatus::Failed
                    } else {
                        ToolCallStatus::Completed
                    };
                    let output: String = content
                        .iter()
                        .filter_map(|c| match c {
                            Part::Text { text } => Some(text.as_str()),
                            _ => None,
                        })
                        .collect();
                    let mut fields = ToolCallUpdateFields::new().status(status);
                    if !output.is_empty() {
                        fields = fields
                            .content(vec![ToolCallContent::Content(Content::new(text(&output)))]);
                    }
                    out.push(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
                        call_id.clone(),
                        fields,
                    )));
                }
                _ => {}
            }
        }
    }
    out
}
