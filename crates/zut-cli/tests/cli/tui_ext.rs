//! Extension surfaces of the TUI end to end (the real binary in tmux
//! against the local LLM server, real Python extensions): a load error at
//! start with its directory and log, chrome pushed before the UI is up
//! shown in order, a `right_bar` widget in the sidebar and Ctrl+B, a
//! `tool_call` interceptor refusing `rm -rf` named in the tool box, and a
//! theme-only extension offered by `/theme`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::tmux::*;
use common::*;
use zut_llm_server::{LlmServer, Script};

/// Pushes chrome while starting (before `ready`), a `right_bar` widget,
/// and refuses `rm -rf` in bash calls.
const GUARD: &str = r#"import json, sys
def emit(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
emit({"type": "hello", "protocol_version": 2, "name": "guard", "version": "1.0.0"})
for line in sys.stdin:
    msg = json.loads(line)
    t = msg["type"]
    if t == "hello_ack":
        emit({"type": "subscribe", "intercept": ["tool_call"]})
        emit({"type": "notify", "level": "info", "message": "EARLY-1"})
        emit({"type": "notify", "level": "warn", "message": "EARLY-2"})
        emit({"type": "status", "key": "s", "level": "info", "text": "GUARD-STATUS"})
        emit({"type": "widget", "id": "plan", "position": "right_bar", "title": "PHASES", "lines": ["[>] Scaffold", " [x] create repo"]})
        emit({"type": "ready"})
    elif t == "event_intercept":
        cmd = msg.get("tool_args", {}).get("command", "")
        if "rm -rf" in cmd:
            emit({"type": "event_intercept_response", "id": msg["id"], "block": True,
                  "reason": "guard refused: matches the danger pattern"})
        else:
            emit({"type": "event_intercept_response", "id": msg["id"]})
    elif t == "shutdown":
        break
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_error_early_chrome_sidebar_guard_and_extension_theme() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    zut_test_support::python_extension(&env.global_dir("guard"), "guard", GUARD);
    let broken = env.global_dir("broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(
        broken.join("extension.json"),
        r#"{"name": "broken", "version": "1.0.0", "exec": "./does-not-exist", "language": "go"}"#,
    )
    .unwrap();
    let solar = env.global_dir("solar");
    std::fs::create_dir_all(&solar).unwrap();
    std::fs::write(
        solar.join("extension.json"),
        r#"{"name": "solar", "version": "1.0.0"}"#,
    )
    .unwrap();
    std::fs::write(
        solar.join("theme.json"),
        r##"{"name": "Solarized", "accent": "#268bd2"}"##,
    )
    .unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "c1",
        "bash",
        r#"{"command":"rm -rf /tmp/zut-nothing-here"}"#,
    ));
    server.push(Script::anthropic_text("Hello from the fake model."));
    let t = Tmux::start(&env, &server, &[], 110, 30);
    // The load error: red block with the directory, exec and stderr log.
    let s = t.wait_for("failed to start", 15);
    assert!(s.contains("✖ Extension broken failed to start."), "{s}");
    assert!(s.contains("does-not-exist"), "{s}");
    assert!(s.contains("stderr log:"), "{s}");
    t.wait_for("1 extension failed to load", 5);
    // Chrome sent before `ready` is all there, notes in order.
    let s = t.wait_for("GUARD-STATUS", 15);
    let (a, b) = (s.find("EARLY-1").unwrap(), s.find("EARLY-2").unwrap());
    assert!(a < b, "{s}");
    // The right_bar widget is in the sidebar, beside the editor.
    let screen = t.screen();
    let row = screen.lines().find(|l| l.contains("PHASES")).unwrap();
    assert!(row.contains("│ [guard] PHASES"), "{screen}");
    for l in screen.lines() {
        assert!(l.chars().count() <= 110, "{l}");
    }
    // Ctrl+B puts it above the editor.
    t.keys(&["C-b"]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while t.screen().contains("│ [guard] PHASES") {
        assert!(std::time::Instant::now() < deadline, "{}", t.screen());
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(t.screen().contains("  [guard] PHASES"));
    // The guard refuses rm -rf; the tool box names it.
    t.typ("Clean up");
    t.keys(&["Enter"]);
    let s = t.wait_for("Hello from the fake model.", 15);
    assert!(
        s.contains("⊘ refused by guard (tool_call interceptor)"),
        "{s}"
    );
    assert!(
        s.contains("guard refused: matches the danger pattern"),
        "{s}"
    );
    // The theme-only extension's theme is offered and can be chosen.
    t.typ("/theme");
    t.keys(&["Enter"]);
    let s = t.wait_for("from extension solar", 10);
    assert!(s.contains("Solarized"), "{s}");
    t.keys(&["Escape"]);
    // (The picker must be gone before typing: an Esc followed at once by
    // `/` reads as Alt+/.)
    assert!(wait_until(10, || !t.screen().contains("esc restore")));
    let path = solar.join("theme.json").display().to_string();
    t.typ(&format!("/theme {path}"));
    t.keys(&["Enter"]);
    t.wait_for("theme: Solarized (saved)", 10);
    let cfg = std::fs::read_to_string(env.home.join("config.json")).unwrap();
    assert!(cfg.contains(&path.replace('\\', "\\\\")), "{cfg}");
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 10);
}

