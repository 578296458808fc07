//! `/goal` in the interactive TUI end to end (real binary in tmux, the
//! scripted LLM server): visible continuation turns until the model calls
//! `update_goal complete`, counted in the status bar; Esc pauses a goal
//! (issue 24 item 2).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::tmux::*;
use common::*;
use serde_json::json;
use zut_llm_server::{Block, Format, LlmServer, Script};

fn call(id: &str, name: &str, args: serde_json::Value) -> Script {
    Script::reply(
        Format::Anthropic,
        vec![Block::tool_call(id.to_string(), name, args.to_string())],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn goal_continues_visibly_until_update_goal_complete() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    std::fs::write(env.project.join("a.txt"), "alpha\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("Starting on it."));
    server.push(call("c1", "read", json!({"path":"a.txt"})));
    server.push(Script::anthropic_text("Read the file."));
    server.push(call("c2", "update_goal", json!({"status":"complete"})));
    server.push(Script::anthropic_text("Goal complete, all done."));
    let t = Tmux::start(&env, &server, &["--no-ext"], 110, 40);
    started(&t);
    t.typ("/goal read a.txt and report");
    t.keys(&["Enter"]);
    let s = t.wait_for("Goal complete, all done.", 20);
    assert!(s.contains("goal active: read a.txt and report"), "{s}");
    // The continuation turns are shown as user messages.
    assert_eq!(s.matches("[goal continuation]").count(), 2, "{s}");
    let s = t.wait_for("goal:done auto:2", 10);
    assert!(s.contains("goal done: read a.txt and report"), "{s}");
    assert_eq!(server.requests().len(), 5);
    // /goal shows the status.
    t.typ("/goal");
    t.keys(&["Enter"]);
    t.wait_for("goal done (user): read a.txt and report (", 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_pauses_a_goal_and_resume_goes_on() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("First step done."));
    // The continuation's reply is slow: Esc stops it.
    server.push(Script::anthropic_text("never shown").delay_ms(30_000));
    server.push(call("c1", "update_goal", json!({"status":"complete"})));
    server.push(Script::anthropic_text("Finished after resume."));
    let t = Tmux::start(&env, &server, &["--no-ext"], 110, 40);
    started(&t);
    t.typ("/goal tidy the docs");
    t.keys(&["Enter"]);
    t.wait_for("[goal continuation]", 20);
    t.wait_for("goal:active auto:1", 10);
    t.keys(&["Escape"]);
    let s = t.wait_for("goal paused: tidy the docs", 10);
    assert!(s.contains("stopped by the user"), "{s}");
    t.wait_for("goal:paused auto:1", 10);
    assert!(!s.contains("never shown"), "{s}");
    t.typ("/goal resume");
    t.keys(&["Enter"]);
    t.wait_for("Finished after resume.", 20);
    t.wait_for("goal:done auto:1", 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_typed_during_a_goal_runs_before_the_next_continuation() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("Step one."));
    // The first continuation is slow: a prompt is typed meanwhile.
    server.push(Script::anthropic_text("Still going.").delay_ms(2500));
    server.push(Script::anthropic_text("It is noon."));
    server.push(call("c1", "update_goal", json!({"status":"complete"})));
    server.push(Script::anthropic_text("Done with the goal."));
    let t = Tmux::start(&env, &server, &["--no-ext"], 110, 50);
    started(&t);
    t.typ("/goal count the files");
    t.keys(&["Enter"]);
    t.wait_for("[goal continuation]", 20);
    t.typ("what time is it");
    t.keys(&["Enter"]);
    let s = t.wait_for("Done with the goal.", 20);
    // The typed prompt ran between the two continuations.
    let noon = s.find("It is noon.").unwrap_or_else(|| panic!("{s}"));
    let still = s.find("Still going.").unwrap();
    assert!(still < noon, "{s}");
    assert!(noon < s.find("Done with the goal.").unwrap(), "{s}");
    t.wait_for("goal:done auto:2", 10);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 5);
    let last_user = |body: &str| {
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        let msgs = v["messages"].as_array().unwrap().clone();
        msgs.iter()
            .rev()
            .find(|m| m["role"] == "user")
            .unwrap()
            .to_string()
    };
    assert!(last_user(&reqs[2].raw_body).contains("what time is it"));
    assert!(last_user(&reqs[3].raw_body).contains("[goal continuation]"));
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}
