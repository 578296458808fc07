//! Misbehaving extensions not covered by a single conformance case:
//! floods, extensions that stop reading or close their stdin.

use std::time::{Duration, Instant};

use serde_json::json;
use zut_ext_host::{ui_channel, ExtensionHost, UiKind};
use zut_protocol::Event;
use zut_test_support::{rss_kib, TestEnv};

use crate::common::*;

const FLOOD: usize = 1_000_000;

/// One-way frames are never dropped: a full UI channel makes the host stop
/// reading the flooding extension (backpressure through its stdout pipe),
/// so memory stays bounded while the embedder is not draining, every
/// frame arrives once it drains, and other extensions keep working.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_million_notifies_are_bounded_and_all_delivered() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("flood"),
        "flood",
        &format!(
            "hello()\nsend({{'type': 'ready'}})\n\
             line = (json.dumps({{'type': 'notify', 'level': 'info', 'message': 'flood'}}) + '\\n') * 10000\n\
             for _ in range({}):\n    raw(line)\nsend({{'type': 'notify', 'message': 'DONE'}})\nserve()",
            FLOOD / 10_000
        ),
    );
    echo_ext(&env.global_dir("worker"), "worker", &["work"]);
    let mut cfg = config(&env);
    cfg.timeouts.tool = Duration::from_secs(20);
    let (tx, mut rx) = ui_channel();
    let (host, report) = ExtensionHost::start(cfg, tx).await;
    assert!(report.errors.is_empty(), "{:?}", report.errors);

    // Not draining: the host must not buffer the flood.
    let before = rss_kib();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let out = host.call_tool("work", json!({"n": 1})).await;
    assert_eq!(
        out.text(),
        "work:{\"n\": 1}",
        "other extensions keep working"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    if let (Some(before), Some(after)) = (before, rss_kib()) {
        assert!(
            after.saturating_sub(before) < 64 * 1024,
            "RSS grew from {before} KiB to {after} KiB while the UI was not drained"
        );
    }

    // Draining: every frame arrives, in order, then the marker.
    let started = Instant::now();
    let mut floods = 0usize;
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(60), rx.recv())
            .await
            .expect("UI events stalled")
            .expect("UI channel closed");
        if ev.extension != "flood" {
            continue;
        }
        match ev.kind {
            UiKind::Notify { message, .. } if message == "flood" => floods += 1,
            UiKind::Notify { message, .. } if message == "DONE" => break,
            other => panic!("unexpected {other:?}"),
        }
        assert!(
            started.elapsed() < Duration::from_secs(180),
            "flood too slow"
        );
    }
    assert_eq!(floods, FLOOD, "nothing silently dropped");
    let flood = host
        .reports()
        .into_iter()
        .find(|r| r.name == "flood")
        .unwrap();
    assert!(flood.alive);
    assert!(flood.diagnostics.is_empty(), "{:?}", flood.diagnostics);
    host.shutdown().await;
    assert!(host.pids().is_empty());
}

