//! `!cmd`: runs a shell command for the user (not the model) and shows its
//! output in a tool box. Output is capped; the command is killed after
//! [`TIMEOUT`] or when zut exits.

use std::time::Duration;

use tokio::process::Command;

/// Longest a `!cmd` may run.
pub const TIMEOUT: Duration = Duration::from_secs(120);
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
