//! Subagents in the TUI (docs/subagents.md): what the children do, built
//! from their tagged events ([`crate::TuiEvent::Subagent`]).
//!
//! - Their tokens and cost count in the status bar.
//! - `/subagents` opens the dashboard: one row per child (id, state, task,
//!   elapsed time, tokens, cost). Enter opens the child's transcript,
//!   which follows the child live; Ctrl+E puts `/subagents message <id> `
//!   into the editor, Ctrl+X stops the child (`/subagents stop <id>`, run
//!   by the conversation side); Esc goes back.
//! - A note says when a child's turn ends.
//! - `/orchestrator [on|off]` toggles the orchestrating tool set for the
//!   next prompts; the status bar says `orchestrating` while it is on.

use std::collections::VecDeque;
use std::time::Instant;
use zut_types::text::clip;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use zut_types::{AgentEvent, JsonBlock};

use crate::app::{App, Effect};
use crate::pickers::{Picker, PickerItem, PickerKind};

/// Lines of a child's transcript kept for its view.
const MAX_LINES: usize = 2000;

/// Characters of one transcript line (longer text wraps).
const LINE_CHARS: usize = 96;

/// Bytes of streamed text without a newline kept as the partial line
/// before its whole display lines move to the transcript.
const PARTIAL_MAX: usize = 4096;

/// One child as the TUI knows it.
#[derive(Debug, Clone)]
pub struct ChildView {
    /// Its id.
    pub id: String,
    /// Its task.
    pub task: String,
    /// Its model.
    pub model: String,
    /// `queued`, `running`, then how its last turn ended.
    pub state: String,
    /// When it was spawned (seen).
    pub started: Instant,
    /// When its last turn ended (the elapsed time stops there).
    pub ended: Option<Instant>,
    /// Tokens in and out.
    pub tokens: (u64, u64),
    /// Cost, when priced.
    pub cost: Option<f64>,
    /// The tool running now.
    pub tool: Option<String>,
    /// Its transcript, one display line each.
    pub lines: VecDeque<String>,
    /// Streamed text of the current reply not yet ended by a newline.
    partial: String,
    /// Whether the current reply streamed text (its message then adds
    /// nothing).
    streamed: bool,
}

impl ChildView {
    fn new(id: &str, now: Instant) -> Self {
        Self {
            id: id.to_string(),
            task: String::new(),
            model: String::new(),
            state: "queued".into(),
            started: now,
            ended: None,
            tokens: (0, 0),
            cost: None,
            tool: None,
            lines: VecDeque::new(),
            partial: String::new(),
            streamed: false,
        }
    }

    fn push(&mut self, text: &str) {
        for line in text.lines() {
            let clean = crate::sanitize::clean_line(line);
            let chars: Vec<char> = clean.chars().collect();
            if chars.is_empty() {
                self.lines.push_back(String::new());
            }
            for chunk in chars.chunks(LINE_CHARS) {
                self.lines.push_back(chunk.iter().collect());
            }
        }
        while self.lines.len() > MAX_LINES {
            self.lines.pop_front();
        }
    }

    fn flush_partial(&mut self) {
        if !self.partial.is_empty() {
            let text = std::mem::take(&mut self.partial);
            self.push(&text);
        }
    }

    /// Seconds since spawn (until the last turn ended, when settled).
    pub fn elapsed_secs(&self, now: Instant) -> u64 {
        let end = match self.ended {
            Some(t) if !self.busy() => t,
            _ => now,
        };
        end.saturating_duration_since(self.started).as_secs()
    }

    /// Whether a turn is queued or running.
    pub fn busy(&self) -> bool {
        matches!(self.state.as_str(), "queued" | "running")
    }

