//! Provider stream events → agent events.

use zut_providers::StreamEvent;

use crate::event::AgentEvent;

/// The agent event for a provider stream event (`None` for reasoning unless
/// `reasoning` is set: rpc.md's event table does not carry it).
pub fn map_stream_event(
    ev: StreamEvent,
    provider: &str,
    model: &str,
    reasoning: bool,
) -> Option<AgentEvent> {
    Some(match ev {
        StreamEvent::RequestStarted {
            attempt,
            max_attempts,
        } => AgentEvent::RequestStarted {
            provider: provider.to_string(),
            model: model.to_string(),
            scope: "provider",
            attempt,
            max_attempts,
        },
        StreamEvent::RetryScheduled {
            attempt,
            max_attempts,
            delay_ms,
            ..
        } => AgentEvent::RetryScheduled {
            scope: "provider",
            attempt,
            max_attempts,
            delay_ms,
        },
        // Not on the wire: the attempt that follows says the rest.
        StreamEvent::RateLimited { .. } => return None,
        StreamEvent::AssistantStart => AgentEvent::AssistantStart,
        StreamEvent::TextDelta(delta) => AgentEvent::TextDelta { delta },
        StreamEvent::ThinkingDelta(delta) if reasoning => AgentEvent::ReasoningDelta { delta },
        StreamEvent::ThinkingDelta(_) => return None,
        StreamEvent::ToolUseStart { id, name } => AgentEvent::ToolUseStart { id, name },
        StreamEvent::ToolUseArgs { id, delta } => AgentEvent::ToolUseArgs { id, delta },
        StreamEvent::ToolUseEnd { id } => AgentEvent::ToolUseEnd { id },
    })
}
