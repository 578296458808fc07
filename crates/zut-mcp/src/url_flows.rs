//! URL-mode elicitations of one connection, by the server's
//! `elicitationId`, for `notifications/elicitation/complete` (MCP
//! 2025-11-25: the server tells the client that the out-of-band flow it
//! sent the user to has finished). rmcp 3.11 has no type for that
//! notification; it reaches [`crate::handler`] as a custom notification
//! and is read here.
//!
//! - The request still waits for the user (the dialog is open): the flow
//!   finished elsewhere, so the dialog closes and the server gets `cancel`
//!   (the user made no choice; zut does not claim a consent it never got).
//! - The user already answered `accept` (opened the page): the front end
//!   is told the flow finished (ACP `elicitation/complete`, an RPC event, a
//!   TUI note). The last [`ANSWERED_KEPT`] accepted ids of a connection are
//!   remembered for this.
//! - Any other id (unknown, declined, already completed) is ignored, as the
//!   specification requires, with a line in the server's log.
//!
//! Ids belong to one connection: a reconnected server starts empty.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use tokio_util::sync::CancellationToken;

/// The notification's method.
pub(crate) const COMPLETE: &str = "notifications/elicitation/complete";
/// Accepted URL requests remembered per connection for a late completion.
pub(crate) const ANSWERED_KEPT: usize = 32;

#[derive(Default)]
struct State {
    /// Shown and not answered yet: zut's request id and the token that
    /// closes the dialog.
    waiting: HashMap<String, (u64, CancellationToken)>,
    /// Accepted, oldest first.
    answered: VecDeque<(String, u64)>,
}

/// What a completion matched.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Completed {
    /// A request still waiting for the user (its dialog is now closed).
    Waiting(u64),
    /// A request the user accepted earlier.
    Answered(u64),
}

/// The URL-mode requests of one connection. See the module doc.
#[derive(Default)]
pub(crate) struct UrlFlows(Mutex<State>);

impl UrlFlows {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Request `id` is shown to the user under the server's `eid`; the
    /// token is cancelled if the server says the flow is complete first.
    pub(crate) fn waiting(&self, eid: &str, id: u64) -> CancellationToken {
        let token = CancellationToken::new();
        self.lock()
            .waiting
            .insert(eid.to_string(), (id, token.clone()));
        token
    }

    /// Request `id` was answered (or closed): an accepted one is kept for
    /// a later completion.
    pub(crate) fn settled(&self, eid: &str, id: u64, accepted: bool) {
        let mut st = self.lock();
        if st.waiting.get(eid).is_some_and(|(w, _)| *w == id) {
            st.waiting.remove(eid);
        }
        if accepted {
            st.answered.retain(|(e, _)| e != eid);
            st.answered.push_back((eid.to_string(), id));
            while st.answered.len() > ANSWERED_KEPT {
                st.answered.pop_front();
            }
        }
    }

    /// The server says the flow of `eid` finished: closes a waiting
    /// request's dialog; `None` for an id to ignore. Each id completes
    /// once.
    pub(crate) fn complete(&self, eid: &str) -> Option<Completed> {
        let mut st = self.lock();
        if let Some((id, token)) = st.waiting.remove(eid) {
            token.cancel();
            return Some(Completed::Waiting(id));
        }
        let at = st.answered.iter().position(|(e, _)| e == eid)?;
        st.answered
            .remove(at)
            .map(|(_, id)| Completed::Answered(id))
    }

    /// Requests held (waiting and answered).
    #[cfg(test)]
    fn len(&self) -> usize {
        let st = self.lock();
        st.waiting.len() + st.answered.len()
    }
}

/// The `elicitationId` of a completion's params.
pub(crate) fn elicitation_id(params: Option<&serde_json::Value>) -> Option<&str> {
    params?.get("elicitationId")?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_completion_closes_a_waiting_dialog_or_tells_of_an_accepted_flow_once() {
        let f = UrlFlows::default();
        let token = f.waiting("pay-1", 7);
        assert_eq!(f.complete("pay-1"), Some(Completed::Waiting(7)));
        assert!(token.is_cancelled());
        // The dialog closed: its settling keeps nothing.
        f.settled("pay-1", 7, false);
        assert_eq!(f.complete("pay-1"), None);

        let token = f.waiting("pay-2", 8);
        f.settled("pay-2", 8, true);
        assert!(!token.is_cancelled());
        assert_eq!(f.complete("pay-2"), Some(Completed::Answered(8)));
        assert_eq!(f.complete("pay-2"), None, "completes once");

        // Declined: nothing to tell.
        f.waiting("pay-3", 9);
        f.settled("pay-3", 9, false);
        assert_eq!(f.complete("pay-3"), None);
        assert_eq!(f.complete("nobody"), None);
        assert_eq!(f.len(), 0);
    }

    #[test]
    fn accepted_flows_are_kept_up_to_the_bound() {
        let f = UrlFlows::default();
        for i in 0..(ANSWERED_KEPT as u64 + 10) {
            let eid = format!("e{i}");
            f.waiting(&eid, i);
            f.settled(&eid, i, true);
        }
        assert_eq!(f.len(), ANSWERED_KEPT);
        assert_eq!(f.complete("e0"), None, "the oldest went");
        assert_eq!(
            f.complete(&format!("e{}", ANSWERED_KEPT + 9)),
            Some(Completed::Answered(ANSWERED_KEPT as u64 + 9))
        );
    }

    #[test]
    fn the_id_is_read_from_the_params() {
        let p = serde_json::json!({"elicitationId": "pay-1"});
        assert_eq!(elicitation_id(Some(&p)), Some("pay-1"));
        assert_eq!(elicitation_id(Some(&serde_json::json!({"id": 1}))), None);
        assert_eq!(
            elicitation_id(Some(&serde_json::json!({"elicitationId": 3}))),
            None
        );
        assert_eq!(elicitation_id(None), None);
    }
}
