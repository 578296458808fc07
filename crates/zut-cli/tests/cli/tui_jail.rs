//! `/jail` and `/unjail` in the interactive TUI end to end (the real
//! binary in tmux against the local LLM server): the status bar shows
//! `⛓ jailed`, a `bash` write outside the project is refused by the kernel
//! with the rule named in the tool box, and after `/unjail` the same call
//! goes through; `--jail` starts jailed.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::tmux::*;
use common::*;
use zut_llm_server::{LlmServer, Script};

/// The status bar row of the visible screen.
fn status_row(s: &str) -> String {
    s.lines()
        .find(|l| l.contains("(anthropic) test-model"))
        .unwrap_or_default()
        .to_string()
}

fn wait_screen(t: &Tmux, what: &str, ok: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let s = t.screen();
        if ok(&s) {
            return s;
        }
        assert!(Instant::now() < deadline, "timed out: {what}\n{s}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jail_and_unjail_in_the_tui() {
    if !have_tmux() {
        return;
    }
    let sandbox = zut_sandbox::status();
    if !sandbox.enforced() {
        assert!(
            std::env::var_os("CI").is_none(),
            "needs Landlock: {}",
            sandbox.line()
        );
        eprintln!("skipped: {}", sandbox.line());
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let outside = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let target = outside.path().join("pwned.txt");
    let cmd =
        serde_json::json!({"command": format!("echo x > {}", target.display()), "timeout": 10})
            .to_string();
    for answer in ["Refused.", "Written."] {
        server.push(Script::anthropic_tool_call("t1", "bash", &cmd));
        server.push(Script::anthropic_text(answer));
    }
    let t = Tmux::start(&env, &server, &["--no-ext"], 110, 30);
    started(&t);
    assert!(!status_row(&t.screen()).contains("jailed"));

    t.typ("/jail");
    t.keys(&["Enter"]);
    // (The status bar and the confirmation come as two events.)
    let confirmation = format!("✓ jailed to {}", env.project.display());
    wait_screen(&t, "jailed in the status bar and confirmed", |s| {
        status_row(s).contains("⛓ jailed") && s.contains(&confirmation)
    });
    t.typ("write it");
    t.keys(&["Enter"]);
    let s = t.wait_for("Refused.", 15);
    assert!(s.contains("denied by the jail"), "{s}");
    assert!(!target.exists(), "the jail let a write through");

    t.typ("/unjail");
    t.keys(&["Enter"]);
    let s = wait_screen(&t, "jail gone from the status bar", |s| {
        !status_row(s).contains("jailed") && s.contains("✓ unjailed")
    });
    assert!(!status_row(&s).is_empty(), "{s}");
    t.typ("again");
    t.keys(&["Enter"]);
    t.wait_for("Written.", 15);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "x\n");
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
    drop(t);

    // `--jail` starts jailed, and `/info` names the jail.
    let t = Tmux::start(&env, &server, &["--no-ext", "--jail"], 110, 30);
    let s = wait_screen(&t, "jailed at start", |s| {
        status_row(s).contains("⛓ jailed")
    });
    assert!(!s.contains("loading extensions"), "{s}");
    t.typ("/info");
    t.keys(&["Enter"]);
    t.wait_for(&format!("jail: jailed to {}", env.project.display()), 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}
