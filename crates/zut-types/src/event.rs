//! Agent events: the stream that `--json` prints one per line and RPC mode
//! forwards (rpc.md §5), including the `ext_*` events built from extension
//! UI frames (rpc.md §5.1).

use serde::Serialize;
use serde_json::Value;
use zut_protocol::PanelContent;

use crate::transcript::JsonBlock;

/// One agent event. Serialises to the exact JSON object of rpc.md §5.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// Before each model call.
    TurnStart {
        /// 1-based model-call number within the prompt.
        step: u64,
    },
    /// How the coming model request uses prompt caching (once per model
    /// call, after its first `request_started`).
    CacheDiagnostics {
        /// Whether the request can hit a provider-side prompt cache.
        eligible: bool,
        /// `explicit` (Anthropic: `cache_control` breakpoints on the system
        /// prompt, the tools and the newest user message) or `automatic`
        /// (OpenAI-compatible: the server caches prefixes on its own).
        mode: &'static str,
        /// How the request travels: always `http-sse`.
        transport: &'static str,
        /// Whether the request extends the previous request of the same
        /// prompt (step > 1), so its prefix should already be cached.
        continuation: bool,
    },
    /// An HTTP attempt starts.
    RequestStarted {
        /// Provider name.
        provider: String,
        /// Model id.
        model: String,
        /// `provider` (HTTP retries) or `agent`.
        scope: &'static str,
        /// 1-based attempt.
        attempt: u32,
        /// Maximum attempts.
        max_attempts: u32,
    },
    /// A retry is scheduled.
    RetryScheduled {
        /// `provider`.
        scope: &'static str,
        /// Failed attempt.
        attempt: u32,
        /// Maximum attempts.
        max_attempts: u32,
        /// Delay before the next attempt.
        delay_ms: u64,
    },
    /// The user's message, as stored.
    UserMessage {
        /// Content blocks (rpc.md §6).
        content: Vec<JsonBlock>,
        /// RFC 3339 time.
        time: String,
    },
    /// The model started answering.
    AssistantStart,
    /// Streamed assistant text (before `assistant_message` interception).
    TextDelta {
        /// Text fragment.
        delta: String,
    },
    /// A tool call starts streaming.
    ToolUseStart {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
    },
    /// A fragment of a tool call's JSON arguments.
    ToolUseArgs {
        /// Call id.
        id: String,
        /// Raw JSON fragment.
        delta: String,
    },
    /// A tool call's arguments are complete.
    ToolUseEnd {
        /// Call id.
        id: String,
    },
    /// A complete tool call, about to be intercepted and run.
    ToolCall {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// The model's arguments (parsed JSON).
        args: Value,
    },
    /// Reasoning ("thinking") text streamed by the model. Only emitted when
    /// `AgentConfig::reasoning_events` (zut-agent) is on (the TUI's thinking
    /// indicator, ACP thought chunks); never in RPC or `--json` output,
    /// whose event table has no reasoning (rpc.md §6).
    #[schemars(skip)]
    ReasoningDelta {
        /// Text fragment.
        delta: String,
    },
    /// A tool call waits for the user's approval (`--no-yolo`, see
    /// `zut_agent::approval`); answer with `Controller::answer_approval`
    /// (or the `PendingApproval` (zut-agent) given to the agent's
    /// hook). Only emitted when `AgentConfig::confirm_tools` (zut-agent) is
    /// on, which the Go-compatible modes never turn on.
    #[schemars(skip)]
    ToolApprovalRequested {
        /// The request id to answer.
        request_id: u64,
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Short summary (`tool_preview` of the extension event).
        preview: String,
        /// Effective arguments.
        args: Value,
        /// What the call would do, for built-in tools that can tell
        /// without doing it: the diff of an `edit` or an `ast` rewrite (or
        /// the error it would give). `None` for other calls.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// An MCP server asks the user for input (elicitation: a form, or with
    /// `url` a page to open).
    /// Only emitted to a front end that turned elicitation on
    /// (`Controller::set_mcp_elicitation` in zut-agent: the TUI, an ACP
    /// client that can show forms, an RPC client that opted in); answer
    /// with `Controller::answer_elicitation`. `schema` is the requested
    /// flat schema, `order` its property names as the server wrote them
    /// (see [`crate::elicitation`]).
    #[schemars(skip)]
    McpElicitation {
        /// The request id to answer.
        request_id: u64,
        /// The asking server.
        server: String,
        /// What it wants.
        message: String,
        /// The requested schema.
        schema: Value,
        /// Property order.
        order: Vec<String>,
        /// URL mode: the page the server wants the user to open (`schema`
        /// is then an empty object; accept carries no content). Absent in
        /// form mode.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    /// An elicitation was closed before it was answered (the server
    /// stopped waiting: its call was cancelled or timed out, or the
    /// server went away): a front end drops its form.
    #[schemars(skip)]
    McpElicitationClosed {
        /// The request id.
        request_id: u64,
    },
    /// The server says the out-of-band flow of URL-mode request
    /// `request_id` finished (MCP `notifications/elicitation/complete`):
    /// after the user opened the page, or while the request still waited
    /// (then [`AgentEvent::McpElicitationClosed`] follows and the server is
    /// answered `cancel`). A front end may say so and drop what it still
    /// shows for it.
    #[schemars(skip)]
    McpElicitationComplete {
        /// The request id.
        request_id: u64,
        /// The server.
        server: String,
    },
    /// An extension's interceptor blocked the turn (`event` is
    /// `turn_start`: no model call; a `turn_end` with `stop:"error"`
    /// follows) or hid the assistant message (`assistant_message`). Only
    /// emitted when `AgentConfig::interception_events` (zut-agent) is on (the
    /// TUI); never in RPC or `--json` output.
    #[schemars(skip)]
    InterceptBlocked {
        /// `turn_start` or `assistant_message`.
        event: &'static str,
        /// The blocking extension's name.
        extension: String,
        /// Its reason (defaulted for `turn_start`; may be empty for
        /// `assistant_message`).
        reason: String,
    },
    /// A tool starts running (not emitted for blocked calls).
    ToolExecutionStarted {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
    },
    /// Live output of a running tool (today only `bash` streams): chunks in
    /// order, advisory; the `tool_result` still carries the whole result.
    ToolProgress {
        /// Call id.
        id: String,
        /// Output chunk (valid UTF-8, possibly several lines).
        text: String,
    },
    /// A tool's result.
    ToolResult {
        /// Call id.
        id: String,
        /// Whether the tool failed.
        is_error: bool,
        /// Result blocks.
        content: Vec<JsonBlock>,
    },
    /// The final assistant message as shown to the user (after
    /// `replace_text`; absent when an interceptor blocked it).
    AssistantMessage {
        /// Content blocks.
        content: Vec<JsonBlock>,
        /// RFC 3339 time.
        time: String,
    },
    /// Token usage of one model call.
    Usage(UsageEvent),
    /// A model call ended.
    TurnEnd {
        /// `end_turn`, `tool_use`, `length`, `error` or `aborted`.
        stop: &'static str,
        /// Error text for `stop:"error"`.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// The prompt finished.
    Done,
    /// The prompt failed.
    Error {
        /// What went wrong.
        message: String,
    },
    /// A compaction finished and was persisted (rpc.md §4.4; no `done`
    /// follows).
    CompactDone {
        /// The model's summary.
        summary: String,
    },
    /// `notify` from an extension.
    ExtNotify {
        /// Manifest name.
        extension: String,
        /// Level as sent.
        level: String,
        /// Message as sent.
        message: String,
    },
    /// `clear_notes` from an extension.
    ExtClearNotes {
        /// Manifest name.
        extension: String,
    },
    /// `alert` from an extension.
    ExtAlert {
        /// Manifest name.
        extension: String,
        /// Alert kind.
        kind: String,
        /// Reason (`""` when absent).
        reason: String,
    },
    /// `status` from an extension.
    ExtStatus {
        /// Manifest name.
        extension: String,
        /// Item key.
        key: String,
        /// Level.
        level: String,
        /// Text; empty removes the item.
        text: String,
    },
    /// `widget` from an extension.
    ExtWidget {
        /// Manifest name.
        extension: String,
        /// Widget id.
        id: String,
        /// Position, raw.
        position: String,
        /// Title.
        title: String,
        /// Lines (always an array).
        lines: Vec<String>,
    },
    /// `widget_clear` from an extension.
    ExtWidgetClear {
        /// Manifest name.
        extension: String,
        /// Widget id.
        id: String,
    },
    /// A command's `display` text (JSON mode only; RPC cannot run commands).
    ExtDisplay {
        /// Manifest name.
        extension: String,
        /// Text to show.
        text: String,
    },
    /// The extension's process exited: discard all its chrome.
    ExtChromeClear {
        /// Manifest name.
        extension: String,
    },
    /// Opt-in (`ext_ui`): an extension opened (or replaced) its panel.
    ExtPanelOpen {
        /// Manifest name.
        extension: String,
        /// The panel: `id`, `title`, `lines`, `footer`.
        panel: PanelContent,
    },
    /// Opt-in (`ext_ui`): redraw of an open panel.
    ExtPanelRender {
        /// Manifest name.
        extension: String,
        /// Panel id.
        panel_id: String,
        /// New title (empty keeps the old one).
        title: String,
        /// New lines.
        lines: Vec<String>,
        /// New footer.
        footer: String,
    },
    /// Opt-in (`ext_ui`): the extension closed its panel.
    ExtPanelClose {
        /// Manifest name.
        extension: String,
        /// Panel id.
        panel_id: String,
    },
    /// Opt-in (`ext_ui`): the extension asks the front end to submit a
    /// prompt (`submit`) or run a slash command line (`submit_slash`,
    /// `text` starts with `/`).
    ExtSubmit {
        /// Manifest name.
        extension: String,
        /// Prompt text or slash command line.
        text: String,
    },
    /// Opt-in (`commands`): a command's `insert` action: text for the
    /// client's input box.
    ExtInsert {
        /// Manifest name.
        extension: String,
        /// Text to insert.
        text: String,
    },
    /// A request overflowed the model's context window (issue 24): the
    /// conversation is compacted (a `compact_done` follows) and the request
    /// is retried once. A second overflow ends the prompt with an `error`.
    ContextRecovery {
        /// 1-based model-call number within the prompt.
        step: u64,
        /// The provider's context-length error.
        error: String,
    },
    /// The repetition guard saw the same tool call and result, or the same
    /// assistant message, repeatedly (issue 24): `warning` (the model is
    /// told) or `stopped` (the prompt fails).
    RepetitionGuard {
        /// `tool_call_result` or `assistant_message`.
        kind: &'static str,
        /// `warning` or `stopped`.
        stage: &'static str,
        /// Occurrences in the guard's window.
        count: u64,
        /// Time since the first of them, in milliseconds.
        elapsed_ms: u64,
    },
    /// A reply ended without a final answer after tools ran: zut asks the
    /// model once more for it (issue 24).
    TurnRecovery {
        /// `missing_answer`.
        reason: &'static str,
        /// 1 (there is one recovery per prompt).
        attempt: u64,
    },
    /// The `plan` tool changed the session plan (emitted before the call's
    /// `tool_result`; the Go original's `plan_update`).
    PlanUpdate {
        /// The tool call that changed it.
        call_id: String,
        /// The model's note about the change, if any.
        explanation: Option<String>,
        /// The whole plan after the change.
        plan: Vec<crate::plan::PlanStep>,
    },
    /// The goal changed (`update_goal`, `/goal`, a continuation turn, a
    /// budget stop). `status` is `cleared` when there is no goal.
    GoalUpdate {
        /// active, paused, blocked, done, budget_limited, stalled,
        /// superseded, or cleared.
        status: String,
        /// The objective.
        objective: String,
        /// user or manager.
        owner: String,
        /// Tokens spent on the goal.
        tokens_used: u64,
        /// Its token budget.
        token_budget: Option<u64>,
        /// Continuation turns run in this process.
        continuations: u64,
        /// Why it stopped, when it did.
        reason: Option<String>,
    },
    /// A subagent's turn ended (docs/subagents.md). Only ever sent tagged
    /// with the child's `subagent_id` (see `write_json_tagged`), in place of
    /// the child's `done`.
    SubagentEnd {
        /// `completed`, `failed`, `stopped` or `interrupted`.
        state: String,
        /// The turn's final text (at most 4000 bytes).
        final_text: String,
        /// Why the turn failed.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// The child's turns so far.
        turns: u32,
        /// The child's usage over all its turns.
        usage: UsageCounts,
        /// The child's session file.
        transcript: String,
    },
    /// A subagent was spawned (or reopened to resume) and waits for its
    /// turn (docs/subagents.md). Only ever sent tagged with its
    /// `subagent_id`.
    SubagentStart {
        /// Its task.
        task: String,
        /// Its profile, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        profile: Option<String>,
        /// Its model.
        model: String,
        /// `shared` or `worktree`.
        workspace: String,
        /// Its session file.
        transcript: String,
    },
}

/// Token counts for the `usage` event.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct UsageCounts {
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Reasoning tokens, when reported.
    pub reasoning: Option<u64>,
    /// Cache reads.
    pub cache_read: u64,
    /// Cache writes.
    pub cache_write: u64,
    /// Prompt tokens measured for cache accounting (input + cache).
    pub cache_measured_prompt: u64,
    /// Cache-read tokens measured.
    pub cache_measured_read: u64,
    /// Cost in US dollars, from the model catalog or models.json prices;
    /// always a number (`0` when no price is known, see `cost_known`).
    pub cost_usd: f64,
    /// Whether `cost_usd` comes from known prices (for a total: whether
    /// every call in it was priced).
    pub cost_known: bool,
}

impl UsageCounts {
    /// Adds `other` to `self`.
    pub fn add(&mut self, other: &Self) {
        let was_empty = *self == Self::default();
        self.input += other.input;
        self.output += other.output;
        self.reasoning = match (self.reasoning, other.reasoning) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.cache_measured_prompt += other.cache_measured_prompt;
        self.cache_measured_read += other.cache_measured_read;
        // A total with nothing counted yet takes the first call's flag.
        self.cost_known = other.cost_known && (self.cost_known || was_empty);
        self.cost_usd += other.cost_usd;
    }
}

/// The `usage` event: this call's counts plus the prompt's running total.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct UsageEvent {
    /// This call.
    #[serde(flatten)]
    pub this: UsageCounts,
    /// Running total.
    pub cumulative: UsageCounts,
}

