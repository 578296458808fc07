//! `bash`: real processes, process-group kills, bounded output.

use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio_util::sync::CancellationToken;
use zut_tools::limits::{BASH_HEAD_BYTES, BASH_TAIL_BYTES};
use zut_tools::{run_builtin, ToolContext};

use crate::common::*;

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[tokio::test]
async fn runs_in_cwd_and_merges_stderr_in_order() {
    let dir = tmp();
    let out = call(
        "bash",
        json!({"command": "echo out1; echo err1 >&2; echo out2; pwd", "timeout": 10}),
        dir.path(),
    )
    .await;
    let text = ok_text(&out);
    let cwd = dir.path().canonicalize().unwrap();
    assert_eq!(text, format!("out1\nerr1\nout2\n{}", cwd.display()));
}

#[tokio::test]
async fn empty_output_and_null_stdin() {
    let dir = tmp();
    // `cat` reads stdin, which is /dev/null: it ends at once.
    let out = call("bash", json!({"command": "cat", "timeout": 30}), dir.path()).await;
    assert_eq!(ok_text(&out), "(no output)");
}

#[tokio::test]
async fn non_zero_exit_is_an_error_with_the_code() {
    let dir = tmp();
    let out = call(
        "bash",
        json!({"command": "echo oops; exit 3", "timeout": 10}),
        dir.path(),
    )
    .await;
    let text = err_text(&out);
    assert!(text.starts_with("oops\n"), "{text}");
    assert!(text.ends_with("Command exited with code 3."), "{text}");
}

#[tokio::test]
async fn death_by_signal_is_reported() {
    let dir = tmp();
    let out = call(
        "bash",
        json!({"command": "kill -KILL $$", "timeout": 10}),
        dir.path(),
    )
    .await;
    let text = err_text(&out);
    assert!(text.contains("killed by signal SIGKILL"), "{text}");
}

#[tokio::test]
async fn invalid_utf8_is_decoded_lossily() {
    let dir = tmp();
    let out = call(
        "bash",
        json!({"command": "printf 'a\\377b\\n'", "timeout": 10}),
        dir.path(),
    )
    .await;
    assert_eq!(ok_text(&out), "a\u{FFFD}b");
}

#[tokio::test]
async fn timeout_kills_the_shell_and_its_background_children() {
    let dir = tmp();
    let cmd = "sleep 100 & echo $! > bg.pid; echo $$ > sh.pid; echo started; sleep 100";
    let out = call("bash", json!({"command": cmd, "timeout": 1}), dir.path()).await;
    let text = err_text(&out);
    assert!(text.starts_with("started"), "{text}");
    assert!(
        text.ends_with("Command timed out after 1 s; its process group was killed."),
        "{text}"
    );
    for f in ["bg.pid", "sh.pid"] {
        let pid: i32 = wait_for_line(&dir.path().join(f)).await.parse().unwrap();
        assert_process_dies(pid).await;
    }
}

#[tokio::test]
async fn processes_ignoring_sigterm_are_killed_after_the_grace_period() {
    let dir = tmp();
    // The subshell ignores SIGTERM and so does the `sleep` it execs.
    let cmd = "(trap '' TERM; exec sleep 100) & echo $! > bg.pid; wait";
    let out = call("bash", json!({"command": cmd, "timeout": 1}), dir.path()).await;
    let text = err_text(&out);
    assert!(text.contains("timed out after 1 s"), "{text}");
    let pid: i32 = wait_for_line(&dir.path().join("bg.pid"))
        .await
        .parse()
        .unwrap();
    assert_process_dies(pid).await;
}

#[tokio::test]
async fn cancel_token_kills_the_group() {
    let dir = tmp();
    let cancel = CancellationToken::new();
    let ctx = ToolContext::new(dir.path()).with_cancel(cancel.clone());
    let cmd = "sleep 100 & echo $! > bg.pid; sleep 100";
    let task = tokio::spawn(async move {
        run_builtin("bash", &json!({"command": cmd, "timeout": 600}), &ctx).await
    });
    let pid: i32 = wait_for_line(&dir.path().join("bg.pid"))
        .await
        .parse()
        .unwrap();
    cancel.cancel();
    let out = task.await.unwrap();
    let text = err_text(&out);
    assert!(
        text.ends_with("Command was cancelled; its process group was killed."),
        "{text}"
    );
    assert_process_dies(pid).await;
}

#[tokio::test]
async fn cancelled_before_start_runs_nothing() {
    let dir = tmp();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let ctx = ToolContext::new(dir.path()).with_cancel(cancel);
    let out = call_ctx("bash", json!({"command": "touch ran", "timeout": 10}), &ctx).await;
    assert!(err_text(&out).contains("cancelled"));
    assert!(!dir.path().join("ran").exists());
}

