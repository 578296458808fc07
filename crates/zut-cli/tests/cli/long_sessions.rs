//! Long sessions through the `zut` binary (issue 24): compact-and-retry in
//! `--json` and `-p`, the repetition guard and `--no-repetition-guard`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use serde_json::Value;
use zut_llm_server::{LlmServer, Script};
use zut_test_support::TestEnv;

fn json_events(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

const OVERFLOW: &str = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}"#;

#[tokio::test]
async fn json_mode_shows_the_recovery_and_completes() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let session = env.project.join("s.jsonl");
    let session_arg = session.display().to_string();
    server.push(Script::anthropic_text("first answer"));
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &["--session", &session_arg, "-p", "first"],
    ))
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    server.push(Script::json(400, OVERFLOW));
    server.push(Script::anthropic_text("SUMMARY"));
    server.push(Script::anthropic_text("second answer"));
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &["--session", &session_arg, "--json", "second"],
    ))
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let events = json_events(&r.stdout);
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    let rec = types.iter().position(|t| *t == "context_recovery").unwrap();
    let compact = types.iter().position(|t| *t == "compact_done").unwrap();
    assert!(rec < compact, "{types:?}");
    assert_eq!(types.last(), Some(&"done"));
    assert!(!types.contains(&"error"), "{types:?}");
    assert!(events[rec]["error"]
        .as_str()
        .unwrap()
        .contains("prompt is too long"));
    // The compaction is in the session: a resumed run starts from it.
    let text = std::fs::read_to_string(&session).unwrap();
    assert!(text.contains("\"compaction\""), "{text}");

    // Print mode: the answer on stdout, the notice on stderr.
    server.push(Script::json(400, OVERFLOW));
    server.push(Script::anthropic_text("SUMMARY 2"));
    server.push(Script::anthropic_text("third answer"));
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &["--session", &session_arg, "-p", "third"],
    ))
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.trim(), "third answer");
    assert!(
        r.stderr.contains("context window exceeded: compacting"),
        "{}",
        r.stderr
    );
}

#[tokio::test]
async fn the_guard_stops_a_looping_model_unless_turned_off() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "t1",
        "bash",
        r#"{"command":"echo same"}"#,
    ));
    server.set_cycle(true);
    let r = output_blocking(llm_cmd(&env, &server.url(), &["--no-session", "-p", "go"])).await;
    assert_ne!(r.code, 0);
    assert!(
        r.stderr
            .contains("repetitive loop: tool \"bash\" repeated 8 times"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("repetition guard"), "{}", r.stderr);
    assert_eq!(server.request_count(), 8);

    let before = server.request_count();
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &[
            "--no-session",
            "--no-repetition-guard",
            "--max-steps",
            "10",
            "--json",
            "go",
        ],
    ))
    .await;
    assert_ne!(r.code, 0);
    assert_eq!(server.request_count() - before, 10);
    assert!(!r.stdout.contains("repetition_guard"));
    assert!(r.stdout.contains("--max-steps"), "{}", r.stdout);
}

/// The compaction request's system prompt (what tells it from a turn).
const HANDOFF: &str = "You write handoff summaries";

