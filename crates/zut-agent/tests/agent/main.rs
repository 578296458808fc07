//! zut-agent's integration tests in one binary: one link and one
//! harness instead of one per file (CI time, issue 18). Each module is one
//! former `tests/<name>.rs`; run one with `cargo test -p zut-agent --test agent <name>::`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;

mod approval;
mod basic;
mod cloud_wires;
mod compaction;
mod conformance;
mod context_recovery;
mod controller;
mod conversation;
mod extensions;
mod jail_command;
mod kimi_deferred;
mod projection;
mod repetition;
mod responses_wire;
mod sessions;
mod skills;
mod subagent_abort;
mod web_command;
mod web_refs;
