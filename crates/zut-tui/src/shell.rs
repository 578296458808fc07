//! `!cmd`: runs a shell command for the user and shows its output in a
//! tool box. Output is capped; the command is killed after [`TIMEOUT`]
//! (600 s, as the Go original) or when zut exits. The output is then
//! offered to the model with the next prompt, marked as the user's
//! command ([`context_text`]).

use std::time::Duration;

use tokio::process::Command;

/// Longest a `!cmd` may run (the Go original's `ShellEscapeTimeoutSeconds`).
pub const TIMEOUT: Duration = Duration::from_secs(600);
/// Output kept.
const MAX_OUTPUT: usize = 1024 * 1024;

/// Runs `cmd` with `bash -c` (`sh -c` without bash) in `cwd`; returns the
/// combined output and whether it failed.
pub async fn run(cmd: &str, cwd: &std::path::Path) -> (String, bool) {
    run_for(cmd, cwd, TIMEOUT).await
}

/// Kills the command's process group when dropped (a timeout, or zut
/// leaving while it runs): background jobs and pipelines go too.
struct Group(Option<i32>);

impl Drop for Group {
    fn drop(&mut self) {
        if let Some(pgid) = self.0.filter(|p| *p > 1) {
            // SAFETY: kill(2) with a negative pid signals that process
            // group; it touches no memory.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
}

/// [`run`] with a time limit of `limit`.
pub async fn run_for(cmd: &str, cwd: &std::path::Path, limit: Duration) -> (String, bool) {
    let shell = if std::path::Path::new("/bin/bash").exists() {
        "bash"
    } else {
        "sh"
    };
    let child = Command::new(shell)
        .arg("-c")
        .arg(format!("{cmd} 2>&1"))
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .kill_on_drop(true)
        .spawn();
    let child = match child {
        Ok(c) => c,
        Err(e) => return (format!("could not start {shell}: {e}"), true),
    };
    let mut group = Group(child.id().and_then(|p| i32::try_from(p).ok()));
    let result = match tokio::time::timeout(limit, child.wait_with_output()).await {
        Ok(Ok(out)) => {
            let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
            if text.len() > MAX_OUTPUT {
                let mut cut = MAX_OUTPUT;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text.truncate(cut);
                text.push_str("\n… (output cut)");
            }
            let failed = !out.status.success();
            if let Some(code) = out.status.code().filter(|c| *c != 0) {
                text.push_str(&format!("\n[exit {code}]"));
            }
            (text, failed)
        }
        Ok(Err(e)) => (format!("{shell}: {e}"), true),
        Err(_) => {
            return (
                format!("timed out after {}s (killed)", limit.as_secs()),
                true,
            )
        }
    };
    // Finished: nothing of it is killed (a background job it started on
    // purpose outlives it, as in a shell).
    group.0 = None;
    result
}

/// What the model is given of a `!cmd`: bytes kept from the start of the
/// output (the `bash` tool's cap).
const CONTEXT_HEAD: usize = 16 * 1024;
/// Bytes kept from the end of the output (the `bash` tool's cap).
const CONTEXT_TAIL: usize = 32 * 1024;

/// The note shown once a `!cmd` finished.
pub const CONTEXT_NOTE: &str = "the output goes to the model with your next prompt";

/// The text the model gets for `!cmd` with output `out`: marked as a
/// command the user ran (context, not a request), the output cut to its
/// first 16 KiB and last 32 KiB as the `bash` tool cuts it.
pub fn context_text(cmd: &str, out: &str) -> String {
    let body = if out.len() <= CONTEXT_HEAD + CONTEXT_TAIL {
        out.to_string()
    } else {
        let mut head = CONTEXT_HEAD;
        while !out.is_char_boundary(head) {
            head -= 1;
        }
        let mut tail = out.len() - CONTEXT_TAIL;
        while !out.is_char_boundary(tail) {
            tail += 1;
        }
        format!(
            "{}\n… ({} bytes of output left out) …\n{}",
            &out[..head],
            tail - head,
            &out[tail..]
        )
    };
    format!(
        "[The user ran this shell command in zut with `!`; its output is context for the \
         next message, not a request]\n$ {cmd}\n{}",
        body.trim_end()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_is_marked_and_bounded() {
        let t = context_text("ls", "a\nb\n");
        assert!(t.starts_with("[The user ran this shell command in zut with `!`"));
        assert!(t.ends_with("$ ls\na\nb"), "{t}");
        let big = format!("{}{}", "h".repeat(100_000), "é".repeat(20_000));
        let t = context_text("big", &big);
        assert!(t.len() < CONTEXT_HEAD + CONTEXT_TAIL + 300, "{}", t.len());
        assert!(t.contains("bytes of output left out"));
        assert!(t.ends_with('é'));
    }

    #[test]
    fn the_limit_is_the_go_originals() {
        assert_eq!(TIMEOUT, Duration::from_secs(600));
    }

    #[tokio::test]
    async fn a_command_over_its_limit_is_killed_with_its_children() {
        let dir = std::env::temp_dir().join(format!("zut-shell-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let start = std::time::Instant::now();
        let (out, failed) = run_for(
            "sleep 30 & echo $! > bg.pid; echo started; wait",
            &dir,
            Duration::from_secs(1),
        )
        .await;
        assert!(failed);
        assert_eq!(out, "timed out after 1s (killed)");
        assert!(start.elapsed() < Duration::from_secs(10));
        let pid: i32 = std::fs::read_to_string(dir.join("bg.pid"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // The background `sleep` went with the group (reaped by init; give
        // it a moment).
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        // SAFETY: kill(pid, 0) only checks that the process exists.
        while unsafe { libc::kill(pid, 0) } == 0 {
            assert!(std::time::Instant::now() < deadline, "sleep {pid} survived");
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
