//! A small cached thread pool: the threads that take turns reading the
//! host connection and running request handlers (see [`crate::leader`]).
//!
//! A leader hands the reading role on by submitting a "lead" job here
//! just before it runs a request's handler. Starting an OS thread costs
//! tens of microseconds, about as much as the rest of a round trip, so
//! finished workers are kept and reused:
//!
//! - a job goes to an idle worker if there is one (handed over directly,
//!   no shared queue), otherwise a new worker is started for it, so the
//!   number of jobs running at once is never limited and a slow handler
//!   never delays another request;
//! - idle workers are reused most-recently-idle first; a worker idle for
//!   [`KEEP_ALIVE`] exits, and at most [`MAX_IDLE`] are kept;
//! - if no thread can be started, [`Pool::try_execute`] gives the job
//!   back, so the caller can run it rather than lose it;
//! - a worker sleeps on a condition variable (a futex). The wake-up of the
//!   next leader then tends to go to the other, idle CPU, so it does not
//!   compete with the handler the waker runs next. (An earlier version
//!   parked workers on socket pairs, whose wake-ups run the woken thread on
//!   the waker's CPU; with leader/follower both measured the same within
//!   noise, so the simpler one stayed);
//! - [`Pool::close`] (also on drop) lets running jobs finish and makes
//!   every idle worker exit.
//!
//! Jobs catch their own panics; a panic escaping a job anyway is
//! contained to that job and the worker keeps serving.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

/// How long an idle worker waits for a job before exiting.
pub(crate) const KEEP_ALIVE: Duration = Duration::from_secs(30);
/// Most idle workers kept; a worker finishing a job when this many are
/// already idle exits.
pub(crate) const MAX_IDLE: usize = 16;

/// A unit of work for a worker.
pub(crate) type Job = Box<dyn FnOnce() + Send>;

/// One worker's hand-over slot. The slot is the source of truth; the
/// parker only wakes the worker up to look at it (spurious wake-ups are
/// harmless).
struct Worker {
    job: Mutex<Option<Job>>,
    parker: Parker,
}

/// Puts a worker to sleep until woken or a timeout passes: a flag and a
/// condition variable (a futex wake-up on Linux).
struct Parker {
    woken: Mutex<bool>,
    cv: Condvar,
}

impl Parker {
    fn new() -> Self {
        Self {
            woken: Mutex::new(false),
            cv: Condvar::new(),
        }
    }

    fn unpark(&self) {
        *lock(&self.woken) = true;
        self.cv.notify_one();
    }

    /// Sleeps until woken or `timeout` passes; `false` on timeout. A
    /// wake-up sent before parking is not lost.
    fn park(&self, timeout: Duration) -> bool {
        let guard = lock(&self.woken);
        let (mut guard, _) = self
            .cv
            .wait_timeout_while(guard, timeout, |woken| !*woken)
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        std::mem::take(&mut *guard)
    }
}

struct Inner {
    /// Idle workers, most recently idle last. Lock order: `idle`, then a
    /// worker's `job`.
    idle: Mutex<Vec<Arc<Worker>>>,
    closed: AtomicBool,
    /// Start no threads (tests of the fallback).
    #[cfg(test)]
    refuse_threads: bool,
    keep_alive: Duration,
    max_idle: usize,
}

/// The pool. Cheap to share by reference; closing happens on drop.
pub(crate) struct Pool {
    inner: Arc<Inner>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Jobs run outside every lock, so a poisoned lock only means a panic
    // in this module's own short critical sections: keep going.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Pool {
    /// A pool with the default [`KEEP_ALIVE`] and [`MAX_IDLE`].
    pub(crate) fn new() -> Self {
        Self::with_limits(KEEP_ALIVE, MAX_IDLE)
    }

    /// A pool with explicit limits (tests).
    pub(crate) fn with_limits(keep_alive: Duration, max_idle: usize) -> Self {
        Self {
            inner: Arc::new(Inner {
                idle: Mutex::new(Vec::new()),
                closed: AtomicBool::new(false),
                #[cfg(test)]
                refuse_threads: false,
                keep_alive,
                max_idle,
            }),
        }
    }

