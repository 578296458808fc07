//! `workspace/applyEdit` from the server: accepted only while the `lsp`
//! tool holds an [`EditWindow`] on that server (it runs one of the
//! server's commands), which receives each request and answers it after
//! applying the edit through the tool's checked write path. Outside a
//! window, requests are declined at once (see [`super::incoming`]).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::mpsc;

use super::incoming::{reply, EditRequest};
use super::{Client, Shared};

/// Server edit requests routed to one tool call; closed when dropped.
pub struct EditWindow {
    seq: u64,
    rx: mpsc::UnboundedReceiver<EditRequest>,
    shared: Arc<Shared>,
    out: mpsc::UnboundedSender<Vec<u8>>,
}

impl EditWindow {
    /// The next edit request, or `None` when the server is gone.
    pub async fn next(&mut self) -> Option<EditRequest> {
        self.rx.recv().await
    }

    /// A request already waiting, without blocking.
    pub fn try_next(&mut self) -> Option<EditRequest> {
        self.rx.try_recv().ok()
    }

    /// Answers `request` (`{applied, failureReason?}`).
    pub fn answer(&self, request: &EditRequest, applied: Result<(), String>) {
        let result = match applied {
            Ok(()) => serde_json::json!({"applied": true}),
            Err(why) => serde_json::json!({"applied": false, "failureReason": why}),
        };
        reply(&self.out, &request.id, Ok(result));
    }
}

impl Drop for EditWindow {
    fn drop(&mut self) {
        if let Ok(mut sink) = self.shared.edits.lock() {
            if sink.as_ref().is_some_and(|(seq, _)| *seq == self.seq) {
                *sink = None;
            }
        }
        // Requests that arrived after the work ended are declined.
        self.rx.close();
        while let Ok(r) = self.rx.try_recv() {
            reply(
                &self.out,
                &r.id,
                Ok(serde_json::json!({"applied": false,
                    "failureReason": super::incoming::UNSOLICITED_EDIT})),
            );
        }
    }
}

impl Client {
    /// Waits for this server's turn to run a command: one tool call at a
    /// time, so each gets the edits its own command causes.
    pub async fn command_turn(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.commands.lock().await
    }

    /// Opens the window through which this server's `workspace/applyEdit`
    /// requests reach the caller (replacing an earlier one).
    pub fn accept_edits(&self) -> EditWindow {
        let (tx, rx) = mpsc::unbounded_channel();
        let seq = self.shared.edit_seq.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut sink) = self.shared.edits.lock() {
            *sink = Some((seq, tx));
        }
        EditWindow {
            seq,
            rx,
            shared: self.shared.clone(),
            out: self.out.clone(),
        }
    }
}

/// The `edit` of an applyEdit request's params.
pub fn requested_edit(params: &Value) -> Result<lsp_types::WorkspaceEdit, String> {
    let edit = params
        .get("edit")
        .cloned()
        .ok_or_else(|| "the request has no `edit`".to_string())?;
    serde_json::from_value(edit).map_err(|e| format!("malformed workspace edit: {e}"))
}
