//! A provider's rate-limit pause, shared by every clone of a [`Provider`]
//! (a conversation and its subagents): when one request gets a 429, the
//! others wait out the same delay before their next attempt instead of
//! each finding the limit on its own.
//!
//! [`Provider`]: crate::Provider

use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// When requests may be sent again.
#[derive(Debug, Default)]
pub(crate) struct RateGate {
    until: Mutex<Option<Instant>>,
}

impl RateGate {
    /// Holds every request back for `delay` from now (a later hold wins).
    pub(crate) fn hold(&self, delay: Duration) {
        let until = Instant::now() + delay;
        let mut g = self.until.lock().unwrap_or_else(|e| e.into_inner());
        if g.is_none_or(|u| u < until) {
            *g = Some(until);
        }
    }

    /// How long a request must still wait, if at all.
    pub(crate) fn remaining(&self) -> Option<Duration> {
        let g = self.until.lock().unwrap_or_else(|e| e.into_inner());
        g.and_then(|u| u.checked_duration_since(Instant::now()))
            .filter(|d| !d.is_zero())
    }
}
