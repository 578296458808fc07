//! The git commands of the extension pass, run in one extension checkout
//! with a shared deadline and a non-interactive environment.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use super::process::{run_until, Finished, RunFailure};
use crate::interrupt::Interrupt;

/// Identity used for the stash commit when git has none configured (and
/// cannot guess one), so `git stash push` never fails on a bare machine.
const FALLBACK_NAME: &str = "zut update";
/// See [`FALLBACK_NAME`].
const FALLBACK_EMAIL: &str = "zut-update@localhost";

/// git, run in `dir` until `deadline`.
///
/// Every command gets `GIT_TERMINAL_PROMPT=0` and empty `GIT_ASKPASS` /
/// `SSH_ASKPASS` (a remote asking for credentials fails instead of
/// waiting), `LC_ALL=C` (so the `hint:` prefix that reasons skip is not
/// translated), and none of the `GIT_DIR`-style variables of the calling
/// environment (they would point git at another repository).
#[derive(Debug, Clone, Copy)]
pub struct Git<'a> {
    dir: &'a Path,
    deadline: Instant,
    interrupt: Option<&'a Interrupt>,
}

impl<'a> Git<'a> {
    /// git in `dir`, stopped at `deadline` or when `interrupt` fires.
    pub fn new(dir: &'a Path, deadline: Instant, interrupt: Option<&'a Interrupt>) -> Self {
        Self {
            dir,
            deadline,
            interrupt,
        }
    }

    /// The same checkout with another deadline, deaf to interrupts (used to
    /// put local changes back after a failure or an interrupt).
    pub fn for_restore(&self, deadline: Instant) -> Self {
        Self {
            dir: self.dir,
            deadline,
            interrupt: None,
        }
    }

    /// The checkout.
    pub fn dir(&self) -> &Path {
        self.dir
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new("git");
        cmd.args(args)
            .current_dir(self.dir)
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_ASKPASS", "")
            .env("SSH_ASKPASS", "")
            .env("LC_ALL", "C");
        for var in [
            "GIT_DIR",
            "GIT_WORK_TREE",
            "GIT_INDEX_FILE",
            "GIT_OBJECT_DIRECTORY",
            "GIT_COMMON_DIR",
            "GIT_CEILING_DIRECTORIES",
        ] {
            cmd.env_remove(var);
        }
        cmd
    }

    /// Runs `git <args>`.
    pub fn run(&self, args: &[&str]) -> Result<Finished, RunFailure> {
        run_until(&mut self.command(args), self.deadline, self.interrupt)
    }

    /// Runs `git <args>` with a fallback author/committer for each identity
    /// git cannot determine (`git var` fails).
    pub fn run_with_identity(&self, args: &[&str]) -> Result<Finished, RunFailure> {
        let mut cmd = self.command(args);
        for who in ["AUTHOR", "COMMITTER"] {
            let known = self.run(&["var", &format!("GIT_{who}_IDENT")])?;
            if !known.status.success() {
                cmd.env(format!("GIT_{who}_NAME"), FALLBACK_NAME)
                    .env(format!("GIT_{who}_EMAIL"), FALLBACK_EMAIL);
            }
        }
        run_until(&mut cmd, self.deadline, self.interrupt)
    }

    /// The commit id `rev` names, or `None` when it names nothing (no
    /// commits yet, no stash, no reflog entry).
    pub fn rev(&self, rev: &str) -> Result<Option<String>, RunFailure> {
        let out = self.run(&["rev-parse", "-q", "--verify", rev])?;
        let id = out.output.trim();
        Ok((out.status.success() && !id.is_empty()).then(|| id.to_string()))
    }

    /// The `stash@{n}` selector of the newest stash entry whose message is
    /// `message`.
    pub fn find_stash(&self, message: &str) -> Result<Option<String>, RunFailure> {
        let out = self.run(&["stash", "list", "--format=%gd%x1f%gs"])?;
        if !out.status.success() {
            return Ok(None);
        }
        // The subject is `On <branch>: <message>` (`On (no branch): …`
        // when detached).
        let suffix = format!(": {message}");
        Ok(out.output.lines().find_map(|line| {
            let (selector, subject) = line.split_once('\x1f')?;
            (subject == message || subject.ends_with(&suffix)).then(|| selector.to_string())
        }))
    }
}

/// The most useful line of a failed command's output: the first non-blank
/// line that does not start with `hint:`; `git <what>: <exit status>` when
/// there is none.
pub fn reason(what: &str, done: &Finished) -> String {
    done.output
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("hint:"))
        .map(str::to_string)
        .unwrap_or_else(|| {
            format!(
                "git {what}: {}",
                crate::interrupt::describe_status(done.status)
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(code: i32, output: &str) -> Finished {
        #[cfg(unix)]
        use std::os::unix::process::ExitStatusExt;
        Finished {
            status: std::process::ExitStatus::from_raw(code << 8),
            output: output.to_string(),
        }
    }

    #[test]
    fn reason_skips_hints_and_blank_lines() {
        let out = finished(
            128,
            "hint: Diverging branches can't be fast-forwarded.\nhint:\n\n  fatal: Not possible to fast-forward, aborting.\nmore\n",
        );
        assert_eq!(
            reason("pull", &out),
            "fatal: Not possible to fast-forward, aborting."
        );
    }

    #[test]
    fn reason_without_useful_output_names_the_exit_status() {
        assert_eq!(
            reason("pull", &finished(1, "hint: only hints\n")),
            "git pull: exit status 1"
        );
    }
}
