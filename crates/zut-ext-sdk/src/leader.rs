//! Leader/follower serving of the host connection.
//!
//! Exactly one thread at a time, the *leader*, owns the reading role: it
//! reads and decodes host frames one by one. Events, panel frames and
//! replies that need no handler are dealt with on the leader, which then
//! reads on, so they keep the order the host sent them in. For a request
//! (`command_invoked`, `tool_call`, `event_intercept`) the leader first
//! hands the reading role to a follower (a [`Pool`] worker whose job is
//! "lead"), then runs the handler itself and writes the reply, then goes
//! back to the pool. The follower's wake-up thus happens while the
//! handler runs instead of between reading the request and starting the
//! handler, and a blocking handler still never stalls the reader or
//! another request.
//!
//! Hand-off without loss or duplication: the line reader and its buffer
//! live in one [`Mutex`] shared by every leader; a leader locks it only to
//! read one frame and releases it before handing off, and the role passes
//! on only by starting the next leader, so at most one thread reads at a
//! time and a frame read by one leader is never seen by another.
//!
//! The thread that called [`crate::Extension::run`] does not lead: it
//! starts the first leader and waits for the outcome (`shutdown`, end of
//! input, or a read error), which the leader that meets it reports. So
//! `run` returns as soon as the host is done, even while handlers are
//! still blocked, as before. If no thread can be started, the current
//! thread keeps the role and runs the handler itself (the reader waits
//! for it) rather than drop the request.

use std::io::BufRead;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use zut_protocol::{decode_host_frame, HostFrame};

use crate::error::SdkError;
use crate::pool::Pool;
use crate::reader::LineReader;
use crate::runtime::{panic_message, Runtime, Step};

/// One connection being served by a succession of leaders.
struct Serving<R> {
    runtime: Runtime,
    /// Threads for the next leaders; closed when `serve` returns (idle
    /// workers exit, running handlers finish).
    pool: Pool,
    /// The reading role's state; `None` once the connection is over.
    input: Mutex<Option<Input<R>>>,
    done: Done,
}

/// The line reader and its line buffer, handed from leader to leader.
struct Input<R> {
    lines: LineReader<R>,
    line: Vec<u8>,
}

/// Serves the connection until `shutdown` (answered with `shutdown_ack`),
/// end of input (both `Ok`) or a read error; blocks the calling thread
/// until then.
pub(crate) fn serve<R>(runtime: Runtime, lines: LineReader<R>) -> Result<(), SdkError>
where
    R: BufRead + Send + 'static,
{
    serve_on(runtime, lines, Pool::new())
}

/// [`serve`] with the leaders' threads taken from `pool`.
fn serve_on<R>(runtime: Runtime, lines: LineReader<R>, pool: Pool) -> Result<(), SdkError>
where
    R: BufRead + Send + 'static,
{
    let serving = Arc::new(Serving {
        runtime,
        pool,
        input: Mutex::new(Some(Input {
            lines,
            line: Vec::new(),
        })),
        done: Done::default(),
    });
    let first = Arc::clone(&serving);
    if let Err(lead_here) = serving.pool.try_execute(Box::new(move || lead(&first))) {
        lead_here();
    }
    let outcome = serving.done.wait();
    serving.pool.close();
    outcome
}

/// Holds the reading role until the connection ends or a request's
/// handler has run here (after handing the role on).
fn lead<R>(serving: &Arc<Serving<R>>)
where
    R: BufRead + Send + 'static,
{
    let mut leading = true;
    let result = panic::catch_unwind(AssertUnwindSafe(|| lead_loop(serving, &mut leading)));
    if let Err(payload) = result {
        // Nothing in the loop should panic (handlers are guarded), but a
        // leader that dies must not leave `run` waiting for ever.
        if leading {
            let err =
                std::io::Error::other(format!("reader panicked: {}", panic_message(&*payload)));
            serving.finish(Err(err.into()));
        }
    }
}

fn lead_loop<R>(serving: &Arc<Serving<R>>, leading: &mut bool)
where
    R: BufRead + Send + 'static,
{
    loop {
        let frame = match serving.next_frame() {
            Ok(Some(frame)) => frame,
            Ok(None) => return serving.finish(Ok(())),
            Err(err) => return serving.finish(Err(err)),
        };
        match serving.runtime.dispatch(frame) {
            Step::Continue => {}
            Step::Stop(outcome) => return serving.finish(outcome),
            Step::Request(request) => {
                let next = Arc::clone(serving);
                let handed_off = serving
                    .pool
                    .try_execute(Box::new(move || lead(&next)))
                    .is_ok();
                if handed_off {
                    *leading = false;
                }
                serving.runtime.answer(request);
                if handed_off {
                    return;
                }
                // No follower could be started: keep reading here.
            }
        }
    }
}