#[tokio::test]
async fn dropping_the_future_kills_the_group() {
    let dir = tmp();
    let cmd = "sleep 100 & echo $! > bg.pid; echo $$ > sh.pid; sleep 100";
    let args = json!({"command": cmd, "timeout": 600});
    let ctx = ToolContext::new(dir.path());
    let bg = dir.path().join("bg.pid");
    let sh = dir.path().join("sh.pid");
    tokio::select! {
        out = run_builtin("bash", &args, &ctx) => panic!("command ended: {out:?}"),
        _ = async { wait_for_line(&bg).await; wait_for_line(&sh).await } => {}
    }
    // The run_builtin future has been dropped here.
    for f in [&bg, &sh] {
        let pid: i32 = wait_for_line(f).await.parse().unwrap();
        assert_process_dies(pid).await;
    }
}

#[tokio::test]
async fn long_output_keeps_head_and_tail_with_a_notice() {
    let dir = tmp();
    let out = call(
        "bash",
        json!({"command": "seq 1 100000", "timeout": 60}),
        dir.path(),
    )
    .await;
    let text = ok_text(&out);
    let full: String = (1..=100000).map(|i| format!("{i}\n")).collect();
    let omitted = full.len() - BASH_HEAD_BYTES - BASH_TAIL_BYTES;
    assert!(text.starts_with("1\n2\n3\n"), "{}", &text[..50]);
    assert!(
        text.contains(&format!("\n[... {omitted} bytes omitted ...]\n")),
        "no notice"
    );
    assert!(
        text.contains("99999\n100000\n\n[Output truncated"),
        "no tail"
    );
    assert!(text.contains(&format!("{} bytes in total", full.len())));
    assert!(text.len() < BASH_HEAD_BYTES + BASH_TAIL_BYTES + 1024);
    // What is kept is verbatim.
    let head = &full[..BASH_HEAD_BYTES];
    assert!(text.starts_with(head));
}

#[tokio::test]
async fn progress_receives_the_output() {
    let dir = tmp();
    let seen = Arc::new(Mutex::new(String::new()));
    let sink = seen.clone();
    let ctx = ToolContext::new(dir.path()).with_progress(Arc::new(move |chunk: &str| {
        sink.lock().unwrap().push_str(chunk)
    }));
    let out = call_ctx(
        "bash",
        json!({"command": "echo one; printf '\\303'; sleep 0.1; printf '\\251\\n'; echo two", "timeout": 10}),
        &ctx,
    )
    .await;
    assert_eq!(ok_text(&out), "one\né\ntwo");
    assert_eq!(*seen.lock().unwrap(), "one\né\ntwo\n");
}

#[tokio::test]
async fn redirected_background_process_does_not_hold_the_result() {
    let dir = tmp();
    let out = call(
        "bash",
        json!({"command": "sleep 30 > /dev/null 2>&1 & echo $!", "timeout": 10}),
        dir.path(),
    )
    .await;
    let text = ok_text(&out);
    assert!(!text.contains("background processes"), "{text}");
    let pid: i32 = text.trim().parse().unwrap();
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
}

#[tokio::test]
async fn background_process_holding_the_pipe_is_left_after_a_drain_period() {
    let dir = tmp();
    let out = call(
        "bash",
        json!({"command": "echo $$ > sh.pid; sleep 30 & echo $!; echo done", "timeout": 20}),
        dir.path(),
    )
    .await;
    let text = ok_text(&out);
    assert!(text.contains("done"), "{text}");
    assert!(
        text.contains("background processes kept its output open"),
        "{text}"
    );
    let pid: i32 = text.lines().next().unwrap().trim().parse().unwrap();
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
}

#[tokio::test]
async fn missing_working_directory_is_an_error() {
    let dir = tmp();
    let gone = dir.path().join("nope");
    let out = call("bash", json!({"command": "true", "timeout": 10}), &gone).await;
    assert!(err_text(&out).contains("does not exist"));
}

#[tokio::test]
async fn bad_timeouts_are_rejected_before_running() {
    let dir = tmp();
    let marker = dir.path().join("ran");
    for args in [
        json!({"command": "touch ran"}),
        json!({"command": "touch ran", "timeout": 0}),
        json!({"command": "touch ran", "timeout": -5}),
        json!({"command": "touch ran", "timeout": 1.5}),
        json!({"command": "touch ran", "timeout": "10"}),
        json!({"command": "touch ran", "timeout": null}),
        json!({"command": "touch ran", "timeout": 3601}),
    ] {
        let out = call("bash", args.clone(), dir.path()).await;
        let text = err_text(&out);
        assert!(
            text.contains("Invalid arguments for `bash`"),
            "{args}: {text}"
        );
        assert!(text.contains("timeout"), "{args}: {text}");
    }
    assert!(!marker.exists());
    // A whole number written as a float is still an integer to JSON Schema.
    let out = call(
        "bash",
        json!({"command": "echo ok", "timeout": 5.0}),
        dir.path(),
    )
    .await;
    assert_eq!(ok_text(&out), "ok");
}