    /// Applies one of its events.
    fn apply(&mut self, ev: &AgentEvent, now: Instant) {
        match ev {
            AgentEvent::SubagentStart { task, model, .. } => {
                self.task = task.clone();
                self.model = model.clone();
                self.state = "queued".into();
            }
            AgentEvent::UserMessage { content, .. } => {
                self.state = "running".into();
                self.ended = None;
                self.flush_partial();
                self.push(&format!("› {}", blocks_text(content)));
            }
            AgentEvent::TurnStart { .. } => {
                self.state = "running".into();
                self.streamed = false;
            }
            AgentEvent::TextDelta { delta } => {
                self.streamed = true;
                self.partial.push_str(delta);
                // Only the delta is searched: the partial line may be long.
                if delta.contains('\n') {
                    if let Some(cut) = self.partial.rfind('\n') {
                        let done: String = self.partial.drain(..=cut).collect();
                        self.push(done.trim_end_matches('\n'));
                    }
                }
                if self.partial.len() > PARTIAL_MAX {
                    // A long line without a newline: its whole display
                    // lines move to the transcript, so it stays bounded.
                    let chars = self.partial.chars().count();
                    let whole = chars - chars % LINE_CHARS;
                    let cut = self
                        .partial
                        .char_indices()
                        .nth(whole)
                        .map_or(self.partial.len(), |(i, _)| i);
                    let done: String = self.partial.drain(..cut).collect();
                    self.push(&done);
                }
            }
            AgentEvent::AssistantMessage { content, .. } => {
                self.flush_partial();
                if !self.streamed {
                    let text = blocks_text(content);
                    if !text.trim().is_empty() {
                        self.push(&text);
                    }
                }
            }
            AgentEvent::ToolCall { name, args, .. } => {
                self.flush_partial();
                self.push(&format!("⏺ {name}({})", args_summary(args)));
            }
            AgentEvent::ToolExecutionStarted { name, .. } => self.tool = Some(name.clone()),
            AgentEvent::ToolResult {
                is_error, content, ..
            } => {
                self.tool = None;
                let text = blocks_text(content);
                let first = text.lines().next().unwrap_or_default();
                let more = text.lines().count().saturating_sub(1);
                let tail = if more > 0 {
                    format!(" (+{more} lines)")
                } else {
                    String::new()
                };
                let mark = if *is_error { "error: " } else { "" };
                self.push(&format!("  ⎿ {mark}{}{tail}", clip(first, 80)));
            }
            AgentEvent::Usage(u) => {
                self.tokens.0 += u.this.input;
                self.tokens.1 += u.this.output;
                if u.this.cost_known {
                    *self.cost.get_or_insert(0.0) += u.this.cost_usd;
                }
            }
            AgentEvent::SubagentEnd { state, error, .. } => {
                self.flush_partial();
                self.state = state.clone();
                self.ended = Some(now);
                self.tool = None;
                match error {
                    Some(e) => self.push(&format!("── {state}: {e} ──")),
                    None => self.push(&format!("── {state} ──")),
                }
            }
            _ => {}
        }
    }
}

/// Every child seen, oldest first.
#[derive(Debug, Clone, Default)]
pub struct Children {
    /// The children.
    pub list: Vec<ChildView>,
}

impl Children {
    fn get_or_add(&mut self, id: &str, now: Instant) -> &mut ChildView {
        let at = match self.list.iter().position(|c| c.id == id) {
            Some(at) => at,
            None => {
                self.list.push(ChildView::new(id, now));
                self.list.len() - 1
            }
        };
        &mut self.list[at]
    }

    /// The child `id`.
    pub fn get(&self, id: &str) -> Option<&ChildView> {
        self.list.iter().find(|c| c.id == id)
    }
}

fn blocks_text(content: &[JsonBlock]) -> String {
    let v = serde_json::to_value(content).unwrap_or_default();
    let mut out = Vec::new();
    for b in v.as_array().into_iter().flatten() {
        if let Some(t) = b.get("text").and_then(|t| t.as_str()) {
            out.push(t.to_string());
        }
    }
    out.join("\n")
}

/// The arguments of a call in a few words: its command, path or pattern,
/// else its JSON, clipped.
fn args_summary(args: &serde_json::Value) -> String {
    for key in ["command", "path", "pattern", "query", "url", "action"] {
        if let Some(s) = args.get(key).and_then(|v| v.as_str()) {
            return clip(s.lines().next().unwrap_or_default(), 60);
        }
    }
    clip(&args.to_string(), 60)
}

/// Tokens as the status bar shows them.
fn human(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1}M", n as f64 / 1e6)
    } else if n >= 1000 {
        format!("{:.1}k", n as f64 / 1e3)
    } else {
        n.to_string()
    }
}

/// Handles one event of child `id`.
pub fn event(app: &mut App, id: &str, ev: AgentEvent) -> Vec<Effect> {
    let now = Instant::now();
    if let AgentEvent::Usage(u) = &ev {
        app.status.child_usage(&u.this);
    }
    let child = app.subagents.get_or_add(id, now);
    child.apply(&ev, now);
    if let AgentEvent::SubagentEnd { state, error, .. } = &ev {
        let task = clip(&child.task, 60);
        let level = if state == "completed" { "info" } else { "warn" };
        let text = match error {
            Some(e) => format!("subagent {id} {state}: {e} — {task}"),
            None => format!("subagent {id} {state} — {task} (/subagents)"),
        };
        app.push_note(level, text);
    }
    refresh(app, id, now);
    Vec::new()
}

/// Rebuilds the open dashboard or transcript view (the selection kept; a
/// transcript that showed its end follows the new lines).
fn refresh(app: &mut App, id: &str, now: Instant) {
    let Some(open) = app.picker.as_ref() else {
        return;
    };
    match open.kind {
        PickerKind::Subagents => {
            let p = dashboard(&app.subagents, now);
            crate::pickers::update(app, p);
        }
        // Another child's event changes nothing in this view.
        PickerKind::SubagentLog if open.origin != id => {}
        PickerKind::SubagentLog => {
            let id = open.origin.clone();
            let at_end = open.selected + 1 >= open.visible().len();
            let (query, selected) = (open.query.clone(), open.selected);
            if let Some(mut p) = log_view(&app.subagents, &id, now) {
                p.query = query;
                let n = p.visible().len();
                p.selected = if at_end {
                    n.saturating_sub(1)
                } else {
                    selected.min(n.saturating_sub(1))
                };
                app.picker = Some(p);
            }
        }
        _ => {}
    }
}