/// One unattended `zut --json` run of 200 model turns (199 real `bash`
/// calls, then the answer) whose requests overflow the context window
/// three times (after steps 50, 110 and 170): it completes with no user
/// action, each overflow compacted and retried once, and the requests
/// shrink after each compaction.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_run_of_200_turns_survives_three_overflows() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let overflow_after = [50, 110, 170];
    for step in overflow_after {
        server.push(
            Script::json(400, OVERFLOW)
                .when(format!("step-{step:03}-done"))
                .unless(HANDOFF),
        );
    }
    for i in 0..6 {
        server.push(Script::anthropic_text(format!("## Goal\nsummary {i}")).when(HANDOFF));
    }
    for step in 1..=199 {
        server.push(
            Script::anthropic_tool_call(
                format!("c{step}"),
                "bash",
                format!(
                    r#"{{"command":"printf 'step-%03d-done\\n' {step}; seq 1 200","timeout":30}}"#
                ),
            )
            .unless(HANDOFF),
        );
    }
    server.push(Script::anthropic_text("all 199 steps done").unless(HANDOFF));
    let session = env.project.join("long.jsonl");
    let session_arg = session.display().to_string();
    let started = std::time::Instant::now();
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &[
            "--session",
            &session_arg,
            "--max-steps",
            "250",
            "--json",
            "run the 199 steps",
        ],
    ))
    .await;
    let wall = started.elapsed();
    assert_eq!(r.code, 0, "{}", r.stderr);
    let events = json_events(&r.stdout);
    let of = |t: &str| events.iter().filter(|e| e["type"] == t).count();
    let n_req = server.request_count();
    assert_eq!(
        of("context_recovery"),
        3,
        "{n_req} requests; stderr {}; tail {:?}",
        r.stderr,
        &events[events.len().saturating_sub(8)..]
    );
    assert_eq!(of("compact_done"), 3);
    assert_eq!(of("tool_result"), 199);
    assert_eq!(of("error"), 0, "{}", r.stdout);
    assert_eq!(events.last().unwrap()["type"], "done");
    assert!(r.stdout.contains("all 199 steps done"));
    // Every step script and every overflow was used; three summaries.
    assert_eq!(server.pending(), 3);
    let reqs = server.requests();
    // 200 turns + 3 overflowed requests + 3 summaries.
    assert_eq!(reqs.len(), 206);
    // Each overflow is followed by its summary, then a smaller retry.
    for step in overflow_after {
        let marker = format!("step-{step:03}-done");
        let i = reqs
            .iter()
            .position(|q| q.raw_body.contains(&marker) && !q.raw_body.contains(HANDOFF))
            .unwrap();
        assert!(reqs[i + 1].raw_body.contains(HANDOFF), "after step {step}");
        assert!(
            reqs[i + 2].raw_body.len() < reqs[i].raw_body.len() / 2,
            "after step {step}: {} then {}",
            reqs[i].raw_body.len(),
            reqs[i + 2].raw_body.len()
        );
        assert!(reqs[i + 2]
            .raw_body
            .contains("## Context Summary (compacted)"));
    }
    let largest = reqs.iter().map(|q| q.raw_body.len()).max().unwrap();
    // The session has the three compactions and every step.
    let text = std::fs::read_to_string(&session).unwrap();
    assert_eq!(text.matches(r#""compaction":"true""#).count(), 3, "{text}");
    assert!(text.contains("step-199-done"));
    eprintln!(
        "FIGURE 200 turns, 3 overflows: {:.1} s wall (debug binary), largest request {} KiB",
        wall.as_secs_f64(),
        largest / 1024
    );
}

/// Bad input: the request is still too long after the compaction. `-p`
/// stops with a clear message and a non-zero status after exactly one
/// compaction and one retry (no loop); the history is still there.
#[tokio::test]
async fn an_overflow_that_persists_stops_clearly() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let session = env.project.join("s.jsonl");
    let session_arg = session.display().to_string();
    server.push(Script::anthropic_text("first answer"));
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &["--session", &session_arg, "-p", "first"],
    ))
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    server.push(Script::json(400, OVERFLOW));
    server.push(Script::anthropic_text("SUMMARY"));
    server.push(Script::json(400, OVERFLOW));
    // What a (wrong) second recovery would use.
    server.push(Script::anthropic_text("SUMMARY AGAIN"));
    server.push(Script::anthropic_text("never"));
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &["--session", &session_arg, "-p", "second"],
    ))
    .await;
    assert_ne!(r.code, 0);
    assert!(r.stdout.trim().is_empty(), "{}", r.stdout);
    assert!(
        r.stderr.contains(
            "the request is still too long for the model's context window after compaction"
        ),
        "{}",
        r.stderr
    );
    assert_eq!(
        r.stderr
            .matches("context window exceeded: compacting")
            .count(),
        1,
        "{}",
        r.stderr
    );
    assert_eq!(server.request_count(), 4);
    assert_eq!(server.pending(), 2);
    // The prompt and the summary are in the session: nothing is lost.
    let text = std::fs::read_to_string(&session).unwrap();
    assert!(
        text.contains("second") && text.contains("SUMMARY"),
        "{text}"
    );
}
