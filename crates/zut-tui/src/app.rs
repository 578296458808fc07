//! The TUI's state and what input and agent events do to it. Pure: no
//! terminal, no I/O; the event loop ([`crate::run`]) performs the returned
//! [`Effect`]s. Tests drive it directly.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crossterm::event::KeyEvent;
use zut_types::AgentEvent;

use crate::chrome::Chrome;
use crate::commands::{self, CommandInfo};
use crate::editor::Editor;
use crate::history::History;
use crate::keymap::{self, Action};
use crate::theme::Theme;
use crate::transcript::Transcript;
use crate::Status;

/// How long a status confirmation stays.
pub const STATUS_TTL: Duration = Duration::from_secs(5);
/// How long a first Ctrl+C waits for the second.
const QUIT_WINDOW: Duration = Duration::from_secs(2);

/// What the event loop must do after an update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Start a turn with this prompt (the app is idle).
    Prompt(String),
    /// Run an extension command.
    Command {
        /// Name without the slash.
        name: String,
        /// Arguments.
        args: String,
    },
    /// Cancel the running turn.
    Abort,
    /// Copy text to the clipboard (OSC 52).
    Copy(String),
    /// Suspend the process (Ctrl+Z).
    Suspend,
    /// Repaint everything.
    Redraw,
    /// Run `!cmd` in a shell.
    Shell(String),
    /// Send a key to an extension's panel.
    PanelKey {
        /// Owner.
        extension: String,
        /// Panel id.
        panel_id: String,
        /// Key name (protocol.md §7.2).
        key: String,
        /// The character for `rune`.
        text: String,
    },
    /// Tell an extension its panel was closed.
    PanelClose {
        /// Owner.
        extension: String,
        /// Panel id.
        panel_id: String,
    },
    /// List the project's files for the `@` picker (once).
    ListFiles,
    /// Ask for the `@server:uri` completions of MCP resources (on each
    /// `@`: servers become ready and change their lists).
    ListMentions,
    /// Ask the conversation for a picker's rows.
    OpenPicker(crate::pickers::PickerKind),
    /// Answer an MCP server's elicitation.
    AnswerElicitation {
        /// The controller's request id.
        request_id: u64,
        /// The answer.
        answer: zut_types::ElicitationAnswer,
    },
    /// Open a URL in the browser (an MCP URL-mode elicitation the user
    /// accepted with **open in browser**; never without that).
    OpenUrl(String),
    /// Answer a tool call waiting for approval.
    Approve {
        /// The controller's request id.
        request_id: u64,
        /// The answer.
        decision: zut_types::ApprovalDecision,
    },
    /// A row of a conversation picker was picked.
    Pick {
        /// Which picker.
        kind: crate::pickers::PickerKind,
        /// The row's value.
        value: String,
    },
    /// Search the text of the sessions in scope (the sessions picker's
    /// `/words` + Enter); the picker comes back with the matching ones.
    SearchSessions {
        /// Every directory's sessions, not only this one's.
        all: bool,
        /// What to look for (without the `/`).
        query: String,
    },
    /// Rename a session file (from the sessions picker).
    RenameSession {
        /// The file.
        path: String,
        /// The new title.
        title: String,
    },
    /// Leave.
    Quit,
    /// Ask a `/btw` side question.
    SideQuestion(String),
}

pub use crate::notes::Note;

