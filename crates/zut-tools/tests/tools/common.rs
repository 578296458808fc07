//! Helpers shared by the tool tests.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use zut_tools::{run_builtin, ToolContext, ToolOutput};

/// Runs built-in `name` with `args` in `dir`.
pub async fn call(name: &str, args: Value, dir: &Path) -> ToolOutput {
    run_builtin(name, &args, &ToolContext::new(dir)).await
}

/// Runs built-in `name` in `ctx`.
pub async fn call_ctx(name: &str, args: Value, ctx: &ToolContext) -> ToolOutput {
    run_builtin(name, &args, ctx).await
}

/// Asserts a successful output and returns its text.
#[track_caller]
pub fn ok_text(out: &ToolOutput) -> String {
    assert!(
        !out.is_error,
        "expected success, got error: {}",
        out.text_content()
    );
    out.text_content()
}

/// Asserts an error output and returns its text.
#[track_caller]
pub fn err_text(out: &ToolOutput) -> String {
    assert!(
        out.is_error,
        "expected an error, got success: {}",
        out.text_content()
    );
    out.text_content()
}

/// Waits (generously) until `path` exists with a non-empty first line and
/// returns that line.
pub async fn wait_for_line(path: &Path) -> String {
    for _ in 0..400 {
        if let Ok(s) = std::fs::read_to_string(path) {
            if let Some(line) = s.lines().next() {
                if !line.trim().is_empty() && s.ends_with('\n') {
                    return line.trim().to_string();
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{} never appeared", path.display());
}

/// Whether process `pid` is gone (no longer exists, or is a zombie waiting
/// to be reaped by someone else).
pub fn process_gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => {
            let state = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.trim_start().chars().next());
            matches!(state, Some('Z') | Some('X'))
        }
    }
}

/// Polls (up to ~15 s) until `pid` is gone; panics otherwise.
pub async fn assert_process_dies(pid: i32) {
    for _ in 0..300 {
        if process_gone(pid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Do not leave it behind.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
    panic!("process {pid} survived");
}
