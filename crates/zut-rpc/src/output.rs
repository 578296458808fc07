//! The one ordered output stream of RPC mode.
//!
//! Responses and events go through one channel to a writer thread, so lines
//! never interleave and keep their order. Event chunks hold a permit of a
//! small semaphore while queued: when the client stops reading stdout the
//! forwarder waits for a permit, the controller's backlog merges deltas,
//! and memory stays bounded; responses take no permit, so the reader never
//! waits on the client (an `abort` is acted on even then).
//!
//! The gate implements authentication (rpc.md §2): until the client is
//! authenticated, extension events are held (at most
//! [`PRE_AUTH_EVENTS`], later ones dropped) and flushed right after the
//! successful `hello` response.

use std::io::Write;
use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

/// Extension events held before authentication.
pub const PRE_AUTH_EVENTS: usize = 64;

/// Event chunks queued for the writer at most.
const EVENT_CHUNKS: usize = 16;

struct Chunk {
    bytes: Vec<u8>,
    _permit: Option<OwnedSemaphorePermit>,
}

#[derive(Default)]
struct Gate {
    authed: bool,
    held: Vec<Vec<u8>>,
    /// After a failed `hello`: nothing more is written.
    muted: bool,
}

/// Handle to the output (cheap to clone).
#[derive(Clone)]
pub struct Out {
    tx: mpsc::UnboundedSender<Chunk>,
    permits: Arc<Semaphore>,
    gate: Arc<Mutex<Gate>>,
}

impl Out {
    /// Starts the writer thread; `authed` is false when a token is needed.
    pub fn start(authed: bool) -> (Self, std::thread::JoinHandle<()>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let writer = std::thread::spawn(move || write_loop(rx));
        let out = Self {
            tx,
            permits: Arc::new(Semaphore::new(EVENT_CHUNKS)),
            gate: Arc::new(Mutex::new(Gate {
                authed,
                ..Gate::default()
            })),
        };
        (out, writer)
    }

    fn gate(&self) -> std::sync::MutexGuard<'_, Gate> {
        self.gate.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the client is authenticated.
    pub fn authed(&self) -> bool {
        self.gate().authed
    }

    /// Writes one line now (responses); never waits.
    pub fn line(&self, mut bytes: Vec<u8>) {
        let gate = self.gate();
        if gate.muted {
            return;
        }
        bytes.push(b'\n');
        let _ = self.tx.send(Chunk {
            bytes,
            _permit: None,
        });
    }

    /// Marks the client authenticated: writes `response`, then the held
    /// extension events, in that order.
    pub fn authenticate(&self, mut response: Vec<u8>) {
        let mut gate = self.gate();
        response.push(b'\n');
        for held in gate.held.drain(..) {
            response.extend_from_slice(&held);
            response.push(b'\n');
        }
        gate.authed = true;
        let _ = self.tx.send(Chunk {
            bytes: response,
            _permit: None,
        });
    }

    /// Writes `response` and then nothing ever again (bad token).
    pub fn last_line(&self, response: Vec<u8>) {
        self.line(response);
        self.gate().muted = true;
    }

    /// Waits for room for one more event chunk (backpressure).
    pub async fn permit(&self) -> Option<OwnedSemaphorePermit> {
        self.permits.clone().acquire_owned().await.ok()
    }

    /// Queues event lines (already newline-terminated) and extension event
    /// lines; the latter are held while unauthenticated.
    pub fn events(&self, bytes: Vec<u8>, ext_lines: Vec<Vec<u8>>, permit: OwnedSemaphorePermit) {
        let mut gate = self.gate();
        if gate.muted {
            return;
        }
        let mut bytes = bytes;
        for l in ext_lines {
            if gate.authed {
                bytes.extend_from_slice(&l);
                bytes.push(b'\n');
            } else if gate.held.len() < PRE_AUTH_EVENTS {
                gate.held.push(l);
            }
        }
        if !bytes.is_empty() {
            let _ = self.tx.send(Chunk {
                bytes,
                _permit: Some(permit),
            });
        }
    }
}

/// Writes chunks until every sender is gone. A closed stdout (the client
/// left) is ignored: the chunks are dropped so the permits come back.
fn write_loop(mut rx: mpsc::UnboundedReceiver<Chunk>) {
    let stdout = std::io::stdout();
    let mut broken = false;
    let mut batch: Vec<Chunk> = Vec::new();
    while let Some(first) = rx.blocking_recv() {
        batch.push(first);
        while let Ok(more) = rx.try_recv() {
            batch.push(more);
            if batch.len() >= 64 {
                break;
            }
        }
        if !broken {
            let mut lock = stdout.lock();
            for c in &batch {
                if lock.write_all(&c.bytes).is_err() {
                    broken = true;
                    break;
                }
            }
            if lock.flush().is_err() {
                broken = true;
            }
        }
        batch.clear();
    }
}
