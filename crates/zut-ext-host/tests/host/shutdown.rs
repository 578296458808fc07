//! Group J: shutdown, crash and reload.

use std::time::{Duration, Instant};

use serde_json::json;
use zut_test_support::{install_example, process_alive, write_manifest, TestEnv};

use crate::common::*;

#[tokio::test]
async fn j1_polite_extensions_get_shutdown_then_eof_and_no_signal() {
    let env = TestEnv::new();
    let acker = py_ext(
        &env.global_dir("acker"),
        "acker",
        "hello()\nsend({'type': 'ready'})\nserve()\nsend({'type': 'shutdown_ack'})",
    );
    // Exits on EOF only, without acknowledging.
    let eof = py_ext(
        &env.global_dir("eof"),
        "eof",
        "hello()\nsend({'type': 'ready'})\nfor f in frames():\n    pass\nopen('saw-eof', 'w').write('1')",
    );
    install_example("hello", &env.global_dir("hello"));
    let run = Run::start(env, |c| c.timeouts.shutdown_grace = Duration::from_secs(10)).await;
    assert!(run.report.errors.is_empty(), "{:?}", run.errors());
    let pids: Vec<u32> = run.host.pids().into_iter().map(|(_, p)| p).collect();
    assert_eq!(pids.len(), 3);
    let started = Instant::now();
    run.stop().await;
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "prompt exits do not wait for the grace"
    );
    for pid in pids {
        assert!(!process_alive(pid as i32));
    }
    assert_eq!(received_of(&acker, "shutdown").len(), 1);
    assert_eq!(received_of(&eof, "shutdown").len(), 1);
    assert!(eof.join("saw-eof").exists(), "stdin closed after shutdown");
    for name in ["acker", "eof", "hello"] {
        let log = run.env.log(name);
        assert!(!log.contains("SIGTERM"), "{name}: {log}");
        assert!(!log.contains("SIGKILL"), "{name}: {log}");
    }
    assert!(run.host.pids().is_empty());
    assert!(
        run.host.commands().is_empty(),
        "nothing runs after shutdown"
    );
    assert!(run.host.tools().is_empty());
    assert!(run.host.reports().iter().all(|r| !r.alive));
}

#[tokio::test]
async fn j2_stubborn_extension_gets_sigterm_then_sigkill() {
    let env = TestEnv::new();
    let dir = py_ext(
        &env.global_dir("stubborn"),
        "stubborn",
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\nhello()\nsend({'type': 'ready'})\n\
         for f in frames():\n    pass\nwhile True:\n    time.sleep(1)",
    );
    let run = Run::start(env, |c| {
        c.timeouts.shutdown_grace = Duration::from_millis(300);
        c.timeouts.term_to_kill = Duration::from_millis(300);
    })
    .await;
    let pid = pid_of(&dir).await;
    let started = Instant::now();
    run.stop().await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(!process_alive(pid), "SIGKILL reached the process");
    let log = run.env.log("stubborn");
    assert!(
        log.contains("did not exit after shutdown; sending SIGTERM"),
        "{log}"
    );
    assert!(
        log.contains("did not exit after SIGTERM; sending SIGKILL"),
        "{log}"
    );
    assert!(run.host.pids().is_empty());
}

#[tokio::test]
async fn grandchildren_die_with_the_extension() {
    let env = TestEnv::new();
    let dir = sh_ext(
        &env.global_dir("wrapper"),
        "wrapper",
        "sleep 600 &\necho $! > grandchild\n\
         echo '{\"type\":\"hello\",\"protocol_version\":2,\"name\":\"wrapper\"}'\n\
         echo '{\"type\":\"ready\"}'\nwhile read line; do :; done",
    );
    let run = Run::start(env, |_| {}).await;
    assert!(run.report.errors.is_empty(), "{:?}", run.errors());
    let gc: i32 = std::fs::read_to_string(dir.join("grandchild"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(process_alive(gc));
    run.stop().await;
    assert!(
        eventually(Duration::from_secs(5), || !process_alive(gc)).await,
        "the grandchild was left running"
    );
}

#[tokio::test]
async fn j3_crash_at_runtime_leaves_others_working() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("crasher"),
        "crasher",
        "hello()\nsend({'type': 'register_command', 'name': 'boom'})\n\
         send({'type': 'register_tool', 'name': 'ct'})\nsend({'type': 'ready'})\n\
         send({'type': 'status', 'key': 'k', 'text': 'on'})\ntime.sleep(0.5)\nos.kill(os.getpid(), signal.SIGKILL)",
    );
    echo_ext(&env.global_dir("steady"), "steady", &["st"]);
    let run = Run::start(env, |_| {}).await;
    assert!(run.ui.wait_chrome_clear("crasher").await);
    assert!(!run.host.has_command("boom"));
    assert!(matches!(
        run.host.invoke_command("boom", "").await,
        Err(zut_ext_host::CommandError::Unknown(_))
    ));
    let names: Vec<String> = run.host.tools().into_iter().map(|t| t.name).collect();
    assert_eq!(names, vec!["st".to_string()]);
    assert_eq!(run.host.call_tool("st", json!({})).await.text(), "st:{}");
    assert!(!run.report_of("crasher").alive);
    assert!(
        eventually(Duration::from_secs(5), || has_diag(
            &run.report_of("crasher"),
            "process exited: signal: killed"
        ))
        .await
    );
    assert!(run
        .env
        .log("crasher")
        .contains("[zut] process exited: signal: killed"));
    assert!(run.ui.of("steady").is_empty());
    run.stop().await;
}

