//! [`ConversationHandle`]: what a front end may ask of a running
//! conversation, without knowing how it is built.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use zut_types::{ApprovalDecision, Message, Part};

use crate::{CommandEntry, CommandOutcome, JobHandle};

/// A boxed, sendable future (the trait is object-safe).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A running conversation as a front end drives it: queue prompts and
/// commands, abort, answer approvals, talk to extension panels, read the
/// messages, close. Everything that happens comes out of the
/// conversation's [`crate::EventStream`].
///
/// `zut_agent::Controller` implements it; the ACP front end holds
/// `Arc<dyn ConversationHandle>` and so never depends on the agent, its
/// providers or their HTTP stack.
pub trait ConversationHandle: Send + Sync {
    /// Queues a prompt; its events follow the job's `JobStarted` marker.
    fn prompt(&self, content: Vec<Part>, tag: Option<String>) -> JobHandle;

    /// Runs a slash command (`name` without its slash) with its argument
    /// text: a built-in, an extension's command, `skill:<name>` or an MCP
    /// prompt. `Err` names an unknown command or a refused argument.
    fn command<'a>(
        &'a self,
        name: &'a str,
        args: &'a str,
        tag: Option<String>,
    ) -> BoxFuture<'a, Result<CommandOutcome, String>>;

    /// The commands a front end can offer: built-ins first, then
    /// extensions' commands, then skills.
    fn command_list(&self) -> Vec<CommandEntry>;

    /// Aborts the running job; `false` when nothing ran.
    fn abort(&self) -> bool;

    /// Answers a pending tool approval (`ControllerEvent::Agent` carried
    /// its `request_id`); `false` when it was no longer pending.
    fn answer_approval(&self, request_id: u64, decision: ApprovalDecision) -> bool;

    /// Answers a pending MCP elicitation (`AgentEvent::McpElicitation`
    /// carried its `request_id`); an answer that does not fit the form,
    /// or a request no longer pending, is an error.
    fn answer_elicitation(
        &self,
        request_id: u64,
        answer: zut_types::ElicitationAnswer,
    ) -> Result<(), String> {
        let _ = (request_id, answer);
        Err("this conversation takes no elicitation answers".into())
    }

    /// The MCP elicitations waiting for an answer, oldest first.
    fn pending_elicitations(&self) -> Vec<zut_types::ElicitationRequest> {
        Vec::new()
    }

    /// A receiver whose value changes each time an MCP elicitation starts
    /// waiting, for a front end that shows them outside a turn (ACP);
    /// `None` when this conversation has none. The requests also come out
    /// of the event stream as `AgentEvent::McpElicitation`.
    fn elicitation_watch(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        None
    }

    /// The conversation's messages as the model sees them.
    fn messages(&self) -> Arc<Vec<Message>>;

    /// Forwards a key to an extension's panel.
    fn panel_key(&self, extension: &str, panel_id: &str, key: &str, text: &str);

    /// Tells an extension its panel was closed.
    fn panel_close(&self, extension: &str, panel_id: &str);

    /// Waits until the conversation's extensions started (their commands
    /// and tools are registered).
    fn ready(&self) -> BoxFuture<'_, ()>;

    /// Ends the conversation: aborts the running job, drops queued ones,
    /// closes the session file and stops extensions and MCP servers.
    /// `Err` says why the session file could not be closed cleanly.
    fn close(&self) -> BoxFuture<'_, Result<(), String>>;
}
