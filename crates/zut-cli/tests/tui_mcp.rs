//! `/mcp` in the interactive TUI end to end: the real binary in tmux with
//! two configured stdio servers (zut-mcp's raw JSON-RPC fake server, and a
//! command that does not exist): the picker shows one ready with its
//! tools and the other failed with the reason; Enter on the ready one
//! offers reconnect and disable; disable stops it (the picker comes back
//! with `disabled`), enable starts it again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::tmux::*;
use common::*;
use serde_json::json;
use zut_llm_server::LlmServer;

fn wait_screen(t: &Tmux, what: &str, ok: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let s = t.screen();
        if ok(&s) {
            return s;
        }
        assert!(Instant::now() < deadline, "timed out: {what}\n{s}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The picker row of `name` on the screen.
fn row<'a>(s: &'a str, name: &str) -> &'a str {
    s.lines()
        .find(|l| l.contains(&format!(" {name} ")) && l.contains('│'))
        .unwrap_or("")
}

/// Opens `/mcp` until `ok` holds for the screen (the picker is a snapshot:
/// a server still starting is shown so until it is opened again).
fn open_until(t: &Tmux, what: &str, ok: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        t.typ("/mcp");
        t.keys(&["Enter"]);
        let s = wait_screen(t, "the mcp picker", |s| s.contains("mcp servers ·"));
        if ok(&s) {
            return s;
        }
        assert!(Instant::now() < deadline, "timed out: {what}\n{s}");
        t.keys(&["Escape"]);
        wait_screen(t, "picker closed", |s| !s.contains("mcp servers ·"));
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_dialog_shows_states_and_switches_a_server() {
    if !have_tmux() {
        return;
    }
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: no python3");
        return;
    }
    let env = TestEnv::new();
    let fake =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../zut-mcp/tests/fixtures/fake_server.py");
    std::fs::write(
        env.home.join("config.json"),
        json!({"mcpServers": {
            "fs": {"command": "python3", "args": [fake.to_str().unwrap(), "normal"]},
            "broken": {"command": "/nonexistent/zut-mcp-server"}
        }})
        .to_string(),
    )
    .unwrap();
    let server = LlmServer::start().await.unwrap();
    let t = Tmux::start(&env, &server, &["--no-ext"], 120, 30);
    started(&t);
    let s = open_until(&t, "fs ready and broken failed", |s| {
        row(s, "fs").contains("ready · ") && row(s, "broken").contains("failed: ")
    });
    assert!(row(&s, "fs").contains("tools"), "{s}");
    assert!(row(&s, "fs").contains("stdio · user"), "{s}");
    assert!(
        row(&s, "broken").contains("cannot start `/nonexistent/zut-mcp-server`"),
        "{s}"
    );
    assert!(s.contains("mcp servers · 1 of 2 ready"), "{s}");
    assert!(row(&s, "tools").contains("tool search auto"), "{s}");

    // Rows are sorted: broken, fs. Down to fs, Enter: its actions.
    t.keys(&["Down"]);
    t.keys(&["Enter"]);
    let s = wait_screen(&t, "fs actions", |s| s.contains("mcp · fs · ready"));
    assert!(row(&s, "reconnect").contains("connect again"), "{s}");
    assert!(s.contains("mcp-fs.log"), "{s}");
    t.keys(&["Down"]);
    t.keys(&["Enter"]);
    let s = wait_screen(&t, "fs disabled", |s| row(s, "fs").contains("disabled"));
    assert!(s.contains("mcp servers · 0 of 2 ready"), "{s}");
    assert!(row(&s, "tools").contains("0 offered"), "{s}");

    // The selection stayed on fs: Enter again, enable.
    assert!(row(&s, "fs").contains('›'), "{s}");
    t.keys(&["Enter"]);
    let s = wait_screen(&t, "fs enable offered", |s| {
        s.contains("mcp · fs · disabled")
    });
    assert!(row(&s, "enable").contains("start it"), "{s}");
    t.keys(&["Enter"]);
    // The servers again; the open picker follows fs to ready by itself.
    let s = wait_screen(&t, "fs ready again, live", |s| {
        s.contains("mcp servers · 1 of 2 ready") && row(s, "fs").contains("ready · ")
    });
    // The selection stayed on fs.
    assert!(row(&s, "fs").contains('›'), "{s}");
    t.keys(&["Escape"]);
    // The command's confirmation (shown once the picker is closed).
    wait_screen(&t, "confirmation", |s| s.contains("✓ mcp: fs starting"));
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}

/// `/mcp` as text for the other front ends (here `-p`; RPC's `command`
/// and ACP's slash commands run the same controller command).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_as_text_and_its_actions_in_print_mode() {
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: no python3");
        return;
    }
    let env = TestEnv::new();
    let fake =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../zut-mcp/tests/fixtures/fake_server.py");
    std::fs::write(
        env.home.join("config.json"),
        json!({"mcpServers": {
            "fs": {"command": "python3", "args": [fake.to_str().unwrap(), "normal"]},
            "broken": {"command": "/nonexistent/zut-mcp-server"}
        }})
        .to_string(),
    )
    .unwrap();
    let server = LlmServer::start().await.unwrap();
    let r = output_blocking(llm_cmd(&env, &server.url(), &["--no-ext", "-p", "/mcp"])).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.starts_with("MCP servers: 6 tools"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("  fs      ready · 6 tools, 1 prompts, 1 resources · stdio · user"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("  broken  failed: cannot start `/nonexistent/zut-mcp-server`"),
        "{}",
        r.stdout
    );
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &["--no-ext", "-p", "/mcp disable fs"],
    ))
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("mcp: fs disabled for this run"), "{r:?}");
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &["--no-ext", "-p", "/mcp frob fs"],
    ))
    .await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr
            .contains("/mcp frob: use /mcp, or /mcp enable|disable|reconnect <server>"),
        "{r:?}"
    );
    assert!(server.requests().is_empty(), "no model call for /mcp");
}
