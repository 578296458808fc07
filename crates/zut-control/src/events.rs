//! The controller's one ordered event stream: agent events, extension UI
//! frames and job markers, in the order they happened.
//!
//! The producer side never blocks (the agent's sink is synchronous). When
//! the consumer falls behind by [`COALESCE_AFTER`] items, consecutive
//! `text_delta`s (and `tool_use_args` / `tool_progress` of the same call)
//! are merged into the last queued one, so a consumer that stops reading
//! costs memory proportional to the text, not to the number of deltas;
//! extension frames wait (backpressure on the extension) instead.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;
use zut_ext_host::UiEvent;

use zut_types::event::AgentEvent;

use crate::jobs::{JobId, JobKind};

/// Queued items beyond which deltas are merged and extension frames wait.
pub const COALESCE_AFTER: usize = 4096;

/// One item of the controller's stream.
#[derive(Debug, Clone, PartialEq)]
pub enum ControllerEvent {
    /// An agent event (rpc.md §5), or a command's `ext_display` /
    /// `ext_insert`.
    Agent(AgentEvent),
    /// An extension UI frame, raw (a front end converts it with
    /// [`AgentEvent::from_ui`] or [`AgentEvent::from_ui_extended`], or draws
    /// it). A command's `open_panel` action arrives here as `OpenPanel`.
    Ui(UiEvent),
    /// A queued job starts now: its events follow.
    JobStarted {
        /// The job.
        job: JobId,
        /// What it is.
        kind: JobKind,
        /// The caller's tag given when the job was queued (RPC: the
        /// request's id and command), so a front end can answer the request
        /// exactly when its job starts.
        tag: Option<String>,
    },
    /// A job finished: all its events precede this marker.
    JobFinished {
        /// The job.
        job: JobId,
    },
    /// The extensions the controller started are up (see
    /// the controller's start): their commands, tools and
    /// interceptors are registered now.
    ExtensionsReady {
        /// Load errors, one text each.
        errors: Vec<String>,
    },
    /// A front end's own note, pushed with the controller's `note`:
    /// delivered after everything pushed before it (RPC uses it to write a
    /// command's response after the events the command produced).
    Note(String),
    /// An event of one of the conversation's subagents (docs/subagents.md):
    /// its progress, tagged with its id. Front ends write it with
    /// [`AgentEvent::write_json_tagged`].
    Subagent {
        /// The child's id (`sa-<n>-<random>`).
        id: String,
        /// Its event.
        event: AgentEvent,
    },
}

#[derive(Default)]
struct Inner {
    items: VecDeque<ControllerEvent>,
    closed: bool,
    producers: usize,
}

/// The producing side of the stream, shared by a controller's producers
/// (its worker, the extension UI drain, `note`); the one consumer holds the
/// [`EventStream`].
#[derive(Clone, Default)]
pub struct EventQueue {
    inner: Arc<(Mutex<Inner>, Notify, Notify)>,
}

impl EventQueue {
    /// A queue that closes after `producers` calls of
    /// [`EventQueue::producer_done`].
    pub fn new(producers: usize) -> Self {
        let q = Self::default();
        q.lock().producers = producers;
        q
    }

