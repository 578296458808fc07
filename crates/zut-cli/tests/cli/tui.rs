//! The interactive TUI end to end: the real `zut` binary in a real tmux
//! terminal against the local LLM server. Skipped with a message when tmux
//! is missing, except under CI (`CI` set), where that is a failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::tmux::*;
use common::*;
use zut_llm_server::{Block, Format, LlmServer, Script};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_stream_popup_resize_and_quit() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::anthropic_text(
            "# Title\n\nHello from the **model**.\n\n```rust\nfn main() {}\n```\n\nBye.",
        )
        .delta_bytes(7),
    );
    let t = Tmux::start(&env, &server, &["--no-ext"], 80, 24);
    started(&t);
    t.typ("say hi");
    t.keys(&["Enter"]);
    let s = t.wait_for("Bye.", 10);
    assert!(s.contains("▌ say hi"), "{s}");
    assert!(
        s.contains("# Title") && s.contains("Hello from the model."),
        "{s}"
    );
    assert!(s.contains("fn main() {}"), "{s}");
    assert!(server.requests()[0].raw_body.contains("say hi"));
    // The popup, filtered, then closed.
    t.typ("/he");
    let s = t.wait_for("/help", 5);
    assert!(s.contains("show keys and commands"), "{s}");
    // (A key sent right after Esc would arrive as Alt+key: wait.)
    t.keys(&["Escape"]);
    let deadline = Instant::now() + Duration::from_secs(5);
    while t.screen().contains("show keys and commands") {
        assert!(Instant::now() < deadline, "{}", t.screen());
        std::thread::sleep(Duration::from_millis(50));
    }
    t.keys(&["C-u"]);
    // Resize: the live area is redrawn at the new width.
    t.tmux(&["resize-window", "-t", "t", "-x", "50", "-y", "15"]);
    t.typ("abc");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !t.screen().lines().any(|l| l.starts_with("▌ abc")) {
        assert!(Instant::now() < deadline, "{}", t.screen());
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(t.screen().contains("(anthropic) test-model"));
    // Ctrl+C clears, a second Ctrl+C within two seconds quits.
    t.keys(&["C-c"]);
    t.keys(&["C-c"]);
    t.wait_for("press Ctrl+C again", 5);
    t.keys(&["C-c"]);
    t.wait_for("EXIT:0", 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_call_output_is_sanitized_and_boxed() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    std::fs::write(env.project.join("bad.txt"), b"ok \xff\xfe bytes\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "c1",
        "bash",
        r#"{"command":"printf 'esc\\033[31mRED\\033[0m\\033]0;title\\007 bell\\a done\\n'; seq 1 30","timeout":5}"#,
    ));
    server.push(Script::anthropic_tool_call(
        "c2",
        "read",
        r#"{"path":"bad.txt"}"#,
    ));
    server.push(Script::anthropic_text("All done."));
    let t = Tmux::start(&env, &server, &["--no-ext", "run it"], 80, 30);
    let s = t.wait_for("All done.", 15);
    assert!(s.contains("┌─ bash printf"), "{s}");
    assert!(s.contains("escRED bell done"), "{s}");
    assert!(s.contains("ctrl+o to expand"), "{s}");
    assert!(s.contains("┌─ read bad.txt"), "{s}");
    assert!(s.contains("ok"), "{s}");
    // The terminal's title was not changed by the tool's OSC sequence.
    let title = t.tmux(&["display-message", "-p", "-t", "t", "#{pane_title}"]);
    assert!(!title.contains("title"), "{title}");
    // Ctrl+O prints the whole output.
    t.keys(&["C-o"]);
    t.wait_for("│ 30", 5);
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_stops_a_long_stream_and_a_failing_provider_is_shown() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let long = "word ".repeat(20_000);
    server.push(
        Script::anthropic_text(long)
            .delta_bytes(5)
            .event_delay_ms(20),
    );
    server.push(
        Script::anthropic_text("partial answer that never ends properly")
            .delta_bytes(5)
            .cut_after(6),
    );
    let t = Tmux::start(&env, &server, &["--no-ext", "talk"], 80, 24);
    t.wait_for("word word", 10);
    let before = Instant::now();
    t.keys(&["Escape"]);
    t.wait_for("aborted", 5);
    assert!(before.elapsed() < Duration::from_secs(5));
    t.typ("again");
    t.keys(&["Enter"]);
    let s = t.wait_for("✗", 15);
    assert!(s.contains("partial"), "{s}");
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_megabyte_reply_on_one_line_is_fully_shown() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let mut text = "x".repeat(1024 * 1024);
    text.push_str(" THE-END");
    server.push(Script::reply(Format::Anthropic, vec![Block::text(text)]).delta_bytes(10));
    let t = Tmux::start(&env, &server, &["--no-ext", "big"], 80, 24);
    t.wait_for("THE-END", 120);
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_10_mb_paste_and_sighup() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let t = Tmux::start(&env, &server, &["--no-ext"], 80, 24);
    started(&t);
    let paste = t.dir.join("paste.txt");
    let mut big = "p".repeat(10 * 1024 * 1024);
    big.push_str("TAIL");
    std::fs::write(&paste, big).unwrap();
    t.tmux(&["load-buffer", "-b", "big", &paste.to_string_lossy()]);
    t.tmux(&["paste-buffer", "-p", "-b", "big", "-t", "t"]);
    t.wait_for("pppTAIL", 120);
    // Still responsive: Ctrl+C clears the input.
    t.keys(&["C-c"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while t.screen().contains("TAIL") {
        assert!(Instant::now() < deadline, "{}", t.screen());
        std::thread::sleep(Duration::from_millis(50));
    }
    // Losing the terminal: zut exits with 128 + SIGHUP.
    send_signal(t.pid(), "HUP");
    t.wait_for("EXIT:129", 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tiny_terminal_says_too_small() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let t = Tmux::start(&env, &server, &["--no-ext"], 20, 5);
    t.wait_for("too small: 20x5", 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_saved_and_resumed_with_c() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("The first **answer**."));
    server.push(Script::anthropic_text("Second answer."));
    let t = Tmux::start(&env, &server, &["--no-ext", "first question"], 80, 24);
    t.wait_for("The first answer.", 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
    drop(t);
    let t = Tmux::start(&env, &server, &["--no-ext", "-c"], 80, 24);
    let s = t.wait_for("resumed session", 10);
    assert!(s.contains("▌ first question"), "{s}");
    assert!(s.contains("The first answer."), "{s}");
    t.typ("and then?");
    t.keys(&["Enter"]);
    t.wait_for("Second answer.", 10);
    // The model saw the resumed conversation.
    let body = &server.requests()[1].raw_body;
    assert!(
        body.contains("first question") && body.contains("The first **answer**."),
        "{body}"
    );
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}

/// A Python extension pushing every kind of chrome, with a `/pick` panel
/// whose keys it writes to `keys.log` next to itself.
const CHROMEY: &str = r#"import json, os, sys
HERE = os.path.dirname(os.path.abspath(__file__))
def emit(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
emit({"type": "hello", "protocol_version": 2, "name": "chromey", "version": "1.0.0"})
for line in sys.stdin:
    msg = json.loads(line)
    t = msg["type"]
    if t == "hello_ack":
        emit({"type": "register_command", "name": "pick", "description": "open a picker panel"})
        emit({"type": "register_command", "name": "greet", "description": "say hello"})
        emit({"type": "status", "key": "mode", "level": "success", "text": "CHROME-STATUS"})
        emit({"type": "widget", "id": "plan", "title": "CHROME-WIDGET", "lines": ["[x] first", "[ ] second"]})
        emit({"type": "ready"})
    elif t == "command_invoked" and msg["name"] == "pick":
        emit({"type": "command_response", "id": msg["id"], "action": "open_panel",
              "open_panel": {"id": "p", "title": "Pick one", "lines": ["▸ alpha", "  beta"], "footer": "esc closes"}})
    elif t == "command_invoked" and msg["name"] == "greet":
        emit({"type": "notify", "level": "warn", "message": "CHROME-NOTE"})
        emit({"type": "command_response", "id": msg["id"], "action": "display", "display": "CHROME-DISPLAY"})
    elif t == "panel_key":
        with open(os.path.join(HERE, "keys.log"), "a") as f:
            f.write(msg.get("text", "") if msg["key"] == "rune" else "<" + msg["key"] + ">")
        if msg["key"] == "enter":
            emit({"type": "panel_render", "panel_id": "p", "lines": ["● chosen"], "footer": "done"})
    elif t == "panel_close":
        with open(os.path.join(HERE, "keys.log"), "a") as f:
            f.write("<closed>")
    elif t == "shutdown":
        break
"#;

/// An extension that shows a status and exits on `/boom`.
fn crashy(version: &str) -> String {
    format!(
        r#"import json, sys
def emit(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
emit({{"type": "hello", "protocol_version": 2, "name": "crashy", "version": "1.0.0"}})
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello_ack":
        emit({{"type": "register_command", "name": "boom", "description": "exit at once"}})
        emit({{"type": "status", "key": "s", "level": "info", "text": "CRASHY-{version}"}})
        emit({{"type": "ready"}})
    elif msg["type"] == "command_invoked":
        sys.exit(3)
    elif msg["type"] == "shutdown":
        break
"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extension_chrome_panels_crash_and_reload() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let chromey = env.global_dir("chromey");
    zut_test_support::python_extension(&chromey, "chromey", CHROMEY);
    let crashy_dir = env.global_dir("crashy");
    zut_test_support::python_extension(&crashy_dir, "crashy", &crashy("V1"));
    let server = LlmServer::start().await.unwrap();
    let t = Tmux::start(&env, &server, &[], 100, 30);
    let s = t.wait_for("CHROME-WIDGET", 15);
    assert!(s.contains("[chromey] CHROME-STATUS"), "{s}");
    assert!(s.contains("[x] first"), "{s}");
    t.wait_for("[crashy] CRASHY-V1", 10);
    // The popup lists extension commands with their extension.
    t.typ("/gr");
    t.wait_for("[chromey]", 5);
    t.keys(&["Enter"]);
    let s = t.wait_for("CHROME-DISPLAY", 10);
    assert!(s.contains("[chromey] CHROME-NOTE"), "{s}");
    // A panel gets every key, in the order typed, then Esc closes it.
    t.typ("/pick");
    t.keys(&["Enter"]);
    t.wait_for("Pick one", 10);
    t.typ("write tests");
    t.keys(&["Down", "Enter"]);
    t.wait_for("● chosen", 10);
    t.keys(&["Escape"]);
    let log = chromey.join("keys.log");
    assert!(wait_until(10, || std::fs::read_to_string(&log)
        .is_ok_and(|l| l.ends_with("<closed>"))));
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "write tests<down><enter><closed>"
    );
    // The crashing extension's chrome goes; the rest stays.
    t.typ("/boom");
    t.keys(&["Enter"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while t.screen().contains("CRASHY-V1") {
        assert!(Instant::now() < deadline, "{}", t.screen());
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(t.screen().contains("CHROME-STATUS"));
    // /reload-ext picks up the edited extension.
    zut_test_support::python_extension(&crashy_dir, "crashy", &crashy("V2"));
    t.typ("/reload-ext");
    t.keys(&["Enter"]);
    let s = t.wait_for("CRASHY-V2", 15);
    t.wait_for("reloaded: ", 10);
    assert!(s.contains("CHROME-STATUS"), "{s}");
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 10);
}
