//! Holding the servers' first start (`zut -p`): a server's first start
//! waits until the gate opens, or until its hold passes. The print modes
//! open it when their first model request is being sent (the forks and the
//! servers' own start-up then no longer compete with that request for the
//! cores), and anything that waits for a server opens it at once. Restarts
//! never wait.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;

#[derive(Default)]
struct Inner {
    open: AtomicBool,
    notify: Notify,
}

/// The gate (cheap to clone). A manager started without a hold has one
/// that is open from the start.
#[derive(Clone, Default)]
pub(crate) struct StartGate {
    inner: Arc<Inner>,
    /// `None`: open from the start.
    hold: Option<Duration>,
}

impl StartGate {
    /// A gate that stays closed at most `hold`.
    pub(crate) fn held(hold: Duration) -> Self {
        Self {
            inner: Arc::default(),
            hold: Some(hold),
        }
    }

    /// Opens it (idempotent).
    pub(crate) fn open(&self) {
        if !self.inner.open.swap(true, Ordering::AcqRel) {
            self.inner.notify.notify_waiters();
        }
    }

    /// Resolves once the gate is open or its hold has passed.
    pub(crate) async fn passed(&self) {
        let Some(hold) = self.hold else { return };
        let notified = self.inner.notify.notified();
        tokio::pin!(notified);
        // Registered before the check, so an `open` in between is not lost.
        notified.as_mut().enable();
        if self.inner.open.load(Ordering::Acquire) {
            return;
        }
        let _ = tokio::time::timeout(hold, notified).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_held_gate_passes_when_opened_or_after_its_hold() {
        let open = StartGate::default();
        open.passed().await;

        let g = StartGate::held(Duration::from_secs(3600));
        let waiter = tokio::spawn({
            let g = g.clone();
            async move { g.passed().await }
        });
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        g.open();
        waiter.await.unwrap_or_else(|e| panic!("{e}"));
        g.passed().await;

        // Never opened: passes once its hold is over.
        StartGate::held(Duration::from_millis(20)).passed().await;
    }
}
