//! The jail, attacked for real: a jailed `bash` (and Python run from it)
//! tries to write outside the session directory, read secrets, reach the
//! network, trace other processes, make namespaces, fork without end and
//! eat memory; the file tools try the same paths. Each attempt must fail
//! with a message naming the rule, and the allowed work must still work.
//!
//! Linux only (Landlock, seccomp). When the kernel has no Landlock the
//! tests print why and skip, unless `CI` is set (then they fail).
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod code_tools;
mod env;
mod escapes;
mod file_tools;
mod limits;
mod network;
