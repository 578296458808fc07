//! Pacing of `panel_key` frames, per panel (docs/extensions.md, Panels).
//!
//! The Go SDK handles every frame it reads on its own goroutine, so keys
//! written back to back reach a Go extension's panel handler in random
//! order: text typed faster than the panel redraws comes out with letters
//! swapped. The host therefore keeps one key in flight per panel. The next
//! key is written when the extension sends a frame for that panel
//! (`panel_render` or `open_panel` with its id) or when the pace
//! ([`Timeouts::panel_key_pace`](crate::Timeouts), 50 ms) has passed since
//! the previous one, whichever comes first; the others wait in order.
//!
//! Closing a panel from the front end never waits: the queued keys are
//! written at once, in order, then `panel_close`. An extension that closes
//! its own panel drops that panel's queue (nobody can see those keys).
//!
//! Every write happens under the pacer's lock, so a key released by a frame
//! and one released by the timer can never overtake each other.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// Keys waiting per panel at the most; later keys are dropped (and
/// counted) until the extension catches up.
pub(crate) const MAX_QUEUED_KEYS: usize = 4096;

/// One panel's keys.
#[derive(Default)]
struct Lane {
    /// When the key in flight was written; `None`: no key in flight.
    sent_at: Option<Instant>,
    /// Encoded `panel_key` lines not written yet, oldest first.
    queue: VecDeque<Vec<u8>>,
}

impl Lane {
    /// Writes the next queued key (it is then in flight) or, with none
    /// queued, ends the flight.
    fn release(&mut self, now: Instant, send: &mut impl FnMut(Vec<u8>)) {
        match self.queue.pop_front() {
            Some(frame) => {
                self.sent_at = Some(now);
                send(frame);
            }
            None => self.sent_at = None,
        }
    }

    fn idle(&self) -> bool {
        self.sent_at.is_none() && self.queue.is_empty()
    }
}

/// What [`Pacer::key`] did with a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Paced {
    /// Written now.
    Sent,
    /// Queued behind the key in flight.
    Queued,
    /// Dropped: [`MAX_QUEUED_KEYS`] already wait.
    Dropped,
}

/// The per-panel lanes of one extension, and the wake-up of its timer task.
#[derive(Default)]
pub(crate) struct Pacer {
    lanes: Mutex<HashMap<String, Lane>>,
    wake: Notify,
}

impl Pacer {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Lane>> {
        self.lanes.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A key for `panel`: written through `send` now when no key of that
    /// panel is in flight, else queued.
    pub fn key(
        &self,
        panel: &str,
        frame: Vec<u8>,
        now: Instant,
        mut send: impl FnMut(Vec<u8>),
    ) -> Paced {
        let mut lanes = self.lock();
        let lane = lanes.entry(panel.to_string()).or_default();
        if lane.sent_at.is_none() {
            lane.sent_at = Some(now);
            send(frame);
            drop(lanes);
            self.wake.notify_one();
            return Paced::Sent;
        }
        if lane.queue.len() >= MAX_QUEUED_KEYS {
            return Paced::Dropped;
        }
        lane.queue.push_back(frame);
        Paced::Queued
    }

    /// The extension sent a frame for `panel`: the key in flight is
    /// answered, the next one (if any) is written.
    pub fn drawn(&self, panel: &str, now: Instant, mut send: impl FnMut(Vec<u8>)) {
        let mut lanes = self.lock();
        let Some(lane) = lanes.get_mut(panel) else {
            return;
        };
        lane.release(now, &mut send);
        if lane.idle() {
            lanes.remove(panel);
        }
        drop(lanes);
        self.wake.notify_one();
    }

    /// The front end closed `panel`: every queued key is written now, in
    /// order, and the panel is forgotten. The caller writes `panel_close`
    /// next (under no lock: nothing of this panel can be queued any more).
    pub fn flush(&self, panel: &str, mut send: impl FnMut(Vec<u8>)) {
        let lane = self.lock().remove(panel);
        for frame in lane.into_iter().flat_map(|l| l.queue) {
            send(frame);
        }
    }

