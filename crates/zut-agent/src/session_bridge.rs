//! The agent's side of sessions: converting between session rows
//! (`zut_session`, the Go format) and provider messages, restoring a
//! transcript into an [`Agent`], and the hook that writes each message,
//! usage and extension state row before the loop goes on.

use std::collections::BTreeSet;
use std::path::Path;

use zut_protocol::SessionInfo;
use zut_providers::{Message, Part, Role};
use zut_session::{Block, Closed, SessionMessage, SessionWriter, Snapshot, Usage};

use crate::agent::Agent;
use crate::event::UsageCounts;

/// The text given to the model when an extension's `details` could not be
/// persisted (protocol.md §8.5).
pub const STATE_NOT_PERSISTED: &str = "tool result state could not be persisted";

/// The session an agent writes to.
#[derive(Debug)]
pub struct AgentSession {
    writer: SessionWriter,
    cumulative: Usage,
    /// The file was looked at for a title (or titled) by this run.
    titled: bool,
}

impl AgentSession {
    /// The open file.
    pub fn writer(&self) -> &SessionWriter {
        &self.writer
    }

    /// The open file, to append rows the agent does not write itself
    /// (`rename`, …).
    pub fn writer_mut(&mut self) -> &mut SessionWriter {
        &mut self.writer
    }

    /// Session usage so far (resumed files included).
    pub fn cumulative(&self) -> &Usage {
        &self.cumulative
    }

    pub(crate) fn set_cumulative(&mut self, cumulative: Usage) {
        self.cumulative = cumulative;
    }

    /// The `session` object sent to extensions (protocol.md §10.4).
    pub fn info(&self) -> SessionInfo {
        session_info(self.writer.path(), self.writer.meta())
    }
}

/// The `session` object of protocol.md §10.4 for a file and its meta.
pub fn session_info(path: &Path, meta: &zut_session::Meta) -> SessionInfo {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    SessionInfo {
        id: meta.id.clone(),
        parent_id: meta.parent.clone(),
        path: path.display().to_string(),
        cwd: meta.cwd.clone(),
        fork_point: meta.fork_point as u64,
    }
}

impl Agent {
    /// Attaches a session: later prompts write every message, usage and
    /// extension state row to it before going on. With a snapshot (a
    /// resumed file) the transcript and the activated deferred tools are
    /// restored from it first, replacing the current ones.
    pub fn attach_session(&mut self, writer: SessionWriter, snapshot: Option<&Snapshot>) {
        let cumulative = snapshot.map(Snapshot::cumulative).unwrap_or_default();
        // Another session's `web-N` references are not this one's.
        self.web.clear();
        if let Some(snap) = snapshot {
            self.transcript = to_provider(&snap.messages);
            self.activated = snap.activated_tools().into_iter().collect::<BTreeSet<_>>();
            // Where each was activated (Kimi routes load the schema there).
            self.activation_calls.clear();
            for m in &snap.messages {
                let first_call = m.content.iter().find_map(|b| match b {
                    Block::ToolResult { call_id, .. } => Some(call_id),
                    _ => None,
                });
                if let Some(call_id) = first_call {
                    for name in &m.added_tool_names {
                        self.activation_calls.insert(name.clone(), call_id.clone());
                    }
                }
            }
        }
        self.plan = snapshot
            .map(|snap| crate::plan::plan_from_meta(&snap.meta))
            .unwrap_or_default();
        self.goals = snapshot
            .map(|snap| crate::goals::GoalState::from_meta(&snap.meta))
            .unwrap_or_default();
        // A resumed conversation or a renamed file keeps its title.
        let titled =
            snapshot.is_some_and(|snap| !snap.title.is_empty() || !snap.messages.is_empty());
        self.session = Some(AgentSession {
            writer,
            cumulative,
            titled,
        });
        self.note_schedule_session();
    }

    /// The attached session, if any.
    pub fn session(&self) -> Option<&AgentSession> {
        self.session.as_ref()
    }

    /// The attached session, mutably.
    pub fn session_mut(&mut self) -> Option<&mut AgentSession> {
        self.session.as_mut()
    }

