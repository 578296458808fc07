//! Names of lifecycle events.

/// Every lifecycle event name the host emits.
pub const LIFECYCLE_EVENTS: &[&str] = &[
    EventName::SESSION_START,
    EventName::SESSION_OPENED,
    EventName::SESSION_SWITCHED,
    EventName::SESSION_FORKED,
    EventName::SESSION_COMPACTED,
    EventName::TURN_START,
    EventName::TOOL_CALL,
    EventName::TOOL_CONFIRMATION_REQUESTED,
    EventName::ASSISTANT_MESSAGE,
    EventName::TURN_END,
];

/// The events an extension may intercept; other `subscribe.intercept`
/// entries are ignored.
pub const INTERCEPTABLE_EVENTS: &[&str] = &[
    EventName::TOOL_CALL,
    EventName::TURN_START,
    EventName::ASSISTANT_MESSAGE,
];

/// Whether `name` can be intercepted.
pub fn is_interceptable(name: &str) -> bool {
    INTERCEPTABLE_EVENTS.contains(&name)
}

/// Namespace for the event-name constants.
pub struct EventName;

impl EventName {
    /// Once at start-up, before the first prompt.
    pub const SESSION_START: &'static str = "session_start";
    /// A session file was opened.
    pub const SESSION_OPENED: &'static str = "session_opened";
    /// Another session or branch was loaded.
    pub const SESSION_SWITCHED: &'static str = "session_switched";
    /// The loaded session has a parent (sent before `session_switched`).
    pub const SESSION_FORKED: &'static str = "session_forked";
    /// A compaction was persisted.
    pub const SESSION_COMPACTED: &'static str = "session_compacted";
    /// Before each model call.
    pub const TURN_START: &'static str = "turn_start";
    /// A tool call is about to run.
    pub const TOOL_CALL: &'static str = "tool_call";
    /// The host is about to wait for interactive approval.
    pub const TOOL_CONFIRMATION_REQUESTED: &'static str = "tool_confirmation_requested";
    /// A final assistant message was shown.
    pub const ASSISTANT_MESSAGE: &'static str = "assistant_message";
    /// A model call ended.
    pub const TURN_END: &'static str = "turn_end";
    /// zut: a subagent (child conversation) was spawned or reopened.
    pub const SUBAGENT_START: &'static str = "subagent_start";
    /// zut: one of a subagent's turns ended.
    pub const SUBAGENT_END: &'static str = "subagent_end";
}
