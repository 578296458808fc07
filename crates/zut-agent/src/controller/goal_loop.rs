//! `/goal` through the controller: the command runs in the worker (it
//! changes the agent's goal state and may start working at once), as a
//! prompt job; the continuation turns themselves are run by the agent
//! (`crate::goals`) at the end of every prompt while the goal is active.

use zut_providers::Part;
use zut_types::StopReason;

use super::{Controller, JobHandle};
use crate::agent::{Agent, EventSink};
use crate::event::AgentEvent;
use crate::outcome::PromptOutcome;

impl Controller {
    /// Queues `/goal <args>` (`start`/objective, `pause`, `resume`,
    /// `clear`, `history`, or nothing for the status).
    pub fn goal(&self, args: &str, tag: Option<String>) -> JobHandle {
        self.enqueue(super::jobs::Work::Goal(args.to_string()), tag, false)
    }
}

/// Runs `/goal <args>` on `agent`: a new or resumed goal runs its first
/// turn (and continuations) as a prompt; the other forms end with their
/// text as the final text.
pub(crate) async fn run(
    agent: &mut Agent,
    args: &str,
    cancel: &tokio_util::sync::CancellationToken,
    sink: EventSink<'_>,
) -> PromptOutcome {
    match agent.goal_command(args, sink) {
        Ok((_, Some(prompt))) => {
            agent
                .prompt(vec![Part::Text { text: prompt }], cancel, sink)
                .await
        }
        Ok((text, None)) => {
            if args.trim().is_empty() {
                sink(agent.goals().event());
            }
            sink(AgentEvent::Done);
            PromptOutcome::Completed {
                stop: StopReason::EndTurn,
                final_text: text,
            }
        }
        Err(message) => {
            sink(AgentEvent::Error {
                message: message.clone(),
            });
            sink(AgentEvent::Done);
            PromptOutcome::Failed { message }
        }
    }
}
