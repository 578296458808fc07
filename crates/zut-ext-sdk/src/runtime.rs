//! The post-handshake loop: read host frames, dispatch them to handlers.
//!
//! Threading model: the reader runs on the caller's thread of
//! [`crate::Extension::run`]. Command, tool and intercept handlers each run
//! on a worker thread of a [`Pool`] (an idle worker is reused, otherwise a
//! new one is started), so a blocking handler never stalls the reader or
//! another request. Event handlers run synchronously on the reader (keep
//! them short). Panel callbacks run on one worker thread per panel id.

use std::any::Any;
use std::io::BufRead;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use zut_protocol::limits::MAX_INBOUND_LINE;
use zut_protocol::{
    decode_host_frame, CommandInvoked, EventIntercept, EventInterceptResponse, EventName, ExtFrame,
    HostFrame, ToolCall,
};

use crate::context::Context;
use crate::error::SdkError;
use crate::handle::Handle;
use crate::handlers::Registry;
use crate::host_info::HostInfo;
use crate::pool::Pool;
use crate::reader::LineReader;
use crate::response::Response;
use crate::tool_result::ToolResult;

/// The cap on one host line, terminating LF included (same as Go).
pub(crate) const MAX_HOST_LINE: usize = MAX_INBOUND_LINE;

/// Serves one connection after the handshake.
pub(crate) struct Runtime {
    pub(crate) registry: Arc<Registry>,
    pub(crate) handle: Handle,
    pub(crate) host: Arc<HostInfo>,
    /// Workers for command, tool and intercept handlers; closed (idle
    /// workers exit, running handlers finish) when the runtime is dropped.
    pub(crate) pool: Pool,
}

/// What the reader does after a frame.
enum Next {
    Continue,
    Stop,
}

impl Runtime {
    /// Reads frames until `shutdown` (answered with `shutdown_ack`) or end
    /// of input; both are a clean exit.
    pub(crate) fn serve<R: BufRead>(&self, lines: &mut LineReader<R>) -> Result<(), SdkError> {
        let mut line = Vec::new();
        while lines.next_line(&mut line)? {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match decode_host_frame(&line) {
                Ok(frame) => {
                    if let Next::Stop = self.dispatch(frame)? {
                        return Ok(());
                    }
                }
                Err(err) => self.handle.log(format_args!("ignoring host frame: {err}")),
            }
        }
        Ok(())
    }

    fn dispatch(&self, frame: HostFrame) -> Result<Next, SdkError> {
        match frame {
            HostFrame::CommandInvoked(call) => self.command(call),
            HostFrame::ToolCall(call) => self.tool(call),
            HostFrame::EventIntercept(intercept) => self.intercept(intercept),
            HostFrame::Event(event) => {
                if let Some(handler) = self.registry.event(&event.event) {
                    let label = format!("event {} handler", event.event);
                    guarded(&label, || handler(&event));
                }
            }
            HostFrame::PanelKey(key) => {
                let id = key.panel_id.clone();
                if !self.handle.shared.panels.key(key) {
                    self.handle
                        .log(format_args!("panel_key for {id:?} has no handler"));
                }
            }
            HostFrame::PanelClose(close) => {
                self.handle.shared.panels.close(&close.panel_id);
            }
            HostFrame::Shutdown => {
                self.handle.send(ExtFrame::ShutdownAck)?;
                return Ok(Next::Stop);
            }
            // A duplicate hello_ack, the never-sent panel_resize, and any
            // future frame are ignored.
            HostFrame::HelloAck(_) | HostFrame::PanelResize(_) | HostFrame::Unknown => {}
        }
        Ok(Next::Continue)
    }

    fn context(&self, request_id: &str) -> Context {
        Context {
            handle: self.handle.clone(),
            host: Arc::clone(&self.host),
            request_id: request_id.to_string(),
        }
    }