/// The TUI's state.
pub struct App {
    /// Styles.
    pub theme: Theme,
    /// Terminal size.
    pub size: (u16, u16),
    /// The prompt editor.
    pub editor: Editor,
    /// Prompt history.
    pub history: History,
    /// Transcript (scrollback rows + live cells).
    pub transcript: Transcript,
    /// Status bar content.
    pub status: Status,
    /// Prompts typed while a turn runs, oldest first.
    pub queue: VecDeque<String>,
    /// Transient notes.
    pub notes: Vec<Note>,
    /// Commands the popup lists.
    pub commands: Vec<CommandInfo>,
    /// Selected popup row.
    pub popup_selected: usize,
    /// The popup was closed with Esc for the current input.
    pub popup_dismissed: bool,
    /// When a first Ctrl+C armed quitting.
    pub quit_armed: Option<Instant>,
    /// Whether a turn runs.
    pub busy: bool,
    /// Extension status items, widgets and the panel.
    pub chrome: Chrome,
    /// Whether `alert` frames ring the terminal bell.
    pub alerts_enabled: bool,
    /// A bell is due between this frame and the next.
    pub bell_pending: bool,
    /// The project's files for the `@` picker (`None` until listed).
    pub files: Option<Vec<String>>,
    /// The file list was asked for.
    pub files_requested: bool,
    /// `@server:uri` of the MCP resources, offered with the files.
    pub mentions: Vec<String>,
    /// The open picker (sessions, fork, tree, model, settings), which has
    /// the keys.
    pub picker: Option<crate::pickers::Picker>,
    /// When Esc was pressed on an idle, empty editor (a second one opens
    /// the session tree).
    pub last_esc: Option<Instant>,
    /// The quick-model slot (1–9) whose model the coming `/model` picker
    /// chooses (`/settings`' slot rows).
    pub pending_slot: Option<u8>,
    /// Widgets were moved above the editor with Ctrl+B (no sidebar).
    pub sidebar_hidden: bool,
    /// Themes to choose from with `/theme`, and the one in use.
    pub themes: crate::themes::Catalog,
    /// Tool calls waiting for approval (`--no-yolo`).
    pub confirms: crate::confirm::Confirms,
    /// MCP elicitation forms waiting for an answer.
    pub elicits: crate::elicit_view::Elicits,
    /// Reasoning in progress.
    pub thinking: crate::thinking::Thinking,
    /// The goal status last shown in the transcript (`crate::goal_view`).
    pub goal_shown: Option<String>,
    /// The subagents seen (`/subagents`, `crate::subagents_view`).
    pub subagents: crate::subagents_view::Children,
}

impl App {
    /// A new app at `size`.
    pub fn new(theme: Theme, size: (u16, u16), status: Status, history: History) -> Self {
        Self {
            theme,
            size,
            editor: Editor::default(),
            history,
            transcript: Transcript::new(size.0 as usize),
            status,
            queue: VecDeque::new(),
            notes: Vec::new(),
            commands: commands::builtins(),
            popup_selected: 0,
            popup_dismissed: false,
            quit_armed: None,
            busy: false,
            chrome: Chrome::default(),
            alerts_enabled: true,
            bell_pending: false,
            files: None,
            files_requested: false,
            mentions: Vec::new(),
            picker: None,
            last_esc: None,
            pending_slot: None,
            sidebar_hidden: false,
            themes: crate::themes::Catalog::default(),
            confirms: Default::default(),
            elicits: Default::default(),
            thinking: Default::default(),
            goal_shown: None,
            subagents: Default::default(),
        }
    }

    /// Adds extension commands to the popup (replacing earlier ones).
    pub fn set_extension_commands(&mut self, cmds: Vec<CommandInfo>) {
        self.commands.retain(|c| c.extension.is_none());
        self.commands.extend(cmds);
    }

    /// New terminal size.
    pub fn resize(&mut self, w: u16, h: u16) {
        self.size = (w, h);
        self.transcript.set_width(w as usize);
    }

    /// Matches for the popup (indices into `commands`), when it is open.
    pub fn popup(&self) -> Option<Vec<usize>> {
        if self.popup_dismissed {
            return None;
        }
        let text = self.editor.text();
        let query = text.strip_prefix('/')?;
        if query.contains(char::is_whitespace)
            || (query.contains('/') && !commands::is_skill(query))
        {
            return None;
        }
        Some(commands::filter(&self.commands, query))
    }

