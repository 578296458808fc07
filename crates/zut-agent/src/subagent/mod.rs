//! Subagents: named profiles ([`profiles`]), in-process children
//! ([`runtime`]), the `subagent` tool ([`tool`]) and `--orchestrate`
//! ([`orchestrate`]). See docs/subagents.md.

pub mod orchestrate;
pub mod profiles;
pub mod runtime;
pub mod tool;
