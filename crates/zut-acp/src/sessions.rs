//! The table of ACP sessions: id -> controller and its event stream.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use zut_control::{ConversationHandle, EventStream};

/// One ACP session.
#[derive(Clone)]
pub(crate) struct Session {
    /// The conversation.
    pub controller: Arc<dyn ConversationHandle>,
    /// The event stream; a prompt holds it for its whole turn, so turns
    /// (and their notifications) follow each other in order.
    pub events: Arc<tokio::sync::Mutex<EventStream>>,
    /// Set by `session/cancel`; read when the turn ends.
    pub cancelled: Arc<std::sync::atomic::AtomicBool>,
    /// The extensions' live status items, sent as the ACP plan.
    pub statuses: Arc<std::sync::Mutex<crate::plan::Statuses>>,
    /// The session's cost so far (US dollars) and the model's context
    /// window, for `usage_update`.
    pub usage: Arc<std::sync::Mutex<crate::updates::UsageTotal>>,
    /// The MCP elicitations sent to the client and still waiting (by the
    /// turn's pump or, between prompts, by `crate::elicit::watch`).
    pub forwarded: Arc<crate::elicit::Forwarded>,
}

/// The connection's state.
#[derive(Default)]
pub(crate) struct Table {
    /// Whether `initialize` was answered.
    pub initialized: bool,
    /// Sessions by id.
    pub sessions: HashMap<String, Session>,
    /// Ids handed out so far.
    pub next: u64,
    /// The client's `fs.readTextFile` and `fs.writeTextFile`.
    pub fs: (bool, bool),
    /// The elicitation modes the client shows (`elicitation.form`,
    /// `elicitation.url`).
    pub elicitation: zut_types::ElicitationModes,
}

/// Shared handle on the table.
#[derive(Clone, Default)]
pub(crate) struct Sessions(Arc<Mutex<Table>>);

impl Sessions {
    /// Locks the table (a poisoned lock is still usable: the table holds
    /// no invariant a panic could break halfway).
    pub fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}
