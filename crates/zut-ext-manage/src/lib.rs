//! Extension management for `zut`: `zut ext …` (list, doctor, logs,
//! enable, disable, remove, install, new, test) and `zut update` (the
//! git-pull pass over the global extensions).
//!
//! The `zut` binary routes `zut ext <args>` to [`run_ext`] and
//! `zut update <args>` to [`run_update`] before any flag parsing; both
//! parse their own arguments (the error texts are part of the contract),
//! write to stdout/stderr through [`stdio`] and return the exit status.
//!
//! | module | concern |
//! |---|---|
//! | `ext/` | `zut ext` subcommands (one folder or file each) |
//! | `update/` | `zut update` |
//! | `builtins.rs` | the built-in names `zut ext doctor` checks against |
//! | `interrupt.rs` | Ctrl+C / SIGTERM flag, process-group children |
//! | `stdio.rs` | stdout/stderr writes that never panic on a closed pipe |

mod builtins;
mod ext;
mod interrupt;
pub mod stdio;
mod update;

pub use builtins::Builtins;

/// Runs `zut ext <args>` (`args` without the leading `ext`); returns the
/// exit status. `builtins` are the names of the running build that
/// extension registrations cannot take (used by `zut ext doctor`).
pub fn run_ext(args: &[String], builtins: &Builtins) -> i32 {
    ext::run(args, builtins)
}

/// Runs `zut update <args>` (`args` without the leading `update`);
/// returns the exit status.
pub fn run_update(args: &[String]) -> i32 {
    update::run(args)
}
