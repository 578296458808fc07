//! Rust SDK for zut extensions (protocol v2).
//!
//! An extension is a subprocess that talks to zut with newline-delimited
//! JSON over stdin/stdout. This crate speaks that protocol for you: build
//! an [`Extension`], register commands, tools, event subscriptions and
//! interceptors, then call [`Extension::run`].
//!
//! ```no_run
//! use zut_ext_sdk::{Extension, Response};
//!
//! fn main() -> Result<(), zut_ext_sdk::SdkError> {
//!     let mut ext = Extension::new("hello", "1.0.0");
//!     ext.command("hello", "say hi", |_args, _ctx| {
//!         Response::prompt("Greet me in one short sentence.")
//!     });
//!     ext.run()
//! }
//! ```
//!
//! The SDK is blocking and uses plain std threads (no async runtime).
//! One thread at a time reads host frames (the *leader*); for a command,
//! tool or intercept request it hands reading over to another (pooled)
//! thread and then runs the handler itself, so handlers may block without
//! delaying the reader or other requests; event handlers run on the
//! reading thread, in order; panel callbacks run on one thread per panel
//! id; the thread that calls `run` waits for the connection to end. See
//! the threading model in `docs/sdk-rust.md`. Stdout carries protocol frames
//! only: log with [`Handle::log`] (stderr).

#![warn(missing_docs)]

mod context;
mod decisions;
mod error;
mod extension;
mod handle;
mod handlers;
mod host_info;
mod leader;
mod panels;
mod pool;
mod reader;
mod response;
mod runtime;
mod sink;
mod tool_result;

pub use context::Context;
pub use decisions::{AssistantMessageDecision, ToolCallDecision, TurnStartDecision};
pub use error::SdkError;
pub use extension::{Extension, CAPABILITIES};
pub use handle::{AlertKind, Handle, Level, WidgetPosition};
pub use host_info::HostInfo;
pub use panels::panel;
pub use response::Response;
pub use tool_result::ToolResult;

/// Wire types re-exported for handlers: event payloads, panel content,
/// key presses, session identity and content blocks.
pub use zut_protocol::{ContentBlock, Event, EventName, PanelContent, PanelKey, SessionInfo};

/// The protocol crate, for code that needs the raw frames.
pub use zut_protocol as protocol;
