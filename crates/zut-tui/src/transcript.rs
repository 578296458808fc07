//! The transcript: what the agent's events add to the conversation.
//! Finished cells become rows queued for the terminal's scrollback
//! ([`Transcript::take_rows`]); the streaming message and running tools
//! stay live until they finish. Nothing finished is kept in rows form, so
//! memory and rendering cost do not grow with the conversation.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use zut_types::AgentEvent;
use zut_types::JsonBlock;

use crate::intercept_view::HeldReply;
use crate::sanitize;
use crate::stream::{indent, MarkdownStream, INDENT};
use crate::theme::Theme;
use crate::tool_view::ToolCell;
use crate::wrap::wrap;

/// Live transcript state.
pub struct Transcript {
    width: usize,
    stream: Option<MarkdownStream>,
    tools: Vec<ToolCell>,
    rows: Vec<Line<'static>>,
    /// The last finished tool whose output was collapsed (Ctrl+O).
    last_collapsed: Option<ToolCell>,
    /// The last complete assistant reply (for `/copy`).
    pub last_reply: String,
    /// Live extensions intercepting `assistant_message`: while any is,
    /// a reply's rows are held until the agent says what the user sees
    /// (`replace_text`, or hidden by a block).
    pub message_guards: Vec<String>,
    /// The current reply's rows, held back (see `message_guards`).
    held: Option<HeldReply>,
    /// A `turn_start` block was shown: the `turn_end` error after it is
    /// the same reason, not shown twice.
    turn_blocked: bool,
}

/// Text of the text blocks of `content`, joined.
pub fn blocks_text(content: &[JsonBlock]) -> String {
    let mut out = String::new();
    for b in content {
        match b {
            JsonBlock::Text { text } => {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(text);
            }
            JsonBlock::Image { mime_type, bytes } => {
                out.push_str(&format!("[image {mime_type}, {bytes} bytes]"));
            }
            JsonBlock::ToolResult { content, .. } => out.push_str(&blocks_text(content)),
            JsonBlock::ToolCall { .. } => {}
        }
    }
    out
}

impl Transcript {
    /// An empty transcript at `width` columns.
    pub fn new(width: usize) -> Self {
        Self {
            width,
            stream: None,
            tools: Vec::new(),
            rows: Vec::new(),
            last_collapsed: None,
            last_reply: String::new(),
            message_guards: Vec::new(),
            held: None,
            turn_blocked: false,
        }
    }

    /// New terminal width.
    pub fn set_width(&mut self, width: usize) {
        self.width = width;
        if let Some(s) = &mut self.stream {
            s.set_width(width);
        }
    }

