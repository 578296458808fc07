//! The interactive TUI offers the `subagent` tool by default and a child
//! spawned there runs and reports back (real binary in tmux, local LLM
//! server answering parent and child differently).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

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