    /// Detaches and closes the session: a file this run created that got no
    /// content is removed. `None` without a session.
    pub fn close_session(&mut self) -> Option<zut_session::Result<Closed>> {
        self.session.take().map(|s| s.writer.close())
    }

    /// Titles an untitled session after its first prompt, as print mode
    /// titles a new file (sessions-themes-skills.md §1.3: a repeated `meta`
    /// row, the last one wins): RPC and ACP open their file before any
    /// prompt is known. Only while the conversation is empty and the file
    /// has no title, so a resumed or renamed session keeps its own. A
    /// failed write is left to the message row that follows.
    pub(crate) fn title_session(&mut self, first_prompt: &str) {
        if !self.transcript.is_empty() {
            return;
        }
        let Some(s) = self.session.as_mut() else {
            return;
        };
        if !s.writer.meta().title.is_empty() || s.titled {
            return;
        }
        s.titled = true;
        let title = zut_session::title_from_prompt(first_prompt);
        if title.is_empty() {
            return;
        }
        let mut meta = s.writer.meta().clone();
        meta.title = title;
        if let Err(e) = s.writer.append(&zut_session::Row::Meta(meta)) {
            tracing::warn!(%e, "could not title the session");
        }
    }

    /// Persists `message` (its row reaches the file before anything else
    /// happens), then appends it to the transcript; the persisting error.
    pub(crate) fn record_message(
        &mut self,
        message: Message,
        added_tool_names: Vec<String>,
    ) -> Result<(), String> {
        let persisted = self.persist_message(&message, added_tool_names);
        self.transcript.push(message);
        persisted
    }

    /// Writes `message` (with `added_tool_names`) to the session, if any.
    pub(crate) fn persist_message(
        &mut self,
        message: &Message,
        added_tool_names: Vec<String>,
    ) -> Result<(), String> {
        let Some(s) = self.session.as_mut() else {
            return Ok(());
        };
        let mut m = from_provider(message);
        m.added_tool_names = added_tool_names;
        s.writer.append_message(&m).map_err(|e| e.to_string())
    }

    /// Writes a usage row for one model call, if a session is attached.
    pub(crate) fn persist_usage(&mut self, this: &UsageCounts) -> Result<(), String> {
        let Some(s) = self.session.as_mut() else {
            return Ok(());
        };
        let usage = session_usage(this);
        s.cumulative = s.cumulative.add(&usage);
        let cumulative = s.cumulative.clone();
        s.writer
            .append_usage(&usage, &cumulative)
            .map_err(|e| e.to_string())
    }

    /// Writes an extension's `details` as its state row. `Ok(false)` when
    /// no session is attached (the details are ignored); an error when the
    /// row could not be written (over 256 KiB, blank name, I/O).
    pub(crate) fn persist_state(
        &mut self,
        extension: &str,
        details: &serde_json::Value,
    ) -> Result<bool, String> {
        let Some(s) = self.session.as_mut() else {
            return Ok(false);
        };
        let json = serde_json::to_string(details).map_err(|e| e.to_string())?;
        s.writer
            .append_state(extension, &json)
            .map(|()| true)
            .map_err(|e| e.to_string())
    }
}

/// Session usage of one model call, with its cost (and `cost_known` among
/// the row's other keys).
pub fn session_usage(u: &UsageCounts) -> Usage {
    Usage {
        input_tokens: u.input,
        output_tokens: u.output,
        reasoning_tokens: u.reasoning.unwrap_or(0),
        reasoning_tokens_known: u.reasoning.is_some(),
        cache_read_tokens: u.cache_read,
        cache_write_tokens: u.cache_write,
        cost_usd: u.cost_usd,
        extra: [("cost_known".to_string(), u.cost_known.into())]
            .into_iter()
            .collect(),
    }
}

