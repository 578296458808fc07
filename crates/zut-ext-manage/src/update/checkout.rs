//! Updating one extension git checkout (cli.md §3): fetch and pin the
//! upstream commit, show and confirm a change of declared permissions, then
//! steps 1–4: stash local changes, fast-forward to the pinned commit,
//! compare `HEAD`, put the changes back.

use std::path::Path;
use std::time::{Duration, Instant};

use zut_ext_host::manifest::{Manifest, MANIFEST_FILE};

use super::git::{reason, Git};
use super::process::RunFailure;
use super::report::Status;
use crate::interrupt::Interrupt;

/// Time allowed for all git commands of one extension.
pub const EXTENSION_TIMEOUT: Duration = Duration::from_secs(60);
/// Time allowed, afresh, to put local changes back after the pull failed,
/// timed out or was interrupted.
pub const RESTORE_TIMEOUT: Duration = Duration::from_secs(60);

/// Whether `dir` is a git checkout: it has a `.git` directory or a `.git`
/// file (worktrees, submodules, `--separate-git-dir`).
pub fn is_git_checkout(dir: &Path) -> bool {
    let dot_git = dir.join(".git");
    dot_git.is_dir() || dot_git.is_file()
}

/// What updating one checkout came to.
#[derive(Debug)]
pub struct Outcome {
    /// The line to print.
    pub status: Status,
    /// Ctrl+C / SIGTERM arrived: the pass stops after this extension.
    pub interrupted: bool,
}

impl Outcome {
    fn done(status: Status) -> Self {
        Self {
            status,
            interrupted: false,
        }
    }
}

/// Updates the checkout `dir`; `stash_message` is `zut-update-<unix time>`.
///
/// Upstream is fetched first and its commit pinned: when that commit's
/// manifest declares other permissions than the installed one, `confirm`
/// gets the differences (`+ network x`, `- …`) before anything moves
/// (`false` declines the update), and the fast-forward then goes to exactly
/// the commit whose manifest was shown — a push in between cannot slip in
/// wider permissions.
pub fn update(
    dir: &Path,
    stash_message: &str,
    interrupt: Option<&Interrupt>,
    confirm: &mut dyn FnMut(&[String]) -> bool,
) -> Outcome {
    let git = Git::new(dir, Instant::now() + EXTENSION_TIMEOUT, interrupt);
    let target = match upstream_commit(&git) {
        Ok(id) => id,
        Err(stop) => return failed(&git, stop, None, stash_message),
    };
    let current = match git.rev("HEAD") {
        Ok(id) => id,
        Err(e) => return failed(&git, e.into(), None, stash_message),
    };
    let checked = if current.as_deref() == Some(target.as_str()) {
        Ok(Vec::new()) // nothing to pull: nothing to ask
    } else {
        incoming_permissions(&git, &target)
    };
    match checked {
        Ok(diff) if diff.is_empty() || confirm(&diff) => {}
        Ok(_) => return Outcome::done(Status::Declined),
        Err(stop) => return failed(&git, stop, None, stash_message),
    }
    let mut stash_before = None;
    match pull(&git, &target, stash_message, &mut stash_before) {
        Ok(status) => Outcome::done(status),
        Err(stop) => failed(&git, stop, stash_before.as_ref(), stash_message),
    }
}

/// `git fetch`, then the commit `@{upstream}` names (a remote that is gone
/// or a branch without upstream is a failure with git's reason).
fn upstream_commit(git: &Git<'_>) -> Result<String, Stop> {
    let fetched = git.run(&["fetch", "--quiet"])?;
    if !fetched.status.success() {
        return Err(Stop::Git(reason("fetch", &fetched)));
    }
    let upstream = git.run(&["rev-parse", "--verify", "@{upstream}^{commit}"])?;
    let id = upstream.output.trim();
    if !upstream.status.success() || id.is_empty() || id.contains(char::is_whitespace) {
        return Err(Stop::Git(reason("rev-parse @{upstream}", &upstream)));
    }
    Ok(id.to_string())
}

/// The differences between the installed manifest's permissions and those
/// of `target`'s manifest. A `target` without a readable manifest gives
/// none: the host will not start that extension at all. Upstream
/// permissions that do not parse are one `! …` line (the host would refuse
/// to start it), so the user still sees that something changed.
fn incoming_permissions(git: &Git<'_>, target: &str) -> Result<Vec<String>, Stop> {
    let shown = git.run(&["show", &format!("{target}:{MANIFEST_FILE}")])?;
    if !shown.status.success() {
        return Ok(Vec::new());
    }
    let file = git.dir().join(MANIFEST_FILE);
    let Ok(after) = Manifest::parse(&shown.output, &file) else {
        return Ok(Vec::new());
    };
    // An installed manifest whose permissions do not parse never started:
    // it could do nothing, so compare with an empty declaration.
    let before = match Manifest::read(git.dir()).map(|m| m.permissions()) {
        Ok(Ok(p)) => p,
        Ok(Err(_)) => Some(zut_sandbox::Declared::default()),
        Err(_) => None,
    };
    Ok(match after.permissions() {
        Ok(new) => zut_sandbox::Declared::diff(before.as_ref(), new.as_ref()),
        Err(e) => vec![format!("! {e} (the updated extension would not start)")],
    })
}

