//! Group A: framing and frame parsing, bad frames, the 4 MiB line limit.

use std::time::Duration;

use serde_json::json;
use zut_ext_host::UiKind;
use zut_test_support::{process_alive, TestEnv};

use crate::common::*;

const LIMIT: usize = 4 * 1024 * 1024;

#[tokio::test]
async fn a1_crlf_and_unknown_keys() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("crlf"),
        "crlf",
        "send({'type': 'hello', 'protocol_version': 2, 'name': NAME, 'extra': True})\nrecv()\n\
         raw('{\"type\":\"register_tool\",\"name\":\"t\",\"foo\":1}\\r\\n')\n\
         raw('{\"type\":\"notify\",\"level\":\"info\",\"message\":\"hi\",\"foo\":1}\\r\\n')\n\
         raw('{\"type\":\"ready\",\"foo\":[1,2]}\\r\\n')\n\
         serve(lambda f: raw(json.dumps(text(f, 'crlf ok')) + '\\r\\n') if f['type'] == 'tool_call' else None)",
    );
    let run = Run::start(env, |_| {}).await;
    let r = run.report_of("crlf");
    assert_eq!(r.readiness, zut_ext_host::Readiness::Ready);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert_eq!(run.host.call_tool("t", json!({})).await.text(), "crlf ok");
    assert!(
        run.ui
            .wait(Duration::from_secs(5), |e| e.iter().any(|e| e.kind
                == UiKind::Notify {
                    level: "info".into(),
                    message: "hi".into()
                }))
            .await
    );
    run.stop().await;
}

#[tokio::test]
async fn a2_bad_frames_are_logged_named_and_skipped() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("sloppy"),
        "sloppy",
        "hello()\n\
         raw('not json\\n')\nraw('\\n')\nraw('{\"type\":\"bogus\"}\\n')\n\
         raw(b'{\"type\":\"notify\",\"message\":\"\\xff\\xfe\"}\\n')\n\
         raw('{\"type\":\"notify\",\"message\":5}\\n')\n\
         raw('{\"type\":\"register_command\",\"name\":[\"x\"]}\\n')\n\
         raw('[1,2]\\n')\n\
         send({'type': 'register_tool', 'name': 't'})\nsend({'type': 'ready'})\n\
         serve(lambda f: text(f, 'still fine') if f['type'] == 'tool_call' else None)",
    );
    let run = Run::start(env, |_| {}).await;
    let r = run.report_of("sloppy");
    assert_eq!(r.readiness, zut_ext_host::Readiness::Ready);
    let malformed = r
        .diagnostics
        .iter()
        .filter(|d| d.starts_with("malformed json frame: "))
        .count();
    assert_eq!(malformed, 6, "{:?}", r.diagnostics);
    assert!(has_diag(&r, "malformed json frame: empty line"));
    assert!(has_diag(
        &r,
        "malformed json frame: line is not valid UTF-8"
    ));
    assert!(has_diag(&r, "unknown frame type \"bogus\""));
    let log = run.env.log("sloppy");
    assert_eq!(
        log.matches("[zut] malformed json from extension: ").count(),
        6,
        "{log}"
    );
    assert!(log.contains("[zut] unknown frame type \"bogus\""), "{log}");
    // Still usable, nothing from the bad frames reached the UI.
    assert_eq!(
        run.host.call_tool("t", json!({})).await.text(),
        "still fine"
    );
    assert!(run.ui.of("sloppy").is_empty(), "{:?}", run.ui.of("sloppy"));
    run.stop().await;
}

#[tokio::test]
async fn a3_truncated_register_tool_then_valid_frames() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("trunc"),
        "trunc",
        "hello()\nraw('{\"type\":\"register_tool\",\"name\":\"broken\",\"schema\":\\n')\n\
         send({'type': 'register_tool', 'name': 'good'})\nsend({'type': 'ready'})\nserve()",
    );
    let run = Run::start(env, |_| {}).await;
    let r = run.report_of("trunc");
    assert!(has_diag(&r, "malformed json frame"), "{r:?}");
    assert_eq!(r.readiness, zut_ext_host::Readiness::Ready);
    let names: Vec<String> = run.host.tools().into_iter().map(|t| t.name).collect();
    assert_eq!(names, vec!["good".to_string()]);
    run.stop().await;
}

/// A `notify` frame whose JSON body is exactly `len` bytes.
fn notify_of_len(len: usize) -> String {
    format!("{HEAD}{}{TAIL}", "x".repeat(len - HEAD.len() - TAIL.len()))
}

const HEAD: &str = r#"{"type":"notify","message":""#;
const TAIL: &str = r#""}"#;

