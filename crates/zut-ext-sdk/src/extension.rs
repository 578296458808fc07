//! The extension builder and its `run` entry points.

use std::io::{BufRead, Write};
use std::sync::Arc;

use serde_json::Value;
use zut_protocol::{
    decode_host_frame, DecodeError, Event, ExtFrame, Hello, HostFrame, PROTOCOL_VERSION,
};

use crate::context::Context;
use crate::decisions::{AssistantMessageDecision, ToolCallDecision, TurnStartDecision};
use crate::error::SdkError;
use crate::handle::Handle;
use crate::handlers::Registry;
use crate::host_info::HostInfo;
use crate::leader;
use crate::reader::LineReader;
use crate::response::Response;
use crate::runtime::{Runtime, MAX_HOST_LINE};
use crate::tool_result::ToolResult;

/// Capabilities announced in `hello`, exactly as the Go SDK.
pub const CAPABILITIES: &[&str] = &[
    "commands",
    "tools",
    "events",
    "alerts",
    "panels",
    "session_state",
    "status",
    "widgets",
];

/// Capacity of the buffer `run` reads stdin through; at least the 8 KiB
/// of std's own stdin buffer, so that reads skip that one.
const STDIN_BUFFER: usize = 64 * 1024;

type HelloFn = dyn FnOnce(&mut Extension, &HostInfo) + Send;

/// One zut extension: register commands, tools, subscriptions and
/// interceptors, then call [`Extension::run`].
///
/// ```no_run
/// use zut_ext_sdk::{Extension, Response};
///
/// fn main() -> Result<(), zut_ext_sdk::SdkError> {
///     let mut ext = Extension::new("hello", "1.0.0");
///     ext.command("hello", "say hi", |_args, _ctx| {
///         Response::prompt("Greet me in one short sentence.")
///     });
///     ext.run()
/// }
/// ```
pub struct Extension {
    name: String,
    version: String,
    registry: Registry,
    on_hello: Option<Box<HelloFn>>,
    handle: Handle,
}

