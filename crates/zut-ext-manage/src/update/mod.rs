//! `zut update`.
//!
//! This build has no self-update channel: zut is built from source, there
//! is no release server to ask, and the binary never downloads anything.
//! So, as a design decision:
//!
//! - `zut update` prints one line on stderr saying self-update is not
//!   available (rebuild from source to update) and then runs the extension
//!   pass of cli.md §3 over the **global** extensions
//!   (`$ZUT_HOME/extensions/`), reported on stdout. Extension failures are
//!   statuses in the report, never errors: the exit status is 0. Only
//!   Ctrl+C / SIGTERM stops the pass early (the running git is killed, its
//!   stash put back, the summary printed) and then exits 1 with
//!   `zut: interrupted`.
//! - An update that would change an extension's declared `permissions`
//!   (docs/extensions.md) prints the differences first and, when stdin and
//!   stderr are a terminal, asks (`update NAME? [y/N]`); "no" skips that
//!   extension (`skipped: permissions change declined`, nothing pulled).
//!   `--yes` (`-y`) accepts without asking; without a terminal the update
//!   proceeds, as scripts expect (the differences are still printed).
//! - `zut update --check` prints that no update channel exists and never
//!   touches extensions (exit 0).
//! - `zut update -h|--help` prints the usage; any other argument fails with
//!   `unknown update argument: <arg>` (exit 1).
//!
//! One deliberate difference from the wording of cli.md §3 step 3: an
//! extension counts as changed when `HEAD` moved during the pull, not when
//! `HEAD` differs from `HEAD@{1}`. The reflog comparison reports a second,
//! empty pull as "updated" whenever nothing was stashed (the previous
//! reflog entry is then the previous pull's starting point).

mod checkout;
mod git;
mod pass;
mod process;
mod report;

use crate::ext::ExtContext;
use crate::interrupt::Interrupt;
use zut_ext_host::ZutHome;

/// Printed on stderr before the extension pass.
pub const NOT_AVAILABLE: &str = "zut update: self-update is not available in this build \
(zut is built from source; rebuild it to update); updating extensions only";

/// Printed on stdout by `zut update --check`.
pub const NO_CHANNEL: &str = "zut update: this build has no update channel \
(zut is built from source; rebuild it to update)";

/// Usage, printed on stderr by `zut update --help`.
pub const HELP: &str = "\
usage: zut update [--check] [--yes]

  zut update          self-update is not available in this build (rebuild
                      from source); updates git-installed global extensions
                      in $ZUT_HOME/extensions with `git pull --ff-only`,
                      asking first (in a terminal) when an update changes an
                      extension's permissions
  zut update --yes    the same, accepting permission changes without asking
  zut update --check  reports that this build has no update channel";

/// What the arguments ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Request {
    Update,
    Check,
    Help,
}

fn parse(args: &[String]) -> Result<Request, String> {
    let mut request = Request::Update;
    for arg in args {
        match arg.as_str() {
            // Read by `run` (see `yes`).
            "--yes" | "-y" => {}
            "--check" if request != Request::Help => request = Request::Check,
            "--check" => {}
            "-h" | "--help" | "help" => request = Request::Help,
            other => return Err(format!("unknown update argument: {other}")),
        }
    }
    Ok(request)
}

/// Runs `zut update <args>`; returns the exit status.
pub fn run(args: &[String]) -> i32 {
    match parse(args) {
        Err(message) => {
            crate::errln!("{HELP}");
            crate::errln!("zut: {message}");
            1
        }
        Ok(Request::Help) => {
            crate::errln!("{HELP}");
            0
        }
        Ok(Request::Check) => {
            use std::io::Write;
            let _ = writeln!(std::io::stdout(), "{NO_CHANNEL}");
            0
        }
        Ok(Request::Update) => {
            crate::errln!("{NOT_AVAILABLE}");
            let yes = args.iter().any(|a| a == "--yes" || a == "-y");
            let mut ask = |name: &str| ask_permissions(name, yes);
            let extensions_dir = match ExtContext::from_env() {
                Ok(ctx) => ctx.global_dir(),
                Err(_) => ZutHome::from_env().extensions_dir(),
            };
            // Without the handler Ctrl+C would kill zut but not git (it
            // runs in its own process group), leaving a stash behind.
            let interrupt = Interrupt::install().ok();
            let end = pass::run(
                &extensions_dir,
                interrupt.as_ref(),
                &mut std::io::stdout().lock(),
                &mut ask,
            );
            if end.interrupted {
                crate::errln!("zut: interrupted");
                1
            } else {
                0
            }
        }
    }
}

/// Whether to go on with an update that changes `name`'s permissions:
/// yes with `--yes` or without a terminal; otherwise the user's answer.
fn ask_permissions(name: &str, yes: bool) -> bool {
    use std::io::{BufRead, IsTerminal, Write};
    if yes || !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
        return true;
    }
    eprint!("update {name}? [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn arguments() {
        assert_eq!(parse(&args(&[])), Ok(Request::Update));
        assert_eq!(parse(&args(&["--check"])), Ok(Request::Check));
        assert_eq!(parse(&args(&["--yes"])), Ok(Request::Update));
        assert_eq!(parse(&args(&["-y"])), Ok(Request::Update));
        assert_eq!(parse(&args(&["--check", "--help"])), Ok(Request::Help));
        assert_eq!(parse(&args(&["-h", "--check"])), Ok(Request::Help));
        assert_eq!(
            parse(&args(&["--force"])),
            Err("unknown update argument: --force".to_string())
        );
    }
}
