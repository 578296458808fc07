//! The conversation's children as the front ends see them: their events
//! come out of the controller's stream as [`ControllerEvent::Subagent`]
//! (tagged with the child's id), their usage counts in the conversation's
//! (`State::usage`), and [`Controller::subagents`] gives the runtime to a
//! dashboard (docs/subagents.md).

use std::sync::Arc;

use zut_control::{ControllerEvent, EventQueue};

use super::shared::Shared;
use super::Controller;
use crate::agent::Agent;
use crate::event::AgentEvent;
use crate::subagent::runtime::Runtime;

/// Sends `agent`'s children's events into `events`.
pub(super) fn install(agent: &Agent, shared: &Arc<Shared>, events: &EventQueue) {
    let weak = Arc::downgrade(shared);
    let q = events.clone();
    agent
        .subagent_link
        .set_sink(Arc::new(move |id: &str, event: AgentEvent| {
            if let (AgentEvent::Usage(u), Some(s)) = (&event, weak.upgrade()) {
                s.lock().usage.add(&u.this);
            }
            q.push(ControllerEvent::Subagent {
                id: id.to_string(),
                event,
            });
        }));
}

impl Controller {
    /// The conversation's subagent runtime, once the agent made one (the
    /// first time it offered or used the `subagent` tool).
    pub fn subagents(&self) -> Option<Arc<Runtime>> {
        self.shared.subagents.runtime()
    }

    /// `/orchestrator on|off`: from the next prompt on, the agent only
    /// reads and delegates (the tool set and brief of `--orchestrate`), or
    /// works normally again. Refused when the conversation has no tools.
    pub fn set_orchestrate(&self, on: bool) -> Result<(), String> {
        if on && self.shared.agent_config.builtin_tools.is_empty() {
            return Err(
                "/orchestrator needs tools: this conversation has none (--no-tools)".to_string(),
            );
        }
        self.shared.lock().pending.orchestrate = Some(on);
        self.shared.wake.notify_one();
        Ok(())
    }
}
