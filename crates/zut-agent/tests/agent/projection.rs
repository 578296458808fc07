//! The provider-side projection (issue 24) seen from the request bodies
//! the local LLM server receives: a superseded `read` becomes a marker, an
//! edit alone supersedes nothing, the tool-result budget caps and
//! summarises, and the session file keeps every result whole (append-only,
//! earlier bytes never rewritten).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use zut_agent::{projection::superseded_marker, result_budget, Agent, PromptOutcome};
use zut_llm_server::{LlmServer, Script};
use zut_session::{Choice, NewSession};
use zut_test_support::TestEnv;

fn attach_new(env: &TestEnv, a: &mut Agent) -> std::path::PathBuf {
    let o = zut_session::open(
        &Choice::New,
        &env.home,
        &env.project.display().to_string(),
        NewSession::default(),
    )
    .unwrap();
    let path = o.writer.path().to_path_buf();
    a.attach_session(o.writer, None);
    path
}

fn results_of(server: &LlmServer, i: usize) -> Vec<(String, bool, String)> {
    anthropic_tool_results(&server.requests()[i].body)
}

#[tokio::test]
async fn a_newer_read_replaces_the_older_in_the_request_only() {
    let env = TestEnv::new();
    std::fs::write(env.project.join("x.txt"), "ORIGINAL-CONTENT\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    let mut a = agent(&env, &server, "anthropic", None);
    let session = attach_new(&env, &mut a);
    server.push(Script::anthropic_tool_call(
        "t1",
        "read",
        r#"{"path":"x.txt"}"#,
    ));
    server.push(Script::anthropic_tool_call(
        "t2",
        "read",
        r#"{"path":"./x.txt"}"#,
    ));
    server.push(Script::anthropic_text("seen twice"));
    let (o, _) = run(&mut a, "read it twice").await;
    assert!(matches!(o, PromptOutcome::Completed { .. }), "{o:?}");

    // Request 2 still shows the first read whole.
    let r2 = results_of(&server, 1);
    assert!(r2[0].2.contains("ORIGINAL-CONTENT"), "{r2:?}");
    // Request 3: the first read is a marker, the second is whole.
    let r3 = results_of(&server, 2);
    assert_eq!(r3.len(), 2);
    assert_eq!(r3[0].0, "t1");
    assert_eq!(r3[0].2, superseded_marker("x.txt"));
    assert!(r3[1].2.contains("ORIGINAL-CONTENT"), "{r3:?}");

    // The session keeps both results whole and is only appended to.
    let before = std::fs::read(&session).unwrap();
    let text = String::from_utf8(before.clone()).unwrap();
    assert_eq!(text.matches("ORIGINAL-CONTENT").count(), 2, "{text}");
    assert!(!text.contains("superseded"), "{text}");
    // The in-memory transcript too.
    assert!(!format!("{:?}", a.transcript()).contains("superseded"));
    server.push(Script::anthropic_text("again"));
    run(&mut a, "and now?").await;
    let after = std::fs::read(&session).unwrap();
    assert!(after.len() > before.len());
    assert_eq!(
        &after[..before.len()],
        &before[..],
        "earlier bytes rewritten"
    );
    let r4 = results_of(&server, 3);
    assert_eq!(r4[0].2, superseded_marker("x.txt"));
}

#[tokio::test]
async fn an_edit_alone_does_not_supersede_a_read() {
    let env = TestEnv::new();
    std::fs::write(env.project.join("x.txt"), "alpha\nbeta\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    let mut a = agent(&env, &server, "anthropic", None);
    server.push(Script::anthropic_tool_call(
        "t1",
        "read",
        r#"{"path":"x.txt"}"#,
    ));
    server.push(Script::anthropic_tool_call(
        "t2",
        "edit",
        r#"{"path":"x.txt","edits":[{"oldText":"beta","newText":"gamma"}]}"#,
    ));
    server.push(Script::anthropic_text("edited"));
    let (o, _) = run(&mut a, "edit it").await;
    assert!(matches!(o, PromptOutcome::Completed { .. }), "{o:?}");
    assert_eq!(
        std::fs::read_to_string(env.project.join("x.txt")).unwrap(),
        "alpha\ngamma\n"
    );
    let r3 = results_of(&server, 2);
    assert!(r3[0].2.contains("beta"), "{r3:?}");
    assert!(!r3[0].2.contains("superseded"));
}

#[tokio::test]
async fn the_projection_can_be_turned_off() {
    let env = TestEnv::new();
    std::fs::write(env.project.join("x.txt"), "ORIGINAL-CONTENT\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    let mut a = agent(&env, &server, "anthropic", None);
    a.config_mut().long_session.stale_read_projection = false;
    for id in ["t1", "t2"] {
        server.push(Script::anthropic_tool_call(
            id,
            "read",
            r#"{"path":"x.txt"}"#,
        ));
    }
    server.push(Script::anthropic_text("done"));
    run(&mut a, "read it twice").await;
    let r3 = results_of(&server, 2);
    assert!(r3.iter().all(|r| r.2.contains("ORIGINAL-CONTENT")));
}

#[tokio::test]
async fn the_budget_caps_each_result_and_summarises_the_oldest() {
    let env = TestEnv::new();
    // Six files of ~30 KiB (reads return them whole: under 50 KiB).
    for i in 1..=6 {
        let line = format!("file {i} line of text padding padding padding\n");
        std::fs::write(
            env.project.join(format!("f{i}.txt")),
            line.repeat(30 * 1024 / line.len()),
        )
        .unwrap();
    }
    // One of 45 KiB, capped at 32 KiB in requests.
    let line = "big file line with some padding text in it\n";
    std::fs::write(
        env.project.join("big.txt"),
        line.repeat(45 * 1024 / line.len()),
    )
    .unwrap();
    let server = LlmServer::start().await.unwrap();
    let mut a = agent(&env, &server, "anthropic", None);
    // No automatic compaction in the way (it counts the whole transcript).
    a.config_mut().compaction.context_window = Some(1_000_000);
    server.push(Script::anthropic_tool_call(
        "big",
        "read",
        r#"{"path":"big.txt"}"#,
    ));
    for i in 1..=6 {
        server.push(Script::anthropic_tool_call(
            format!("r{i}"),
            "read",
            format!(r#"{{"path":"f{i}.txt"}}"#),
        ));
    }
    server.push(Script::anthropic_text("done"));
    let (o, _) = run(&mut a, "read them all").await;
    assert!(matches!(o, PromptOutcome::Completed { .. }), "{o:?}");

    // Request 2: the big result alone, capped with the Go marker.
    let r = results_of(&server, 1);
    assert!(
        r[0].2.len() <= result_budget::RESULT_BYTES + 64,
        "{}",
        r[0].2.len()
    );
    assert!(r[0].2.ends_with(result_budget::OMITTED_MARKER));

    // The last request: total under 128 KiB, the oldest summarised, the
    // newest whole.
    let last = results_of(&server, 7);
    assert_eq!(last.len(), 7);
    let total: usize = last.iter().map(|r| r.2.len()).sum();
    assert!(total <= result_budget::RESULTS_TOTAL_BYTES, "{total}");
    assert!(
        last[0].2.starts_with("[older tool result summarised"),
        "{}",
        &last[0].2
    );
    assert!(last[6].2.contains("file 6 line"), "newest kept whole");
    assert!(!last[6].2.contains("summarised"));
    // The transcript still holds every result whole.
    let whole = format!("{:?}", a.transcript());
    assert!(!whole.contains("summarised"));
    // Prefix stability: between the last two requests the summarised set
    // changed at most once in the whole prompt's last three requests.
    let changes = (5..8)
        .map(|i| {
            results_of(&server, i)
                .iter()
                .filter(|r| r.2.starts_with("[older tool result summarised"))
                .count()
        })
        .collect::<Vec<_>>();
    assert!(changes.windows(2).all(|w| w[0] <= w[1]), "{changes:?}");
}