/// Provider messages of a session transcript. `tool` messages become user
/// messages carrying the results; the host's hidden per-turn context
/// (`developer` + `internal_context`) is dropped (the agent adds a fresh
/// one to every request); other `developer` messages become user text.
pub fn to_provider(messages: &[SessionMessage]) -> Vec<Message> {
    messages
        .iter()
        .filter(|m| !m.is_internal_context())
        .filter_map(|m| {
            let role = match m.role {
                zut_session::Role::Assistant => Role::Assistant,
                _ => Role::User,
            };
            let content = parts_of(&m.content);
            (!content.is_empty()).then_some(Message { role, content })
        })
        .collect()
}

/// The parts of session blocks. A Gemini `thought_signature` on a text,
/// image or tool-call block (the Go original's rows) becomes the empty,
/// signed thinking part the Gemini wire keeps right before that part.
fn parts_of(blocks: &[Block]) -> Vec<Part> {
    let mut out = Vec::with_capacity(blocks.len());
    for b in blocks {
        let signature = b.thought_signature();
        if !signature.is_empty() {
            out.push(Part::Thinking {
                text: String::new(),
                signature: Some(signature.to_string()),
            });
        }
        out.extend(part_of(b));
    }
    out
}

fn part_of(b: &Block) -> Option<Part> {
    Some(match b {
        Block::Text { text, .. } => Part::Text { text: text.clone() },
        Block::Image {
            mime_type, data, ..
        } => Part::Image {
            mime_type: mime_type.clone(),
            data: data.clone(),
        },
        // A reasoning id is a Responses reasoning item (the Go original
        // writes the same row); without one, the signature of Anthropic
        // thinking.
        Block::Reasoning {
            reasoning_id,
            summary,
            encrypted_content,
        } => Part::Thinking {
            text: summary.clone(),
            signature: if reasoning_id.is_empty() {
                (!encrypted_content.is_empty()).then(|| encrypted_content.clone())
            } else {
                Some(zut_providers::responses_reasoning(
                    reasoning_id,
                    encrypted_content,
                ))
            },
        },
        Block::ToolCall {
            id,
            name,
            arguments,
            ..
        } => Part::ToolCall {
            id: id.clone(),
            name: name.clone(),
            args: if arguments.is_null() {
                serde_json::json!({})
            } else {
                arguments.clone()
            },
        },
        Block::ToolResult {
            call_id,
            content,
            is_error,
            ..
        } => Part::ToolResult {
            call_id: call_id.clone(),
            is_error: *is_error,
            content: content.iter().filter_map(part_of).collect(),
        },
    })
}

/// The session message of a provider message: a user message that carries
/// tool results is a `tool` message; thinking is stored as reasoning
/// (`summary` = text, `encrypted_content` = signature).
pub fn from_provider(m: &Message) -> SessionMessage {
    let role = match m.role {
        Role::Assistant => zut_session::Role::Assistant,
        Role::User
            if m.content
                .iter()
                .any(|p| matches!(p, Part::ToolResult { .. })) =>
        {
            zut_session::Role::Tool
        }
        Role::User => zut_session::Role::User,
    };
    SessionMessage::new(role, blocks_of(&m.content))
}

/// The blocks of provider parts: an empty, signed thinking part right
/// before a text, image or tool call (how the Gemini wire keeps a thought
/// signature that came on that part) is stored as that block's
/// `thought_signature`, as the Go original stores it.
fn blocks_of(parts: &[Part]) -> Vec<Block> {
    let mut out = Vec::with_capacity(parts.len());
    let mut pending: Option<&str> = None;
    for (i, p) in parts.iter().enumerate() {
        if let Part::Thinking {
            text,
            signature: Some(sig),
        } = p
        {
            let carries = matches!(
                parts.get(i + 1),
                Some(Part::Text { .. } | Part::Image { .. } | Part::ToolCall { .. })
            );
            if text.is_empty()
                && carries
                && !sig.is_empty()
                && !sig.starts_with(zut_providers::REDACTED_THINKING_PREFIX)
            {
                pending = Some(sig);
                continue;
            }
        }
        let signature = pending.take().map(str::to_string).unwrap_or_default();
        out.push(block_of(p, signature));
    }
    out
}

