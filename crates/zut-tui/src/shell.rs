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
        .kill_on_drop(true)
        .spawn();
    let child = match child {
        Ok(c) => c,
        Err(e) => return (format!("could not start {shell}: {e}"), true),
    };
    match tokio::time::timeout(TIMEOUT, child.wait_with_output()).await {
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
        Err(_) => (format!("timed out after {}s", TIMEOUT.as_secs()), true),
    }
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
}