    /// Rows to insert into the scrollback since the last call.
    pub fn take_rows(&mut self) -> Vec<Line<'static>> {
        std::mem::take(&mut self.rows)
    }

    /// Whether rows are waiting for the scrollback.
    pub fn has_rows(&self) -> bool {
        !self.rows.is_empty()
    }

    /// Queues `rows` for the scrollback (after a blank separator row).
    pub fn push_block(&mut self, rows: Vec<Line<'static>>) {
        self.rows.push(Line::default());
        self.rows.extend(rows);
    }

    /// A one-line (or multi-line) notice in `style`, e.g. errors.
    pub fn notice(&mut self, text: &str, style: Style) {
        let mut rows = Vec::new();
        for l in sanitize::clean(text).split('\n') {
            let pad = vec![Span::raw(" ".repeat(INDENT))];
            rows.extend(wrap(
                &[Span::styled(l.to_string(), style)],
                self.width,
                &pad,
                &pad,
            ));
        }
        self.push_block(rows);
    }

    /// The user's message.
    pub fn user(&mut self, text: &str, theme: &Theme) {
        let bar = vec![Span::styled("▌ ", theme.accent)];
        let mut rows = vec![Line::from(Span::styled("▌", theme.accent))];
        for l in sanitize::clean(text).split('\n') {
            rows.extend(wrap(
                &[Span::styled(l.to_string(), theme.user)],
                self.width,
                &bar,
                &bar,
            ));
        }
        rows.push(Line::from(Span::styled("▌", theme.accent)));
        self.push_block(rows);
    }

    /// Commits the streaming message.
    pub fn finish_stream(&mut self, theme: &Theme) {
        if let Some(mut s) = self.stream.take() {
            s.finish(theme);
            let rows = s.take_committed();
            if let Some(h) = &mut self.held {
                h.rows.extend(rows);
                h.text.push_str(s.text());
            } else if !rows.is_empty() {
                self.rows.extend(rows);
            }
            if !s.is_empty() {
                self.last_reply = s.text().to_string();
            }
        }
    }

    /// Commits finished tools at the front (keeping their order).
    fn commit_tools(&mut self, theme: &Theme, all: bool) {
        while let Some(t) = self.tools.first() {
            if t.result.is_none() && !all {
                break;
            }
            let t = self.tools.remove(0);
            let rows = t.rows(self.width, theme, false);
            let collapsed = t.collapses();
            self.push_block(rows);
            if collapsed {
                self.last_collapsed = Some(t);
            }
        }
    }

    /// Ctrl+O: the last collapsed tool output, in full, into the scrollback.
    pub fn expand_last_tool(&mut self, theme: &Theme) -> bool {
        match self.last_collapsed.take() {
            Some(t) => {
                let rows = t.rows(self.width, theme, true);
                self.push_block(rows);
                true
            }
            None => false,
        }
    }

    fn tool(&mut self, id: &str, name: &str) -> &mut ToolCell {
        let idx = match self.tools.iter().position(|t| t.id == id) {
            Some(i) => i,
            None => {
                self.tools
                    .push(ToolCell::new(id.to_string(), name.to_string()));
                self.tools.len() - 1
            }
        };
        &mut self.tools[idx]
    }

    /// Applies one agent event.
    pub fn apply(&mut self, ev: &AgentEvent, theme: &Theme) {
        match ev {
            AgentEvent::UserMessage { content, .. } => {
                self.finish_stream(theme);
                self.user(&blocks_text(content), theme);
            }
            AgentEvent::AssistantStart => {
                self.finish_stream(theme);
                self.release_held();
                self.stream = Some(MarkdownStream::new(self.width));
                if self.message_guards.is_empty() {
                    self.rows.push(Line::default());
                } else {
                    self.held = Some(HeldReply::new());
                }
            }
            AgentEvent::TextDelta { delta } => {
                let width = self.width;
                let s = self
                    .stream
                    .get_or_insert_with(|| MarkdownStream::new(width));
                s.push(delta, theme);
                let committed = s.take_committed();
                match &mut self.held {
                    Some(h) => {
                        h.chars += delta.chars().count();
                        h.rows.extend(committed);
                    }
                    None => self.rows.extend(committed),
                }
            }
            AgentEvent::ToolUseStart { id, name } => {
                self.finish_stream(theme);
                self.tool(id, name);
            }
            AgentEvent::ToolCall { id, name, args } => {
                self.finish_stream(theme);
                self.tool(id, name).args = args.clone();
            }
            AgentEvent::ToolProgress { id, text } => {
                self.tool(id, "").progress(text);
            }
            AgentEvent::ToolResult {
                id,
                is_error,
                content,
            } => {
                let text = blocks_text(content);
                self.tool(id, "").finish(*is_error, &text);
                self.commit_tools(theme, false);
            }
            AgentEvent::AssistantMessage { content, .. } => {
                self.finish_stream(theme);
                if let Some(h) = self.held.take() {
                    let rows = h.shown(content, &self.message_guards, self.width, theme);
                    self.rows.extend(rows);
                }
                let text = blocks_text(content);
                if !text.is_empty() {
                    self.last_reply = text;
                }
            }
            AgentEvent::InterceptBlocked {
                event,
                extension,
                reason,
            } => {
                self.finish_stream(theme);
                let what = if *event == "turn_start" {
                    self.turn_blocked = true;
                    "blocked the turn"
                } else {
                    self.held = None;
                    "hid the assistant's message"
                };
                let text = match reason.trim() {
                    "" => format!("⊘ {extension} {what}"),
                    r => format!("⊘ {extension} {what}: {r}"),
                };
                self.notice(&text, theme.warn);
            }
            AgentEvent::RetryScheduled {
                attempt,
                max_attempts,
                delay_ms,
                ..
            } => {
                self.finish_stream(theme);
                self.notice(
                    &format!(
                        "request failed (attempt {attempt}/{max_attempts}); retrying in {:.1}s",
                        *delay_ms as f64 / 1000.0
                    ),
                    theme.warn,
                );
            }
            AgentEvent::ContextRecovery { error, .. } => {
                self.finish_stream(theme);
                self.notice(
                    &format!("context window exceeded: compacting, then retrying once ({error})"),
                    theme.warn,
                );
            }
            AgentEvent::RepetitionGuard {
                kind, stage, count, ..
            } => {
                self.finish_stream(theme);
                let what = if *kind == "tool_call_result" {
                    "the same tool call and result"
                } else {
                    "the same message"
                };
                let text = if *stage == "warning" {
                    format!("repetition guard: {what} {count} times; the model is told")
                } else {
                    format!("repetition guard: {what} {count} times; stopped")
                };
                self.notice(&text, theme.warn);
            }
            AgentEvent::TurnRecovery { .. } => {
                self.finish_stream(theme);
                self.notice("Continuing: no final answer received.", theme.warn);
            }
            AgentEvent::TurnEnd { stop, error } => {
                self.finish_stream(theme);
                self.release_held();
                if std::mem::take(&mut self.turn_blocked) {
                    // The reason is already shown (`InterceptBlocked`).
                } else if *stop == "aborted" {
                    self.commit_tools(theme, true);
                    self.notice("aborted", theme.warn);
                } else if let (Some(e), true) = (error, *stop == "error") {
                    self.commit_tools(theme, true);
                    self.notice(&format!("✗ {e}"), theme.error);
                }
            }
            AgentEvent::Error { .. } => {
                // The turn_end before it already showed the message.
                self.finish_stream(theme);
            }
            AgentEvent::Done => {
                self.finish_stream(theme);
                self.release_held();
                self.commit_tools(theme, true);
            }
            _ => {}
        }
    }

    /// Commits a held reply as it streamed (no verdict came: the
    /// request failed or was aborted).
    fn release_held(&mut self) {
        if let Some(h) = self.held.take() {
            self.rows.push(Line::default());
            self.rows.extend(h.rows);
        }
    }

    /// The live rows: the held reply, the streaming tail and running
    /// tools.
    pub fn live_rows(&mut self, theme: &Theme) -> Vec<Line<'static>> {
        let mut rows = Vec::new();
        if let Some(h) = &self.held {
            // What streams is not shown before the interceptors have said
            // what the user may see (a redaction must not flash by): one
            // line says the reply is being written and checked.
            let streamed = h.chars;
            rows.push(Line::default());
            rows.push(Line::from(Span::styled(
                format!(
                    "  ⋯ reply held for {}: {streamed} characters",
                    self.message_guards.join(", ")
                ),
                theme.dim,
            )));
        } else if let Some(s) = &mut self.stream {
            rows.extend(s.live_rows(theme));
        }
        for t in &self.tools {
            rows.push(Line::default());
            rows.extend(t.rows(self.width, theme, false));
        }
        rows
    }

    /// The running tools' names.
    pub fn running_tools(&self) -> impl Iterator<Item = &str> {
        self.tools
            .iter()
            .filter(|t| t.result.is_none())
            .map(|t| t.name.as_str())
    }
}

/// `value` rendered as rows of plain text at `width`, indented.
pub fn plain_rows(text: &str, width: usize, style: Style) -> Vec<Line<'static>> {
    let mut rows = Vec::new();
    for l in sanitize::clean(text).split('\n') {
        rows.extend(wrap(
            &[Span::styled(l.to_string(), style)],
            width.saturating_sub(INDENT),
            &[],
            &[],
        ));
    }
    indent(rows)
}
