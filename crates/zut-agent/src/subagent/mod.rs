//! Subagents: named profiles ([`profiles`]), in-process children
//! ([`runtime`]) and the `subagent` tool ([`tool`]). See docs/subagents.md.

pub mod profiles;
pub mod runtime;
pub mod tool;