/// The dashboard: one row per child.
pub fn dashboard(children: &Children, now: Instant) -> Picker {
    let items = children
        .list
        .iter()
        .map(|c| {
            let state = match &c.tool {
                Some(t) if c.state == "running" => format!("running {t}"),
                _ => c.state.clone(),
            };
            let cost = c.cost.map_or(String::new(), |x| {
                format!(" · {}", crate::status::dollars(x))
            });
            let detail = format!(
                "{} · {}s · ↑{} ↓{}{cost}",
                clip(&c.task, 48),
                c.elapsed_secs(now),
                human(c.tokens.0),
                human(c.tokens.1)
            );
            PickerItem::new(format!("{}  {state}", c.id), c.id.clone()).detail(detail)
        })
        .collect();
    let busy = children.list.iter().filter(|c| c.busy()).count();
    Picker::new(
        PickerKind::Subagents,
        &format!("subagents · {busy} of {} working", children.list.len()),
        items,
    )
    .empty_text("no subagents yet: the model starts them with the subagent tool")
}

/// One child's transcript, following it.
pub fn log_view(children: &Children, id: &str, now: Instant) -> Option<Picker> {
    let c = children.get(id)?;
    let mut items: Vec<PickerItem> = c
        .lines
        .iter()
        .map(|l| PickerItem::new(l.clone(), ""))
        .collect();
    // The line being streamed, wrapped like the others (its end is the
    // newest text).
    let partial: Vec<char> = c.partial.chars().collect();
    for chunk in partial.chunks(LINE_CHARS) {
        items.push(PickerItem::new(chunk.iter().collect::<String>(), ""));
    }
    let title = format!(
        "{} · {} · {}s · {}",
        c.id,
        c.state,
        c.elapsed_secs(now),
        clip(&c.task, 40)
    );
    let mut p = Picker::new(PickerKind::SubagentLog, &title, items)
        .empty_text("nothing yet: the child waits for its turn");
    p.origin = c.id.clone();
    p.selected = p.items.len().saturating_sub(1);
    Some(p)
}

/// `/subagents [message <id> <text> | stop <id>]`: the dashboard, or an
/// action the conversation side runs.
pub fn command(app: &mut App, args: &str) -> Vec<Effect> {
    if args.trim().is_empty() {
        app.picker = Some(dashboard(&app.subagents, Instant::now()));
        return Vec::new();
    }
    vec![Effect::Command {
        name: "subagents".into(),
        args: args.trim().to_string(),
    }]
}

/// `/orchestrator [on|off]`: without an argument, the other state.
pub fn orchestrator(app: &mut App, args: &str) -> Vec<Effect> {
    let args = match args.trim() {
        "" if app.status.orchestrator => "off".to_string(),
        "" => "on".to_string(),
        other => other.to_string(),
    };
    vec![Effect::Command {
        name: "orchestrator".into(),
        args,
    }]
}

/// The dashboard's and the transcript view's own keys: Enter opens a
/// child's transcript, Esc in a transcript goes back to the dashboard,
/// Ctrl+E writes a message to the child, Ctrl+X stops it. `None` lets the
/// common picker keys have the key.
pub(crate) fn key(app: &mut App, key: &KeyEvent) -> Option<Vec<Effect>> {
    let p = app.picker.as_ref()?;
    if !matches!(p.kind, PickerKind::Subagents | PickerKind::SubagentLog)
        || key.kind == KeyEventKind::Release
    {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let id = match p.kind {
        PickerKind::SubagentLog => Some(p.origin.clone()),
        _ => p.selected_item().map(|i| i.value.clone()),
    }
    .filter(|id| !id.is_empty());
    let now = Instant::now();
    match (p.kind, key.code) {
        (PickerKind::Subagents, KeyCode::Enter) => {
            if let Some(v) = id.and_then(|id| log_view(&app.subagents, &id, now)) {
                app.picker = Some(v);
            }
            Some(Vec::new())
        }
        (PickerKind::SubagentLog, KeyCode::Esc) if p.query.is_empty() => {
            let back = dashboard(&app.subagents, now);
            let at = back
                .items
                .iter()
                .position(|i| Some(&i.value) == id.as_ref());
            app.picker = Some(match at {
                Some(at) => back.select(at),
                None => back,
            });
            Some(Vec::new())
        }
        (_, KeyCode::Char('e')) if ctrl => {
            if let Some(id) = id {
                app.picker = None;
                app.editor.insert(&format!("/subagents message {id} "));
                app.popup_dismissed = true;
            }
            Some(Vec::new())
        }
        (_, KeyCode::Char('x')) if ctrl => Some(match id {
            Some(id) => vec![Effect::Command {
                name: "subagents".into(),
                args: format!("stop {id}"),
            }],
            None => Vec::new(),
        }),
        _ => None,
    }
}
