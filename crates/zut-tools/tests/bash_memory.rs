//! `bash` keeps memory bounded however much a command prints. Its own test
//! binary so that no other test disturbs the peak-RSS measurement.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(target_os = "linux")]

use serde_json::json;
use zut_tools::limits::{BASH_HEAD_BYTES, BASH_TAIL_BYTES};
use zut_tools::{run_builtin, ToolContext};

/// Peak resident set size of this process, in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[tokio::test]
async fn huge_output_is_streamed_not_accumulated() {
    const TOTAL: usize = 128 * 1024 * 1024;
    let dir = tempfile::tempdir().unwrap();
    let before = peak_rss_kib();
    let out = run_builtin(
        "bash",
        &json!({"command": format!("yes abcdefghijklmnopqrstuvwxyz | head -c {TOTAL}"), "timeout": 300}),
        &ToolContext::new(dir.path()),
    )
    .await;
    let after = peak_rss_kib();
    assert!(!out.is_error, "{}", out.text_content());
    let text = out.text_content();
    let omitted = TOTAL - BASH_HEAD_BYTES - BASH_TAIL_BYTES;
    assert!(text.contains(&format!("[... {omitted} bytes omitted ...]")));
    assert!(text.contains(&format!("{TOTAL} bytes in total")));
    assert!(text.len() < BASH_HEAD_BYTES + BASH_TAIL_BYTES + 1024);
    // 128 MiB went through; the process grew by far less.
    let grown_mib = after.saturating_sub(before) / 1024;
    assert!(grown_mib < 32, "peak RSS grew by {grown_mib} MiB");
}
