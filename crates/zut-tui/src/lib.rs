//! zut's interactive terminal UI.
//!
//! The transcript is written into the terminal's own scrollback; only the
//! live area at the bottom (streaming message, running tools, notes, the
//! slash popup, the status bar and the editor) is redrawn, differentially,
//! inside synchronized updates. See README.md for what each file owns.
//!
//! The TUI talks to the conversation through [`Controller`] (submit,
//! run a command, abort, panel keys) and receives [`TuiEvent`]s (the
//! agent's [`zut_types::AgentEvent`]s, job boundaries and command
//! outcomes). The binary implements it with `zut_agent::Controller`; the
//! TUI knows nothing of the extension host or the providers.

pub mod app;
pub mod btw;
pub mod chrome;
pub mod commands;
pub mod config_write;
pub mod confirm;
mod diff_view;
pub mod editor;
pub mod elicit_view;
pub mod files;
pub mod goal_view;
mod help;
pub mod highlight;
pub mod history;
pub mod inline;
pub mod intercept_view;
pub mod keymap;
pub mod load_errors;
pub mod markdown;
mod memory;
mod notes;
pub mod panel_keys;
pub mod pickers;
pub mod plan_view;
mod popup;
pub mod result_view;
mod run;
pub mod sanitize;
pub mod sgr;
mod shell;
pub mod sidebar;
pub mod status;
pub mod stream;
pub mod subagents_view;
pub mod syntax_theme;
pub mod terminal;
pub mod theme;
pub mod themes;
pub mod thinking;
pub mod tool_view;
pub mod transcript;
pub mod view;
pub mod web_view;
pub mod wrap;

pub use commands::CommandInfo;
pub use run::{run, Options};
pub use status::Status;

/// What the TUI asks of the conversation.
pub trait Controller: Send {
    /// Starts a turn with `text` (called only when no turn runs).
    fn prompt(&mut self, text: String);
    /// Runs the extension command `/name args`; its outcome comes back as
    /// [`TuiEvent::CommandDone`].
    fn command(&mut self, name: String, args: String);
    /// Cancels the running turn or command.
    fn abort(&mut self);
    /// Sends a key typed in an extension's panel (`panel_key`, in order).
    fn panel_key(&mut self, extension: &str, panel_id: &str, key: &str, text: &str);
    /// Tells an extension its panel was closed (`panel_close`).
    fn panel_close(&mut self, extension: &str, panel_id: &str);
    /// Asks for the rows of a conversation picker (sessions, fork, tree,
    /// model); they come back as [`TuiEvent::Picker`].
    fn open_picker(&mut self, kind: pickers::PickerKind) {
        let _ = kind;
    }
    /// A row of a conversation picker was picked (resume that session,
    /// fork or check out there).
    fn pick(&mut self, kind: pickers::PickerKind, value: String) {
        let _ = (kind, value);
    }
    /// Answers a tool call waiting for approval (`--no-yolo`).
    fn answer_approval(&mut self, request_id: u64, decision: zut_types::ApprovalDecision) {
        let _ = (request_id, decision);
    }
    /// Renames the session file `path` (a `rename` row); the sessions
    /// picker comes back with the new title.
    fn rename_session(&mut self, path: String, title: String) {
        let _ = (path, title);
    }
    /// Searches the text of the sessions of this directory (`all`: of
    /// every directory) for `query`; the sessions picker comes back with
    /// the matching ones.
    fn search_sessions(&mut self, all: bool, query: String) {
        let _ = (all, query);
    }
    /// Offers the model `text` (a finished `!command`'s output, marked as
    /// such) as context with the next prompt.
    fn shell_context(&mut self, text: String) {
        let _ = text;
    }
    /// `/btw`: asks `question` about the conversation without adding it;
    /// the answer comes back as [`TuiEvent::SideAnswer`]. `false` when
    /// this conversation cannot (the question is then answered at once
    /// with an error).
    fn side_question(&mut self, question: String) -> bool {
        let _ = question;
        false
    }
    /// Answers MCP elicitation `request_id` (the form the dialog showed);
    /// the error (the answer does not fit, or nothing waits any more) is
    /// shown as a note.
    fn answer_elicitation(
        &mut self,
        request_id: u64,
        answer: zut_types::ElicitationAnswer,
    ) -> Result<(), String> {
        let _ = (request_id, answer);
        Err("this front end cannot answer MCP elicitations".into())
    }
    /// `@` completions besides the project's files: `server:uri` of the
    /// MCP resources the ready servers list (offered as `@server:uri`).
    fn mention_candidates(&mut self) -> Vec<String> {
        Vec::new()
    }
}

