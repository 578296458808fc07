//! zut's sandbox: one [`Policy`] type for every child zut starts (the
//! agent's jailed `bash` and `python`, extensions, later language servers,
//! MCP servers and subagents), enforced on Linux with Landlock (files; TCP
//! from ABI 4), seccomp, `no_new_privs`, rlimits, a pids cgroup and a
//! private network namespace; on macOS a Seatbelt profile generated from
//! the same policy ([`seatbelt::profile`]).
//!
//! Entry points: [`Policy`] (and [`Policy::jail`], [`Declared`] for
//! manifests), [`Prepared::new`] to turn a policy into kernel objects once
//! and [`Prepared::apply_in_child`] to apply it in each forked child (the
//! process launcher `zut-process` does that), [`status`] for what this
//! machine enforces, [`explain`] to turn a confined program's bare
//! `Permission denied` into a sentence naming the rule, [`proxy`] for
//! domain allow-lists.
//!
//! This crate knows nothing of tools, extensions or sessions.

mod declared;
pub mod exec;
mod explain;
mod jail;
#[cfg(target_os = "linux")]
mod linux;
mod policy;
mod prepared;
pub mod proxy;
pub mod seatbelt;
mod status;

pub use declared::{Declared, DeclaredFs, DeclaredNetwork, Vars};
pub use explain::explain;
pub use jail::{is_home_secret, temp_dirs, JailSpec, HOME_SECRETS, SECRET_ENV};
pub use policy::{display_home, lexical, resolve, Denied, Limits, Network, Policy, ReadScope};
pub use prepared::{Prepared, SpawnScope};
pub use status::{landlock_abi, status, Status};