#[tokio::test]
async fn extension_not_reading_stdin_gets_bounded_events_with_a_diagnostic() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("deaf"),
        "deaf",
        "hello()\nsend({'type': 'subscribe', 'events': ['turn_start']})\nsend({'type': 'ready'})\n\
         while True:\n    time.sleep(1)",
    );
    echo_ext(&env.global_dir("hearing"), "hearing", &["h"]);
    let run = Run::start(env, |_| {}).await;
    let started = Instant::now();
    // Each frame is ~1 KiB, enough to fill the pipe many times over.
    let pad = "x".repeat(1024);
    for step in 1..=5_000u64 {
        run.host.emit(&Event {
            event: "turn_start".into(),
            step,
            text: pad.clone(),
            ..Event::default()
        });
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "emit never blocks"
    );
    // What it reported: one aggregated diagnostic with the count, and a
    // logarithmic number of log lines (at 1, 2, 4, … drops), not one per
    // dropped frame.
    assert!(
        eventually(Duration::from_secs(5), || has_diag(
            &run.report_of("deaf"),
            "event frames dropped: "
        ))
        .await
    );
    let r = run.report_of("deaf");
    let drops: Vec<&String> = r
        .diagnostics
        .iter()
        .filter(|d| d.contains("event frames dropped"))
        .collect();
    assert_eq!(drops.len(), 1, "{:?}", r.diagnostics);
    let dropped: u64 = drops[0]
        .trim_start_matches("event frames dropped: ")
        .split(';')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap();
    // What it did: at most 64 frames waited, the rest (minus what the pipe
    // took) were dropped.
    assert!(dropped > 4_000 && dropped < 5_000, "{dropped}");
    let log = run.env.log("deaf");
    let lines = log.matches("event frames dropped: ").count();
    assert!(
        (1..=14).contains(&lines),
        "{lines} drop lines for {dropped} drops"
    );
    assert_eq!(run.host.call_tool("h", json!({})).await.text(), "h:{}");
    run.stop().await;
    assert!(run.host.pids().is_empty());
}

/// A flood of bad frames is reported without growing the log (or the
/// doctor report) without bound, and the extension stays usable.
#[tokio::test]
async fn a_flood_of_bad_frames_has_bounded_log_and_diagnostics() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("spew"),
        "spew",
        "hello()\nsend({'type': 'register_tool', 'name': 't'})\nsend({'type': 'ready'})\n\
         raw('not json\\n' * 2000 + '{\"type\":\"submit_slash\",\"text\":\"x\"}\\n' * 2000)\n\
         serve(lambda f: text(f, 'ok') if f['type'] == 'tool_call' else None)",
    );
    let run = Run::start(env, |_| {}).await;
    assert_eq!(run.host.call_tool("t", json!({})).await.text(), "ok");
    let r = run.report_of("spew");
    assert!(r.alive);
    assert!(r.diagnostics.len() <= 202, "{}", r.diagnostics.len());
    assert!(
        r.diagnostics
            .iter()
            .any(|d| d.ends_with("more diagnostics suppressed")),
        "{:?}",
        r.diagnostics.last()
    );
    let log = run.env.log("spew");
    let zut_lines = log.lines().filter(|l| l.starts_with("[zut] ")).count();
    assert!(zut_lines <= 1_010, "{zut_lines} [zut] lines");
    assert!(log.contains("1000 warnings logged; further ones are counted, not logged"));
    run.stop().await;
    // At disconnect the count of what was not logged is written.
    assert!(
        eventually(Duration::from_secs(5), || run
            .env
            .log("spew")
            .contains("[zut] 3000 more warnings were not logged"))
        .await,
        "{}",
        run.env.log("spew")
    );
}

#[tokio::test]
async fn extension_closing_its_stdin_fails_calls_promptly() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("shut"),
        "shut",
        "hello()\nsend({'type': 'register_tool', 'name': 'x'})\nsend({'type': 'ready'})\n\
         sys.stdin.close()\nos.close(0)\nwhile True:\n    time.sleep(1)",
    );
    let run = Run::start(env, |c| c.timeouts.tool = Duration::from_secs(60)).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    let out = run.host.call_tool("x", json!({})).await;
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "took {:?}",
        started.elapsed()
    );
    assert!(out.is_error);
    assert!(
        out.text().starts_with("extension shut/x failed: write: "),
        "{out:?}"
    );
    assert!(
        run.env
            .log("shut")
            .contains("[zut] write to extension failed: "),
        "{}",
        run.env.log("shut")
    );
    run.stop().await;
    assert!(run.host.pids().is_empty());
}

