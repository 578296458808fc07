//! Built-in commands of the interactive TUI end to end (the real binary in
//! tmux against the local LLM server): `/new` (a fresh session file in the
//! same process, counters reset), the sessions picker's scope (Tab) and
//! rename (Ctrl+R), `/skills`, and conformance G5 as the TUI shows it: a
//! subscribed extension hears `tool_confirmation_requested` exactly when
//! the dialog opens (not after "always this tool", not in yolo mode, which
//! `/yolo` switches).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::tmux::*;
use common::*;
use zut_llm_server::{LlmServer, Script};

/// Every session file under `$ZUT_HOME/sessions`.
fn session_files(home: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in std::fs::read_dir(home.join("sessions"))
        .into_iter()
        .flatten()
        .flatten()
    {
        for f in std::fs::read_dir(d.path()).into_iter().flatten().flatten() {
            if f.path().extension().is_some_and(|e| e == "jsonl") {
                out.push(f.path());
            }
        }
    }
    out
}

/// Waits until the visible screen satisfies `ok`.
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

/// The status bar row of the visible screen.
fn status_row(s: &str) -> String {
    s.lines()
        .find(|l| l.contains("(anthropic) test-model"))
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_session_scope_rename_and_skills() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let skill = env.home.join("skills/release");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: release\ndescription: Cut a release\n---\nTag, build, publish.\n",
    )
    .unwrap();
    let server = LlmServer::start().await.unwrap();
    // A session of another directory, for the "all directories" scope.
    let other = env.home.join("other-project");
    std::fs::create_dir_all(&other).unwrap();
    server.push(Script::anthropic_text("Elsewhere answer."));
    let t = Tmux::start(
        &env,
        &server,
        &[
            "--no-ext",
            "--cwd",
            other.to_str().unwrap(),
            "elsewhere question",
        ],
        100,
        30,
    );
    t.wait_for("Elsewhere answer.", 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
    drop(t);

    server.push(Script::anthropic_text("Gamma answer."));
    let t = Tmux::start(&env, &server, &["--no-ext", "gamma question"], 100, 30);
    t.wait_for("Gamma answer.", 10);
    let s = wait_screen(&t, "usage in the status bar", |s| {
        status_row(s).contains('↑')
    });
    assert!(status_row(&s).contains("↓"), "{s}");
    assert_eq!(session_files(&env.home).len(), 2);

    // /new: a new file, the counters start again.
    t.typ("/new");
    t.keys(&["Enter"]);
    t.wait_for("── new session ──", 10);
    let s = wait_screen(&t, "counters reset", |s| {
        !status_row(s).contains('↑') && !status_row(s).is_empty()
    });
    assert!(!s.contains("/new running"), "{s}");
    assert_eq!(session_files(&env.home).len(), 3);

    // /sessions: this directory (the open one marked), then every
    // directory with Tab.
    t.typ("/sessions");
    t.keys(&["Enter"]);
    let s = t.wait_for("sessions · this directory", 10);
    assert!(
        s.contains("gamma question") && s.contains("(untitled)"),
        "{s}"
    );
    assert!(!s.contains("elsewhere question"), "{s}");
    t.keys(&["Tab"]);
    let s = wait_screen(&t, "all directories", |s| {
        s.contains("sessions · all directories")
    });
    assert!(
        s.contains("elsewhere question") && s.contains("other-project"),
        "{s}"
    );
    // `/words` + Enter: a full-text search of the conversations in scope.
    t.typ("/elsewhere ANSWER");
    t.keys(&["Enter"]);
    let s = wait_screen(&t, "search results", |s| s.contains("“elsewhere ANSWER”"));
    assert!(s.contains("“Elsewhere answer.”"), "{s}");
    // Only that session is left (the gamma one does not say it).
    assert_eq!(s.lines().filter(|l| l.contains(" msgs ")).count(), 1, "{s}");
    t.keys(&["Tab"]);
    wait_screen(&t, "back to this directory", |s| {
        s.contains("sessions · this directory")
    });
    // Rename the gamma session.
    t.typ("gamma");
    wait_screen(&t, "filtered", |s| !s.contains("(untitled)"));
    t.keys(&["C-r"]);
    wait_screen(&t, "rename line", |s| s.contains("rename to:"));
    t.typ("Release planning");
    t.keys(&["Enter"]);
    // The picker comes back with the new title, that row selected.
    let s = wait_screen(&t, "renamed row", |s| {
        s.lines()
            .any(|l| l.contains("› ") && l.contains("Release planning"))
    });
    assert!(s.contains("(untitled)"), "{s}");
    let gamma = session_files(&env.home)
        .into_iter()
        .find(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains("gamma question")
        })
        .unwrap();
    let text = std::fs::read_to_string(&gamma).unwrap();
    assert!(
        text.contains(r#""type":"rename""#) && text.contains("Release planning"),
        "{text}"
    );
    // Resume it: its usage is back in the status bar.
    t.keys(&["Enter"]);
    t.wait_for("── resumed", 10);
    t.wait_for("renamed: Release planning", 10);
    wait_screen(&t, "usage of the resumed session", |s| {
        status_row(s).contains('↑')
    });

    // /skills: source and path; Enter puts the command in the editor.
    t.typ("/skills");
    t.keys(&["Enter"]);
    let s = t.wait_for("Cut a release", 10);
    assert!(s.contains("global") && s.contains("SKILL.md"), "{s}");
    t.keys(&["Enter"]);
    wait_screen(&t, "skill command in the editor", |s| {
        s.lines().any(|l| l.starts_with("▌ /skill:release"))
    });
    t.keys(&["C-u", "C-d"]);
    t.wait_for("EXIT:0", 5);
    // The empty session /new created was removed when it was left.
    assert_eq!(session_files(&env.home).len(), 2);
}