/// What an extension command answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandOutcome {
    /// Submit this text as a prompt.
    Prompt(String),
    /// Put this text into the editor at the cursor.
    Insert(String),
    /// Show this text as a note.
    Display(String),
    /// Nothing visible.
    Noop,
    /// A short confirmation (`model: x`, `reloaded: …`), shown for five
    /// seconds.
    Status(String),
    /// Failed: shown in red.
    Error(String),
}

/// Events the TUI receives from the conversation side.
#[derive(Debug, Clone)]
pub enum TuiEvent {
    /// An agent event, in order.
    Agent(zut_types::AgentEvent),
    /// Extensions finished loading: their commands, and load errors.
    ExtensionsReady {
        /// Extension commands for the popup.
        commands: Vec<CommandInfo>,
        /// Load errors, one text each (may span lines).
        errors: Vec<String>,
    },
    /// A resumed conversation to show (only the transcript changes: no
    /// busy state, no queue).
    Replay(Vec<zut_types::AgentEvent>),
    /// A queued job (prompt, compaction, reload) starts.
    JobStarted,
    /// The running job finished: the next queued prompt may start.
    JobFinished,
    /// A line of information for the transcript (resumed session, a
    /// failed save...).
    Info(String),
    /// Live extensions intercepting `tool_call` (named when they refuse a
    /// call).
    ToolGuards(Vec<String>),
    /// Live extensions intercepting `assistant_message` (replies are held
    /// until they are rewritten or hidden, and named when they are).
    MessageGuards(Vec<String>),
    /// Theme files of the loaded extensions, as (extension name, file).
    ExtensionThemes(Vec<(String, std::path::PathBuf)>),
    /// A picker to open, with its rows.
    Picker(pickers::Picker),
    /// The model or reasoning level changed.
    Settings {
        /// Model id.
        model: String,
        /// Reasoning level (`""` = off).
        reasoning: String,
    },
    /// The conversation moved to another session file (resumed, forked,
    /// checked out, `/new`): the status bar's counters restart from that
    /// file's totals.
    SessionTotals(status::Totals),
    /// An extension command finished.
    CommandDone {
        /// `/name (extension)`.
        label: String,
        /// What to do.
        outcome: CommandOutcome,
    },
    /// The answer to a `/btw` side question (not part of the conversation).
    SideAnswer {
        /// The question asked.
        question: String,
        /// The answer, or why there is none.
        answer: Result<String, String>,
        /// The call's usage (counted in the status bar).
        usage: Option<zut_types::UsageEvent>,
    },
    /// Tool calls were jailed or unjailed (`/jail`, `/unjail`): the jail
    /// line (`jailed to <cwd> (…)`), `None` when unjailed.
    Jail(Option<String>),
    /// New rows for a picker that may be open (`/mcp` once servers
    /// finished starting): they replace the open picker only when it is
    /// of the same kind (selection and filter kept); otherwise dropped.
    PickerUpdate(pickers::Picker),
    /// A scheduled task is due (`schedule`, interactive only): its prompt
    /// runs now when idle, else waits in the queue behind the running turn.
    Scheduled {
        /// Task id.
        id: String,
        /// The prompt.
        message: String,
    },
    /// The provider changed (`/model <provider>/<id>`); a
    /// [`TuiEvent::Settings`] with the model follows.
    Provider(String),
    /// An event of a subagent (docs/subagents.md): its usage counts in the
    /// status bar; the `/subagents` dashboard shows the rest.
    Subagent {
        /// The child's id.
        id: String,
        /// Its event.
        event: zut_types::AgentEvent,
    },
    /// `/orchestrator` was turned on or off (the status bar says it).
    Orchestrating(bool),
}