    fn command(&self, call: CommandInvoked) {
        let handle = self.handle.clone();
        let Some(handler) = self.registry.command(&call.name) else {
            let reply = Response::error(format!("no handler for /{}", call.name));
            reply_or_log(
                &handle,
                ExtFrame::CommandResponse(reply.into_frame(call.id)),
            );
            return;
        };
        let ctx = self.context(&call.id);
        self.pool.execute(move || {
            let reply = match panic::catch_unwind(AssertUnwindSafe(|| handler(&call.args, &ctx))) {
                Ok(reply) => reply,
                Err(payload) => Response::error(format!("panic: {}", panic_message(&*payload))),
            };
            reply_or_log(
                &handle,
                ExtFrame::CommandResponse(reply.into_frame(call.id)),
            );
        });
    }

    fn tool(&self, call: ToolCall) {
        let handle = self.handle.clone();
        let Some(handler) = self.registry.tool(&call.name) else {
            let reply = ToolResult::error(format!("no handler for tool {:?}", call.name));
            reply_or_log(&handle, ExtFrame::ToolResult(reply.into_frame(call.id)));
            return;
        };
        let ctx = self.context(&call.id);
        self.pool.execute(move || {
            let ToolCall { id, args, .. } = call;
            let reply = match panic::catch_unwind(AssertUnwindSafe(|| handler(args, &ctx))) {
                Ok(reply) => reply,
                Err(payload) => ToolResult::error(format!("panic: {}", panic_message(&*payload))),
            };
            reply_or_log(&handle, ExtFrame::ToolResult(reply.into_frame(id)));
        });
    }

    fn intercept(&self, intercept: EventIntercept) {
        let handle = self.handle.clone();
        let registry = Arc::clone(&self.registry);
        self.pool.execute(move || {
            let id = intercept.id.clone();
            let reply = match panic::catch_unwind(AssertUnwindSafe(|| decide(&registry, intercept)))
            {
                Ok(reply) => reply,
                Err(payload) => EventInterceptResponse {
                    id,
                    block: true,
                    reason: format!("intercept panic: {}", panic_message(&*payload)),
                    ..EventInterceptResponse::default()
                },
            };
            reply_or_log(&handle, ExtFrame::EventInterceptResponse(reply));
        });
    }
}

/// Runs the matching interceptor; a missing one allows.
fn decide(registry: &Registry, intercept: EventIntercept) -> EventInterceptResponse {
    let mut reply = EventInterceptResponse {
        id: intercept.id,
        ..EventInterceptResponse::default()
    };
    match intercept.event.as_str() {
        EventName::TOOL_CALL => {
            if let Some(guard) = &registry.tool_guard {
                let args = intercept.tool_args.unwrap_or_default();
                let decision = guard(&intercept.tool_name, &args);
                reply.block = decision.block;
                reply.reason = decision.reason;
                if !decision.block {
                    reply.modified_args = decision.modified_args;
                }
            }
        }
        EventName::TURN_START => {
            if let Some(guard) = &registry.turn_guard {
                let decision = guard(intercept.step);
                reply.block = decision.block;
                reply.reason = decision.reason;
                if !decision.block {
                    reply.context = decision.context;
                }
            }
        }
        EventName::ASSISTANT_MESSAGE => {
            if let Some(guard) = &registry.assistant_guard {
                let decision = guard(&intercept.text);
                reply.block = decision.block;
                reply.reason = decision.reason;
                if !decision.block && decision.replace_text != intercept.text {
                    reply.replace_text = decision.replace_text;
                }
            }
        }
        _ => {}
    }
    reply
}

/// Sends a reply; a failed write (host gone) is only logged.
fn reply_or_log(handle: &Handle, frame: ExtFrame) {
    if let Err(err) = handle.send(frame) {
        handle.log(format_args!("could not send reply: {err}"));
    }
}

/// Runs `f`, logging instead of propagating a panic.
pub(crate) fn guarded(label: &str, f: impl FnOnce()) {
    if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(f)) {
        eprintln!(
            "[zut-ext-sdk] {label} panicked: {}",
            panic_message(&*payload)
        );
    }
}

/// The text of a panic payload (`&str` or `String`), else a placeholder.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "non-string panic payload".to_string()
    }
}
