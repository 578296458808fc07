//! Discovery started early on its own thread: a front end that knows the
//! options at start-up (the CLI, right after reading its flags) scans the
//! user roots while the rest of start-up runs, and the first prompt takes
//! the result instead of scanning again. When no root exists (the usual
//! case of a one-shot `zut -p` outside a project with skills) nothing is
//! started: the empty result is ready at once, which costs a few failed
//! `open`s instead of a thread.

use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::discover::{scan_opened, DiscoverOptions, OpenRoots, RootScan};

/// How old a prefetched scan may be when it is taken: discovery normally
/// runs when a prompt starts, so an older one (a TUI left idle before its
/// first prompt) is dropped and the roots are scanned again.
pub const MAX_AGE: Duration = Duration::from_secs(2);

/// A scan of the user roots running on its own thread.
#[derive(Debug)]
pub struct Prefetch {
    opts: DiscoverOptions,
    started: Instant,
    scan: Scan,
}

/// The scan: done already, or running on its thread.
#[derive(Debug)]
enum Scan {
    Ready(Vec<RootScan>),
    Running(JoinHandle<Vec<RootScan>>),
}

impl Scan {
    /// The scans, waiting for the thread if needed (`None` if it panicked).
    fn finish(self) -> Option<Vec<RootScan>> {
        match self {
            Scan::Ready(scans) => Some(scans),
            Scan::Running(handle) => handle.join().ok(),
        }
    }
}

impl Prefetch {
    /// Starts scanning the roots of `opts`. `None` when no thread could
    /// be started (the caller scans as usual).
    pub fn start(opts: DiscoverOptions) -> Option<Self> {
        let roots = opts.roots();
        let cache = opts.cache_dir.clone();
        let open = OpenRoots::open(&roots);
        let scan = if open.is_empty() {
            Scan::Ready(scan_opened(&roots, open, cache.as_deref()))
        } else {
            Scan::Running(
                std::thread::Builder::new()
                    .name("zut-skills-prefetch".into())
                    .spawn(move || scan_opened(&roots, open, cache.as_deref()))
                    .ok()?,
            )
        };
        Some(Self {
            opts,
            started: Instant::now(),
            scan,
        })
    }

    /// Whether [`Prefetch::take`] would accept `opts` now (same options,
    /// not too old): a caller about to start the same scan keeps this one.
    pub fn serves(&self, opts: &DiscoverOptions) -> bool {
        &self.opts == opts && self.started.elapsed() <= MAX_AGE
    }

    /// Waits for the scan to end without using it (a process about to exit
    /// lets the scan finish writing its cache files rather than leave a
    /// temporary file behind).
    pub fn wait(self) {
        let _ = self.scan.finish();
    }

    /// The scans (waiting for the thread if it is still running) when
    /// they were made for `opts` and are at most [`MAX_AGE`] old; `None`
    /// otherwise (other options, too old, or the thread panicked).
    pub fn take(self, opts: &DiscoverOptions) -> Option<Vec<RootScan>> {
        if !self.serves(opts) {
            return None;
        }
        self.scan.finish()
    }
}
