//! zut's Model Context Protocol support, on the official Rust SDK `rmcp`.
//!
//! - The client: [`McpManager`] starts every configured server (stdio,
//!   streamable HTTP, legacy HTTP+SSE) in parallel on tasks, keeps their
//!   tools, prompts and resources, calls tools with a timeout that cancels
//!   on the server, restarts crashed servers with backoff and stops them
//!   with zut.
//! - Configuration: [`sources::load`] reads `mcpServers` from
//!   `$ZUT_HOME/config.json`, the project's `.mcp.json` and `.zut/mcp.json`
//!   ([`config`]); project servers need a trust answer ([`trust`]).
//! - Lazy loading ([`lazy`]), tool naming ([`naming`]), result mapping
//!   ([`content`]), prompts as slash commands ([`prompts`]).
//! - Elicitation ([`elicit`]): declared only while a front end can answer.
//! - OAuth for remote servers ([`oauth`]), `zut mcp …` ([`cli`]) and
//!   `zut mcp serve` ([`serve`]).
//!
//! It knows nothing of the agent loop, providers or UIs: the agent asks it
//! for tools and calls them.

pub mod acp;
mod call;
pub mod catalog;
pub mod clash;
pub mod cli;
pub mod config;
mod connect;
pub mod content;
pub mod elicit;
mod fsutil;
mod gate;
mod handler;
pub mod launch;
pub mod lazy;
mod manager;
pub mod mentions;
pub mod naming;
pub mod oauth;
pub mod oauth_store;
pub mod prompts;
pub mod sandbox;
pub mod serve;
pub mod settings;
mod slot;
pub mod sources;
pub mod sse;
pub mod status;
mod supervisor;
mod tls;
pub mod trust;
mod url_flows;

pub use call::CallError;
pub use catalog::{McpPrompt, McpResource, McpTool, SkippedTool};
pub use config::{Scope, ServerConfig, TransportConfig};
pub use content::{McpContent, McpToolResult};
pub use elicit::{Asker, Completer, Elicitation};
pub use manager::{EnvLookup, McpManager, McpOptions};
pub use settings::{LazyMode, McpSettings};
pub use slot::ProgressFn;
pub use status::{ServerInfo, ServerStatus};
