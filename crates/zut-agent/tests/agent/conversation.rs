//! `zut_agent::conversation::open` and the controller's session moves
//! (new, resume, fork, tree checkout, rename) against the local LLM server,
//! real session files and a real extension that logs what it is told.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;
use std::time::Duration;

use common::*;
use serde_json::json;
use zut_agent::controller::{JobOutcome, SessionMoved};
use zut_agent::conversation::{self, Conversation, SessionRequest, Setup};
use zut_agent::{AgentConfig, ControllerEvent, PromptOutcome};
use zut_ext_host::{HostConfig, ZutHome};
use zut_llm_server::{LlmServer, Script};
use zut_providers::Part;
use zut_session::Choice;
use zut_test_support::TestEnv;

fn text(s: &str) -> Vec<Part> {
    vec![Part::Text { text: s.into() }]
}

/// An extension that logs every session event to `<dir>/events.jsonl`.
fn logger(env: &TestEnv) -> PathBuf {
    let dir = scratch(env).join("logger");
    py_ext(
        &dir,
        "logger",
        &[json!({"type":"subscribe","events":[
            "session_start","session_opened","session_switched","session_forked"]})],
        "",
        "",
        &log_event_to(&dir),
    );
    dir
}

fn setup(env: &TestEnv, server: &LlmServer, exts: &[PathBuf]) -> Setup {
    let mut host = HostConfig::new(ZutHome::new(&env.home), &env.project);
    host.ext_paths = exts.to_vec();
    host.no_ext = true;
    host.timeouts.shutdown_grace = Duration::from_millis(500);
    Setup {
        provider: Ok(provider(server, "anthropic", &env.home)),
        provider_name: "anthropic".into(),
        model: "test-model".into(),
        host,
        agent: AgentConfig::new(&env.project, &env.home),
        files: None,
        mcp: Default::default(),
    }
}

fn open(
    env: &TestEnv,
    server: &LlmServer,
    exts: &[PathBuf],
    choice: Option<Choice>,
) -> Conversation {
    conversation::open(
        setup(env, server, exts),
        SessionRequest {
            choice,
            title: String::new(),
        },
    )
    .unwrap()
}

async fn session_outcome(job: zut_agent::controller::JobHandle) -> SessionMoved {
    match job.outcome().await {
        JobOutcome::Session(Ok(m)) => m,
        other => panic!("session move failed: {other:?}"),
    }
}

async fn prompt(conv: &Conversation, s: &str) -> PromptOutcome {
    match conv.controller.prompt(text(s), None).outcome().await {
        JobOutcome::Prompt(o) => o,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn every_session_move_through_the_controller() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    for word in ["one", "two", "three"] {
        server.push(Script::anthropic_text(word));
    }
    let ext = logger(&env);
    let conv = open(&env, &server, std::slice::from_ref(&ext), Some(Choice::New));
    let first = conv.session.clone().unwrap();
    conv.controller.ready().await;
    assert!(matches!(
        prompt(&conv, "a").await,
        PromptOutcome::Completed { .. }
    ));
    assert_eq!(zut_session::read(&first).unwrap().messages.len(), 2);

    // New: another file; the first one keeps its content.
    let moved = session_outcome(conv.controller.new_session(None)).await;
    let second = moved.path.clone().unwrap();
    assert_ne!(second, first);
    assert!(conv.controller.messages().is_empty());
    assert!(matches!(
        prompt(&conv, "b").await,
        PromptOutcome::Completed { .. }
    ));
    assert_eq!(zut_session::read(&second).unwrap().messages.len(), 2);

    // Resume the first: its transcript is the conversation again.
    let job = conv.controller.resume_session(&first, None).unwrap();
    let moved = session_outcome(job).await;
    assert_eq!(moved.path.as_deref(), Some(first.as_path()));
    assert_eq!(moved.snapshot.unwrap().messages.len(), 2);
    assert_eq!(conv.controller.messages().len(), 2);

    // Fork at the first message: a branch with the first file as parent.
    let parent_id = zut_session::read(&first).unwrap().meta.id;
    let moved = session_outcome(conv.controller.fork_session(1, false, None)).await;
    let branch = moved.path.unwrap();
    let snap = zut_session::read(&branch).unwrap();
    assert_eq!(snap.meta.parent, parent_id);
    assert_eq!(snap.messages.len(), 1);
    assert_eq!(conv.controller.messages().len(), 1);

    // Tree checkout: a hidden branch (not in the sessions list).
    let job = conv.controller.resume_session(&first, None).unwrap();
    session_outcome(job).await;
    let moved = session_outcome(conv.controller.fork_session(2, true, None)).await;
    let checkout = moved.path.unwrap();
    let dir = zut_session::sessions_dir(&env.home, &env.project.display().to_string());
    let listed: Vec<PathBuf> = zut_session::list(&dir, false)
        .into_iter()
        .map(|s| s.path)
        .collect();
    assert!(!listed.contains(&checkout), "{listed:?}");
    assert!(matches!(
        prompt(&conv, "c").await,
        PromptOutcome::Completed { .. }
    ));
    assert_eq!(zut_session::read(&checkout).unwrap().messages.len(), 4);

    // Rename the open file.
    let moved = session_outcome(conv.controller.rename_session("Renamed here", None)).await;
    assert_eq!(moved.snapshot.unwrap().title, "Renamed here");
    assert_eq!(zut_session::read(&checkout).unwrap().title, "Renamed here");

    // Extensions were told, in order, with each file's identity.
    let ev = logged_events(&ext, 9).await;
    let names: Vec<&str> = ev.iter().map(|e| e["event"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "session_start",
            "session_opened",
            "session_switched", // new
            "session_switched", // resume
            "session_forked",
            "session_switched", // fork
            "session_switched", // resume
            "session_forked",
            "session_switched", // checkout
        ]
    );
    assert_eq!(ev[4]["session"]["parent_id"], parent_id.as_str());
    conv.controller.close().await.unwrap();
}

#[tokio::test]
async fn a_move_while_a_turn_streams_aborts_it_and_keeps_the_old_file_whole() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    // A reply that streams slowly: the move arrives in the middle.
    server.push(
        Script::anthropic_text("a long answer that streams slowly ".repeat(20))
            .delta_bytes(8)
            .event_delay_ms(40),
    );
    let conv = open(&env, &server, &[], Some(Choice::New));
    let mut events = conv.events;
    let first = conv.session.clone().unwrap();
    let turn = conv.controller.prompt(text("tell me"), None);
    // Wait until text streams.
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(10), events.next())
            .await
            .unwrap()
            .unwrap();
        if let ControllerEvent::Agent(zut_agent::AgentEvent::TextDelta { .. }) = ev {
            break;
        }
    }
    let moved = conv.controller.new_session(None);
    assert_eq!(
        turn.outcome().await,
        JobOutcome::Prompt(PromptOutcome::Aborted)
    );
    let moved = session_outcome(moved).await;
    assert_ne!(moved.path.as_deref(), Some(first.as_path()));
    // The old file reads back whole: the user message and nothing torn.
    let old = zut_session::read(&first).unwrap();
    assert_eq!(old.messages[0].first_text(), Some("tell me"));
    conv.controller.close().await.unwrap();
}

