//! `--no-yolo` in the interactive TUI end to end (real binary in tmux,
//! local LLM server): the confirmation dialog, a refusal with a reason the
//! model sees, "always this tool", and the thinking indicator.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::tmux::*;
use common::*;
use zut_llm_server::{Block, Format, LlmServer, Script};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_yolo_asks_refuses_with_a_reason_and_remembers_always() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::reply(
        Format::Anthropic,
        vec![
            Block::thinking("Let me look at the directory first.", "sig"),
            Block::tool_call(
                "c1",
                "bash",
                r#"{"command":"echo FIRST > first.txt","timeout":5}"#,
            ),
        ],
    ));
    server.push(Script::anthropic_tool_call(
        "c2",
        "bash",
        r#"{"command":"echo SECOND > second.txt","timeout":5}"#,
    ));
    server.push(Script::anthropic_tool_call(
        "c3",
        "bash",
        r#"{"command":"echo THIRD > third.txt","timeout":5}"#,
    ));
    server.push(Script::anthropic_text("All three handled."));
    let t = Tmux::start(
        &env,
        &server,
        &["--no-ext", "--no-yolo", "write files"],
        100,
        32,
    );
    t.wait_for("confirm tool call", 10);
    // A capture can catch a frame half painted: wait for its status line.
    let s = t.wait_for("waiting for approval: bash", 10);
    assert!(s.contains("echo FIRST > first.txt"), "{s}");
    assert!(s.contains("✻ thought for"), "{s}");
    // Refuse with a reason.
    t.typ("not that file");
    t.wait_for(": not that file", 5);
    t.keys(&["Enter"]);
    // Then "always this tool": the third call runs without asking.
    let s = t.wait_for("echo SECOND", 10);
    assert!(s.contains("confirm tool call"), "{s}");
    t.typ("2");
    t.wait_for("All three handled.", 10);
    assert!(!env.project.join("first.txt").exists());
    assert!(env.project.join("second.txt").exists());
    assert!(env.project.join("third.txt").exists());
    let body = &server.requests()[1].raw_body;
    assert!(body.contains("not that file"), "{body}");
    assert!(!t.screen().contains("confirm tool call"), "{}", t.screen());
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}