    /// One producer finished; the last one closes the queue.
    pub fn producer_done(&self) {
        let last = {
            let mut q = self.lock();
            q.producers = q.producers.saturating_sub(1);
            q.producers == 0
        };
        if last {
            self.close();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends an item (never blocks; merges deltas when far behind).
    pub fn push(&self, ev: ControllerEvent) {
        {
            let mut q = self.lock();
            if q.closed {
                return;
            }
            if q.items.len() >= COALESCE_AFTER {
                if let (Some(ControllerEvent::Agent(last)), ControllerEvent::Agent(new)) =
                    (q.items.back_mut(), &ev)
                {
                    if merge(last, new) {
                        return;
                    }
                }
                // A child's deltas merge the same way.
                if let (
                    Some(ControllerEvent::Subagent { id, event: last }),
                    ControllerEvent::Subagent {
                        id: id2,
                        event: new,
                    },
                ) = (q.items.back_mut(), &ev)
                {
                    if id == id2 && merge(last, new) {
                        return;
                    }
                }
            }
            q.items.push_back(ev);
        }
        self.inner.1.notify_one();
    }

    /// Appends an extension frame, first waiting while the consumer is
    /// [`COALESCE_AFTER`] items behind.
    pub async fn push_waiting(&self, ev: ControllerEvent) {
        loop {
            let room = self.inner.2.notified();
            {
                let q = self.lock();
                if q.closed || q.items.len() < COALESCE_AFTER {
                    break;
                }
            }
            room.await;
        }
        self.push(ev);
    }

    /// No more items will be produced: the stream ends after the queued ones.
    pub fn close(&self) {
        self.lock().closed = true;
        self.inner.1.notify_waiters();
        self.inner.1.notify_one();
        self.inner.2.notify_waiters();
    }
}

/// Merges `new` into `last` when both are deltas of the same stream.
fn merge(last: &mut AgentEvent, new: &AgentEvent) -> bool {
    match (last, new) {
        (AgentEvent::TextDelta { delta }, AgentEvent::TextDelta { delta: more }) => {
            delta.push_str(more);
            true
        }
        (
            AgentEvent::ToolUseArgs { id, delta },
            AgentEvent::ToolUseArgs {
                id: id2,
                delta: more,
            },
        ) if id == id2 => {
            delta.push_str(more);
            true
        }
        (
            AgentEvent::ToolProgress { id, text },
            AgentEvent::ToolProgress {
                id: id2,
                text: more,
            },
        ) if id == id2 => {
            text.push_str(more);
            true
        }
        _ => false,
    }
}

/// The receiving end of the controller's event stream (one per controller).
pub struct EventStream {
    queue: EventQueue,
}

impl EventStream {
    /// The stream reading `queue`.
    pub fn new(queue: EventQueue) -> Self {
        Self { queue }
    }

    /// Waits for at least one item, then moves every queued item to `out`
    /// (in order). Returns `false` once the controller is shut down and
    /// everything was delivered.
    pub async fn next_batch(&mut self, out: &mut Vec<ControllerEvent>) -> bool {
        loop {
            let more = self.queue.inner.1.notified();
            {
                let mut q = self.queue.lock();
                if !q.items.is_empty() {
                    out.extend(q.items.drain(..));
                    drop(q);
                    self.queue.inner.2.notify_waiters();
                    return true;
                }
                if q.closed {
                    return false;
                }
            }
            more.await;
        }
    }

    /// The next item, or `None` once the controller is shut down and
    /// everything was delivered.
    pub async fn next(&mut self) -> Option<ControllerEvent> {
        loop {
            let more = self.queue.inner.1.notified();
            {
                let mut q = self.queue.lock();
                if let Some(ev) = q.items.pop_front() {
                    drop(q);
                    self.queue.inner.2.notify_waiters();
                    return Some(ev);
                }
                if q.closed {
                    return None;
                }
            }
            more.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delta(s: &str) -> ControllerEvent {
        ControllerEvent::Agent(AgentEvent::TextDelta { delta: s.into() })
    }

    #[tokio::test]
    async fn deltas_merge_only_when_far_behind() {
        let q = EventQueue::default();
        let mut stream = EventStream::new(q.clone());
        q.push(delta("a"));
        q.push(delta("b"));
        let mut out = Vec::new();
        assert!(stream.next_batch(&mut out).await);
        assert_eq!(out, vec![delta("a"), delta("b")]);
        for _ in 0..COALESCE_AFTER {
            q.push(ControllerEvent::Agent(AgentEvent::Done));
        }
        q.push(delta("x"));
        for _ in 0..10_000 {
            q.push(delta("y"));
        }
        q.push(ControllerEvent::Agent(AgentEvent::Done));
        q.close();
        out.clear();
        assert!(stream.next_batch(&mut out).await);
        assert_eq!(out.len(), COALESCE_AFTER + 2);
        assert_eq!(
            out[COALESCE_AFTER],
            delta(&format!("x{}", "y".repeat(10_000)))
        );
        assert!(!stream.next_batch(&mut out).await);
    }

    #[tokio::test]
    async fn ui_frames_wait_for_room() {
        let q = EventQueue::default();
        let mut stream = EventStream::new(q.clone());
        for _ in 0..COALESCE_AFTER {
            q.push(ControllerEvent::Agent(AgentEvent::Done));
        }
        let ui = ControllerEvent::Ui(UiEvent {
            extension: "e".into(),
            kind: zut_ext_host::UiKind::ClearNotes,
        });
        let waiting = tokio::spawn({
            let q = q.clone();
            let ui = ui.clone();
            async move { q.push_waiting(ui).await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        let mut out = Vec::new();
        stream.next_batch(&mut out).await;
        waiting.await.unwrap();
        assert_eq!(stream.next().await, Some(ui));
    }
}