    /// The `@` picker's matches and the `@` offset, when it is open.
    pub fn file_picker(&self) -> Option<(usize, Vec<String>)> {
        if self.popup_dismissed {
            return None;
        }
        let (at, q) = crate::files::query(self.editor.text(), self.editor.cursor())?;
        if self.files.is_none() && self.mentions.is_empty() {
            return None;
        }
        let files = self.files.as_deref().unwrap_or_default();
        Some((
            at,
            crate::files::matches_in(&[&self.mentions, files], q)
                .into_iter()
                .map(str::to_string)
                .collect(),
        ))
    }

    /// Replaces the `@query` before the cursor with the selected path.
    fn pick_file(&mut self) -> bool {
        let Some((at, m)) = self.file_picker() else {
            return false;
        };
        let Some(path) = m.get(self.popup_selected.min(m.len().saturating_sub(1))) else {
            return false;
        };
        let cursor = self.editor.cursor();
        let text = self.editor.text();
        let new = format!("{}{} {}", &text[..at], path, &text[cursor..]);
        let pos = at + path.len() + 1;
        self.editor.set(&new);
        self.editor.set_cursor(pos);
        self.popup_selected = 0;
        true
    }

    /// Bracketed paste.
    pub fn paste(&mut self, text: &str) -> Vec<Effect> {
        if let Some(p) = &self.chrome.panel {
            // A paste into a panel arrives as typed characters, in order.
            return crate::sanitize::clean_line(text)
                .chars()
                .take(4096)
                .map(|c| Effect::PanelKey {
                    extension: p.extension.clone(),
                    panel_id: p.id.clone(),
                    key: "rune".into(),
                    text: c.to_string(),
                })
                .collect();
        }
        if crate::elicit_view::focused(self) {
            crate::elicit_view::paste(self, text);
            return Vec::new();
        }
        if crate::confirm::focused(self) {
            crate::confirm::paste(self, text);
            return Vec::new();
        }
        if self.picker.is_some() {
            crate::pickers::paste(self, text);
            return Vec::new();
        }
        self.editor.insert(text);
        self.popup_dismissed = false;
        Vec::new()
    }

