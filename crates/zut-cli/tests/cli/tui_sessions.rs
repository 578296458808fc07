//! The interactive TUI's pickers end to end (the real binary in tmux
//! against the local LLM server): `zut -r` opening the sessions picker,
//! resuming the picked session, `/fork`, the session tree (Esc Esc) and
//! `/model`; and Ctrl+Z suspending with the terminal restored.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::tmux::*;
use common::*;
use zut_llm_server::{LlmServer, Script};

/// Every session file under `$ZUT_HOME/sessions`.
fn session_files(home: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(dirs) = std::fs::read_dir(home.join("sessions")) else {
        return out;
    };
    for d in dirs.flatten() {
        if let Ok(files) = std::fs::read_dir(d.path()) {
            out.extend(
                files
                    .flatten()
                    .map(|f| f.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "jsonl")),
            );
        }
    }
    out
}

/// Waits until the visible screen no longer contains `needle`.
fn wait_gone(t: &Tmux, needle: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while t.screen().contains(needle) {
        assert!(Instant::now() < deadline, "{}", t.screen());
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One finished session: `prompt` answered with `answer`.
fn session(env: &TestEnv, server: &LlmServer, prompt: &str, answer: &str) {
    server.push(Script::anthropic_text(answer));
    let t = Tmux::start(env, server, &["--no-ext", prompt], 80, 24);
    t.wait_for(answer, 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_picker_fork_tree_and_model() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    session(&env, &server, "alpha question", "Alpha answer.");
    session(&env, &server, "beta question", "Beta answer.");
    assert_eq!(session_files(&env.home).len(), 2);

    // `-r` without an id: the picker, newest first; filter and resume.
    let t = Tmux::start(&env, &server, &["--no-ext", "-r"], 100, 30);
    let s = t.wait_for("sessions · this directory", 10);
    assert!(
        s.contains("beta question") && s.contains("alpha question"),
        "{s}"
    );
    assert!(
        s.find("beta question") < s.find("alpha question"),
        "newest first:\n{s}"
    );
    t.typ("alpha");
    wait_gone(&t, "beta question");
    t.keys(&["Enter"]);
    let s = t.wait_for("── resumed", 10);
    assert!(s.contains("Alpha answer."), "{s}");
    server.push(Script::anthropic_text("Follow-up answer."));
    t.typ("follow up");
    t.keys(&["Enter"]);
    t.wait_for("Follow-up answer.", 10);
    let body = &server.requests()[2].raw_body;
    assert!(
        body.contains("alpha question") && !body.contains("beta question"),
        "{body}"
    );
    // The empty session `-r` started with was removed; the resumed file
    // got the new messages.
    assert_eq!(session_files(&env.home).len(), 2);

    // /fork: pick the last message of ours; it comes back to the editor
    // and the conversation continues in a new file with a parent.
    t.typ("/fork");
    t.keys(&["Enter"]);
    let s = t.wait_for("fork from a message", 10);
    assert!(s.contains("#1") && s.contains("#2  follow up"), "{s}");
    t.keys(&["Enter"]);
    t.wait_for("── forked into", 10);
    t.wait_for("▌ follow up", 5);
    assert_eq!(session_files(&env.home).len(), 3);
    server.push(Script::anthropic_text("Forked answer."));
    t.keys(&["C-e", " again", "Enter"]);
    t.wait_for("Forked answer.", 10);
    let body = &server.requests()[3].raw_body;
    assert!(
        body.contains("follow up again") && !body.contains("Follow-up answer."),
        "the fork dropped the old reply: {body}"
    );

    // Esc Esc: the session tree, with the parent this branch came from.
    t.keys(&["Escape"]);
    std::thread::sleep(Duration::from_millis(100));
    t.keys(&["Escape"]);
    let s = t.wait_for("session tree", 10);
    assert!(
        s.contains("zut: Forked answer.") && s.contains("you: follow up again"),
        "{s}"
    );
    assert!(s.contains("parent (forked from)"), "{s}");
    // Check out the first answer: a hidden branch, the later messages gone.
    t.typ("zut: Alpha");
    t.keys(&["Enter"]);
    t.wait_for("── checked out", 10);
    server.push(Script::anthropic_text("Checked-out answer."));
    t.typ("from the checkout");
    t.keys(&["Enter"]);
    t.wait_for("Checked-out answer.", 10);
    let body = &server.requests()[4].raw_body;
    assert!(
        body.contains("Alpha answer.") && !body.contains("follow up"),
        "{body}"
    );

    // /model: the picker, then the status bar and the next request.
    t.typ("/model");
    t.keys(&["Enter"]);
    t.wait_for("claude-haiku-4-5", 10);
    t.typ("haiku");
    std::thread::sleep(Duration::from_millis(100));
    t.keys(&["Enter"]);
    t.wait_for("(anthropic) claude-haiku-4-5", 10);
    server.push(Script::anthropic_text("Haiku answer."));
    t.typ("hi haiku");
    t.keys(&["Enter"]);
    t.wait_for("Haiku answer.", 10);
    assert!(server.requests()[5]
        .raw_body
        .contains("\"claude-haiku-4-5\""));
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}

/// The terminal settings of the pane (`stty -a` on its tty).
fn stty(t: &Tmux) -> String {
    let tty = t.tmux(&["display", "-p", "-t", "t", "#{pane_tty}"]);
    let out = Command::new("stty")
        .args(["-a", "-F", tty.trim()])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn state(pid: u32) -> char {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rfind(')')
        .and_then(|i| stat[i + 2..].chars().next())
        .unwrap_or('?')
}

/// `zut` typed into an interactive `sh` (job control, no line editing, so
/// the shell leaves the terminal in cooked mode) in a tmux pane.
fn start_in_shell(env: &TestEnv, server: &LlmServer) -> Tmux {
    let n = SESSIONS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let socket = format!("zut-tui-z-{}-{n}", std::process::id());
    let dir = env.home.join(format!("tmux-z-{n}"));
    std::fs::create_dir_all(&dir).unwrap();
    let ok = Command::new("tmux")
        .args([
            "-L",
            &socket,
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "t",
        ])
        .args(["-x", "80", "-y", "24", "-c"])
        .arg(&env.project)
        .arg("env -u ENV PS1='$ ' sh -i")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(ok, "tmux new-session");
    let t = Tmux { socket, dir };
    let line = format!(
        "ZUT_HOME={} TERM=xterm-256color {} --provider anthropic --base-url {} --api-key sk-test --model test-model --no-ext; echo EXIT:$?",
        sh(&env.home),
        sh(&zut_test_support::workspace_bin("zut")),
        server.url()
    );
    t.typ(&line);
    t.keys(&["Enter"]);
    t
}

/// The pid of the shell's child (zut).
fn child_of_pane(t: &Tmux) -> u32 {
    let shell = t.tmux(&["display", "-p", "-t", "t", "#{pane_pid}"]);
    let shell = shell.trim();
    let mut kids = String::new();
    assert!(wait_until(5, || {
        kids = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children"))
            .unwrap_or_default();
        !kids.trim().is_empty()
    }));
    kids.split_whitespace().next().unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_z_suspends_with_the_terminal_restored_and_resumes() {
    if !have_tmux() || !Path::new("/proc/self/stat").exists() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let t = start_in_shell(&env, &server);
    started(&t);
    let pid = child_of_pane(&t);
    assert!(stty(&t).contains("-icanon"), "raw mode while running");
    t.typ("draft");
    t.wait_for("▌ draft", 15);
    // Generous waits: under a loaded CI a stop/continue round trip has
    // taken over 5 s (a flake seen once); each wait returns when true.
    t.keys(&["C-z"]);
    assert!(wait_until(15, || state(pid) == 'T'), "zut did not stop");
    // Stopped: the terminal is back in cooked mode with echo.
    let modes = stty(&t);
    assert!(
        modes.contains(" icanon") && modes.contains(" echo"),
        "terminal not restored while suspended: {modes}"
    );
    // The shell has the terminal; `fg` gives it back.
    t.typ("fg");
    t.keys(&["Enter"]);
    assert!(wait_until(15, || state(pid) != 'T'));
    assert!(
        wait_until(15, || stty(&t).contains("-icanon")),
        "raw mode again"
    );
    // The editor kept its text and takes keys again.
    t.typ(" more");
    t.wait_for("▌ draft more", 15);
    server.push(Script::anthropic_text("Resumed fine."));
    t.keys(&["Enter"]);
    t.wait_for("Resumed fine.", 10);
    t.keys(&["C-d"]);
    // (The shell dropped the rest of the command line when the job
    // stopped: no EXIT line; the process is gone.)
    assert!(wait_until(15, || matches!(state(pid), '?' | 'Z')));
    assert!(wait_until(15, || stty(&t).contains(" icanon")));
}
