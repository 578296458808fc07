//! Integration tests of the extension host against real extension
//! processes (Python and sh scripts on real pipes, plus the Rust SDK
//! examples). Case ids refer to `conformance-cases.md`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod discovery;
mod dispatch;
mod events;
mod framing;
mod handshake;
mod intercept;
mod misbehaving;
mod panel_pacing;
mod permissions;
mod registration;
mod shutdown;
mod ui;
