//! The types zut's front ends consume: the conversation's messages
//! ([`Message`], [`Part`], [`Role`]), the agent's events
//! ([`AgentEvent`], serialised as the JSON/RPC events), the JSON shape of
//! message content ([`JsonBlock`]), usage counts, a user's answer to a tool
//! approval, an MCP server's request for input (elicitation), the built-in slash commands and the reasoning levels.
//!
//! serde and schemars only: a front end (the TUI, ACP, RPC) depending on
//! this crate pulls in no HTTP client and no async runtime. The agent
//! (`zut-agent`) builds these values; front ends read them.

pub mod approval;
pub mod commands;
pub mod elicitation;
pub mod event;
pub mod message;
pub mod plan;
pub mod subagent_tag;
pub mod text;
pub mod transcript;

pub use approval::ApprovalDecision;
pub use elicitation::{ElicitationAction, ElicitationAnswer, ElicitationModes, ElicitationRequest};
pub use event::{AgentEvent, UsageCounts, UsageEvent};
pub use message::{Message, Part, Role, StopReason};
pub use plan::{PlanStatus, PlanStep};
pub use transcript::JsonBlock;

/// The accepted reasoning levels (`set_reasoning`, `/reasoning`,
/// `--reasoning`), normalised (`off` becomes `""` in state reports).
pub const REASONING_LEVELS: &[&str] = &["off", "minimum", "low", "medium", "high", "xhigh", "max"];