impl<R: BufRead> Serving<R> {
    /// The next frame that decodes; `None` at end of input (or once the
    /// connection is over). Undecodable lines are logged and skipped.
    fn next_frame(&self) -> Result<Option<HostFrame>, SdkError> {
        let mut input = lock(&self.input);
        let Some(Input { lines, line }) = input.as_mut() else {
            return Ok(None);
        };
        loop {
            if !lines.next_line(line)? {
                return Ok(None);
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match decode_host_frame(line) {
                Ok(frame) => return Ok(Some(frame)),
                Err(err) => self
                    .runtime
                    .handle
                    .log(format_args!("ignoring host frame: {err}")),
            }
        }
    }

    /// Ends the connection: drops the reader and wakes `serve`.
    fn finish(&self, outcome: Result<(), SdkError>) {
        let input = lock(&self.input).take();
        drop(input);
        self.done.set(outcome);
    }
}

/// The connection's outcome, set once by the last leader and awaited by
/// the thread in [`serve`].
#[derive(Default)]
struct Done {
    outcome: Mutex<Option<Result<(), SdkError>>>,
    cv: Condvar,
}

impl Done {
    fn set(&self, outcome: Result<(), SdkError>) {
        let mut slot = lock(&self.outcome);
        if slot.is_none() {
            *slot = Some(outcome);
        }
        self.cv.notify_all();
    }

    fn wait(&self) -> Result<(), SdkError> {
        let mut slot = lock(&self.outcome);
        loop {
            if let Some(outcome) = slot.take() {
                return outcome;
            }
            slot = self
                .cv
                .wait(slot)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Critical sections here only move values in and out; a poisoned lock
    // cannot leave them half-done.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use std::io::{Cursor, Write};

    use serde_json::{json, Value};
    use zut_protocol::{encode_line, Event, HelloAck, ToolCall};

    use super::*;
    use crate::handle::Handle;
    use crate::handlers::Registry;
    use crate::host_info::HostInfo;
    use crate::runtime::MAX_HOST_LINE;
    use crate::tool_result::ToolResult;

    /// Everything the extension wrote.
    #[derive(Clone, Default)]
    struct Written(Arc<Mutex<Vec<u8>>>);

    impl Write for Written {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            lock(&self.0).extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Written {
        fn frames(&self) -> Vec<Value> {
            lock(&self.0)
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(|l| serde_json::from_slice(l).unwrap())
                .collect()
        }
    }

    /// Serves `input` with a `who` tool (answers its thread id) and a
    /// `turn_end` handler recording `tool_id`s; returns the outcome, the
    /// frames written and the events seen.
    fn serve_input(input: Vec<u8>, pool: Pool) -> (Result<(), SdkError>, Vec<Value>, Vec<String>) {
        let events = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&events);
        let mut registry = Registry::default();
        registry.add_tool(
            "who".into(),
            String::new(),
            json!({}),
            false,
            Arc::new(|_, _| ToolResult::text(format!("{:?}", std::thread::current().id()))),
        );
        registry.add_event(
            "turn_end".into(),
            Arc::new(move |e: &Event| lock(&seen).push(e.tool_id.clone())),
        );
        let handle = Handle::new("t".into());
        let written = Written::default();
        handle.shared.sink.connect(Box::new(written.clone()));
        let runtime = Runtime {
            registry: Arc::new(registry),
            handle,
            host: Arc::new(HostInfo::from(HelloAck::default())),
        };
        let lines = LineReader::new(Cursor::new(input), MAX_HOST_LINE);
        let outcome = serve_on(runtime, lines, pool);
        let events = lock(&events).clone();
        (outcome, written.frames(), events)
    }

    fn requests_and_events(n: usize, end: Option<HostFrame>) -> Vec<u8> {
        let mut input = Vec::new();
        for i in 0..n {
            input.extend(encode_line(&HostFrame::ToolCall(ToolCall {
                id: format!("t{i}"),
                name: "who".into(),
                args: json!({}),
            })));
            input.extend(encode_line(&HostFrame::Event(Event {
                tool_id: i.to_string(),
                ..Event::named("turn_end")
            })));
        }
        if let Some(end) = end {
            input.extend(encode_line(&end));
        }
        input
    }

    #[test]
    fn without_threads_everything_runs_here_in_order() {
        let input = requests_and_events(20, Some(HostFrame::Shutdown));
        let (outcome, frames, events) = serve_input(input, Pool::refusing_threads());
        assert!(outcome.is_ok());
        let me = format!("{:?}", std::thread::current().id());
        let ids: Vec<&str> = frames
            .iter()
            .map(|f| f["id"].as_str().unwrap_or(""))
            .collect();
        let want: Vec<String> = (0..20).map(|i| format!("t{i}")).collect();
        assert_eq!(ids[..20], want);
        assert_eq!(frames[20]["type"], "shutdown_ack");
        assert_eq!(frames.len(), 21);
        for f in &frames[..20] {
            assert_eq!(f["content"][0]["text"], me, "ran on the caller's thread");
        }
        assert_eq!(events, (0..20).map(|i| i.to_string()).collect::<Vec<_>>());
    }

    #[test]
    fn end_of_input_ends_serving_after_every_frame() {
        let input = requests_and_events(200, None);
        let (outcome, _, events) = serve_input(input, Pool::new());
        assert!(outcome.is_ok());
        // Events are handled on the leaders before they read on, so all
        // of them have been handled when end of input is met.
        assert_eq!(events, (0..200).map(|i| i.to_string()).collect::<Vec<_>>());
    }

    #[test]
    fn a_read_error_is_returned() {
        let mut input = requests_and_events(3, None);
        input.extend(vec![b'x'; MAX_HOST_LINE + 1]);
        let (outcome, _, events) = serve_input(input, Pool::new());
        assert!(matches!(outcome, Err(SdkError::LineTooLong { .. })));
        assert_eq!(events.len(), 3);
    }
}
