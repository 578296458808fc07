//! Integration tests of the built-in tools: real files in temporary
//! directories and real processes, driven through `run_builtin`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod ast;
#[cfg(target_os = "linux")]
mod bash;
mod common;
mod edit;
mod glob;
mod grep;
#[cfg(target_os = "linux")]
mod python;
mod read;
mod validate;
mod worktree;
mod write;
