//! zut's agent core: the turn loop.
//!
//! Joins a [`zut_providers::Provider`], the built-in tools of `zut-tools` and
//! (optionally) a running [`zut_ext_host::ExtensionHost`]. It emits
//! [`AgentEvent`]s (rpc.md §5) to a sink supplied by the mode (print, JSON,
//! RPC, TUI) and knows nothing of terminals or output formats.

mod agent;
pub mod answer_recovery;
pub mod approval;
pub mod commands;
pub mod compaction;
pub mod config;
pub mod context_overflow;
pub mod controller;
pub mod conversation;
pub mod event;
pub mod goals;
pub mod long_session;
mod mcp_mentions;
pub mod mcp_tools;
pub mod plan;
pub mod projection;
pub mod repetition;
pub mod result_budget;
pub mod schedule;
/// How a prompt ended (the type lives in `zut-control`).
pub mod outcome {
    pub use zut_control::PromptOutcome;
}
pub mod session_bridge;
mod session_model;
mod session_switch;
pub mod side_question;
pub mod skills;
mod stream_map;
pub mod subagent;
pub mod system_prompt;
mod tool_exec;
pub mod toolset;
pub mod transcript;
pub mod user_context;
mod web_provider;

pub use agent::{stop_name, Agent, EventSink};
pub use approval::{ApprovalDecision, ApprovalHook, ApprovalRequest, PendingApproval};
pub use compaction::CompactionConfig;
pub use config::AgentConfig;
pub use controller::{Controller, ControllerEvent, EventStream};
pub use event::{AgentEvent, UiEvents, UsageCounts, UsageEvent};
pub use outcome::PromptOutcome;
pub use session_bridge::{AgentSession, STATE_NOT_PERSISTED};
pub use system_prompt::SystemPromptOptions;
pub use zut_types::{ElicitationAction, ElicitationAnswer, ElicitationModes, ElicitationRequest};
/// The public-web tools (`web_search`, `web_open`, `web_find`, `web_click`).
pub use zut_web as web;