    /// Runs `job` on a worker thread: an idle one if any, else a new one.
    /// Gives the job back if no thread could be started, so the caller
    /// can run it itself rather than lose it.
    pub(crate) fn try_execute(&self, job: Job) -> Result<(), Job> {
        {
            let mut idle = lock(&self.inner.idle);
            if let Some(worker) = idle.pop() {
                // Set under the `idle` lock: a worker that timed out
                // re-checks its slot under the same lock before exiting,
                // so the job cannot be stranded.
                *lock(&worker.job) = Some(job);
                drop(idle);
                worker.parker.unpark();
                return Ok(());
            }
        }
        self.start_worker(job)
    }

    /// A pool that never starts a thread, as if the OS refused (tests).
    #[cfg(test)]
    pub(crate) fn refusing_threads() -> Self {
        let pool = Self::new();
        let inner = Inner {
            idle: Mutex::new(Vec::new()),
            closed: AtomicBool::new(false),
            refuse_threads: true,
            keep_alive: pool.inner.keep_alive,
            max_idle: pool.inner.max_idle,
        };
        Self {
            inner: Arc::new(inner),
        }
    }

    /// Number of idle workers (tests).
    #[cfg(test)]
    pub(crate) fn idle_workers(&self) -> usize {
        lock(&self.inner.idle).len()
    }

    /// Lets running jobs finish, then their workers exit; idle workers
    /// exit now. Jobs submitted afterwards still run.
    pub(crate) fn close(&self) {
        self.inner.closed.store(true, Ordering::Release);
        let idle = std::mem::take(&mut *lock(&self.inner.idle));
        for worker in idle {
            worker.parker.unpark();
        }
    }