#[tokio::test]
async fn j4_j5_j8_reload_rereads_manifests_and_counts() {
    let env = TestEnv::new();
    echo_ext(&env.global_dir("one"), "one", &["old"]);
    echo_ext(&env.global_dir("two"), "two", &["two_tool"]);
    let outside = env.project.join("dev");
    echo_ext(&outside, "dev", &["dev_tool"]);
    let mut run = Run::start(env, |c| c.ext_paths = vec![outside.clone()]).await;
    assert_eq!(run.host.tools().len(), 3);
    // Edit: `one` gets a new tool, `two` disappears, `three` and a broken
    // extension appear.
    echo_ext(&run.env.global_dir("one"), "one", &["new"]);
    std::fs::remove_dir_all(run.env.global_dir("two")).unwrap();
    echo_ext(&run.env.global_dir("three"), "three", &["three_tool"]);
    write_manifest(&run.env.global_dir("zbroken"), &json!({"name": "zbroken"}));
    // Never sends `ready`: auto-ready counts as ready.
    py_ext(&run.env.global_dir("legacy"), "legacy", "hello()\nserve()");
    let report = run.host.reload().await;
    assert_eq!(report.stopped, 3);
    assert_eq!(report.loaded, 4);
    assert_eq!(report.ready, 4);
    assert_eq!(report.errors.len(), 1);
    assert!(report.errors[0].message.contains("exec is required"));
    let names: Vec<String> = run.host.tools().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["dev_tool", "new", "three_tool"]);
    assert_eq!(run.host.call_tool("new", json!({})).await.text(), "new:{}");
    assert!(run.host.call_tool("two_tool", json!({})).await.is_error);
    assert!(run.ui.wait_chrome_clear("two").await, "old chrome cleared");
    run.stop().await;

    // J8: --no-ext is honoured on reload: only the --ext path loads.
    let mut run = Run::start(run.env, |c| {
        c.ext_paths = vec![outside.clone()];
        c.no_ext = true;
    })
    .await;
    assert_eq!(run.host.reports().len(), 1);
    let report = run.host.reload().await;
    assert_eq!((report.stopped, report.loaded), (1, 1));
    assert_eq!(run.host.reports()[0].name, "dev");
    run.stop().await;
}

#[tokio::test]
async fn clones_see_the_reloaded_set() {
    let env = TestEnv::new();
    echo_ext(&env.global_dir("one"), "one", &["before"]);
    let mut run = Run::start(env, |_| {}).await;
    let clone = run.host.clone();
    echo_ext(&run.env.global_dir("one"), "one", &["after"]);
    run.host.reload().await;
    assert_eq!(
        clone.call_tool("after", json!({})).await.text(),
        "after:{}",
        "a clone taken before the reload uses the new extensions"
    );
    assert!(clone.call_tool("before", json!({})).await.is_error);
    assert_eq!(clone.pids(), run.host.pids());
    clone.shutdown().await;
    assert!(run.host.pids().is_empty());
}

#[tokio::test]
async fn dropping_the_host_without_shutdown_kills_its_extensions() {
    let env = TestEnv::new();
    let dir = echo_ext(&env.global_dir("orphan"), "orphan", &["o"]);
    let run = Run::start(env, |_| {}).await;
    let pid = pid_of(&dir).await;
    let clone = run.host.clone();
    let Run { env, host, .. } = run;
    drop(host);
    drop(clone);
    assert!(
        eventually(
            Duration::from_secs(10),
            || !zut_test_support::process_alive(pid)
        )
        .await,
        "the extension outlived its host"
    );
    drop(env);
}
