//! MCP elicitation in the TUI end to end: the real binary in tmux with the
//! official Python SDK server (`zut-mcp/tests/fixtures/fastmcp_server.py`)
//! whose `book` tool asks the user for details. The scripted model calls
//! the tool, the form opens, the user fills it in and accepts; the tool's
//! answer reaches the next model request. A second call is cancelled with
//! Esc, and the server is told so. URL mode (`pay`): the dialog shows the
//! page's host and URL, the browser starts only on **open in browser**,
//! and a decline reaches the server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::tmux::*;
use common::*;
use serde_json::json;
use zut_llm_server::{LlmServer, Script};

fn wait_screen(t: &Tmux, what: &str, ok: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let s = t.screen();
        if ok(&s) {
            return s;
        }
        assert!(Instant::now() < deadline, "timed out: {what}\n{s}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn have_python_mcp() -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import mcp.server, pydantic"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "the Python `mcp` package is required under CI"
        );
        eprintln!("skipped: the Python `mcp` package is not installed");
    }
    ok
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_form_opens_and_the_answer_reaches_the_tool() {
    if !have_tmux() || !have_python_mcp() {
        return;
    }
    let env = TestEnv::new();
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../zut-mcp/tests/fixtures/fastmcp_server.py");
    std::fs::write(
        env.home.join("config.json"),
        json!({"mcpServers": {"py": {"command": "python3", "args": [script.to_str().unwrap()]}}})
            .to_string(),
    )
    .unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "call_1",
        "mcp__py__book",
        r#"{"day":"monday"}"#,
    ));
    server.push(Script::anthropic_text("Booked."));
    server.push(Script::anthropic_tool_call(
        "call_2",
        "mcp__py__book",
        r#"{"day":"friday"}"#,
    ));
    server.push(Script::anthropic_text("Not booked."));
    let t = Tmux::start(&env, &server, &["--no-ext"], 120, 40);
    started(&t);
    t.typ("book monday");
    t.keys(&["Enter"]);
    // (A capture may catch a frame half drawn: wait for all of it.)
    wait_screen(&t, "the form", |s| {
        s.contains("py asks")
            && s.contains("Book a table on monday?")
            && s.contains("Name *:")
            && s.contains("Guests: 2")
    });
    // Accept with the required name missing: refused, the field named.
    for _ in 0..3 {
        t.keys(&["Tab"]);
    }
    t.keys(&["Enter"]);
    wait_screen(&t, "refused", |s| s.contains("Name: required"));
    // The focus went back to the name.
    t.typ("Ada");
    t.keys(&["Tab"]);
    t.keys(&["BSpace"]);
    t.typ("3");
    t.keys(&["Tab"]);
    t.keys(&["Space"]);
    wait_screen(&t, "filled in", |s| {
        s.contains("Name *: Ada") && s.contains("Guests: 3") && s.contains("[x] yes")
    });
    t.keys(&["Tab", "Enter"]);
    wait_screen(&t, "the answer", |s| s.contains("Booked."));
    let reqs = server.requests();
    assert!(
        reqs[1]
            .raw_body
            .contains("booked for Ada, 3 guests, vegetarian=True"),
        "{}",
        reqs[1].raw_body
    );
    // Esc cancels.
    t.typ("book friday");
    t.keys(&["Enter"]);
    wait_screen(&t, "the second form", |s| {
        s.contains("Book a table on friday?")
    });
    t.keys(&["Escape"]);
    wait_screen(&t, "the second answer", |s| s.contains("Not booked."));
    let reqs = server.requests();
    assert!(
        reqs[3].raw_body.contains("not booked: cancel"),
        "{}",
        reqs[3].raw_body
    );
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_elicitation_opens_the_browser_only_when_the_user_says_so() {
    if !have_tmux() || !have_python_mcp() {
        return;
    }
    let env = TestEnv::new();
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../zut-mcp/tests/fixtures/fastmcp_server.py");
    std::fs::write(
        env.home.join("config.json"),
        json!({"mcpServers": {"py": {"command": "python3", "args": [script.to_str().unwrap()]}}})
            .to_string(),
    )
    .unwrap();
    // A "browser" that writes down what it was asked to open.
    let opened = env.home.join("opened.txt");
    let browser = env.home.join("browser.sh");
    std::fs::write(
        &browser,
        format!("#!/bin/sh\necho \"$1\" >> '{}'\n", opened.display()),
    )
    .unwrap();
    std::fs::set_permissions(
        &browser,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "call_1",
        "mcp__py__pay",
        r#"{"amount":12}"#,
    ));
    server.push(Script::anthropic_text("Paid."));
    server.push(Script::anthropic_tool_call(
        "call_2",
        "mcp__py__pay",
        r#"{"amount":99}"#,
    ));
    server.push(Script::anthropic_text("Not paid."));
    let t = Tmux::start_with(
        &env,
        &server,
        &["--no-ext"],
        &[("BROWSER", browser.to_str().unwrap())],
        120,
        40,
    );
    started(&t);
    t.typ("pay 12");
    t.keys(&["Enter"]);
    wait_screen(&t, "the URL dialog", |s| {
        s.contains("py asks you to open a page")
            && s.contains("Confirm paying 12 EUR")
            && s.contains("opens a page at pay.example.com")
            && s.contains("https://pay.example.com/confirm?amount=12")
            && s.contains("[ open in browser ]")
            && s.contains("[ decline ]")
    });
    // Shown, not opened.
    std::thread::sleep(Duration::from_millis(300));
    assert!(!opened.exists(), "opened before the user agreed");
    t.keys(&["Enter"]);
    wait_screen(&t, "the answer", |s| s.contains("Paid."));
    let reqs = server.requests();
    assert!(
        reqs[1]
            .raw_body
            .contains("payment accept; declared form=True url=True"),
        "{}",
        reqs[1].raw_body
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while !opened.exists() {
        assert!(Instant::now() < deadline, "the browser was not started");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        std::fs::read_to_string(&opened).unwrap().trim(),
        "https://pay.example.com/confirm?amount=12"
    );
    // Decline (the third button): the server hears it, nothing opens.
    t.typ("pay 99");
    t.keys(&["Enter"]);
    wait_screen(&t, "the second dialog", |s| {
        s.contains("Confirm paying 99 EUR")
    });
    t.keys(&["Tab", "Tab", "Enter"]);
    wait_screen(&t, "the second answer", |s| s.contains("Not paid."));
    let reqs = server.requests();
    assert!(
        reqs[3].raw_body.contains("payment decline"),
        "{}",
        reqs[3].raw_body
    );
    assert_eq!(
        std::fs::read_to_string(&opened).unwrap().lines().count(),
        1,
        "opened on decline"
    );
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}
