//! How a parent's front end sees its children: their events, tagged with
//! the child's id ([`ChildSink`], set by the controller), their token use
//! and cost rolled up into the parent's figures ([`Feed`]), and the runtime
//! itself once the agent made it ([`Link::runtime`], for the TUI's
//! `/subagents` dashboard).

use std::sync::{Arc, Mutex};

use crate::event::{AgentEvent, UsageCounts};
use crate::subagent::runtime::{lock, Runtime};

/// Receives a child's events with its id.
pub type ChildSink = Arc<dyn Fn(&str, AgentEvent) + Send + Sync>;

/// Where a runtime's children report: the front end's sink and the usage
/// not yet counted in a parent `usage` event.
#[derive(Default)]
pub struct Feed {
    sink: Mutex<Option<ChildSink>>,
    usage: Mutex<ChildUsage>,
}

#[derive(Default)]
struct ChildUsage {
    /// Every child's usage since the runtime was made.
    total: UsageCounts,
    /// Not yet folded into a parent `usage` event's cumulative figures.
    unreported: UsageCounts,
}

impl Feed {
    /// Sets where children's events go.
    pub fn set_sink(&self, sink: Option<ChildSink>) {
        *lock(&self.sink) = sink;
    }

    /// Counts one child model call and forwards nothing (see
    /// [`Feed::forward`]).
    pub fn add_usage(&self, u: &UsageCounts) {
        let mut g = lock(&self.usage);
        g.total.add(u);
        g.unreported.add(u);
    }

    /// Every child's usage so far.
    pub fn total(&self) -> UsageCounts {
        lock(&self.usage).total
    }

    /// The usage not yet reported to the parent (then zero), or `None`.
    pub fn take_unreported(&self) -> Option<UsageCounts> {
        let mut g = lock(&self.usage);
        if g.unreported == UsageCounts::default() {
            return None;
        }
        Some(std::mem::take(&mut g.unreported))
    }

    /// Sends `ev` of child `id` to the front end, when one listens.
    pub fn forward(&self, id: &str, ev: AgentEvent) {
        let sink = lock(&self.sink).clone();
        if let Some(sink) = sink {
            sink(id, ev);
        }
    }

    /// Tells the front end that `child` exists (spawned or reopened).
    pub fn started(&self, child: &crate::subagent::runtime::Child) {
        if self.listening() {
            self.forward(
                &child.id,
                AgentEvent::SubagentStart {
                    task: child.task.clone(),
                    profile: child.profile.clone(),
                    model: child.model.clone(),
                    workspace: child.workspace.to_string(),
                    transcript: child.transcript.display().to_string(),
                },
            );
        }
    }

    /// Whether a front end listens.
    pub fn listening(&self) -> bool {
        lock(&self.sink).is_some()
    }
}

/// Whether a child's event goes to the front end: its progress (the
/// prompt, text, tool calls and results, usage, the end of each model
/// call). Its `done` is replaced by `subagent_end`; its `error` is in
/// there too.
pub fn forwarded(ev: &AgentEvent) -> bool {
    matches!(
        ev,
        AgentEvent::UserMessage { .. }
            | AgentEvent::TurnStart { .. }
            | AgentEvent::TextDelta { .. }
            | AgentEvent::AssistantMessage { .. }
            | AgentEvent::ToolCall { .. }
            | AgentEvent::ToolExecutionStarted { .. }
            | AgentEvent::ToolResult { .. }
            | AgentEvent::Usage(_)
            | AgentEvent::TurnEnd { .. }
            | AgentEvent::SubagentEnd { .. }
            | AgentEvent::SubagentStart { .. }
    )
}

/// Shared between an agent and its controller: the sink for children's
/// events and the runtime once made. Cheap to clone.
#[derive(Clone, Default)]
pub struct Link {
    inner: Arc<LinkInner>,
}

#[derive(Default)]
struct LinkInner {
    sink: Mutex<Option<ChildSink>>,
    runtime: Mutex<Option<Arc<Runtime>>>,
}

impl Link {
    /// Sets the sink (also on a runtime already made).
    pub fn set_sink(&self, sink: ChildSink) {
        *lock(&self.inner.sink) = Some(sink.clone());
        if let Some(rt) = lock(&self.inner.runtime).as_ref() {
            rt.feed().set_sink(Some(sink));
        }
    }

    /// Records the agent's runtime and gives it the sink.
    pub fn attach(&self, rt: &Arc<Runtime>) {
        rt.feed().set_sink(lock(&self.inner.sink).clone());
        *lock(&self.inner.runtime) = Some(rt.clone());
    }

    /// The runtime, once the agent made it.
    pub fn runtime(&self) -> Option<Arc<Runtime>> {
        lock(&self.inner.runtime).clone()
    }
}