    /// A key press.
    pub fn key(&mut self, key: &KeyEvent, now: Instant) -> Vec<Effect> {
        if let Some(p) = &self.chrome.panel {
            let (extension, panel_id) = (p.extension.clone(), p.id.clone());
            return match crate::panel_keys::name(key) {
                crate::panel_keys::PanelKey::Close => {
                    self.chrome.panel = None;
                    vec![Effect::PanelClose {
                        extension,
                        panel_id,
                    }]
                }
                crate::panel_keys::PanelKey::Key(name, text) => vec![Effect::PanelKey {
                    extension,
                    panel_id,
                    key: name.to_string(),
                    text,
                }],
                crate::panel_keys::PanelKey::Ignore => Vec::new(),
            };
        }
        if crate::elicit_view::focused(self) {
            return crate::elicit_view::key(self, key);
        }
        if crate::confirm::focused(self) {
            return crate::confirm::key(self, key);
        }
        if self.picker.is_some() {
            return crate::pickers::key(self, key);
        }
        if crate::sidebar::toggle_key(self, key) {
            return Vec::new();
        }
        if let Some(c) = keymap::typed_char(key) {
            self.editor.insert_char(c);
            self.popup_selected = 0;
            self.popup_dismissed = false;
            self.quit_armed = None;
            if c == '@' {
                if !self.files_requested {
                    self.files_requested = true;
                    return vec![Effect::ListFiles, Effect::ListMentions];
                }
                return vec![Effect::ListMentions];
            }
            return Vec::new();
        }
        let Some(action) = keymap::action(key) else {
            return Vec::new();
        };
        if action != Action::Interrupt {
            self.quit_armed = None;
        }
        let popup = self.popup();
        let picker = self.file_picker().filter(|(_, m)| !m.is_empty());
        if let Some((_, m)) = &picker {
            match action {
                Action::Submit | Action::Complete => {
                    self.pick_file();
                    return Vec::new();
                }
                Action::Up => {
                    self.popup_selected = (self.popup_selected + m.len() - 1) % m.len();
                    return Vec::new();
                }
                Action::Down => {
                    self.popup_selected = (self.popup_selected + 1) % m.len();
                    return Vec::new();
                }
                Action::Cancel => {
                    self.popup_dismissed = true;
                    return Vec::new();
                }
                _ => {}
            }
        }
        match action {
            Action::Submit => {
                if let Some(matches) = popup.filter(|m| !m.is_empty()) {
                    let query = self.editor.text().trim_start_matches('/').to_string();
                    let exact = matches
                        .iter()
                        .copied()
                        .find(|i| self.commands[*i].name == query);
                    let pick = exact.unwrap_or(matches[self.popup_selected.min(matches.len() - 1)]);
                    let name = self.commands[pick].name.clone();
                    self.editor.set(&format!("/{name}"));
                }
                return self.submit();
            }
            Action::QuickModel => return crate::pickers::quick_model(self, key),
            Action::Newline => self.editor.insert_char('\n'),
            Action::Backspace => self.editor.backspace(),
            Action::Delete => self.editor.delete(),
            Action::Left => self.editor.left(),
            Action::Right => self.editor.right(),
            Action::Home => self.editor.home(),
            Action::End => self.editor.end(),
            Action::WordLeft => self.editor.word_left(),
            Action::WordRight => self.editor.word_right(),
            Action::DeleteWordLeft => self.editor.delete_word_left(),
            Action::DeleteWordRight => self.editor.delete_word_right(),
            Action::KillLeft => self.editor.kill_line_left(),
            Action::KillRight => self.editor.kill_line_right(),
            Action::Up => {
                if let Some(m) = popup.filter(|m| !m.is_empty()) {
                    self.popup_selected = (self.popup_selected + m.len() - 1) % m.len();
                } else if self.editor.is_empty() && !self.queue.is_empty() {
                    if let Some(q) = self.queue.pop_back() {
                        self.editor.set(&q);
                    }
                } else {
                    self.editor.up(&self.history);
                }
            }
            Action::Down => {
                if let Some(m) = popup.filter(|m| !m.is_empty()) {
                    self.popup_selected = (self.popup_selected + 1) % m.len();
                } else {
                    self.editor.down(&self.history);
                }
            }
            Action::Complete => {
                if let Some(m) = popup.filter(|m| !m.is_empty()) {
                    let query = self.editor.text().trim_start_matches('/').to_string();
                    let exact = m.iter().copied().find(|i| self.commands[*i].name == query);
                    let pick = exact.unwrap_or(m[self.popup_selected.min(m.len() - 1)]);
                    let name = self.commands[pick].name.clone();
                    self.editor.set(&format!("/{name} "));
                }
            }
            Action::Cancel => {
                // With notes shown, Esc only dismisses them (protocol.md
                // §12.1): it stops nothing and answers no confirmation.
                let had_notes = !self.notes.is_empty();
                self.notes.clear();
                if popup.is_some() {
                    self.popup_dismissed = true;
                } else if had_notes {
                } else if self.busy {
                    return vec![Effect::Abort];
                } else {
                    return crate::pickers::double_esc(self, now);
                }
            }
            Action::Interrupt => {
                if !self.editor.is_empty() {
                    self.editor.take();
                    self.quit_armed = None;
                } else if self
                    .quit_armed
                    .is_some_and(|t| now.duration_since(t) < QUIT_WINDOW)
                {
                    return vec![Effect::Quit];
                } else {
                    self.quit_armed = Some(now);
                }
            }
            Action::Eof => {
                if self.editor.is_empty() {
                    return vec![Effect::Quit];
                }
                self.editor.delete();
            }
            Action::ExpandTool => {
                if !self.transcript.expand_last_tool(&self.theme) {
                    self.note("info", "no collapsed tool output to expand");
                }
            }
            Action::ShowThinking => {
                let rows = self.thinking.last_rows(self.size.0 as usize, &self.theme);
                if rows.is_empty() {
                    self.note(
                        "info",
                        "no reasoning to show (the model has not thought aloud yet)",
                    );
                } else {
                    self.transcript.push_block(rows);
                }
            }
            Action::Suspend => return vec![Effect::Suspend],
            Action::Redraw => return vec![Effect::Redraw],
        }
        if !matches!(action, Action::Up | Action::Down) {
            self.popup_selected = 0;
        }
        Vec::new()
    }

