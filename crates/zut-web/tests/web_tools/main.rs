//! zut-web's integration tests in one binary: one link and one
//! harness instead of one per file (CI time, issue 18). Each module is one
//! former `tests/<name>.rs`; run one with `cargo test -p zut-web --test web_tools <name>::`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod cli;
mod egress;
mod jail;
mod provider_search;
mod readability;
mod search;