    /// The extension closed `panel` itself: its queued keys are dropped;
    /// returns how many.
    pub fn forget(&self, panel: &str) -> usize {
        self.lock().remove(panel).map_or(0, |l| l.queue.len())
    }

    /// Releases the next key of every panel whose key in flight is older
    /// than `pace`; returns when the next one runs out, if any is in flight.
    pub fn due(
        &self,
        now: Instant,
        pace: Duration,
        mut send: impl FnMut(Vec<u8>),
    ) -> Option<Instant> {
        let mut lanes = self.lock();
        let mut next: Option<Instant> = None;
        for lane in lanes.values_mut() {
            let Some(at) = lane.sent_at else { continue };
            if at + pace <= now {
                lane.release(now, &mut send);
            }
            if let Some(at) = lane.sent_at {
                let end = at + pace;
                next = Some(next.map_or(end, |n| n.min(end)));
            }
        }
        lanes.retain(|_, l| !l.idle());
        next
    }

    /// Waits until a key is written or a lane changes.
    pub async fn changed(&self) {
        self.wake.notified().await;
    }

    /// Wakes the timer task (e.g. to let it see the extension is gone).
    pub fn wake(&self) {
        self.wake.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(s: &str) -> Vec<u8> {
        s.as_bytes().to_vec()
    }

    #[test]
    fn one_key_in_flight_per_panel() {
        let p = Pacer::default();
        let pace = Duration::from_millis(50);
        let t0 = Instant::now();
        let mut out = Vec::new();
        for key in ["a", "b", "c"] {
            p.key("p", k(key), t0, |f| out.push(f));
        }
        // Another panel has its own lane.
        assert_eq!(p.key("q", k("x"), t0, |f| out.push(f)), Paced::Sent);
        assert_eq!(out, [k("a"), k("x")]);
        p.drawn("p", t0, |f| out.push(f));
        assert_eq!(out, [k("a"), k("x"), k("b")]);
        // Nothing ran out yet; the next deadline is the pace after `t0`.
        assert_eq!(p.due(t0, pace, |f| out.push(f)), Some(t0 + pace));
        let later = t0 + pace;
        assert_eq!(p.due(later, pace, |f| out.push(f)), Some(later + pace));
        assert_eq!(out, [k("a"), k("x"), k("b"), k("c")]);
        // `q` ended its flight with nothing queued and is gone.
        assert_eq!(p.lock().len(), 1);
        assert_eq!(p.due(later + pace, pace, |f| out.push(f)), None);
        assert!(p.lock().is_empty());
    }

    #[test]
    fn close_flushes_in_order_and_extension_close_drops() {
        let p = Pacer::default();
        let t0 = Instant::now();
        let mut out = Vec::new();
        for key in ["a", "b", "c"] {
            p.key("p", k(key), t0, |f| out.push(f));
        }
        p.flush("p", |f| out.push(f));
        assert_eq!(out, [k("a"), k("b"), k("c")]);
        for key in ["d", "e", "f"] {
            p.key("p", k(key), t0, |f| out.push(f));
        }
        assert_eq!(p.forget("p"), 2);
        assert_eq!(out.len(), 4);
        // A frame for a panel without keys does nothing.
        p.drawn("p", t0, |f| out.push(f));
        assert_eq!(out.len(), 4);
    }

    #[test]
    fn the_queue_is_bounded() {
        let p = Pacer::default();
        let t0 = Instant::now();
        let mut sent = 0;
        for _ in 0..=MAX_QUEUED_KEYS {
            p.key("p", k("a"), t0, |_| sent += 1);
        }
        assert_eq!(sent, 1);
        assert_eq!(p.key("p", k("z"), t0, |_| sent += 1), Paced::Dropped);
    }
}
