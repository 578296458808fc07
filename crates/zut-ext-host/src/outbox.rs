//! The per-extension ordered writer: every host → extension frame goes
//! through one queue and one task, so frames arrive in emission order and
//! are never interleaved.
//!
//! Requests (`tool_call`, `command_invoked`, `event_intercept`, `shutdown`)
//! are always queued: their callers wait with a deadline, so they are
//! bounded by the number of outstanding calls. A request whose caller gave
//! up (timeout, cancellation) while its frame was still queued is
//! withdrawn, so an extension that was not reading its stdin never runs a
//! tool call nobody waits for any more, and the queue does not keep it. One-way frames (`event`,
//! `panel_key`, `panel_close`) are bounded by [`EVENT_QUEUE`]: when an
//! extension stops reading its stdin, the oldest queued one-way frame is
//! dropped in favour of the newest and the drop is reported, so a stuck
//! extension can never stall the agent or grow host memory.

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::Notify;
use zut_protocol::limits::EVENT_QUEUE;

struct Item {
    bytes: Vec<u8>,
    one_way: bool,
    /// Request id, for [`Outbox::withdraw`].
    request: Option<String>,
}

#[derive(Default)]
struct Queue {
    items: VecDeque<Item>,
    one_way: usize,
    closed: bool,
    broken: Option<String>,
}

/// What happened to a pushed frame.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Pushed {
    /// Queued.
    Queued,
    /// Queued, and the oldest one-way frame was dropped to make room.
    DroppedOldest,
}

/// The queue shared by producers and the writer task.
#[derive(Default)]
pub(crate) struct Outbox {
    queue: Mutex<Queue>,
    wake: Notify,
}

impl Outbox {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues a request frame (`id`: its request id, if it has one).
    /// Fails if the pipe is broken or closed.
    pub fn push_request(&self, bytes: Vec<u8>, id: Option<&str>) -> Result<Pushed, String> {
        self.push(bytes, false, id)
    }

    /// Queues a one-way frame, dropping the oldest one-way frame if
    /// [`EVENT_QUEUE`] are already waiting.
    pub fn push_one_way(&self, bytes: Vec<u8>) -> Result<Pushed, String> {
        self.push(bytes, true, None)
    }

    /// Removes the still-unwritten frame of request `id`; returns whether
    /// it was still queued.
    pub fn withdraw(&self, id: &str) -> bool {
        let mut q = self.lock();
        match q
            .items
            .iter()
            .position(|i| i.request.as_deref() == Some(id))
        {
            Some(pos) => {
                q.items.remove(pos);
                true
            }
            None => false,
        }
    }

    fn push(&self, bytes: Vec<u8>, one_way: bool, id: Option<&str>) -> Result<Pushed, String> {
        let mut q = self.lock();
        if let Some(err) = &q.broken {
            return Err(format!("write: {err}"));
        }
        if q.closed {
            return Err("write: stdin already closed".into());
        }
        let mut pushed = Pushed::Queued;
        if one_way && q.one_way >= EVENT_QUEUE {
            if let Some(pos) = q.items.iter().position(|i| i.one_way) {
                q.items.remove(pos);
                q.one_way -= 1;
                pushed = Pushed::DroppedOldest;
            }
        }
        if one_way {
            q.one_way += 1;
        }
        q.items.push_back(Item {
            bytes,
            one_way,
            request: id.map(str::to_string),
        });
        drop(q);
        self.wake.notify_one();
        Ok(pushed)
    }

    /// The write error that broke the pipe, if any.
    pub fn broken(&self) -> Option<String> {
        self.lock().broken.clone()
    }

    /// No more frames: the writer flushes what is queued, then closes stdin.
    pub fn close(&self) {
        self.lock().closed = true;
        self.wake.notify_one();
    }

    /// Runs the writer until the queue is closed and drained or a write
    /// fails. Returns the write error, if any.
    pub async fn run_writer<W: AsyncWrite + Unpin>(&self, mut out: W) -> Option<String> {
        let mut batch: Vec<u8> = Vec::with_capacity(4096);
        loop {
            let closed = {
                let mut q = self.lock();
                batch.clear();
                while let Some(item) = q.items.pop_front() {
                    if item.one_way {
                        q.one_way -= 1;
                    }
                    batch.extend_from_slice(&item.bytes);
                    if batch.len() > 1 << 20 {
                        break;
                    }
                }
                q.closed && q.items.is_empty()
            };
            if !batch.is_empty() {
                let res = async {
                    out.write_all(&batch).await?;
                    out.flush().await
                }
                .await;
                if let Err(e) = res {
                    let msg = e.to_string();
                    let mut q = self.lock();
                    q.broken = Some(msg.clone());
                    q.items.clear();
                    q.one_way = 0;
                    return Some(msg);
                }
                continue;
            }
            if closed {
                let _ = out.shutdown().await;
                return None;
            }
            self.wake.notified().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_way_frames_are_bounded_and_requests_kept_in_order() {
        let ob = Outbox::default();
        ob.push_request(b"r1\n".to_vec(), Some("1")).unwrap();
        for i in 0..EVENT_QUEUE + 3 {
            ob.push_one_way(format!("e{i}\n").into_bytes()).unwrap();
        }
        ob.push_request(b"gone\n".to_vec(), Some("2")).unwrap();
        ob.push_request(b"r2\n".to_vec(), Some("3")).unwrap();
        assert!(ob.withdraw("2"));
        assert!(!ob.withdraw("2"), "already withdrawn");
        ob.close();
        let mut out = Vec::new();
        assert_eq!(ob.run_writer(&mut out).await, None);
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.first(), Some(&"r1"));
        assert_eq!(lines.last(), Some(&"r2"));
        assert_eq!(lines.len(), EVENT_QUEUE + 2);
        assert_eq!(lines[1], "e3", "the three oldest events were dropped");
        assert!(!text.contains("gone"));
        assert!(ob.push_request(b"x\n".to_vec(), None).is_err());
    }
}