#[tokio::test]
async fn exiting_right_after_hello_never_hangs_start_up() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("blink"),
        "blink",
        "send({'type': 'hello', 'protocol_version': 2, 'name': NAME})\nsys.exit(4)",
    );
    echo_ext(&env.global_dir("solid"), "solid", &["s"]);
    let started = Instant::now();
    let run = Run::start(env, |c| {
        c.timeouts.ready = Duration::from_secs(30);
        c.timeouts.auto_ready_idle = Duration::from_secs(30);
    })
    .await;
    assert!(started.elapsed() < Duration::from_secs(15));
    // Either the hello_ack write already failed (a load error), or the
    // extension was registered and then seen disconnecting.
    match run.report.errors.as_slice() {
        [] => {
            assert!(run.ui.wait_chrome_clear("blink").await);
            assert!(!run.report_of("blink").alive);
        }
        [e] => assert!(e.message.contains("send hello_ack (stderr log: "), "{e}"),
        more => panic!("{more:?}"),
    }
    assert_eq!(run.host.pids().len(), 1);
    assert_eq!(run.host.call_tool("s", json!({})).await.text(), "s:{}");
    run.stop().await;
}

#[tokio::test]
async fn closing_stdout_at_runtime_disconnects_and_stops_the_process() {
    let env = TestEnv::new();
    let dir = py_ext(
        &env.global_dir("mute"),
        "mute",
        "hello()\nsend({'type': 'register_command', 'name': 'm'})\nsend({'type': 'ready'})\n\
         time.sleep(0.3)\nsys.stdout.close()\nos.close(1)\nwhile True:\n    time.sleep(1)",
    );
    let run = Run::start(env, |_| {}).await;
    let pid = pid_of(&dir).await;
    assert!(run.ui.wait_chrome_clear("mute").await);
    assert!(!run.host.has_command("m"));
    assert!(
        eventually(
            Duration::from_secs(10),
            || !zut_test_support::process_alive(pid)
        )
        .await,
        "a disconnected extension is stopped"
    );
    assert!(run
        .env
        .log("mute")
        .contains("[zut] extension mute read loop exited at "));
    run.stop().await;
}

/// A tool call that timed out while its frame was still queued (the
/// extension was not reading its stdin) is withdrawn: the extension never
/// runs it later, and the next call works once it reads again.
#[tokio::test]
async fn timed_out_requests_still_queued_are_never_delivered() {
    let env = TestEnv::new();
    let dir = py_ext(
        &env.global_dir("nap"),
        "nap",
        "hello()\nsend({'type': 'register_tool', 'name': 't'})\n\
         send({'type': 'subscribe', 'events': ['turn_start']})\nsend({'type': 'ready'})\n\
         time.sleep(2.5)\n\
         serve(lambda f: text(f, 'ran ' + json.dumps(f['args'])) if f['type'] == 'tool_call' else None)",
    );
    let run = Run::start(env, |c| c.timeouts.tool = Duration::from_millis(300)).await;
    // Fill the pipe (the writer then blocks mid-batch), then queue more,
    // so that the next frames stay in the host's queue.
    let pad = "x".repeat(1024);
    for round in 0..2u64 {
        for step in 1..=300u64 {
            run.host.emit(&Event {
                event: "turn_start".into(),
                step: round * 1000 + step,
                text: pad.clone(),
                ..Event::default()
            });
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let out = run.host.call_tool("t", json!({"n": 1})).await;
    assert_eq!(
        out.text(),
        "extension nap/t failed: timeout waiting for nap/t"
    );
    // Once the extension reads again, a new call is answered...
    let until = Instant::now() + Duration::from_secs(20);
    let answer = loop {
        let out = run.host.call_tool("t", json!({"n": 2})).await;
        if !out.is_error || Instant::now() > until {
            break out;
        }
    };
    assert_eq!(answer.text(), "ran {\"n\": 2}");
    // ...and the abandoned call was never delivered.
    let calls = received_of(&dir, "tool_call");
    assert!(
        calls.iter().all(|c| c["args"]["n"] != 1),
        "the timed-out call reached the extension: {calls:?}"
    );
    run.stop().await;
}
