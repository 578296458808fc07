//! Group C: the `hello` / `hello_ack` handshake and its failures.

use std::time::{Duration, Instant};

use serde_json::json;
use zut_ext_host::ExtensionHost;
use zut_protocol::SessionInfo;
use zut_test_support::{process_alive, TestEnv};

use crate::common::*;

/// Starts a host with one global extension built by `make` and returns the
/// run plus the single load error text (asserting there is exactly one).
async fn one_failure(make: impl FnOnce(&TestEnv)) -> (Run, String) {
    let env = TestEnv::new();
    make(&env);
    let run = Run::start(env, |_| {}).await;
    assert_eq!(run.report.errors.len(), 1, "errors: {:?}", run.errors());
    let msg = run.report.errors[0].message.clone();
    assert!(
        run.host.reports().is_empty(),
        "a failed handshake registers nothing"
    );
    (run, msg)
}

#[tokio::test]
async fn c1_exit_before_hello_reports_status_and_log() {
    let (run, msg) = one_failure(|env| {
        sh_ext(
            &env.global_dir("broken"),
            "broken",
            "echo 'compile failed' >&2\nexit 23",
        );
    })
    .await;
    assert!(
        msg.starts_with("Extension broken failed to start.\n"),
        "{msg}"
    );
    assert!(
        msg.contains("extension exited before hello: exit status 23"),
        "{msg}"
    );
    let log = run.env.log_path("broken");
    assert!(msg.contains(&log.display().to_string()), "{msg}");
    assert!(msg.contains(r#"exec: "./run.sh""#), "{msg}");
    assert!(!msg.contains("\\n"), "no escaped newlines: {msg}");
    assert_eq!(
        msg.matches(&run.env.global_dir("broken").display().to_string())
            .count(),
        1,
        "the directory appears once: {msg}"
    );
    assert!(run.env.log("broken").contains("compile failed"));
}

#[tokio::test]
async fn c2_signal_before_hello() {
    let (run, msg) = one_failure(|env| {
        sh_ext(&env.global_dir("sig"), "sig", "kill -TERM $$\nsleep 5");
    })
    .await;
    assert!(
        msg.contains("extension exited before hello: signal: terminated"),
        "{msg}"
    );
    assert!(msg.contains("ext-sig.log"), "{msg}");
    assert!(run
        .env
        .log("sig")
        .contains("[zut] handshake failed: extension exited before hello: signal: terminated"));
    drop(run);
}

#[tokio::test]
async fn c3_garbage_before_hello_kills_and_reaps() {
    let env = TestEnv::new();
    let dir = py_ext(
        &env.global_dir("garbage"),
        "garbage",
        "print('not-json', flush=True)\ntime.sleep(60)",
    );
    let run = Run::start(env, |_| {}).await;
    let msg = run.errors().join("\n");
    assert!(msg.contains("parse hello (stderr log: "), "{msg}");
    let pid = pid_of(&dir).await;
    assert!(
        eventually(Duration::from_secs(5), || !process_alive(pid)).await,
        "the process is killed and reaped"
    );
    assert!(run.env.log("garbage").contains("handshake failed"));
}

#[tokio::test]
async fn c4_wrong_or_missing_protocol_version() {
    let env = TestEnv::new();
    let v1 = py_ext(
        &env.global_dir("v1"),
        "v1",
        "hello(version=1)\ntime.sleep(60)",
    );
    let v0 = py_ext(
        &env.global_dir("v0"),
        "v0",
        "send({'type': 'hello', 'name': NAME})\ntime.sleep(60)",
    );
    let run = Run::start(env, |_| {}).await;
    let errs = run.errors();
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(errs.iter().any(|e| e.contains("Extension v1 failed")
        && e.contains("unsupported extension protocol version 1 (want 2; stderr log: ")));
    assert!(errs.iter().any(|e| e.contains("Extension v0 failed")
        && e.contains("unsupported extension protocol version 0 (want 2")));
    for dir in [v1, v0] {
        let pid = pid_of(&dir).await;
        assert!(eventually(Duration::from_secs(5), || !process_alive(pid)).await);
        assert!(
            received(&dir).is_empty(),
            "no hello_ack for a rejected hello"
        );
    }
    assert!(run
        .env
        .log("v1")
        .contains("[zut] handshake failed: unsupported extension protocol version 1"));
}

#[tokio::test]
async fn c5_first_frame_not_hello_or_empty_name() {
    let env = TestEnv::new();
    let notify_first = py_ext(
        &env.global_dir("notify-first"),
        "notify-first",
        "send({'type': 'notify', 'message': 'hi'})\ntime.sleep(60)",
    );
    let empty_name = py_ext(
        &env.global_dir("empty-name"),
        "empty-name",
        "send({'type': 'hello', 'protocol_version': 2, 'name': ''})\ntime.sleep(60)",
    );
    let run = Run::start(env, |_| {}).await;
    let errs = run.errors();
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(errs
        .iter()
        .any(|e| e.contains("first frame must be hello (got \"notify\"; stderr log: ")));
    assert!(errs
        .iter()
        .any(|e| e.contains("empty-name") && e.contains("first frame must be hello")));
    // What the host did: nothing registered, both processes killed and
    // reaped, no hello_ack sent; what it reported: the log lines.
    assert!(run.host.reports().is_empty());
    for (dir, name) in [(notify_first, "notify-first"), (empty_name, "empty-name")] {
        let pid = pid_of(&dir).await;
        assert!(eventually(Duration::from_secs(5), || !process_alive(pid)).await);
        assert!(received(&dir).is_empty(), "no hello_ack for {name}");
        assert!(
            run.env
                .log(name)
                .contains("[zut] handshake failed: first frame must be hello"),
            "{}",
            run.env.log(name)
        );
    }
    assert!(run.ui.events().is_empty(), "the early notify is not shown");
}

#[tokio::test]
async fn hello_ack_write_failure_is_reported_and_logged() {
    let env = TestEnv::new();
    // Stdin is closed before hello, so writing hello_ack must fail (EPIPE).
    let dir = py_ext(
        &env.global_dir("deafborn"),
        "deafborn",
        "sys.stdin.close()\nos.close(0)\nsend({'type': 'hello', 'protocol_version': 2, 'name': NAME})\n\
         time.sleep(60)",
    );
    let run = Run::start(env, |_| {}).await;
    let msg = run.errors().join("\n");
    assert!(
        msg.contains("send hello_ack (stderr log: ") && msg.contains("ext-deafborn.log"),
        "{msg}"
    );
    assert!(run.host.reports().is_empty(), "nothing registered");
    let pid = pid_of(&dir).await;
    assert!(eventually(Duration::from_secs(5), || !process_alive(pid)).await);
    assert!(
        run.env
            .log("deafborn")
            .contains("[zut] handshake failed: send hello_ack (stderr log: "),
        "{}",
        run.env.log("deafborn")
    );
}

#[tokio::test]
async fn c6_name_mismatch_loads_under_manifest_name() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("real"),
        "real",
        "hello(name='other')\nsend({'type': 'register_command', 'name': 'x'})\n\
         send({'type': 'ready'})\nsend({'type': 'notify', 'message': 'hi'})\nserve()",
    );
    let run = Run::start(env, |_| {}).await;
    assert!(run.report.errors.is_empty(), "{:?}", run.errors());
    let r = run.report_of("real");
    assert!(has_diag(&r, "hello name \"other\" does not match"), "{r:?}");
    assert_eq!(run.host.commands()[0].extension, "real");
    assert!(
        run.ui
            .wait(Duration::from_secs(5), |e| e
                .iter()
                .any(|e| e.extension == "real"))
            .await
    );
    assert!(run.env.log("real").contains("does not match manifest name"));
    assert!(!run.env.log_path("other").exists());
    run.stop().await;
}

