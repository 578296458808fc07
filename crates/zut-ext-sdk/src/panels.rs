//! Routing of `panel_key` / `panel_close` to per-panel callbacks.
//!
//! Each panel id gets its own worker thread (started on first use), so
//! callbacks for one panel run in arrival order, off the reader thread:
//! a callback may block (or unblock a tool handler) without stalling the
//! rest of the protocol.

use std::collections::HashMap;
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;

use zut_protocol::{PanelContent, PanelKey};

use crate::runtime::guarded;

/// Callback for keys pressed while a panel is focused.
pub(crate) type KeyFn = dyn Fn(&PanelKey) + Send + Sync;
/// Callback for a panel closed by the user.
pub(crate) type CloseFn = dyn Fn() + Send + Sync;

type Job = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Slot {
    on_key: Option<Arc<KeyFn>>,
    on_close: Option<Arc<CloseFn>>,
    queue: Option<Sender<Job>>,
}

/// Panel callbacks by panel id, plus their serial workers.
#[derive(Default)]
pub(crate) struct PanelRouter {
    slots: Mutex<HashMap<String, Slot>>,
}

impl PanelRouter {
    /// Sets (or replaces) the key callback of `panel_id`.
    pub(crate) fn set_key(&self, panel_id: String, callback: Arc<KeyFn>) {
        self.lock().entry(panel_id).or_default().on_key = Some(callback);
    }

    /// Sets (or replaces) the close callback of `panel_id`.
    pub(crate) fn set_close(&self, panel_id: String, callback: Arc<CloseFn>) {
        self.lock().entry(panel_id).or_default().on_close = Some(callback);
    }

    /// Queues the key callback for `key.panel_id`. Returns `false` when no
    /// callback is registered.
    pub(crate) fn key(&self, key: PanelKey) -> bool {
        let mut slots = self.lock();
        let Some(slot) = slots.get_mut(&key.panel_id) else {
            return false;
        };
        let Some(callback) = slot.on_key.clone() else {
            return false;
        };
        let label = format!("panel {} key handler", key.panel_id);
        let id = key.panel_id.clone();
        let job: Job = Box::new(move || guarded(&label, || callback(&key)));
        let unsent = enqueue(slot, &id, job);
        drop(slots);
        if let Some(job) = unsent {
            job();
        }
        true
    }

    /// Queues the close callback of `panel_id`. Returns `false` when no
    /// callback is registered.
    pub(crate) fn close(&self, panel_id: &str) -> bool {
        let mut slots = self.lock();
        let Some(slot) = slots.get_mut(panel_id) else {
            return false;
        };
        let Some(callback) = slot.on_close.clone() else {
            return false;
        };
        let label = format!("panel {panel_id} close handler");
        let job: Job = Box::new(move || guarded(&label, || callback()));
        let unsent = enqueue(slot, panel_id, job);
        drop(slots);
        if let Some(job) = unsent {
            job();
        }
        true
    }

    /// Lets every worker finish its queue and exit.
    pub(crate) fn stop_workers(&self) {
        for slot in self.lock().values_mut() {
            slot.queue = None;
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Slot>> {
        self.slots
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Sends `job` to the slot's worker, starting one if needed. If no thread
/// can be started the job is handed back so the caller runs it inline
/// (after releasing the lock).
fn enqueue(slot: &mut Slot, panel_id: &str, job: Job) -> Option<Job> {
    let job = match slot.queue.as_ref() {
        Some(queue) => match queue.send(job) {
            Ok(()) => return None,
            Err(mpsc::SendError(job)) => job,
        },
        None => job,
    };
    let (queue, jobs) = mpsc::channel::<Job>();
    let spawned = thread::Builder::new()
        .name(format!("zut-panel-{panel_id}"))
        .spawn(move || {
            for job in jobs {
                job();
            }
        });
    match spawned {
        Ok(_) => {
            // The receiver is alive in the new thread, so this cannot fail;
            // if it somehow did, the job is simply dropped.
            let _ = queue.send(job);
            slot.queue = Some(queue);
            None
        }
        Err(_) => Some(job),
    }
}

/// Builds panel content: `panel("todos", "Todos", lines, "esc close")`.
pub fn panel<I, S>(
    id: impl Into<String>,
    title: impl Into<String>,
    lines: I,
    footer: impl Into<String>,
) -> PanelContent
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    PanelContent {
        id: id.into(),
        title: title.into(),
        lines: lines.into_iter().map(Into::into).collect(),
        footer: footer.into(),
    }
}