#[tokio::test]
async fn a4_line_limit_is_exact() {
    let env = TestEnv::new();
    // Frame bodies are read from files so the script stays small.
    let dir = env.global_dir("big");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("fits.json"), notify_of_len(LIMIT - 1)).unwrap();
    std::fs::write(dir.join("over.json"), notify_of_len(LIMIT)).unwrap();
    py_ext(
        &dir,
        "big",
        "hello()\nsend({'type': 'register_command', 'name': 'bigcmd'})\nsend({'type': 'ready'})\n\
         for f in frames():\n    if f['type'] == 'command_invoked':\n        raw(open(f['args'] + '.json').read() + '\\n')\n\
         \x20       send({'type': 'command_response', 'id': f['id']})\n",
    );
    let run = Run::start(env, |_| {}).await;
    run.host.invoke_command("bigcmd", "fits").await.unwrap();
    assert!(
        run.ui
            .wait(Duration::from_secs(20), |e| e.iter().any(|e| matches!(
                &e.kind,
                UiKind::Notify { message, .. } if message.len() == LIMIT - 1 - HEAD.len() - TAIL.len()
            )))
            .await,
        "a 4,194,303-byte frame is accepted"
    );
    let pid = pid_of(&dir).await;
    // One byte more: disconnected, unregistered, chrome cleared, stopped.
    let err = run.host.invoke_command("bigcmd", "over").await.unwrap_err();
    assert!(
        matches!(err, zut_ext_host::CommandError::Disconnected { .. }),
        "{err:?}"
    );
    assert!(run.ui.wait_chrome_clear("big").await);
    assert!(!run.host.has_command("bigcmd"));
    assert!(eventually(Duration::from_secs(10), || !process_alive(pid)).await);
    let r = run.report_of("big");
    assert!(!r.alive);
    assert!(has_diag(&r, "frame exceeds the 4 MiB line limit"), "{r:?}");
    assert!(run.env.log("big").contains("frame exceeds the 4 MiB"));
    run.stop().await;
}

#[tokio::test]
async fn a5_unmatched_replies_are_ignored() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("dupes"),
        "dupes",
        "hello()\nsend({'type': 'register_tool', 'name': 't'})\nsend({'type': 'ready'})\n\
         def on(f):\n    if f['type'] != 'tool_call':\n        return None\n\
         \x20   return [text(f, 'first'), text(f, 'second'), text({'id': 'never-issued'}, 'x'),\n\
         \x20           {'type': 'tool_result', 'id': 42, 'content': []},\n\
         \x20           {'type': 'command_response', 'id': f['id'], 'action': 'noop'}]\n\
         serve(on)",
    );
    let run = Run::start(env, |_| {}).await;
    assert_eq!(run.host.call_tool("t", json!({})).await.text(), "first");
    assert_eq!(run.host.call_tool("t", json!({})).await.text(), "first");
    let r = run.report_of("dupes");
    assert!(r.alive);
    // The numeric id fails to decode and is reported as malformed.
    assert!(has_diag(&r, "malformed json frame"), "{r:?}");
    run.stop().await;
}

#[tokio::test]
async fn sixty_four_mib_line_disconnects_with_a_diagnostic() {
    let env = TestEnv::new();
    let dir = py_ext(
        &env.global_dir("huge"),
        "huge",
        "hello()\nsend({'type': 'register_tool', 'name': 'boom'})\nsend({'type': 'ready'})\n\
         for f in frames():\n    if f['type'] == 'tool_call':\n\
         \x20       chunk = b'x' * (1 << 20)\n        for _ in range(64):\n            raw(chunk)\n        raw(b'\\n')\n",
    );
    echo_ext(&env.global_dir("bystander"), "bystander", &["b"]);
    let run = Run::start(env, |c| c.timeouts.tool = Duration::from_secs(60)).await;
    let pid = pid_of(&dir).await;
    let started = std::time::Instant::now();
    let out = run.host.call_tool("boom", json!({})).await;
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(
        out.text(),
        "extension huge/boom failed: extension disconnected"
    );
    assert!(run.ui.wait_chrome_clear("huge").await);
    assert!(eventually(Duration::from_secs(10), || !process_alive(pid)).await);
    let r = run.report_of("huge");
    assert!(has_diag(&r, "4 MiB"), "{:?}", r.diagnostics);
    assert!(run.env.log("huge").contains("4194304 bytes"));
    assert!(!run.host.tools().iter().any(|t| t.name == "boom"));
    assert_eq!(run.host.call_tool("b", json!({})).await.text(), "b:{}");
    run.stop().await;
}