/// The failed outcome for `stop`, with the stash put back when step 1
/// made one (`stash_before`: see [`pull`]).
fn failed(
    git: &Git<'_>,
    stop: Stop,
    stash_before: Option<&Option<String>>,
    stash_message: &str,
) -> Outcome {
    let interrupted = matches!(stop, Stop::Run(RunFailure::Interrupted));
    let mut text = match stop {
        Stop::Git(text) => text,
        Stop::Run(RunFailure::TimedOut) => {
            format!("git timed out after {} s", EXTENSION_TIMEOUT.as_secs())
        }
        Stop::Run(e) => format!("git: {e}"),
    };
    let restore = git.for_restore(Instant::now() + RESTORE_TIMEOUT);
    if let Err(problem) = restore_stash(&restore, stash_before, stash_message) {
        text.push_str(&format!(
            "; local changes not restored ({problem}), they are in stash \"{stash_message}\""
        ));
    }
    Outcome {
        status: Status::Failed(text),
        interrupted,
    }
}

/// Why [`pull`] stopped before a successful pull.
#[derive(Debug)]
enum Stop {
    /// A git command failed; its most useful output line.
    Git(String),
    /// A git command did not finish.
    Run(RunFailure),
}

impl From<RunFailure> for Stop {
    fn from(e: RunFailure) -> Self {
        Self::Run(e)
    }
}

/// Steps 1–4, fast-forwarding to `target`. `stash_before` receives
/// `refs/stash` as it was before step 1 (`Some(None)`: no stash), so on an
/// error the caller can tell whether step 1 created a stash to put back.
fn pull(
    git: &Git<'_>,
    target: &str,
    stash_message: &str,
    stash_before: &mut Option<Option<String>>,
) -> Result<Status, Stop> {
    let before = git.rev("refs/stash")?;
    *stash_before = Some(before.clone());

    // 1. Stash local changes, untracked runtime files included (nothing
    // to stash → no stash entry).
    let stashed =
        git.run_with_identity(&["stash", "push", "--include-untracked", "-m", stash_message])?;
    if !stashed.status.success() {
        return Err(Stop::Git(reason("stash", &stashed)));
    }
    let after = git.rev("refs/stash")?;
    let created = after.is_some() && after != before;

    // 2. Fast-forward only, to the fetched commit whose manifest was
    // checked; diverged history is a failure.
    let head_before = git.rev("HEAD")?;
    let pulled = git.run(&["merge", "--ff-only", "--quiet", target])?;
    if !pulled.status.success() {
        return Err(Stop::Git(reason("merge", &pulled)));
    }

    // 3. Changed = HEAD moved during the fast-forward. (Comparing with `HEAD@{1}`
    // would call a second, empty pull "updated" when nothing was stashed:
    // the reflog's previous entry is then the previous pull's start.)
    let head_after = git.rev("HEAD").unwrap_or(None);
    let changed = head_after.is_some() && head_after != head_before;

    // 4. Put the exact stash entry from step 1 back (with time of its own:
    // a slow pull must not leave the user's changes in the stash).
    let restore = git.for_restore(Instant::now() + RESTORE_TIMEOUT);
    if created && pop(&restore, stash_message).is_err() {
        return Ok(Status::RestoreConflict {
            changed,
            stash: stash_message.to_string(),
        });
    }
    Ok(if changed {
        Status::Updated
    } else {
        Status::UpToDate
    })
}

/// Pops the stash named `message` if step 1 created one (`refs/stash`
/// changed since `before`; `None` = step 1 never ran).
fn restore_stash(
    git: &Git<'_>,
    before: Option<&Option<String>>,
    message: &str,
) -> Result<(), String> {
    let Some(before) = before else {
        return Ok(());
    };
    let now = git.rev("refs/stash").map_err(|e| format!("git: {e}"))?;
    if now.is_none() || now.as_ref() == before.as_ref() {
        return Ok(());
    }
    pop(git, message)
}

/// `git stash pop <the entry whose message is message>`; a conflict (or
/// any failure) leaves the stash entry and git's markers in place.
fn pop(git: &Git<'_>, message: &str) -> Result<(), String> {
    let found = git.find_stash(message).map_err(|e| format!("git: {e}"))?;
    let Some(selector) = found else {
        return Err(format!("stash \"{message}\" not found"));
    };
    let popped = git
        .run(&["stash", "pop", "--quiet", &selector])
        .map_err(|e| format!("git: {e}"))?;
    if popped.status.success() {
        Ok(())
    } else {
        Err(reason("stash pop", &popped))
    }
}