    fn start_worker(&self, job: Job) -> Result<(), Job> {
        #[cfg(test)]
        if self.inner.refuse_threads {
            return Err(job);
        }
        // The job travels in a shared slot so that a failed spawn can take
        // it back and return it instead of dropping the request.
        let slot = Arc::new(Mutex::new(Some(job)));
        let theirs = Arc::clone(&slot);
        let inner = Arc::clone(&self.inner);
        let spawned = thread::Builder::new()
            .name("zut-ext-worker".into())
            .spawn(move || {
                let first = lock(&theirs).take();
                if let Some(first) = first {
                    work(&inner, first);
                }
            });
        match spawned {
            Ok(_) => Ok(()),
            Err(_) => match lock(&slot).take() {
                Some(job) => Err(job),
                // Cannot happen (the thread never started), but the job
                // is not ours to run twice either way.
                None => Ok(()),
            },
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.close();
    }
}

fn run(job: Job) {
    // Contain a panic that escaped the job's own handling.
    let _ = panic::catch_unwind(AssertUnwindSafe(job));
}

/// A worker's life: run a job, go idle, wait for the next one.
fn work(inner: &Inner, first: Job) {
    let me = Arc::new(Worker {
        job: Mutex::new(None),
        parker: Parker::new(),
    });
    let mut job = first;
    loop {
        run(job);
        match next_job(inner, &me) {
            Some(next) => job = next,
            None => return,
        }
    }
}

/// Parks `me` in the idle list until a job is handed over; `None` when the
/// worker should exit (pool closed, too many idle, or idle too long).
fn next_job(inner: &Inner, me: &Arc<Worker>) -> Option<Job> {
    {
        let mut idle = lock(&inner.idle);
        if inner.closed.load(Ordering::Acquire) || idle.len() >= inner.max_idle {
            return None;
        }
        idle.push(Arc::clone(me));
    }
    let deadline = Instant::now() + inner.keep_alive;
    loop {
        if let Some(job) = lock(&me.job).take() {
            return Some(job);
        }
        // `closed` is set before idle workers are woken, so a worker woken
        // by `close` sees it here.
        if inner.closed.load(Ordering::Acquire) {
            return leave(inner, me);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || !me.parker.park(left) {
            return leave(inner, me);
        }
    }
}

/// Removes `me` from the idle list, unless a job was handed over in the
/// meantime (checked under the `idle` lock, which `execute` holds while
/// handing over), in which case that job is returned.
fn leave(inner: &Inner, me: &Arc<Worker>) -> Option<Job> {
    let mut idle = lock(&inner.idle);
    if let Some(job) = lock(&me.job).take() {
        return Some(job);
    }
    idle.retain(|w| !Arc::ptr_eq(w, me));
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Instant;

    impl Pool {
        /// Runs `job` on a worker, or here if no thread can be started.
        fn execute(&self, job: impl FnOnce() + Send + 'static) {
            if let Err(job) = self.try_execute(Box::new(job)) {
                job();
            }
        }
    }

    #[test]
    fn workers_are_reused() {
        let pool = Pool::new();
        let (tx, rx) = mpsc::channel();
        let mut ids = std::collections::HashSet::new();
        for _ in 0..50 {
            let tx = tx.clone();
            pool.execute(move || {
                let _ = tx.send(thread::current().id());
            });
            ids.insert(rx.recv().unwrap());
            // Let the worker go idle before the next job.
            let until = Instant::now() + Duration::from_secs(5);
            while pool.idle_workers() == 0 && Instant::now() < until {
                thread::yield_now();
            }
        }
        assert_eq!(ids.len(), 1, "one worker served every sequential job");
    }

    #[test]
    fn a_blocked_job_never_delays_another() {
        let pool = Pool::new();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let (done_tx, done_rx) = mpsc::channel();
        let blocker_done = done_tx.clone();
        pool.execute(move || {
            let _ = release_rx.recv();
            let _ = blocker_done.send("blocker");
        });
        for _ in 0..20 {
            let done = done_tx.clone();
            pool.execute(move || {
                let _ = done.send("quick");
            });
        }
        for _ in 0..20 {
            assert_eq!(
                done_rx.recv_timeout(Duration::from_secs(5)).unwrap(),
                "quick"
            );
        }
        release_tx.send(()).unwrap();
        assert_eq!(
            done_rx.recv_timeout(Duration::from_secs(5)).unwrap(),
            "blocker"
        );
    }

    #[test]
    fn a_panicking_job_does_not_kill_its_worker() {
        let pool = Pool::new();
        pool.execute(|| panic!("boom"));
        let (tx, rx) = mpsc::channel();
        for i in 0..5 {
            let tx = tx.clone();
            pool.execute(move || {
                let _ = tx.send(i);
            });
        }
        let mut got: Vec<i32> = (0..5)
            .map(|_| rx.recv_timeout(Duration::from_secs(5)).unwrap())
            .collect();
        got.sort_unstable();
        assert_eq!(got, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn idle_workers_expire_and_are_capped() {
        let pool = Pool::with_limits(Duration::from_millis(300), 2);
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let release_rx = Arc::new(Mutex::new(release_rx));
        for _ in 0..5 {
            let rx = Arc::clone(&release_rx);
            pool.execute(move || {
                let _ = lock(&rx).recv();
            });
        }
        for _ in 0..5 {
            release_tx.send(()).unwrap();
        }
        let until = Instant::now() + Duration::from_secs(5);
        while pool.idle_workers() < 2 && Instant::now() < until {
            thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(pool.idle_workers(), 2, "capped at max_idle");
        let until = Instant::now() + Duration::from_secs(5);
        while pool.idle_workers() > 0 && Instant::now() < until {
            thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(pool.idle_workers(), 0, "idle workers time out");
        // A job submitted after every worker left still runs.
        let (tx, rx) = mpsc::channel();
        pool.execute(move || {
            let _ = tx.send(1);
        });
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), 1);
    }

    #[test]
    fn close_releases_idle_workers_and_later_jobs_still_run() {
        let pool = Pool::new();
        let (tx, rx) = mpsc::channel();
        let t = tx.clone();
        pool.execute(move || {
            let _ = t.send(thread::current().id());
        });
        let _ = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        let until = Instant::now() + Duration::from_secs(5);
        while pool.idle_workers() == 0 && Instant::now() < until {
            thread::yield_now();
        }
        pool.close();
        assert_eq!(pool.idle_workers(), 0);
        pool.execute(move || {
            let _ = tx.send(thread::current().id());
        });
        assert!(rx.recv_timeout(Duration::from_secs(5)).is_ok());
    }

    #[test]
    fn the_parker_wakes_times_out_and_keeps_early_wakes() {
        let p = Parker::new();
        let started = Instant::now();
        assert!(!p.park(Duration::from_millis(50)), "times out");
        assert!(started.elapsed() >= Duration::from_millis(40));
        // A wake-up sent before parking is not lost.
        p.unpark();
        assert!(p.park(Duration::from_secs(5)));
        let p = Arc::new(p);
        let waker = Arc::clone(&p);
        let t = thread::spawn(move || {
            thread::sleep(Duration::from_millis(20));
            waker.unpark();
        });
        assert!(p.park(Duration::from_secs(5)), "woken from another thread");
        t.join().unwrap();
    }
}
