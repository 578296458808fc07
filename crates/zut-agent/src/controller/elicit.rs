//! MCP elicitation for every front end: a server's request for input
//! becomes [`AgentEvent::McpElicitation`] in the stream and waits for
//! [`Controller::answer_elicitation`]; a request the server stops waiting
//! for is closed with [`AgentEvent::McpElicitationClosed`], and a URL
//! flow the server says finished is told with
//! [`AgentEvent::McpElicitationComplete`]. Only a front
//! end that can show a form or a URL turns this on, for the modes it shows
//! ([`Controller::set_mcp_elicitation_modes`]); otherwise zut declares no
//! elicitation to the servers and declines.

use std::sync::{Arc, Weak};

use tokio::sync::oneshot;
use zut_control::{ControllerEvent, EventQueue};
use zut_types::elicitation::validate;
use zut_types::{
    AgentEvent, ElicitationAction, ElicitationAnswer, ElicitationModes, ElicitationRequest,
};

use super::shared::Shared;
use super::Controller;

/// One request waiting for its answer.
pub(crate) struct Pending {
    request: ElicitationRequest,
    reply: oneshot::Sender<ElicitationAnswer>,
}

/// Closes a request nobody answered when the server stops waiting.
struct Closer {
    shared: Weak<Shared>,
    events: EventQueue,
    id: u64,
}

impl Drop for Closer {
    fn drop(&mut self) {
        let Some(shared) = self.shared.upgrade() else {
            return;
        };
        if shared.lock().elicitations.remove(&self.id).is_some() {
            self.events
                .push(ControllerEvent::Agent(AgentEvent::McpElicitationClosed {
                    request_id: self.id,
                }));
        }
    }
}

impl Controller {
    /// Lets the MCP servers ask the user in every mode (forms and URLs),
    /// or nobody (`false`): [`Controller::set_mcp_elicitation_modes`].
    pub fn set_mcp_elicitation(&self, on: bool) {
        self.set_mcp_elicitation_modes(if on {
            ElicitationModes::ALL
        } else {
            ElicitationModes::NONE
        });
    }

    /// Lets the MCP servers ask the user in `modes` (this front end shows
    /// [`AgentEvent::McpElicitation`], a form or with `url` a page to open,
    /// and answers with [`Controller::answer_elicitation`]); `elicitation`
    /// is declared to the servers, with these modes, exactly while one is
    /// on (running servers reconnect). Without an MCP manager this does
    /// nothing.
    pub fn set_mcp_elicitation_modes(&self, modes: ElicitationModes) {
        let Some(mcp) = self.shared.mcp.as_ref() else {
            return;
        };
        if !modes.any() {
            mcp.set_elicitation_completer(None);
            mcp.set_elicitation_asker(None);
            let waiting = std::mem::take(&mut self.shared.lock().elicitations);
            for p in waiting.into_values() {
                let _ = p.reply.send(ElicitationAnswer::cancel());
            }
            return;
        }
        let shared = Arc::downgrade(&self.shared);
        let events = self.events.clone();
        let asker: zut_mcp::Asker = Arc::new(move |request: ElicitationRequest| {
            let (reply, rx) = oneshot::channel();
            let id = request.id;
            let ev = AgentEvent::McpElicitation {
                request_id: id,
                server: request.server.clone(),
                message: request.message.clone(),
                schema: request.schema.clone(),
                order: request.order.clone(),
                url: request.url.clone(),
            };
            let Some(s) = shared.upgrade() else {
                return Box::pin(async { ElicitationAnswer::cancel() });
            };
            s.lock().elicitations.insert(id, Pending { request, reply });
            events.push(ControllerEvent::Agent(ev));
            s.elicitation_seq.send_modify(|n| *n += 1);
            drop(s);
            let closer = Closer {
                shared: shared.clone(),
                events: events.clone(),
                id,
            };
            Box::pin(async move {
                let answer = rx.await.unwrap_or_else(|_| ElicitationAnswer::cancel());
                drop(closer);
                answer
            })
        });
        let events = self.events.clone();
        mcp.set_elicitation_completer(Some(Arc::new(move |request_id, server: &str| {
            events.push(ControllerEvent::Agent(AgentEvent::McpElicitationComplete {
                request_id,
                server: server.to_string(),
            }));
        })));
        mcp.set_elicitation_asker_modes(Some(asker), modes);
    }

    /// Answers elicitation `request_id`. An accepted answer is checked
    /// against the form first: when it does not fit, the error says which
    /// field and why, and the request keeps waiting. Also an error when
    /// no such request waits (answered, or closed by the server).
    pub fn answer_elicitation(
        &self,
        request_id: u64,
        answer: ElicitationAnswer,
    ) -> Result<(), String> {
        let mut st = self.shared.lock();
        let Some(p) = st.elicitations.get(&request_id) else {
            return Err(format!("no elicitation {request_id} is waiting"));
        };
        // A URL-mode accept carries nothing to check (zut-mcp drops any
        // content).
        if answer.action == ElicitationAction::Accept && p.request.url.is_none() {
            let content = answer.content.clone().unwrap_or_default();
            validate(&p.request.schema, &content)?;
        }
        if let Some(p) = st.elicitations.remove(&request_id) {
            let _ = p.reply.send(answer);
        }
        Ok(())
    }

    /// The elicitations waiting for an answer, oldest first.
    pub fn pending_elicitations(&self) -> Vec<ElicitationRequest> {
        let st = self.shared.lock();
        st.elicitations
            .values()
            .map(|p| p.request.clone())
            .collect()
    }
}
