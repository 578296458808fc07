//! zut's one process launcher and one bounded line reader.
//!
//! [`spawn`] starts a child the way every child of zut must start: in its
//! own process group, with a parent-death signal (Linux), optionally inside
//! a sandbox policy ([`zut_sandbox::Prepared`]), and with a [`GroupGuard`]
//! that sends SIGTERM, then SIGKILL, to the whole group (grandchildren
//! included) when it is dropped armed. Used by the `bash` and `python`
//! tools, the extension host and MCP servers. [`spawn_server`] starts a
//! long-lived server (language servers) from one long-lived thread, so the
//! parent-death signal follows zut and not a pool thread;
//! [`on_spawner_thread`] runs other start-up work (MCP stdio servers) there,
//! off the caller's thread.
//!
//! [`lines::LineReader`] reads LF-terminated lines with a hard cap, either
//! stopping at an over-long line or skipping it.
//!
//! This crate knows nothing of tools, extensions or protocols.

mod exit;
mod group;
mod launch;
pub mod lines;
mod server;

pub use exit::{describe_exit, signal_name};
pub use group::{group_alive, signal_group, GroupGuard, SIGKILL, SIGTERM};
pub use launch::{sandbox_env, spawn, Launch, Process};
pub use server::{on_spawner_thread, spawn_server, spawn_server_in};
