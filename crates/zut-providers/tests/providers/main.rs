//! zut-providers's integration tests in one binary: one link and one
//! harness instead of one per file (CI time, issue 18). Each module is one
//! former `tests/<name>.rs`; run one with `cargo test -p zut-providers --test providers <name>::`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod anthropic;
mod anthropic_bytes;
mod bedrock;
mod bedrock_credentials;
mod catalog_figures;
mod cloud_robustness;
mod config;
mod gemini;
mod keys;
mod openai;
mod presets;
mod responses;
mod retry;
mod sigv4;
mod vertex;
mod wire_fixtures;
