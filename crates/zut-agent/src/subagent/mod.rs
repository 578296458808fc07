//! Subagents: named profiles ([`profiles`]), in-process children
//! ([`runtime`]), the `subagent` tool ([`tool`]) and `--orchestrate`
//! ([`orchestrate`]). See docs/subagents.md.

mod child_files;
pub mod limits;
pub mod link;
pub mod orchestrate;
pub mod profiles;
mod resume;
pub mod runtime;
pub mod sandbox;
pub mod tool;
mod worker;