impl AgentEvent {
    /// One JSON line (no trailing newline).
    pub fn to_json(&self) -> String {
        // Serialising these plain types cannot fail; fall back to an error
        // event rather than panicking if it ever did.
        serde_json::to_string(self).unwrap_or_else(|e| {
            format!(
                "{{\"type\":\"error\",\"message\":{}}}",
                Value::String(format!("event encoding failed: {e}"))
            )
        })
    }

    /// Appends the JSON line of [`AgentEvent::to_json`] (no trailing
    /// newline) to `out`, without an intermediate `String`.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        let start = out.len();
        if let Self::TextDelta { delta } = self {
            // The most frequent event by far: skip serde's enum machinery.
            out.extend_from_slice(br#"{"type":"text_delta","delta":"#);
            // Most deltas need no escape (none of `"`, `\`, controls):
            // copied as they are, exactly what serde_json writes.
            if !delta.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
                out.push(b'"');
                out.extend_from_slice(delta.as_bytes());
                out.extend_from_slice(b"\"}");
                return;
            }
            if serde_json::to_writer(&mut *out, delta).is_ok() {
                out.push(b'}');
                return;
            }
            out.truncate(start);
        }
        if serde_json::to_writer(&mut *out, self).is_err() {
            out.truncate(start);
            out.extend_from_slice(self.to_json().as_bytes());
        }
    }
}