/// Rewrites replies containing `SECRET`, hides replies containing
/// `FORBIDDEN`, and blocks the turn of any prompt after the third model
/// call.
const CENSOR: &str = r#"import json, sys
def emit(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
emit({"type": "hello", "protocol_version": 2, "name": "censor", "version": "1.0.0"})
calls = 0
for line in sys.stdin:
    msg = json.loads(line)
    t = msg["type"]
    if t == "hello_ack":
        emit({"type": "subscribe", "intercept": ["turn_start", "assistant_message"]})
        emit({"type": "ready"})
    elif t == "event_intercept" and msg["event"] == "turn_start":
        calls += 1
        if calls > 2:
            emit({"type": "event_intercept_response", "id": msg["id"], "block": True,
                  "reason": "turn budget spent"})
        else:
            emit({"type": "event_intercept_response", "id": msg["id"]})
    elif t == "event_intercept":
        text = msg.get("text", "")
        if "FORBIDDEN" in text:
            emit({"type": "event_intercept_response", "id": msg["id"], "block": True,
                  "reason": "censored reply"})
        elif "SECRET" in text:
            emit({"type": "event_intercept_response", "id": msg["id"],
                  "replace_text": text.replace("SECRET", "[redacted]")})
        else:
            emit({"type": "event_intercept_response", "id": msg["id"]})
    elif t == "shutdown":
        break
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replace_text_block_and_turn_start_block_are_visible() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    zut_test_support::python_extension(&env.global_dir("censor"), "censor", CENSOR);
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("The code is SECRET-42, keep it."));
    server.push(Script::anthropic_text("FORBIDDEN words here."));
    let t = Tmux::start(&env, &server, &[], 100, 24);
    t.wait_for("(anthropic)", 15);
    t.typ("first");
    t.keys(&["Enter"]);
    let s = t.wait_for("[redacted]-42", 15);
    assert!(
        s.contains("✎ rewritten by censor (assistant_message interceptor)"),
        "{s}"
    );
    assert!(!s.contains("SECRET-42"), "{s}");
    t.typ("second");
    t.keys(&["Enter"]);
    let s = t.wait_for("censor hid the assistant's message: censored reply", 15);
    assert!(!s.contains("FORBIDDEN words"), "{s}");
    t.typ("third");
    t.keys(&["Enter"]);
    let s = t.wait_for("censor blocked the turn: turn budget spent", 15);
    assert!(!s.contains("✗ turn budget spent"), "{s}");
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 10);
}