/// Records `tool_confirmation_requested` to `$LOG` and shows it as a
/// status item.
const RECORDER: &str = r#"import json, os, sys
def emit(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
emit({"type": "hello", "protocol_version": 2, "name": "rec", "version": "1.0.0"})
log = os.path.join(os.path.dirname(os.path.abspath(__file__)), "events.jsonl")
for line in sys.stdin:
    msg = json.loads(line)
    t = msg["type"]
    if t == "hello_ack":
        emit({"type": "subscribe", "events": ["tool_confirmation_requested"]})
        emit({"type": "ready"})
    elif t == "event" and msg.get("event") == "tool_confirmation_requested":
        with open(log, "a") as f:
            f.write(json.dumps(msg) + "\n")
        emit({"type": "status", "key": "k", "level": "info",
              "text": "ASKED " + msg["tool_name"] + ": " + msg["tool_preview"]})
    elif t == "shutdown":
        break
"#;

fn bash(id: &str, cmd: &str) -> Script {
    Script::anthropic_tool_call(id, "bash", format!(r#"{{"command":"{cmd}","timeout":5}}"#))
}

fn recorded(log: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g5_confirmation_event_when_the_dialog_opens_and_yolo_switches() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let dir = env.global_dir("rec");
    zut_test_support::python_extension(&dir, "rec", RECORDER);
    let log = dir.join("events.jsonl");
    let server = LlmServer::start().await.unwrap();
    server.push(bash("t1", "echo one"));
    server.push(bash("t2", "echo two"));
    server.push(Script::anthropic_text("First done."));
    let t = Tmux::start(&env, &server, &["--no-yolo"], 110, 32);
    started(&t);
    wait_screen(&t, "extensions loaded", |s| {
        !s.contains("loading extensions")
    });
    t.typ("run two");
    t.keys(&["Enter"]);
    // The event reaches the extension while the dialog waits: its status
    // item is on screen with the dialog.
    let s = wait_screen(&t, "dialog and the extension's status", |s| {
        s.contains("confirm tool call") && s.contains("ASKED bash: echo one")
    });
    assert!(status_row(&s).contains("esc refuse"), "{s}");
    let ev = recorded(&log);
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert_eq!(ev[0]["tool_id"], "t1");
    assert_eq!(ev[0]["tool_name"], "bash");
    assert_eq!(ev[0]["tool_preview"], "echo one");
    // "Always this tool": the second call neither asks nor tells.
    t.typ("2");
    t.wait_for("First done.", 10);
    assert_eq!(recorded(&log).len(), 1);

    // /yolo: no dialog, no event.
    t.typ("/yolo");
    t.keys(&["Enter"]);
    t.wait_for("yolo on: tool calls run without asking", 10);
    server.push(bash("t3", "echo three"));
    server.push(Script::anthropic_text("Second done."));
    t.typ("again");
    t.keys(&["Enter"]);
    t.wait_for("Second done.", 10);
    assert_eq!(recorded(&log).len(), 1);
    assert!(!t.screen().contains("confirm tool call"));

    // /yolo off asks again (earlier "always" answers forgotten).
    t.typ("/yolo off");
    t.keys(&["Enter"]);
    t.wait_for("yolo off: each tool call waits for your answer", 10);
    server.push(bash("t4", "echo four"));
    server.push(Script::anthropic_text("Third done."));
    t.typ("once more");
    t.keys(&["Enter"]);
    wait_screen(&t, "dialog again", |s| {
        s.contains("confirm tool call") && s.contains("ASKED bash: echo four")
    });
    let ev = recorded(&log);
    assert_eq!(ev.len(), 2, "{ev:?}");
    assert_eq!(ev[1]["tool_id"], "t4");
    t.typ("1");
    t.wait_for("Third done.", 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}
