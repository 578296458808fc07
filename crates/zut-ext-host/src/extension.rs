//! One started extension: its identity, its outbox, its outstanding
//! requests, its readiness and what doctor should know about it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use tokio::sync::{oneshot, watch};
use zut_protocol::{CommandResponse, EventInterceptResponse, ToolResult};

use crate::diagnostics::{Readiness, Registration};
use crate::discovery::Scope;
use crate::log_file::ExtLog;
use crate::manifest::Manifest;
use crate::outbox::{Outbox, Pushed};
use crate::pacer::{Paced, Pacer};

/// Most diagnostics kept per extension; later ones are counted only.
const MAX_DIAGNOSTICS: usize = 200;
/// Most `[zut]` warning lines written to one extension's log per run;
/// later ones are counted only, so a misbehaving extension cannot make
/// the host grow its log without bound.
pub(crate) const MAX_LOGGED_WARNINGS: usize = 1000;

/// A reply to one of the host's requests.
#[derive(Debug)]
pub(crate) enum Reply {
    Command(CommandResponse),
    /// A tool result and, when it carries `details`, the byte length of
    /// the raw `details` JSON as the extension wrote it (the 256 KiB cap
    /// is measured on that, protocol §8.5).
    Tool(ToolResult, Option<usize>),
    Intercept(EventInterceptResponse),
    /// The extension went away before replying.
    Disconnected,
}

/// Which reply a pending request expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReplyKind {
    Command,
    Tool,
    Intercept,
}

impl Reply {
    fn kind(&self) -> Option<ReplyKind> {
        match self {
            Self::Command(_) => Some(ReplyKind::Command),
            Self::Tool(..) => Some(ReplyKind::Tool),
            Self::Intercept(_) => Some(ReplyKind::Intercept),
            Self::Disconnected => None,
        }
    }
}

/// Mutable per-extension bookkeeping.
#[derive(Debug, Default)]
pub(crate) struct ExtState {
    pub events: Vec<String>,
    pub intercepts: Vec<String>,
    pub commands: Vec<Registration>,
    pub tools: Vec<Registration>,
    pub diagnostics: Vec<String>,
    pub suppressed_diagnostics: usize,
    /// Warning lines written to the log (see [`MAX_LOGGED_WARNINGS`]).
    pub logged_warnings: usize,
    /// Warning lines not written because the budget was spent.
    pub unlogged_warnings: usize,
    /// One-way frames dropped because the extension does not read stdin.
    pub dropped_events: u64,
    /// `dropped_events` when the last drop line was logged.
    pub dropped_events_logged: u64,
    pub replayed_session_event: bool,
    /// The number ([`crate::shared::SessionMemory::seq`]) of the last
    /// session event sent, live or replayed.
    pub session_seq: u64,
}

/// A started (or theme-only) extension.
pub(crate) struct Extension {
    /// Position in load order; lower wins conflicts and is consulted first.
    pub idx: usize,
    pub name: String,
    pub manifest: Manifest,
    pub dir: PathBuf,
    pub scope: Scope,
    pub log: Option<ExtLog>,
    /// Process group id (= child pid); `None` for theme-only extensions.
    pub pgid: Option<u32>,
    pub theme_only: bool,
    /// Bundled `SKILL.md` files that passed the path checks.
    pub skill_files: Vec<PathBuf>,
    pub outbox: Outbox,
    /// `panel_key` pacing, per panel.
    pub pacer: Pacer,
    pending: Mutex<HashMap<String, (ReplyKind, oneshot::Sender<Reply>)>>,
    pub state: Mutex<ExtState>,
    pub readiness: watch::Sender<Readiness>,
    alive: AtomicBool,
    /// `Some(description)` once the process has exited.
    pub exit: watch::Sender<Option<String>>,
    /// When the last frame (or end of stream) was read, in milliseconds
    /// since `epoch`.
    last_activity_ms: AtomicU64,
    epoch: tokio::time::Instant,
}

