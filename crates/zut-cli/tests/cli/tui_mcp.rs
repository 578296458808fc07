//! `/mcp` in the interactive TUI end to end: the real binary in tmux with
//! two configured stdio servers (zut-mcp's raw JSON-RPC fake server, and a
//! command that does not exist): the picker shows one ready with its
//! tools and the other failed with the reason; Enter on the ready one
//! offers reconnect and disable; disable stops it (the picker comes back
//! with `disabled`), enable starts it again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

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
    // A project server: it waits for trust.
    std::fs::write(
        env.project.join(".mcp.json"),
        json!({"mcpServers": {
            "proj": {"command": "python3", "args": [fake.to_str().unwrap(), "normal"]}
        }})
        .to_string(),
    )
    .unwrap();
    let server = LlmServer::start().await.unwrap();
    let t = Tmux::start(&env, &server, &["--no-ext"], 120, 30);
    started(&t);
    // (Every check is a condition on one whole frame: a capture can catch
    // a frame half drawn.)
    open_until(&t, "fs ready, broken failed, proj untrusted", |s| {
        row(s, "fs").contains("ready · ")
            && row(s, "fs").contains("tools")
            && row(s, "fs").contains("stdio · user")
            && row(s, "broken").contains("cannot start `/nonexistent/zut-mcp-server`")
            && row(s, "proj").contains("untrusted")
            && row(s, "tools").contains("tool search auto")
            && s.contains("mcp servers · 1 of 3 ready")
    });

    // Rows are sorted: broken, fs, proj. Down to fs, Enter: its actions.
    t.keys(&["Down"]);
    t.keys(&["Enter"]);
    wait_screen(&t, "fs actions", |s| {
        s.contains("mcp · fs · ready")
            && row(s, "reconnect").contains("connect again")
            && s.contains("mcp-fs.log")
    });
    t.keys(&["Down"]);
    t.keys(&["Enter"]);
    // Disabled; the selection stays on fs.
    wait_screen(&t, "fs disabled", |s| {
        row(s, "fs").contains("disabled")
            && row(s, "fs").contains('›')
            && row(s, "tools").contains("0 offered")
            && s.contains("mcp servers · 0 of 3 ready")
    });
    t.keys(&["Enter"]);
    wait_screen(&t, "fs enable offered", |s| {
        s.contains("mcp · fs · disabled") && row(s, "enable").contains("start it")
    });
    t.keys(&["Enter"]);
    // The servers again; the open picker follows fs to ready by itself,
    // the selection still on fs.
    wait_screen(&t, "fs ready again, live", |s| {
        s.contains("mcp servers · 1 of 3 ready")
            && row(s, "fs").contains("ready · ")
            && row(s, "fs").contains('›')
    });
    t.keys(&["Escape"]);
    // The command's confirmation (shown once the picker is closed).
    wait_screen(&t, "confirmation", |s| s.contains("✓ mcp: fs starting"));

    // The project server: trust and start, with the command it runs.
    open_until(&t, "servers", |s| {
        row(s, "proj").contains("untrusted") && row(s, "broken").contains('›')
    });
    t.keys(&["Down"]);
    t.keys(&["Down"]);
    t.keys(&["Enter"]);
    wait_screen(&t, "proj actions", |s| {
        s.contains("mcp · proj · untrusted")
            && row(s, "trust and start").contains("run `python3 ")
            && row(s, "from").contains(".mcp.json")
    });
    t.keys(&["Enter"]);
    wait_screen(&t, "proj ready", |s| {
        s.contains("mcp servers · 2 of 3 ready") && row(s, "proj").contains("ready · ")
    });
    assert!(std::fs::read_to_string(env.home.join("mcp-trust.json"))
        .unwrap()
        .contains("\"proj\""));
    t.keys(&["Escape"]);
    wait_screen(&t, "picker closed", |s| !s.contains("mcp servers ·"));
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
            .contains("/mcp frob: use /mcp, or /mcp enable|disable|reconnect|trust <server>"),
        "{r:?}"
    );
    assert!(server.requests().is_empty(), "no model call for /mcp");
}

/// `@` in the TUI editor completes MCP resources as `@server:uri` next to
/// the project's files, asked again on each `@` (a server that became
/// ready after the first `@` is offered); the completed mention attaches
/// the resource to the prompt the model receives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_completes_mcp_resources_and_the_mention_attaches_it() {
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
    // The server answers nothing until the gate file exists.
    let gate = env.home.join("gate");
    std::fs::write(
        env.home.join("config.json"),
        json!({"mcpServers": {
            "fake": {"command": "python3", "args": [fake.to_str().unwrap(), "gate", gate.to_str().unwrap()]}
        }})
        .to_string(),
    )
    .unwrap();
    std::fs::write(env.project.join("notes.txt"), "x").unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(zut_llm_server::Script::anthropic_text("milk noted"));
    let t = Tmux::start(&env, &server, &["--no-ext"], 120, 30);
    started(&t);
    // The first `@` while the server is starting: the files only.
    t.typ("what do @not");
    wait_screen(&t, "the file completion", |s| s.contains("notes.txt"));
    assert!(!t.screen().contains("@fake:"), "{}", t.screen());
    t.keys(&["C-u"]);
    wait_screen(&t, "editor cleared", |s| !s.contains("what do @not"));
    std::fs::write(&gate, "").unwrap();
    open_until(&t, "fake ready", |s| row(s, "fake").contains("ready · "));
    t.keys(&["Escape"]);
    wait_screen(&t, "picker closed", |s| !s.contains("mcp servers ·"));
    // A later `@` offers the resource.
    t.typ("what do @fak");
    wait_screen(&t, "the completion", |s| s.contains("@fake:mem://notes"));
    t.keys(&["Tab"]);
    // (A capture drops the trailing space the completion adds.)
    wait_screen(&t, "completed", |s| {
        s.contains("▌ what do @fake:mem://notes")
    });
    t.typ("say");
    wait_screen(&t, "typed on", |s| {
        s.contains("what do @fake:mem://notes say")
    });
    t.keys(&["Enter"]);
    wait_screen(&t, "the answer", |s| s.contains("milk noted"));
    let body = &server.requests()[0].raw_body;
    assert!(body.contains("what do @fake:mem://notes say"), "{body}");
    assert!(body.contains("remember the milk"), "{body}");
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}
