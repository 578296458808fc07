//! zut's extension host.
//!
//! Finds extensions ([`discovery`]), reads their manifests ([`manifest`]),
//! starts them as child processes in their own process groups, runs the
//! protocol v2 handshake, keeps the registry of their commands and tools,
//! dispatches calls, fans out lifecycle events, runs interception chains
//! and shuts them down.
//!
//! The host knows nothing of the UI or of LLMs. It talks to the rest of zut
//! through [`ExtensionHost`]'s methods and a bounded channel of
//! [`UiEvent`]s that the embedder drains.

mod calls;
mod config;
mod confinement;
mod context;
pub mod diagnostics;
pub mod discovery;
mod events;
mod extension;
mod frames;
mod handshake;
pub mod home;
mod host;
mod intercept;
pub mod line_reader;
mod load_error;
mod loader;
mod log_file;
pub mod manifest;
mod outbox;
mod pacer;
mod process;
mod registry;
mod shared;
mod shutdown;
mod tasks;
mod tool_result;
pub mod ui;

pub use calls::{CommandError, CommandReply};
pub use config::{HostConfig, Timeouts, PANEL_KEY_PACE};
pub use confinement::Confinement;
pub use context::join_contexts;
pub use diagnostics::{ExtensionReport, Readiness, Registration, SlotState};
pub use discovery::{Candidate, Discovery, DiscoveryOptions, Planned, Scope};
pub use home::ZutHome;
pub use host::{ExtensionHost, ReloadReport, StartReport};
pub use intercept::{AssistantVerdict, ToolCallVerdict, TurnStartVerdict};
pub use load_error::LoadError;
pub use manifest::{BundledSkills, ExecSpec, Manifest, ManifestError};
pub use registry::{CommandInfo, ToolDef, BUILTIN_TOOL_NAMES, RESERVED_TOOL_NAMES};
pub use tool_result::{ToolContent, ToolOutcome};
pub use ui::{ui_channel, widget_placement, UiEvent, UiKind, UiReceiver, UiSender};