#[tokio::test]
async fn a_busy_or_corrupt_file_is_refused_and_the_conversation_goes_on() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("still here"));
    let conv = open(&env, &server, &[], Some(Choice::New));
    // Another writer holds this file.
    let dir = zut_session::sessions_dir(&env.home, &env.project.display().to_string());
    let other =
        zut_session::SessionWriter::create(&dir, zut_session::NewSession::default()).unwrap();
    let e = conv
        .controller
        .resume_session(other.path(), None)
        .unwrap_err();
    assert!(!e.is_empty());
    // A file that is not a session.
    let junk = dir.join("junk.jsonl");
    std::fs::write(&junk, b"\x00\x01 not json\n{\"broken\n").unwrap();
    let e = conv.controller.resume_session(&junk, None).unwrap_err();
    assert!(e.contains("junk.jsonl"), "{e}");
    assert_eq!(
        std::fs::read(&junk).unwrap(),
        b"\x00\x01 not json\n{\"broken\n",
        "untouched"
    );
    // Nothing was aborted or moved: the conversation answers.
    assert!(matches!(
        prompt(&conv, "hi").await,
        PromptOutcome::Completed { .. }
    ));
    assert_eq!(
        conv.session
            .as_ref()
            .map(|p| zut_session::read(p).unwrap().messages.len()),
        Some(2)
    );
    conv.controller.close().await.unwrap();
}

#[tokio::test]
async fn without_a_session_new_clears_and_a_missing_model_is_reported() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("one"));
    let conv = open(&env, &server, &[], None);
    assert!(conv.session.is_none());
    assert!(matches!(
        prompt(&conv, "a").await,
        PromptOutcome::Completed { .. }
    ));
    assert_eq!(conv.controller.messages().len(), 2);
    let moved = session_outcome(conv.controller.new_session(None)).await;
    assert_eq!(moved.path, None);
    assert!(conv.controller.messages().is_empty());
    conv.controller.close().await.unwrap();

    // No model: the conversation opens, prompts fail with the reason.
    let mut s = setup(&env, &server, &[]);
    s.provider = Err("no API key: set ANTHROPIC_API_KEY".into());
    let conv = conversation::open(s, SessionRequest::default()).unwrap();
    match prompt(&conv, "x").await {
        PromptOutcome::Failed { message } => {
            assert!(message.contains("ANTHROPIC_API_KEY"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    conv.controller.close().await.unwrap();
}
