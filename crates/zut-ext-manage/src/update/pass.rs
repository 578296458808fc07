//! The extension pass of `zut update` over `$ZUT_HOME/extensions/`
//! (cli.md §3): every non-dot directory in name order, one line each, then
//! the summary. Nothing here turns into an error: problems are statuses.

use std::io::Write;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use zut_ext_host::discovery::scan_scope;
use zut_ext_host::manifest::{Manifest, ManifestError};

use super::checkout;
use super::report::{line, Status, Tally, HEADING};
use crate::interrupt::Interrupt;

/// How the pass ended.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct PassEnd {
    /// The counts printed in the summary.
    pub tally: Tally,
    /// Ctrl+C / SIGTERM stopped the pass early.
    pub interrupted: bool,
}

/// Runs the pass over the directories of `extensions_dir`, writing to
/// `out`. Prints nothing when there are none. Write errors (a closed
/// stdout) are ignored: they must not stop the updates.
/// `ask(name)` is asked when an update would change an extension's
/// declared permissions (the differences are printed first); `false`
/// skips that extension.
pub fn run(
    extensions_dir: &Path,
    interrupt: Option<&Interrupt>,
    out: &mut dyn Write,
    ask: &mut dyn FnMut(&str) -> bool,
) -> PassEnd {
    let dirs = scan_scope(extensions_dir, false);
    let mut end = PassEnd::default();
    if dirs.is_empty() {
        return end;
    }
    let _ = writeln!(out, "\n{HEADING}");
    let _ = out.flush();
    for dir in &dirs {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let status = match skip_reason(dir) {
            Some(status) => status,
            None => {
                let mut confirm = |diff: &[String]| {
                    let _ = writeln!(out, "{name}: the update changes its permissions:");
                    for l in diff {
                        let _ = writeln!(out, "    permissions {l}");
                    }
                    let _ = out.flush();
                    ask(&name)
                };
                let outcome = checkout::update(dir, &stash_message(), interrupt, &mut confirm);
                end.interrupted = outcome.interrupted;
                outcome.status
            }
        };
        end.tally.add(&status);
        let _ = writeln!(out, "{}", line(&name, &status));
        let _ = out.flush();
        if end.interrupted {
            break;
        }
    }
    let _ = writeln!(out, "{}", end.tally);
    let _ = out.flush();
    end
}

/// Why `dir` is not pulled, checked in this order: no manifest, disabled,
/// not a git checkout. A manifest that does not parse counts as enabled.
fn skip_reason(dir: &Path) -> Option<Status> {
    match Manifest::read(dir) {
        Err(ManifestError::Read(_)) => return Some(Status::NoManifest),
        Ok(m) if !m.enabled => return Some(Status::Disabled),
        Ok(_) | Err(_) => {}
    }
    (!checkout::is_git_checkout(dir)).then_some(Status::NotGitCheckout)
}

/// `zut-update-<unix time>`.
fn stash_message() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    format!("zut-update-{secs}")
}