    /// Enter on the editor's text.
    fn submit(&mut self) -> Vec<Effect> {
        let text = self.editor.text().to_string();
        if text.trim().is_empty() {
            return Vec::new();
        }
        self.editor.take();
        self.history.push(&text);
        self.popup_dismissed = false;
        self.notes.clear();
        if let Some(cmd) = text.trim_start().strip_prefix('!') {
            return vec![Effect::Shell(cmd.to_string())];
        }
        if let Some((name, args)) = commands::parse(&text) {
            let (name, args) = (name.to_string(), args.to_string());
            return self.builtin(&name, &args);
        }
        self.enqueue(text)
    }

    /// Queues a prompt, or starts it when idle.
    pub fn enqueue(&mut self, text: String) -> Vec<Effect> {
        if self.busy {
            self.queue.push_back(text);
            crate::goal_view::give_way(self)
        } else {
            self.start(text)
        }
    }

    fn start(&mut self, text: String) -> Vec<Effect> {
        self.busy = true;
        self.status.busy_since = Some(Instant::now());
        self.status.activity = Some("thinking".into());
        vec![Effect::Prompt(text)]
    }

    fn builtin(&mut self, name: &str, args: &str) -> Vec<Effect> {
        if let Some(effects) = crate::pickers::builtin(self, name, args) {
            return effects;
        }
        match name {
            "exit" | "quit" => vec![Effect::Quit],
            "btw" => crate::btw::command(self, args),
            "subagents" => crate::subagents_view::command(self, args),
            "orchestrator" => crate::subagents_view::orchestrator(self, args),
            "theme" => crate::themes::command(self, args),
            "help" => {
                let rows = crate::help::rows(&self.commands, self.size.0 as usize, &self.theme);
                self.transcript.push_block(rows);
                Vec::new()
            }
            "info" => {
                let s = &self.status;
                let ext = self
                    .commands
                    .iter()
                    .filter(|c| c.extension.is_some())
                    .count();
                let mut text = format!(
                    "provider: {}\nmodel: {}\ncwd: {}\nextension commands: {ext}\ntokens: {} in, {} out",
                    s.provider, s.model, s.cwd, s.tokens_in, s.tokens_out
                );
                text.push_str(&crate::status::cost_line(s));
                text.push_str("\njail: ");
                text.push_str(s.jail.as_deref().unwrap_or("off (/jail confines tools)"));
                self.transcript.notice(&text, self.theme.text);
                Vec::new()
            }
            "copy" => {
                let reply = self.transcript.last_reply.clone();
                if reply.is_empty() {
                    self.note("warn", "nothing to copy yet");
                    Vec::new()
                } else {
                    self.note(
                        "info",
                        format!("copied {} characters", reply.chars().count()),
                    );
                    vec![Effect::Copy(reply)]
                }
            }
            "clear" => {
                self.notes.clear();
                self.status.plan = None;
                self.chrome.load_failures = 0;
                vec![
                    Effect::Command {
                        name: "clear".into(),
                        args: String::new(),
                    },
                    Effect::Redraw,
                ]
            }
            // Everything else (the controller's built-ins and extension
            // commands) is run by the conversation; unknown names come
            // back as an error listing what exists.
            _ => vec![Effect::Command {
                name: name.to_string(),
                args: args.to_string(),
            }],
        }
    }