/// The block of a part; `thought_signature` goes on a text, image or tool
/// call (the other kinds have none).
fn block_of(p: &Part, thought_signature: String) -> Block {
    match p {
        Part::Text { text } => Block::Text {
            text: text.clone(),
            thought_signature,
        },
        Part::Image { mime_type, data } => Block::Image {
            mime_type: mime_type.clone(),
            data: data.clone(),
            thought_signature,
        },
        Part::Thinking { text, signature } => {
            match signature
                .as_deref()
                .and_then(zut_providers::parse_responses_reasoning)
            {
                Some((id, encrypted)) => Block::Reasoning {
                    reasoning_id: id.to_string(),
                    summary: text.clone(),
                    encrypted_content: encrypted.to_string(),
                },
                None => Block::Reasoning {
                    reasoning_id: String::new(),
                    summary: text.clone(),
                    encrypted_content: signature.clone().unwrap_or_default(),
                },
            }
        }
        Part::ToolCall { id, name, args } => Block::ToolCall {
            id: id.clone(),
            name: name.clone(),
            arguments: args.clone(),
            thought_signature,
        },
        Part::ToolResult {
            call_id,
            is_error,
            content,
        } => Block::ToolResult {
            call_id: call_id.clone(),
            content: content.iter().map(|p| block_of(p, String::new())).collect(),
            is_error: *is_error,
            timing: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn provider_messages_round_trip_through_session_rows() {
        let msgs = vec![
            Message {
                role: Role::User,
                content: vec![
                    Part::Text { text: "hi".into() },
                    Part::Image {
                        mime_type: "image/png".into(),
                        data: "aGk=".into(),
                    },
                ],
            },
            Message {
                role: Role::Assistant,
                content: vec![
                    Part::Thinking {
                        text: "hm".into(),
                        signature: Some("sig".into()),
                    },
                    Part::Thinking {
                        text: "plan".into(),
                        signature: Some(zut_providers::responses_reasoning("rs_9", "gAAA==")),
                    },
                    Part::ToolCall {
                        id: "c1".into(),
                        name: "read".into(),
                        args: json!({"path":"a"}),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![Part::ToolResult {
                    call_id: "c1".into(),
                    is_error: false,
                    content: vec![Part::Text { text: "A".into() }],
                }],
            },
        ];
        let rows: Vec<SessionMessage> = msgs.iter().map(from_provider).collect();
        assert_eq!(rows[2].role, zut_session::Role::Tool);
        // A Responses reasoning item is stored as the Go original stores it.
        assert_eq!(
            rows[1].content[1],
            Block::Reasoning {
                reasoning_id: "rs_9".into(),
                summary: "plan".into(),
                encrypted_content: "gAAA==".into(),
            }
        );
        assert_eq!(to_provider(&rows), msgs);
    }

    #[test]
    fn gemini_thought_signatures_are_stored_on_their_blocks() {
        let message = Message {
            role: Role::Assistant,
            content: vec![
                Part::Thinking {
                    text: "thought".into(),
                    signature: Some("on-thought".into()),
                },
                Part::Thinking {
                    text: String::new(),
                    signature: Some("on-call".into()),
                },
                Part::ToolCall {
                    id: "c1".into(),
                    name: "read".into(),
                    args: json!({}),
                },
            ],
        };
        let stored = from_provider(&message);
        assert_eq!(stored.content.len(), 2);
        assert!(matches!(
            &stored.content[1],
            Block::ToolCall { thought_signature, .. } if thought_signature == "on-call"
        ));
        assert_eq!(to_provider(&[stored]), vec![message]);
    }

    #[test]
    fn hidden_context_rows_are_dropped_and_developer_text_kept() {
        let mut ctx = SessionMessage::new(zut_session::Role::Developer, vec![Block::text("time")]);
        ctx.meta = Some([("internal_context".to_string(), "true".to_string())].into());
        let note = SessionMessage::new(zut_session::Role::Developer, vec![Block::text("note")]);
        let out = to_provider(&[ctx, note]);
        assert_eq!(
            out,
            vec![Message {
                role: Role::User,
                content: vec![Part::Text {
                    text: "note".into()
                }]
            }]
        );
    }
}