#[tokio::test]
async fn c7a_closed_stdout_without_exiting() {
    let env = TestEnv::new();
    let dir = sh_ext(
        &env.global_dir("closer"),
        "closer",
        "echo $$ > pid\nexec 1>&-\nsleep 60",
    );
    let run = Run::start(env, |_| {}).await;
    let msg = run.errors().join("\n");
    assert!(
        msg.contains("extension closed stdout before hello without exiting (stderr log: "),
        "{msg}"
    );
    let pid = pid_of(&dir).await;
    assert!(eventually(Duration::from_secs(5), || !process_alive(pid)).await);
    assert!(run
        .env
        .log("closer")
        .contains("[zut] handshake failed: extension closed stdout before hello"));
}

#[tokio::test]
async fn c7b_silent_forever_hits_the_hello_timeout() {
    let env = TestEnv::new();
    let dir = sh_ext(
        &env.global_dir("silent"),
        "silent",
        "echo $$ > pid\nexec sleep 60",
    );
    echo_ext(&env.global_dir("zfine"), "zfine", &["ok"]);
    let started = Instant::now();
    let run = Run::start(env, |c| c.timeouts.hello = Duration::from_millis(800)).await;
    assert!(started.elapsed() < Duration::from_secs(20));
    let msg = run.errors().join("\n");
    assert!(msg.contains("no hello within 0.8s"), "{msg}");
    assert!(msg.contains("ext-silent.log"), "{msg}");
    assert!(run
        .env
        .log("silent")
        .contains("[zut] handshake failed: no hello within 0.8s"));
    let pid = pid_of(&dir).await;
    assert!(eventually(Duration::from_secs(5), || !process_alive(pid)).await);
    // Start-up continued with the other extension.
    let out = run.host.call_tool("ok", json!({})).await;
    assert!(!out.is_error, "{out:?}");
    run.stop().await;
}