/// The methods `tool` and `deferred_tool`: the same registration, told
/// whether the tool is deferred.
macro_rules! tool_registration {
    ($(#[$doc:meta])* $method:ident, deferred: $deferred:literal) => {
        $(#[$doc])*
        pub fn $method<F>(
            &mut self,
            name: impl Into<String>,
            description: impl Into<String>,
            schema: Value,
            handler: F,
        ) -> &mut Self
        where
            F: Fn(Value, &Context) -> ToolResult + Send + Sync + 'static,
        {
            self.registry.add_tool(
                name.into(),
                description.into(),
                schema,
                $deferred,
                Arc::new(handler),
            );
            self
        }
    };
}

impl Extension {
    /// A new extension. `name` should equal the manifest name.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        let name = name.into();
        Self {
            handle: Handle::new(name.clone()),
            name,
            version: version.into(),
            registry: Registry::default(),
            on_hello: None,
        }
    }

    /// A handle for one-way frames and panel callbacks, usable from any
    /// thread (sending works once `run` has started).
    pub fn handle(&self) -> Handle {
        self.handle.clone()
    }

    /// The host metadata, once `hello_ack` has been received.
    pub fn host_info(&self) -> Option<HostInfo> {
        self.handle.host_info()
    }

    /// Registers slash command `/name`. `handler` receives the trimmed
    /// text typed after the command. Registering the same name again
    /// replaces the handler.
    pub fn command<F>(
        &mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> &mut Self
    where
        F: Fn(&str, &Context) -> Response + Send + Sync + 'static,
    {
        self.registry
            .add_command(name.into(), description.into(), Arc::new(handler));
        self
    }

    tool_registration!(
        /// Registers a tool the model can call. `schema` is the JSON Schema
        /// object of its arguments; `handler` receives the arguments the model
        /// produced (validate them yourself).
        tool,
        deferred: false
    );

    tool_registration!(
        /// Registers a deferred tool: known to the host but not offered to the
        /// model until a tool result names it in `activate_tools`
        /// ([`ToolResult::with_activate_tools`]).
        deferred_tool,
        deferred: true
    );

    /// Runs `callback` after `hello_ack` and before registrations are
    /// announced, so it can register more commands and tools based on the
    /// host metadata (cwd, model, data directory, ...).
    pub fn on_hello<F>(&mut self, callback: F) -> &mut Self
    where
        F: FnOnce(&mut Extension, &HostInfo) + Send + 'static,
    {
        self.on_hello = Some(Box::new(callback));
        self
    }

    /// Subscribes to lifecycle event `name` (see [`zut_protocol::EventName`]).
    /// One handler per name; the latest registration wins. Event handlers
    /// run synchronously on the thread reading host frames, one at a time
    /// in the order sent: keep them short.
    pub fn on_event<F>(&mut self, name: impl Into<String>, handler: F) -> &mut Self
    where
        F: Fn(&Event) + Send + Sync + 'static,
    {
        self.registry.add_event(name.into(), Arc::new(handler));
        self
    }

    /// Subscribes to every lifecycle event that has no handler of its own.
    pub fn on_all_events<F>(&mut self, handler: F) -> &mut Self
    where
        F: Fn(&Event) + Send + Sync + 'static,
    {
        self.registry.add_any_event(Arc::new(handler));
        self
    }

    /// Intercepts every tool call (built-in and extension tools) before it
    /// runs. `args` is the current argument object (`Value::Null` if the
    /// host sent none). Return `(true, _)` to allow or `(false, reason)` to
    /// refuse; the model sees `reason` as the tool error. Replaces any
    /// earlier tool-call interceptor.
    pub fn intercept_tool_call<F>(&mut self, guard: F) -> &mut Self
    where
        F: Fn(&str, &Value) -> (bool, String) + Send + Sync + 'static,
    {
        self.registry.tool_guard = Some(Arc::new(move |tool: &str, args: &Value| {
            let (allow, reason) = guard(tool, args);
            ToolCallDecision {
                block: !allow,
                reason,
                modified_args: None,
            }
        }));
        self
    }

    /// Intercepts every tool call with a full [`ToolCallDecision`], which
    /// can also rewrite the arguments. Replaces any earlier tool-call
    /// interceptor.
    pub fn intercept_tool_call_x<F>(&mut self, guard: F) -> &mut Self
    where
        F: Fn(&str, &Value) -> ToolCallDecision + Send + Sync + 'static,
    {
        self.registry.tool_guard = Some(Arc::new(guard));
        self
    }

    /// Intercepts each model call (`step` is 1-based) to block it or add
    /// hidden per-request context.
    pub fn intercept_turn_start<F>(&mut self, guard: F) -> &mut Self
    where
        F: Fn(u64) -> TurnStartDecision + Send + Sync + 'static,
    {
        self.registry.turn_guard = Some(Arc::new(guard));
        self
    }

    /// Intercepts each final assistant message to hide it or rewrite the
    /// text the user sees.
    pub fn intercept_assistant_message<F>(&mut self, guard: F) -> &mut Self
    where
        F: Fn(&str) -> AssistantMessageDecision + Send + Sync + 'static,
    {
        self.registry.assistant_guard = Some(Arc::new(guard));
        self
    }

    /// Speaks the protocol over stdin/stdout until the host sends
    /// `shutdown` or closes stdin (both return `Ok`).
    pub fn run(self) -> Result<(), SdkError> {
        // Not `stdin().lock()`: the reading role moves between threads,
        // and a `StdinLock` cannot. Reads of at least the capacity of
        // `Stdin`'s own buffer bypass it, so bytes are copied only once.
        let stdin = std::io::BufReader::with_capacity(STDIN_BUFFER, std::io::stdin());
        self.run_with(stdin, std::io::stdout())
    }

    /// Like [`Extension::run`] over any reader and writer (tests drive it
    /// over OS pipes). The reader is handed between threads (see the
    /// threading model in the crate docs), hence `Send + 'static`. The
    /// writer is dropped when this returns; the reader by then too.
    pub fn run_with<R, W>(self, reader: R, writer: W) -> Result<(), SdkError>
    where
        R: BufRead + Send + 'static,
        W: Write + Send + 'static,
    {
        let handle = self.handle.clone();
        handle.shared.sink.connect(Box::new(writer));
        let result = self.serve(reader);
        handle.shared.panels.stop_workers();
        handle.shared.sink.disconnect();
        result
    }

    fn serve<R: BufRead + Send + 'static>(mut self, reader: R) -> Result<(), SdkError> {
        let handle = self.handle.clone();
        handle.send(ExtFrame::Hello(Hello {
            protocol_version: PROTOCOL_VERSION,
            name: self.name.clone(),
            version: self.version.clone(),
            capabilities: CAPABILITIES.iter().map(|c| (*c).to_string()).collect(),
        }))?;

        let mut lines = LineReader::new(reader, MAX_HOST_LINE);
        let mut line = Vec::new();
        if !lines.next_line(&mut line)? {
            // The host went away before answering: nothing to serve.
            return Ok(());
        }
        let host = Arc::new(HostInfo::from(read_hello_ack(&line)?));
        // `run` consumes the extension, so the host info is set only once.
        let _ = handle.shared.host.set(Arc::clone(&host));

        if let Some(callback) = self.on_hello.take() {
            callback(&mut self, &host);
        }
        for frame in self.registry.announcements() {
            handle.send(frame)?;
        }
        handle.send(ExtFrame::Ready)?;

        let runtime = Runtime {
            registry: Arc::new(self.registry),
            handle,
            host,
        };
        leader::serve(runtime, lines)
    }
}

/// Checks the host's first line: a `hello_ack` speaking protocol 2.
fn read_hello_ack(line: &[u8]) -> Result<zut_protocol::HelloAck, SdkError> {
    match decode_host_frame(line) {
        Ok(HostFrame::HelloAck(ack)) if ack.protocol_version == PROTOCOL_VERSION => Ok(ack),
        Ok(HostFrame::HelloAck(ack)) => {
            Err(SdkError::UnsupportedHostProtocol(ack.protocol_version))
        }
        Ok(other) => Err(SdkError::NotHelloAck(format!(
            "{:?}",
            host_frame_type(&other)
        ))),
        Err(DecodeError::UnknownType(kind)) => Err(SdkError::NotHelloAck(format!("{kind:?}"))),
        Err(DecodeError::Malformed(detail)) => {
            Err(SdkError::NotHelloAck(format!("a malformed line: {detail}")))
        }
    }
}

fn host_frame_type(frame: &HostFrame) -> &'static str {
    match frame {
        HostFrame::HelloAck(_) => "hello_ack",
        HostFrame::CommandInvoked(_) => "command_invoked",
        HostFrame::ToolCall(_) => "tool_call",
        HostFrame::Event(_) => "event",
        HostFrame::EventIntercept(_) => "event_intercept",
        HostFrame::PanelKey(_) => "panel_key",
        HostFrame::PanelClose(_) => "panel_close",
        HostFrame::PanelResize(_) => "panel_resize",
        HostFrame::Shutdown => "shutdown",
        HostFrame::Unknown => "unknown",
    }
}

impl std::fmt::Debug for Extension {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Extension")
            .field("name", &self.name)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}
