//! A small cached thread pool for request handlers.
//!
//! Every `command_invoked`, `tool_call` and `event_intercept` runs on a
//! worker thread so that a blocking handler never stalls the reader or the
//! other requests. Starting an OS thread per request costs tens of
//! microseconds, about as much as the rest of a round trip, so finished
//! workers are kept and reused:
//!
//! - a job goes to an idle worker if there is one (handed over directly,
//!   no shared queue), otherwise a new worker is started for it, so the
//!   number of jobs running at once is never limited and a slow handler
//!   never delays another request;
//! - idle workers are reused most-recently-idle first; a worker idle for
//!   [`KEEP_ALIVE`] exits, and at most [`MAX_IDLE`] are kept;
//! - if no thread can be started, the job runs on the caller's thread
//!   rather than being lost;
//! - on Unix a worker sleeps on its own socket pair rather than on a
//!   condition variable: the kernel treats a socket wake-up as a hand-off
//!   and runs the worker on the CPU of the reader that woke it, where a
//!   futex wake-up tends to send it to another (idle, possibly halted)
//!   CPU. On a loaded two-CPU machine that difference is most of the
//!   SDK's share of a `tool_call` round trip;
//! - [`Pool::close`] (also on drop) lets running jobs finish and makes
//!   every idle worker exit.
//!
//! Jobs catch their own panics (they turn them into error replies); a
//! panic escaping a job anyway is contained to that job and the worker
//! keeps serving.

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

type Job = Box<dyn FnOnce() + Send>;

/// One worker's hand-over slot. The slot is the source of truth; the
/// parker only wakes the worker up to look at it (spurious wake-ups are
/// harmless).
#[derive(Default)]
struct Worker {
    job: Mutex<Option<Job>>,
    parker: Parker,
}

/// Puts a worker to sleep until woken or a timeout passes.
enum Parker {
    /// A connected socket pair: `unpark` writes a byte, `park` reads.
    #[cfg(unix)]
    Socket {
        tx: std::os::unix::net::UnixStream,
        rx: std::os::unix::net::UnixStream,
    },
    /// A flag and a condition variable (non-Unix, or no sockets left).
    Condvar { woken: Mutex<bool>, cv: Condvar },
}

impl Default for Parker {
    fn default() -> Self {
        #[cfg(unix)]
        if let Ok((tx, rx)) = std::os::unix::net::UnixStream::pair() {
            // Never block the reader: a full buffer already means "wake".
            if tx.set_nonblocking(true).is_ok() {
                return Self::Socket { tx, rx };
            }
        }
        Self::Condvar {
            woken: Mutex::new(false),
            cv: Condvar::new(),
        }
    }
}

impl Parker {
    fn unpark(&self) {
        match self {
            #[cfg(unix)]
            Self::Socket { tx, .. } => {
                use std::io::Write;
                let _ = (&*tx).write(b"w");
            }
            Self::Condvar { woken, cv } => {
                *lock(woken) = true;
                cv.notify_one();
            }
        }
    }

    /// Sleeps until woken or `timeout` passes; `false` on timeout.
    fn park(&self, timeout: Duration) -> bool {
        match self {
            #[cfg(unix)]
            Self::Socket { rx, .. } => {
                use std::io::Read;
                if rx.set_read_timeout(Some(timeout)).is_err() {
                    thread::sleep(timeout.min(Duration::from_millis(10)));
                    return true;
                }
                let mut buf = [0u8; 64];
                match (&*rx).read(&mut buf) {
                    // The write end lives as long as this worker, so no
                    // end of stream; treat it as a plain timeout anyway.
                    Ok(0) => false,
                    Ok(_) => true,
                    Err(e) => !matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ),
                }
            }
            Self::Condvar { woken, cv } => {
                let guard = lock(woken);
                let (mut guard, _) = cv
                    .wait_timeout_while(guard, timeout, |woken| !*woken)
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                std::mem::take(&mut *guard)
            }
        }
    }
}

struct Inner {
    /// Idle workers, most recently idle last. Lock order: `idle`, then a
    /// worker's `job`.
    idle: Mutex<Vec<Arc<Worker>>>,
    closed: AtomicBool,
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
                keep_alive,
                max_idle,
            }),
        }
    }

    /// Runs `job` on a worker thread: an idle one if any, else a new one.
    pub(crate) fn execute(&self, job: impl FnOnce() + Send + 'static) {
        let job: Job = Box::new(job);
        {
            let mut idle = lock(&self.inner.idle);
            if let Some(worker) = idle.pop() {
                // Set under the `idle` lock: a worker that timed out
                // re-checks its slot under the same lock before exiting,
                // so the job cannot be stranded.
                *lock(&worker.job) = Some(job);
                drop(idle);
                worker.parker.unpark();
                return;
            }
        }
        self.start_worker(job);
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

    fn start_worker(&self, job: Job) {
        // The job travels in a shared slot so that a failed spawn can take
        // it back and run it here instead of dropping the request.
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
        if spawned.is_err() {
            let job = lock(&slot).take();
            if let Some(job) = job {
                run(job);
            }
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
    let me = Arc::new(Worker::default());
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
    fn both_parkers_wake_time_out_and_keep_early_wakes() {
        let mut parkers = vec![Parker::Condvar {
            woken: Mutex::new(false),
            cv: Condvar::new(),
        }];
        if cfg!(unix) {
            let p = Parker::default();
            assert!(!matches!(p, Parker::Condvar { .. }), "sockets available");
            parkers.push(p);
        }
        for p in parkers {
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
}
