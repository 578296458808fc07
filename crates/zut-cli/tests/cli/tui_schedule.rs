//! `schedule` in the interactive TUI end to end (real binary in tmux, the
//! scripted LLM server): bad cron expressions are refused with Go's texts,
//! a task added by the model fires at the next minute into the session, and
//! when it falls due while a confirmation dialog is open it waits in the
//! queue behind the running turn (issue 24 item 3).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::tmux::*;
use common::*;
use serde_json::json;
use zut_llm_server::{Block, Format, LlmServer, Script};

fn sched(id: &str, args: serde_json::Value) -> Block {
    Block::tool_call(id.to_string(), "schedule", args.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_due_during_a_confirmation_waits_then_runs() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::reply(
        Format::Anthropic,
        vec![
            sched(
                "s1",
                json!({"action":"add","cron":"61 * * * *","message":"x"}),
            ),
            sched(
                "s2",
                json!({"action":"add","cron":"0 0 30 2 *","message":"x"}),
            ),
            sched("s3", json!({"action":"add","cron":"* * *","message":"x"})),
            sched(
                "s4",
                json!({"action":"add","cron":"* * * * *","message":"scheduled ping"}),
            ),
            sched("s5", json!({"action":"list"})),
        ],
    ));
    server.push(Script::anthropic_tool_call(
        "b1",
        "bash",
        r#"{"command":"echo hi > hi.txt","timeout":5}"#,
    ));
    server.push(Script::anthropic_text("Wrote the file."));
    server.push(Script::anthropic_text("pong from the schedule").when("scheduled ping"));
    // The task fires at the next minute. The engine's clock (a test-only
    // variable, zut_agent::schedule::TEST_CLOCK_ENV) reads hh:mm:55 when the
    // task is added, so the minute falls due 5 s later, while the
    // confirmation below is open, instead of up to a minute of wall clock.
    let t = Tmux::start_with(
        &env,
        &server,
        &["--no-ext", "--no-yolo"],
        &[("ZUT_TEST_SCHEDULE_CLOCK", "2026-12-06T12:00:55Z")],
        120,
        60,
    );
    started(&t);
    t.typ("set a reminder then write a file");
    t.keys(&["Enter"]);
    t.wait_for("waiting for approval: schedule", 10);
    // "always this tool": the other schedule calls run without asking.
    t.typ("2");
    t.wait_for("waiting for approval: bash", 10);
    let s = t.all();
    assert!(s.contains("invalid cron"), "{s}");
    assert!(
        s.contains("cron has no occurrence in the next eight years"),
        "{s}"
    );
    assert!(
        s.contains("cron requires five fields (minute hour day-of-month month day-of-week)"),
        "{s}"
    );
    assert!(s.contains("* * * * *  next "), "{s}");
    // The dialog stays open until the task falls due: it is queued.
    t.wait_for("is due: queued behind the running turn", 30);
    assert_eq!(server.requests().len(), 2);
    t.typ("1");
    t.wait_for("Wrote the file.", 10);
    t.wait_for("pong from the schedule", 10);
    assert!(env.project.join("hi.txt").exists());
    let reqs = server.requests();
    assert_eq!(reqs.len(), 4);
    assert!(reqs[3].raw_body.contains("scheduled ping"));
    // The schedule tool was offered (interactive mode).
    assert!(reqs[0].raw_body.contains("\"name\":\"schedule\""));
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}
