//! The one place frames are written to the host.

use std::io::Write;
use std::sync::Mutex;

use zut_protocol::{encode_line, ExtFrame};

use crate::error::SdkError;

/// Serialises frames onto the host connection: one encoded line, written
/// and flushed while holding the mutex, so concurrent senders never
/// interleave bytes. Nothing else in the SDK touches stdout.
#[derive(Default)]
pub(crate) struct FrameSink {
    out: Mutex<Option<Box<dyn Write + Send>>>,
}

impl FrameSink {
    /// Starts writing to `out`.
    pub(crate) fn connect(&self, out: Box<dyn Write + Send>) {
        *self.lock() = Some(out);
    }

    /// Stops writing and drops (closes) the writer.
    pub(crate) fn disconnect(&self) {
        let previous = self.lock().take();
        drop(previous);
    }

    /// Writes one frame atomically.
    pub(crate) fn send(&self, frame: &ExtFrame) -> Result<(), SdkError> {
        let line = encode_line(frame);
        let mut guard = self.lock();
        let out = guard.as_mut().ok_or(SdkError::NotConnected)?;
        out.write_all(&line)?;
        out.flush()?;
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Box<dyn Write + Send>>> {
        // A panic while holding the lock cannot leave a half-written
        // frame behind that matters more than staying usable.
        self.out
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