    /// An agent event.
    pub fn agent(&mut self, ev: &AgentEvent) -> Vec<Effect> {
        crate::thinking::on_event(self, ev, Instant::now());
        crate::confirm::on_event(self, ev);
        crate::elicit_view::on_event(self, ev);
        match self.chrome.intercepts.annotate(ev) {
            Some(shown) => self.transcript.apply(&shown, &self.theme),
            None => self.transcript.apply(ev, &self.theme),
        }
        match ev {
            AgentEvent::Usage(u) => self.status.usage(u),
            AgentEvent::RequestStarted { .. } | AgentEvent::AssistantStart => {
                self.status.activity = Some("thinking".into());
            }
            AgentEvent::TextDelta { .. } => self.status.activity = Some("writing".into()),
            AgentEvent::ToolExecutionStarted { name, .. } => {
                self.status.activity = Some(format!("running {name}"));
            }
            AgentEvent::ExtNotify {
                extension,
                level,
                message,
            } => self.owned_note(extension, level, message),
            AgentEvent::ExtDisplay { extension, text } => self.owned_note(extension, "info", text),
            AgentEvent::ExtClearNotes { extension } => {
                self.notes.retain(|n| n.owner.as_deref() != Some(extension));
            }
            AgentEvent::ExtChromeClear { extension } => {
                self.notes.retain(|n| n.owner.as_deref() != Some(extension));
                self.chrome.clear_owner(extension);
            }
            AgentEvent::ExtStatus {
                extension,
                key,
                level,
                text,
            } => self.chrome.status(extension, key, level, text),
            AgentEvent::ExtWidget {
                extension,
                id,
                position,
                title,
                lines,
            } => self.chrome.widget(extension, id, position, title, lines),
            AgentEvent::ExtWidgetClear { extension, id } => self.chrome.widget_clear(extension, id),
            AgentEvent::ExtAlert { kind, .. } if kind == "bell" => {
                self.bell_pending |= self.alerts_enabled;
            }
            AgentEvent::ExtPanelOpen { extension, panel } => {
                let displaced = self.chrome.open_panel(extension, panel);
                if let Some((extension, panel_id)) = displaced {
                    return vec![Effect::PanelClose {
                        extension,
                        panel_id,
                    }];
                }
            }
            AgentEvent::ExtPanelRender {
                extension,
                panel_id,
                title,
                lines,
                footer,
            } => {
                // A frame for a panel that is not open is ignored.
                self.chrome
                    .render_panel(extension, panel_id, title, lines, footer);
            }
            AgentEvent::ExtPanelClose {
                extension,
                panel_id,
            } => {
                self.chrome.close_panel_from(extension, panel_id);
            }
            AgentEvent::ExtInsert { text, .. } => {
                self.editor.insert(text);
            }
            AgentEvent::PlanUpdate {
                plan, explanation, ..
            } => {
                self.status.plan = crate::plan_view::status_text(plan);
                let rows = crate::plan_view::checklist_rows(
                    plan,
                    explanation.as_deref(),
                    self.size.0 as usize,
                    &self.theme,
                );
                self.transcript.push_block(rows);
            }
            AgentEvent::GoalUpdate { .. } => crate::goal_view::on_event(self, ev),
            AgentEvent::ExtSubmit { text, .. } => {
                // submit / submit_slash: the same queue as typed input.
                if text.trim().is_empty() {
                    return Vec::new();
                }
                if let Some((name, args)) = commands::parse(text) {
                    let (name, args) = (name.to_string(), args.to_string());
                    return self.builtin(&name, &args);
                }
                return self.enqueue(text.clone());
            }
            AgentEvent::Done => {
                // The spinner stops; the queue moves on at the job's end.
                self.status.busy_since = None;
                self.status.activity = None;
            }
            _ => {}
        }
        Vec::new()
    }

    /// The running job finished: the next queued prompt starts.
    pub fn job_finished(&mut self) -> Vec<Effect> {
        crate::confirm::job_finished(self);
        crate::thinking::finish(self, Instant::now());
        self.busy = false;
        self.status.busy_since = None;
        self.status.activity = None;
        match self.queue.pop_front() {
            Some(next) => self.start(next),
            None => Vec::new(),
        }
    }

    /// Whether something animates (the spinner), so the loop needs a timer.
    pub fn animating(&self) -> bool {
        self.busy
    }
}
