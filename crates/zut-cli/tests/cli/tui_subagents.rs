//! The interactive TUI offers the `subagent` tool by default and a child
//! spawned there runs and reports back (real binary in tmux, local LLM
//! server answering parent and child differently).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::tmux::*;
use common::*;
use zut_llm_server::{LlmServer, Script};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tui_offers_subagent_and_a_child_reports_back() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let parent = r#""name":"subagent""#;
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::anthropic_tool_call(
            "c1",
            "subagent",
            r#"{"action":"spawn","task":"TUI-CHILD task","wait":30}"#,
        )
        .when(parent),
    );
    server.push(Script::anthropic_text("Parent saw the child.").when(parent));
    server.push(
        Script::anthropic_text("child answer")
            .unless(parent)
            .when("TUI-CHILD"),
    );
    let t = Tmux::start(&env, &server, &["--no-ext"], 100, 30);
    started(&t);
    t.typ("delegate it");
    t.keys(&["Enter"]);
    t.wait_for("Parent saw the child.", 20);
    let reqs = server.requests();
    assert!(reqs[0].raw_body.contains(parent), "the TUI offers subagent");
    let last = reqs
        .iter()
        .rev()
        .find(|r| r.raw_body.contains(parent))
        .unwrap();
    assert!(
        last.raw_body.contains("final: child answer"),
        "{}",
        last.raw_body
    );
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}

/// Polls the visible screen (not the scrollback) for `needle`.
fn wait_screen(t: &Tmux, needle: &str, secs: u64) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        let s = t.screen();
        if s.contains(needle) {
            return s;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {needle:?} on screen:\n{s}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Polls the visible screen until `needle` is gone.
fn wait_gone(t: &Tmux, needle: &str, secs: u64) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while t.screen().contains(needle) {
        assert!(
            std::time::Instant::now() < deadline,
            "{needle:?} still on screen:\n{}",
            t.screen()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

fn spawn_call(id: &str, task: &str) -> Script {
    Script::anthropic_tool_call(
        id,
        "subagent",
        serde_json::json!({"action": "spawn", "task": task}).to_string(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_lists_children_follows_one_and_messages_and_stops_them() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let parent = r#""name":"subagent""#;
    let server = LlmServer::start().await.unwrap();
    server.push(spawn_call("p1", "CHILD-A sleeps in bash").when(parent));
    server.push(spawn_call("p2", "CHILD-B answers twice").when(parent));
    server.push(Script::anthropic_text("Parent delegated both.").when(parent));
    // A: a long command, to be stopped from the dashboard.
    server.push(
        Script::anthropic_tool_call("a1", "bash", r#"{"command":"sleep 30","timeout":60}"#)
            .unless(parent)
            .when("CHILD-A"),
    );
    // B: answers, then answers the user's message.
    server.push(
        Script::anthropic_text("B first answer")
            .usage(zut_llm_server::Usage {
                input: 7000,
                output: 300,
                cache_read: 0,
                cache_write: 0,
                reasoning: None,
            })
            .unless(parent)
            .when("CHILD-B"),
    );
    server.push(
        Script::anthropic_text("B got the message")
            .unless(parent)
            .when("MSG-FOR-B"),
    );
    let t = Tmux::start(&env, &server, &["--no-ext"], 110, 34);
    started(&t);
    t.typ("delegate two");
    t.keys(&["Enter"]);
    t.wait_for("Parent delegated both.", 20);
    // B's tokens count in the status bar (the parent's calls are small).
    wait_screen(&t, "↑7.", 10);
    wait_screen(&t, "subagent sa-2-", 10);

    t.typ("/subagents");
    t.keys(&["Enter"]);
    wait_screen(&t, "subagents · 1 of 2 working", 10);
    // The dashboard follows the children: A's bash starts.
    let s = wait_screen(&t, "running bash", 10);
    assert!(s.contains("CHILD-A sleeps in bash"), "{s}");
    assert!(s.contains("completed"), "{s}");
    assert!(s.contains("↑7.0k ↓300"), "{s}");

    // Enter: A's transcript, live.
    t.keys(&["Enter"]);
    let s = wait_screen(&t, "⏺ bash(sleep 30)", 10);
    assert!(s.contains("› CHILD-A sleeps in bash"), "{s}");
    assert!(s.contains("running"), "{s}");
    // Ctrl+X stops it; the view follows to its end.
    t.keys(&["C-x"]);
    let s = wait_screen(&t, "── stopped ──", 10);
    assert!(s.contains("· stopped ·"), "{s}");
    // Esc: back to the dashboard, nobody working now.
    t.keys(&["Escape"]);
    wait_screen(&t, "subagents · 0 of 2 working", 10);

    // Ctrl+E on B: a message typed in the editor.
    t.keys(&["Down"]);
    t.keys(&["C-e"]);
    let s = wait_screen(&t, "/subagents message sa-2-", 10);
    assert!(!s.contains("subagents · "), "the dashboard closed: {s}");
    t.typ("MSG-FOR-B please confirm");
    t.keys(&["Enter"]);
    wait_screen(&t, "message sent to subagent sa-2-", 10);
    t.typ("/subagents");
    t.keys(&["Enter"]);
    wait_screen(&t, "subagents · ", 10);
    t.keys(&["Down", "Enter"]);
    let s = wait_screen(&t, "B got the message", 15);
    assert!(s.contains("› MSG-FOR-B please confirm"), "{s}");
    assert!(s.contains("B first answer"), "{s}");
    t.keys(&["Escape"]);
    wait_screen(&t, "enter transcript · ctrl+e message", 10);
    t.keys(&["Escape"]);
    wait_gone(&t, "enter transcript · ctrl+e message", 10);

    // A bad id is named.
    t.typ("/subagents stop sa-9");
    t.keys(&["Enter"]);
    wait_screen(&t, "no such agent", 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orchestrator_toggles_the_tool_set_for_the_next_prompts() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("managing now").when("You are orchestrating"));
    server.push(Script::anthropic_text("working myself").unless("You are orchestrating"));
    let t = Tmux::start(&env, &server, &["--no-ext"], 110, 30);
    started(&t);
    t.typ("/orchestrator");
    t.keys(&["Enter"]);
    wait_screen(&t, "orchestrator on", 10);
    wait_screen(&t, "orchestrating", 10);
    t.typ("plan it");
    t.keys(&["Enter"]);
    t.wait_for("managing now", 20);
    let reqs = server.requests();
    let names = |body: &serde_json::Value| -> Vec<String> {
        body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["name"].as_str().map(str::to_string))
            .collect()
    };
    let tools = names(&reqs[0].body);
    assert!(tools.contains(&"subagent".to_string()), "{tools:?}");
    assert!(tools.contains(&"read".to_string()), "{tools:?}");
    assert!(!tools.contains(&"bash".to_string()), "{tools:?}");
    assert!(!tools.contains(&"write".to_string()), "{tools:?}");

    t.typ("/orchestrator");
    t.keys(&["Enter"]);
    wait_screen(&t, "orchestrator off", 10);
    t.typ("do it yourself");
    t.keys(&["Enter"]);
    t.wait_for("working myself", 20);
    let reqs = server.requests();
    let last = reqs.last().unwrap();
    assert!(!last.raw_body.contains("You are orchestrating"));
    assert!(names(&last.body).contains(&"bash".to_string()));
    assert!(!t.screen().contains("orchestrating"), "{}", t.screen());
    t.typ("/orchestrator loud");
    t.keys(&["Enter"]);
    wait_screen(
        &t,
        "use /orchestrator, /orchestrator on or /orchestrator off",
        10,
    );
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 10);
}
