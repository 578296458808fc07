//! The launcher on real processes: group kill on drop (grandchildren
//! included), stragglers that left the group, merged stderr, the sandbox's
//! environment rules, children forked on the spawner thread.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use zut_process::{spawn, Launch};

fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => s.split_whitespace().nth(2).is_none_or(|st| st != "Z"),
        Err(_) => false,
    }
}

async fn gone(pid: i32) -> bool {
    for _ in 0..200 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    false
}

async fn first_line(p: &mut zut_process::Process) -> String {
    let out = p.child.stdout.take().unwrap();
    let mut lines = BufReader::new(out).lines();
    lines.next_line().await.unwrap().unwrap()
}

#[tokio::test]
async fn dropping_the_process_kills_its_group_and_grandchildren() {
    let dir = tempfile::tempdir().unwrap();
    let mut launch = Launch::new("/bin/sh", dir.path()).args(["-c", "sleep 30 & echo $!; wait"]);
    launch.kill_grace = Duration::from_millis(200);
    let mut p = spawn(launch).unwrap();
    let grandchild: i32 = first_line(&mut p).await.trim().parse().unwrap();
    assert!(alive(grandchild));
    drop(p);
    assert!(gone(grandchild).await, "grandchild {grandchild} survived");
}

#[tokio::test]
async fn stragglers_that_left_the_group_die_with_a_sandboxed_child() {
    let dir = tempfile::tempdir().unwrap();
    if zut_sandbox::status().pids_cgroup.is_none() {
        eprintln!("skipped: no pids cgroup here");
        return;
    }
    let mut policy = zut_sandbox::Policy::jail(&zut_sandbox::JailSpec {
        cwd: dir.path().to_path_buf(),
        ..Default::default()
    });
    policy.limits.max_processes = Some(20);
    let sb = Arc::new(zut_sandbox::Prepared::new(policy).unwrap());
    let mut launch = Launch::new("/bin/sh", dir.path())
        .args(["-c", "setsid sleep 30 > /dev/null 2>&1 & echo $!; wait"])
        .sandbox(Some(sb));
    launch.kill_grace = Duration::from_millis(200);
    let mut p = spawn(launch).unwrap();
    let escaped: i32 = first_line(&mut p).await.trim().parse().unwrap();
    drop(p);
    assert!(gone(escaped).await, "setsid process {escaped} survived");
}

#[tokio::test]
async fn merged_stderr_and_the_sandbox_environment() {
    let dir = tempfile::tempdir().unwrap();
    let mut policy = zut_sandbox::Policy::jail(&zut_sandbox::JailSpec {
        cwd: dir.path().to_path_buf(),
        ..Default::default()
    });
    policy.env = Some(vec!["PATH".into(), "ZUT_PROCESS_TEST_KEPT".into()]);
    let sb = Arc::new(zut_sandbox::Prepared::new(policy).unwrap());
    let mut launch = Launch::new("/bin/sh", dir.path())
        .args(["-c", "echo out; echo err >&2; env | sort"])
        .sandbox(Some(sb));
    launch.merge_stderr = true;
    launch
        .env
        .push(("ZUT_PROCESS_TEST_KEPT".into(), "yes".into()));
    let mut p = spawn(launch).unwrap();
    let mut text = String::new();
    p.child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut text)
        .await
        .unwrap();
    p.child.wait().await.unwrap();
    assert!(text.contains("out\nerr\n"), "{text}");
    assert!(text.contains("ZUT_PROCESS_TEST_KEPT=yes"), "{text}");
    assert!(!text.contains("HOME="), "only allowed variables: {text}");
    assert!(
        text.contains(&format!("PWD={}", dir.path().display())),
        "{text}"
    );
}

/// A child forked on the spawner thread, with its pipes registered with the
/// caller's current-thread runtime: the caller's thread goes on while the
/// job runs (the job waits for a message the caller sends only after
/// handing it over), and the child's pipes work from the caller's runtime.
#[tokio::test(flavor = "current_thread")]
async fn work_on_the_spawner_thread_leaves_the_caller_free() {
    let dir = tempfile::tempdir().unwrap();
    let handle = tokio::runtime::Handle::current();
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let path = dir.path().to_path_buf();
    let job = zut_process::on_spawner_thread(move || {
        let waited = go_rx.recv_timeout(Duration::from_secs(20)).is_ok();
        let _entered = handle.enter();
        let mut launch = Launch::new("/bin/cat", &path);
        launch.stdin = std::process::Stdio::piped();
        let p = spawn(launch);
        let thread = std::thread::current().name().map(str::to_string);
        (waited, thread, p)
    });
    // The job is handed over when its task first runs (at the yield); a
    // job run on this thread would block it until the timeout instead.
    let job = tokio::spawn(job);
    tokio::task::yield_now().await;
    go_tx.send(()).unwrap();
    let (waited, thread, p) = job.await.unwrap().unwrap();
    assert!(waited, "the job ran before the caller's thread went on");
    assert_eq!(thread.as_deref(), Some("zut-spawner"));
    let mut p = p.unwrap();
    let mut stdin = p.child.stdin.take().unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut stdin, b"ping\n")
        .await
        .unwrap();
    assert_eq!(first_line(&mut p).await, "ping");
}

/// A job that panics fails its own caller only: the spawner thread goes on
/// with the next job (language servers and MCP servers share it).
#[tokio::test]
async fn a_panicking_job_does_not_stop_the_spawner_thread() {
    let failed = zut_process::on_spawner_thread(|| -> u32 { panic!("job fails on purpose") }).await;
    let e = failed.unwrap_err();
    assert!(e.to_string().contains("did not finish the job"), "{e}");
    let next = zut_process::on_spawner_thread(|| 7).await.unwrap();
    assert_eq!(next, 7);
}
