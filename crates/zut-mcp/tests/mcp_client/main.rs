//! zut-mcp's integration tests in one binary: one link and one
//! harness instead of one per file (CI time, issue 18). Each module is one
//! former `tests/<name>.rs`; run one with `cargo test -p zut-mcp --test mcp_client <name>::`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod client;
mod e2e;
mod elicit_modes;
mod http;
mod real_servers;
mod sandbox;
mod toggle;