impl Extension {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        idx: usize,
        manifest: Manifest,
        dir: PathBuf,
        scope: Scope,
        log: Option<ExtLog>,
        pgid: Option<u32>,
        theme_only: bool,
    ) -> Self {
        let readiness = if theme_only {
            Readiness::Ready
        } else {
            Readiness::NotReady
        };
        let skills = manifest.bundled_skills(&dir);
        let ext = Self {
            idx,
            name: manifest.name.clone(),
            manifest,
            dir,
            scope,
            log,
            pgid,
            theme_only,
            skill_files: skills.files,
            outbox: Outbox::default(),
            pacer: Pacer::default(),
            pending: Mutex::new(HashMap::new()),
            state: Mutex::new(ExtState::default()),
            readiness: watch::Sender::new(readiness),
            alive: AtomicBool::new(!theme_only),
            exit: watch::Sender::new(None),
            last_activity_ms: AtomicU64::new(0),
            epoch: tokio::time::Instant::now(),
        };
        // Skill path problems never fail the extension: doctor warnings
        // (and log lines) prefixed `skill: `.
        for e in skills.errors {
            ext.warn(format!("skill: {e}"));
        }
        ext
    }

    /// Records that something was read from the extension just now.
    pub fn touch(&self) {
        let ms = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_activity_ms.store(ms, Ordering::Relaxed);
    }

    /// When something was last read from the extension.
    pub fn last_activity(&self) -> tokio::time::Instant {
        self.epoch + std::time::Duration::from_millis(self.last_activity_ms.load(Ordering::Relaxed))
    }

    pub fn state(&self) -> std::sync::MutexGuard<'_, ExtState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn is_alive(&self) -> bool {
        self.alive.load(Ordering::Acquire)
    }

    /// Marks the extension disconnected; returns whether it was alive.
    pub fn mark_dead(&self) -> bool {
        let was = self.alive.swap(false, Ordering::AcqRel);
        // Lets the pacer task see it and end.
        self.pacer.wake();
        was
    }

    pub fn readiness(&self) -> Readiness {
        *self.readiness.borrow()
    }

    /// Settles readiness if still pending; returns whether it changed.
    pub fn settle(&self, to: Readiness) -> bool {
        self.readiness.send_if_modified(|r| {
            if r.is_settled() {
                false
            } else {
                *r = to;
                true
            }
        })
    }

    /// Records a doctor diagnostic (bounded).
    pub fn diagnose(&self, msg: impl Into<String>) {
        let mut st = self.state();
        if st.diagnostics.len() < MAX_DIAGNOSTICS {
            st.diagnostics.push(msg.into());
        } else {
            st.suppressed_diagnostics += 1;
        }
    }

    /// Records a diagnostic and the same text as a `[zut]` log line. Both
    /// are bounded: past [`MAX_DIAGNOSTICS`] / [`MAX_LOGGED_WARNINGS`] they
    /// are only counted (the counts show in doctor and at disconnect).
    pub fn warn(&self, msg: impl Into<String>) {
        let msg = msg.into();
        self.log_warning(&msg);
        self.diagnose(msg);
    }

    /// Like [`Extension::warn`] for the few once-per-process events that
    /// must never be lost to a spent budget (why the extension was
    /// disconnected).
    pub fn warn_always(&self, msg: impl Into<String>) {
        let msg = msg.into();
        self.log_marker(&msg);
        self.state().diagnostics.push(msg);
    }

    /// Appends a `[zut]` warning line within the per-extension budget.
    pub fn log_warning(&self, text: &str) {
        let verdict = {
            let mut st = self.state();
            if st.logged_warnings < MAX_LOGGED_WARNINGS {
                st.logged_warnings += 1;
                Some(st.logged_warnings == MAX_LOGGED_WARNINGS)
            } else {
                st.unlogged_warnings += 1;
                None
            }
        };
        if let Some(last) = verdict {
            self.log_marker(text);
            if last {
                self.log_marker(&format!(
                    "{MAX_LOGGED_WARNINGS} warnings logged; further ones are counted, not logged"
                ));
            }
        }
    }

    /// Log lines summarising what was only counted: warnings past the
    /// budget and dropped event frames not yet reported. Written when the
    /// extension disconnects.
    pub fn log_counters(&self) {
        let (unlogged, dropped) = {
            let mut st = self.state();
            let dropped =
                (st.dropped_events > st.dropped_events_logged).then_some(st.dropped_events);
            st.dropped_events_logged = st.dropped_events;
            (std::mem::take(&mut st.unlogged_warnings), dropped)
        };
        if unlogged > 0 {
            self.log_marker(&format!("{unlogged} more warnings were not logged"));
        }
        if let Some(n) = dropped {
            self.log_marker(&format!("{n} event frames dropped in total"));
        }
    }

    pub fn log_marker(&self, text: &str) {
        if let Some(log) = &self.log {
            log.marker(text);
        }
    }

    pub fn subscribed(&self, event: &str) -> bool {
        self.state().events.iter().any(|e| e == event)
    }

    pub fn intercepts(&self, event: &str) -> bool {
        self.state().intercepts.iter().any(|e| e == event)
    }

    /// Registers an outstanding request and returns the receiver of its reply.
    pub fn expect_reply(&self, id: &str, kind: ReplyKind) -> oneshot::Receiver<Reply> {
        let (tx, rx) = oneshot::channel();
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        if self.is_alive() {
            pending.insert(id.to_string(), (kind, tx));
        } else {
            let _ = tx.send(Reply::Disconnected);
        }
        rx
    }

    /// Forgets an outstanding request (timeout or cancellation).
    pub fn forget(&self, id: &str) {
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
    }

    /// Delivers a reply; replies to unknown ids or of the wrong kind are
    /// ignored (late replies after a timeout, duplicates).
    pub fn deliver(&self, id: &str, reply: Reply) {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        if pending
            .get(id)
            .is_some_and(|(k, _)| Some(*k) == reply.kind())
        {
            if let Some((_, tx)) = pending.remove(id) {
                let _ = tx.send(reply);
            }
        }
    }

    /// Fails every outstanding request at once (the extension is gone).
    pub fn fail_all_pending(&self) {
        let drained: Vec<_> = {
            let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            pending.drain().collect()
        };
        for (_, (_, tx)) in drained {
            let _ = tx.send(Reply::Disconnected);
        }
    }

    /// Queues a one-way frame, counting drops. Drops are aggregated, not
    /// reported one by one: doctor shows one diagnostic with the count
    /// ([`dropped_events_diagnostic`]) and the log gets a line
    /// when the count reaches 1, 2, 4, 8, … (so a flood of drops costs a
    /// logarithmic number of lines), plus the total at disconnect.
    pub fn send_one_way(&self, bytes: Vec<u8>) {
        match self.outbox.push_one_way(bytes) {
            Ok(Pushed::Queued) | Err(_) => {}
            Ok(Pushed::DroppedOldest) => {
                let log = {
                    let mut st = self.state();
                    st.dropped_events += 1;
                    let n = st.dropped_events;
                    n.is_power_of_two().then(|| {
                        st.dropped_events_logged = n;
                        n
                    })
                };
                if let Some(n) = log {
                    self.log_marker(&format!(
                        "event frames dropped: {n} so far; the extension is not reading its stdin (at most {} queued)",
                        zut_protocol::limits::EVENT_QUEUE
                    ));
                }
            }
        }
    }

    /// Writes a `panel_key` line for `panel` now, or queues it behind the
    /// key of that panel still in flight (see [`crate::pacer`]).
    pub fn panel_key(&self, panel: &str, frame: Vec<u8>) {
        let now = tokio::time::Instant::now();
        if self.pacer.key(panel, frame, now, |f| self.send_one_way(f)) == Paced::Dropped {
            self.log_warning(&format!(
                "panel_key for {panel:?} dropped: {} keys already wait for the extension to draw the panel",
                crate::pacer::MAX_QUEUED_KEYS
            ));
        }
    }

    /// The extension sent a frame for `panel`: its next queued key goes.
    pub fn panel_drawn(&self, panel: &str) {
        let now = tokio::time::Instant::now();
        self.pacer.drawn(panel, now, |f| self.send_one_way(f));
    }

    /// The front end closed `panel`: the queued keys, then `close` (the
    /// encoded `panel_close`), are written at once.
    pub fn close_panel(&self, panel: &str, close: Vec<u8>) {
        self.pacer.flush(panel, |f| self.send_one_way(f));
        self.send_one_way(close);
    }

    /// Releases the keys whose pace ran out until the extension is gone.
    pub async fn run_pacer(&self, pace: std::time::Duration) {
        while self.is_alive() {
            let now = tokio::time::Instant::now();
            match self.pacer.due(now, pace, |f| self.send_one_way(f)) {
                Some(at) => {
                    tokio::select! {
                        () = self.pacer.changed() => {}
                        () = tokio::time::sleep_until(at) => {}
                    }
                }
                None => self.pacer.changed().await,
            }
        }
    }

    /// Log path for reports.
    pub fn log_path(&self) -> Option<PathBuf> {
        self.log.as_ref().map(|l| l.path().to_path_buf())
    }
}

/// The aggregated doctor diagnostic for `n` dropped event frames.
pub(crate) fn dropped_events_diagnostic(n: u64) -> Option<String> {
    (n > 0).then(|| {
        format!(
            "event frames dropped: {n}; the extension is not reading its stdin (at most {} queued, oldest dropped first)",
            zut_protocol::limits::EVENT_QUEUE
        )
    })
}

/// Removes a pending entry when a request future is dropped or finishes.
pub(crate) struct PendingGuard<'a> {
    pub ext: &'a Extension,
    pub id: String,
}

impl Drop for PendingGuard<'_> {
    /// The caller stopped waiting (answered, timed out, cancelled): forget
    /// the request and, if its frame was never written, withdraw it.
    fn drop(&mut self) {
        self.ext.forget(&self.id);
        self.ext.outbox.withdraw(&self.id);
    }
}
