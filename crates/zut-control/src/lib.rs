//! The controller handle front ends hold, and the types they read from a
//! running conversation: its one ordered event stream
//! ([`ControllerEvent`], [`EventStream`]), jobs and their outcomes, what a
//! command did, where a session move landed.
//!
//! This crate knows no provider, tool or HTTP client: `zut-agent`
//! implements [`ConversationHandle`] for its controller, and front ends
//! (ACP) that depend only on this crate and `zut-types` stay free of the
//! engine's dependencies.

mod commands;
pub mod events;
mod handle;
mod jobs;
mod outcome;
mod session;
mod ui_events;

pub use commands::{CommandEntry, CommandOutcome};
pub use events::{ControllerEvent, EventQueue, EventStream, COALESCE_AFTER};
pub use handle::{BoxFuture, ConversationHandle};
pub use jobs::{JobHandle, JobId, JobKind, JobOutcome, ReloadSummary};
pub use outcome::PromptOutcome;
pub use session::SessionMoved;
pub use ui_events::UiEvents;