#[tokio::test]
async fn c8_hello_ack_fields_and_session_after_reload() {
    let env = TestEnv::new();
    let dir = py_ext(
        &env.global_dir("acker"),
        "acker",
        "hello()\nsend({'type': 'ready'})\nserve()",
    );
    let mut run = Run::start(env, |c| {
        c.provider = "prov".into();
        c.model = "mod".into();
    })
    .await;
    let ack = &received_of(&dir, "hello_ack")[0];
    assert_eq!(ack["protocol_version"], 2);
    assert_eq!(ack["zut_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(ack["provider"], "prov");
    assert_eq!(ack["model"], "mod");
    assert_eq!(ack["cwd"], run.env.project.display().to_string());
    assert_eq!(ack["extension_dir"], dir.display().to_string());
    assert_eq!(ack["data_dir"], dir.display().to_string());
    assert!(
        ack.get("session").is_none(),
        "no session at start-up: {ack}"
    );

    // (b) after a session event, a reload announces the session.
    let session = SessionInfo {
        id: "s1".into(),
        parent_id: "p0".into(),
        path: "/tmp/s1.jsonl".into(),
        cwd: "/tmp".into(),
        fork_point: 4,
    };
    run.host
        .emit_session_event("session_opened", Some(session.clone()));
    let report = run.host.reload().await;
    assert_eq!((report.stopped, report.loaded), (1, 1));
    let acks = received_of(&dir, "hello_ack");
    assert_eq!(acks.len(), 2);
    assert_eq!(
        acks[1]["session"],
        json!({"id": "s1", "parent_id": "p0", "path": "/tmp/s1.jsonl", "cwd": "/tmp", "fork_point": 4})
    );
    run.stop().await;
}

#[tokio::test]
async fn c8c_no_session_event_means_no_session_in_hello_ack() {
    let env = TestEnv::new();
    let dir = py_ext(
        &env.global_dir("nosess"),
        "nosess",
        "hello()\nsend({'type': 'ready'})\nserve()",
    );
    let mut run = Run::start(env, |_| {}).await;
    run.host.emit_session_event("session_start", None);
    run.host.reload().await;
    let acks = received_of(&dir, "hello_ack");
    assert_eq!(acks.len(), 2);
    assert!(acks.iter().all(|a| a.get("session").is_none()), "{acks:?}");
    run.stop().await;
}

#[tokio::test]
async fn c9_environment_cwd_process_group_and_log_marker() {
    let env = TestEnv::new();
    let dir = py_ext(
        &env.global_dir("envy"),
        "envy",
        "sys.stderr.write('child stderr line\\n'); sys.stderr.flush()\n\
         open('env.json', 'w').write(json.dumps({'home': os.environ.get('HOME'), 'path': os.environ.get('PATH'), \
         'pwd': os.environ.get('PWD'), 'cwd': os.getcwd(), 'pgid': os.getpgid(0), 'pid': os.getpid()}))\n\
         hello()\nsend({'type': 'ready'})\nserve()",
    );
    let run = Run::start(env, |_| {}).await;
    assert!(run.report.errors.is_empty(), "{:?}", run.errors());
    let seen: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("env.json")).unwrap()).unwrap();
    assert_eq!(seen["home"], std::env::var("HOME").unwrap_or_default());
    assert_eq!(seen["path"], std::env::var("PATH").unwrap_or_default());
    assert_eq!(seen["pwd"], dir.display().to_string());
    assert_eq!(seen["cwd"], dir.display().to_string());
    assert_eq!(seen["pgid"], seen["pid"], "own process group");
    // SAFETY: getpgrp has no preconditions.
    let ours = unsafe { libc::getpgrp() };
    assert_ne!(seen["pgid"], json!(ours));
    run.stop().await;
    let log = run.env.log("envy");
    let marker = log
        .find("[zut] starting envy/1.0.0 at 20")
        .expect("start marker");
    let child = log.find("child stderr line").expect("child stderr");
    assert!(marker < child, "{log}");
    assert!(log.starts_with("\n[zut] starting"), "{log:?}");

    // A second run appends.
    let (tx, rx) = zut_ext_host::ui_channel();
    drain_into(rx, Ui::default());
    let (host2, _) = ExtensionHost::start(config(&run.env), tx).await;
    host2.shutdown().await;
    let log = run.env.log("envy");
    assert_eq!(log.matches("[zut] starting envy/1.0.0").count(), 2, "{log}");
}

#[tokio::test]
async fn oversized_first_line_fails_the_load() {
    let env = TestEnv::new();
    let dir = py_ext(
        &env.global_dir("bighello"),
        "bighello",
        "raw(b'x' * (5 << 20) + b'\\n')\ntime.sleep(60)",
    );
    let run = Run::start(env, |_| {}).await;
    let msg = run.errors().join("\n");
    assert!(msg.contains("read hello (stderr log: "), "{msg}");
    assert!(msg.contains("4194304 byte frame limit"), "{msg}");
    let pid = pid_of(&dir).await;
    assert!(eventually(Duration::from_secs(5), || !process_alive(pid)).await);
}

#[tokio::test]
async fn blank_line_before_hello_fails_the_load() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("blank"),
        "blank",
        "raw('\\n')\nhello()\nserve()",
    );
    let run = Run::start(env, |_| {}).await;
    let msg = run.errors().join("\n");
    assert!(msg.contains("parse hello (stderr log: "), "{msg}");
    assert!(msg.contains("empty line"), "{msg}");
}
