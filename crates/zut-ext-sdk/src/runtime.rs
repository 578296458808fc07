//! What the SDK does with each host frame after the handshake.
//!
//! Threading model (see [`crate::leader`] for the mechanics): host frames
//! are read by one *leader* thread at a time. Command, tool and intercept
//! handlers run on the thread that read the request, after it has handed
//! the reading role to another thread (a pooled worker), so a blocking
//! handler never stalls the reader or another request, and no thread
//! wake-up sits between reading a request and running its handler. Event
//! handlers run synchronously on the current leader, which reads on only
//! afterwards, so events are handled one at a time in the order sent
//! (keep them short). Panel callbacks run on one worker thread per panel
//! id. The thread that called [`crate::Extension::run`] waits for the end
//! of the connection.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use zut_protocol::limits::MAX_INBOUND_LINE;
use zut_protocol::{
    CommandInvoked, EventIntercept, EventInterceptResponse, EventName, ExtFrame, HostFrame,
    ToolCall,
};

use crate::context::Context;
use crate::error::SdkError;
use crate::handle::Handle;
use crate::handlers::{CommandFn, Registry, ToolFn};
use crate::host_info::HostInfo;
use crate::response::Response;
use crate::tool_result::ToolResult;

/// The cap on one host line, terminating LF included (same as Go).
pub(crate) const MAX_HOST_LINE: usize = MAX_INBOUND_LINE;

/// Handlers and host connection of one served extension.
pub(crate) struct Runtime {
    pub(crate) registry: Arc<Registry>,
    pub(crate) handle: Handle,
    pub(crate) host: Arc<HostInfo>,
}

/// What the leader does after dispatching a frame.
pub(crate) enum Step {
    /// The frame is dealt with: read the next one.
    Continue,
    /// The connection is over (`shutdown` answered, or its answer failed).
    Stop(Result<(), SdkError>),
    /// A request whose handler is to run (see [`Runtime::answer`]).
    Request(Request),
}

/// A request with a handler to run.
pub(crate) enum Request {
    Command(CommandInvoked, Arc<CommandFn>),
    Tool(ToolCall, Arc<ToolFn>),
    Intercept(EventIntercept),
}

impl Runtime {
    /// Deals with one frame on the leader: events, panel frames, shutdown
    /// and requests without a handler are handled here; a request with a
    /// handler is returned for [`Runtime::answer`].
    pub(crate) fn dispatch(&self, frame: HostFrame) -> Step {
        match frame {
            HostFrame::CommandInvoked(call) => match self.registry.command(&call.name) {
                Some(handler) => return Step::Request(Request::Command(call, handler)),
                None => {
                    let reply = Response::error(format!("no handler for /{}", call.name));
                    reply_or_log(
                        &self.handle,
                        ExtFrame::CommandResponse(reply.into_frame(call.id)),
                    );
                }
            },
            HostFrame::ToolCall(call) => match self.registry.tool(&call.name) {
                Some(handler) => return Step::Request(Request::Tool(call, handler)),
                None => {
                    let reply = ToolResult::error(format!("no handler for tool {:?}", call.name));
                    reply_or_log(
                        &self.handle,
                        ExtFrame::ToolResult(reply.into_frame(call.id)),
                    );
                }
            },
            HostFrame::EventIntercept(intercept) => {
                return Step::Request(Request::Intercept(intercept))
            }
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
                return Step::Stop(self.handle.send(ExtFrame::ShutdownAck));
            }
            // A duplicate hello_ack, the never-sent panel_resize, and any
            // future frame are ignored.
            HostFrame::HelloAck(_) | HostFrame::PanelResize(_) | HostFrame::Unknown => {}
        }
        Step::Continue
    }

    /// Runs a request's handler on this thread and sends the reply. A
    /// panicking handler is answered with an error (`panic: ...`; for an
    /// interceptor a block with `intercept panic: ...`).
    pub(crate) fn answer(&self, request: Request) {
        let frame = match request {
            Request::Command(call, handler) => {
                let ctx = self.context(&call.id);
                let reply = match panic::catch_unwind(AssertUnwindSafe(|| {
                    handler(&call.args, &ctx)
                })) {
                    Ok(reply) => reply,
                    Err(payload) => Response::error(format!("panic: {}", panic_message(&*payload))),
                };
                ExtFrame::CommandResponse(reply.into_frame(call.id))
            }
            Request::Tool(call, handler) => {
                let ctx = self.context(&call.id);
                let ToolCall { id, args, .. } = call;
                let reply = match panic::catch_unwind(AssertUnwindSafe(|| handler(args, &ctx))) {
                    Ok(reply) => reply,
                    Err(payload) => {
                        ToolResult::error(format!("panic: {}", panic_message(&*payload)))
                    }
                };
                ExtFrame::ToolResult(reply.into_frame(id))
            }
            Request::Intercept(intercept) => {
                let id = intercept.id.clone();
                let reply = match panic::catch_unwind(AssertUnwindSafe(|| {
                    decide(&self.registry, intercept)
                })) {
                    Ok(reply) => reply,
                    Err(payload) => EventInterceptResponse {
                        id,
                        block: true,
                        reason: format!("intercept panic: {}", panic_message(&*payload)),
                        ..EventInterceptResponse::default()
                    },
                };
                ExtFrame::EventInterceptResponse(reply)
            }
        };
        reply_or_log(&self.handle, frame);
    }

    fn context(&self, request_id: &str) -> Context {
        Context {
            handle: self.handle.clone(),
            host: Arc::clone(&self.host),
            request_id: request_id.to_string(),
        }
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
