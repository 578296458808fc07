//! The conversation controller against the local LLM server and real
//! extension processes: FIFO queue, abort, state, clear, model and
//! reasoning changes, compaction, commands, panels, the event stream.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use common::*;
use zut_agent::controller::{CommandOutcome, JobKind, JobOutcome};
use zut_agent::{AgentEvent, Controller, ControllerEvent, EventStream, PromptOutcome};
use zut_ext_host::UiKind;
use zut_llm_server::{LlmServer, Script};
use zut_providers::Part;
use zut_test_support::TestEnv;

fn text(s: &str) -> Vec<Part> {
    vec![Part::Text { text: s.into() }]
}

/// Collects stream items until `n` jobs finished.
async fn until_finished(stream: &mut EventStream, n: usize) -> Vec<ControllerEvent> {
    let mut out = Vec::new();
    let mut finished = 0;
    while finished < n {
        let ev = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("stream stalled")
            .expect("stream ended");
        if matches!(ev, ControllerEvent::JobFinished { .. }) {
            finished += 1;
        }
        out.push(ev);
    }
    out
}

fn names(evs: &[ControllerEvent]) -> Vec<String> {
    evs.iter()
        .map(|e| match e {
            ControllerEvent::Agent(a) => serde_json::to_value(a).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string(),
            ControllerEvent::Ui(_) => "ui".into(),
            ControllerEvent::JobStarted { tag, .. } => {
                format!("started:{}", tag.clone().unwrap_or_default())
            }
            ControllerEvent::JobFinished { .. } => "finished".into(),
            ControllerEvent::Note(n) => format!("note:{n}"),
            ControllerEvent::ExtensionsReady { .. } => "ready".into(),
            ControllerEvent::Subagent { id, .. } => format!("subagent:{id}"),
        })
        .collect()
}

#[tokio::test]
async fn prompts_run_in_fifo_order_with_markers_and_state() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    for word in ["one", "two", "three"] {
        server.push(Script::anthropic_text(word).delay_ms(30));
    }
    let (c, mut stream) = Controller::new(agent(&env, &server, "anthropic", None), None);
    let a = c.prompt(text("a"), Some("A".into()));
    let b = c.prompt(text("b"), Some("B".into()));
    let d = c.prompt(text("c"), Some("C".into()));
    assert!(b.id > a.id && d.id > b.id);
    let evs = until_finished(&mut stream, 3).await;
    let n = names(&evs);
    let starts: Vec<&String> = n.iter().filter(|s| s.starts_with("started")).collect();
    assert_eq!(starts, ["started:A", "started:B", "started:C"]);
    // Each job's events sit between its markers; one done per prompt.
    assert_eq!(n.iter().filter(|s| *s == "done").count(), 3);
    let first_done = n.iter().position(|s| s == "done").unwrap();
    let second_start = n.iter().position(|s| s == "started:B").unwrap();
    assert!(first_done < second_start);
    let texts: Vec<String> = evs
        .iter()
        .filter_map(|e| match e {
            ControllerEvent::Agent(AgentEvent::TextDelta { delta }) => Some(delta.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(texts.concat(), "onetwothree");
    match a.outcome().await {
        JobOutcome::Prompt(PromptOutcome::Completed { final_text, .. }) => {
            assert_eq!(final_text, "one")
        }
        other => panic!("{other:?}"),
    }
    c.wait_idle().await;
    let st = c.state();
    assert!(!st.busy);
    assert_eq!(st.message_count, 6);
    assert_eq!(st.usage.input, 30);
    assert_eq!(c.messages().len(), 6);
    c.clear();
    assert_eq!(c.state().message_count, 0);
    server.push(Script::anthropic_text("fresh"));
    c.prompt(text("again"), None);
    until_finished(&mut stream, 1).await;
    c.wait_idle().await;
    assert_eq!(c.state().message_count, 2);
    // The request after clear carried only the new prompt.
    let last = server.requests().pop().unwrap();
    assert_eq!(last.body["messages"].as_array().unwrap().len(), 1);
    let agent = c.shutdown().await.unwrap();
    assert_eq!(agent.transcript().len(), 2);
    assert!(stream.next().await.is_none(), "stream ends after shutdown");
}

#[tokio::test]
async fn abort_ends_only_the_running_prompt() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::anthropic_text("never finishes")
            .delta_bytes(3)
            .hang_after(5),
    );
    server.push(Script::anthropic_text("second"));
    let (c, mut stream) = Controller::new(agent(&env, &server, "anthropic", None), None);
    assert!(!c.abort(), "idle abort is a no-op");
    let first = c.prompt(text("a"), None);
    let second = c.prompt(text("b"), None);
    // Wait for the first text delta, then abort.
    loop {
        let ev = stream.next().await.unwrap();
        if matches!(ev, ControllerEvent::Agent(AgentEvent::TextDelta { .. })) {
            break;
        }
    }
    assert!(c.state().busy);
    assert_eq!(c.state().queued, 1);
    assert!(c.abort());
    assert!(
        !c.state().busy,
        "busy is false as soon as abort is processed"
    );
    assert_eq!(
        first.outcome().await,
        JobOutcome::Prompt(PromptOutcome::Aborted)
    );
    match second.outcome().await {
        JobOutcome::Prompt(PromptOutcome::Completed { final_text, .. }) => {
            assert_eq!(final_text, "second")
        }
        other => panic!("{other:?}"),
    }
    let evs = until_finished(&mut stream, 2).await;
    let n = names(&evs);
    let aborted = n.iter().position(|s| s == "turn_end").unwrap();
    assert!(matches!(
        &evs[aborted],
        ControllerEvent::Agent(AgentEvent::TurnEnd {
            stop: "aborted",
            ..
        })
    ));
    assert!(!n.contains(&"error".to_string()));
    c.shutdown().await;
}

#[tokio::test]
async fn model_and_reasoning_changes_apply_to_the_next_request() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("ok"));
    let (c, mut stream) = Controller::new(agent(&env, &server, "anthropic", None), None);
    assert_eq!(c.state().model, "test-model");
    assert_eq!(c.state().reasoning, "");
    assert_eq!(c.set_model("claude-opus-4-1").unwrap(), "claude-opus-4-1");
    let e = c.set_model("no-such-model").unwrap_err();
    assert!(e.contains("unknown model"), "{e}");
    assert_eq!(c.state().model, "claude-opus-4-1");
    assert_eq!(c.set_reasoning("max").unwrap(), "max");
    assert!(c.set_reasoning("extreme").is_err());
    assert_eq!(c.state().reasoning, "max");
    assert!(c.models().iter().any(|m| m.id == "claude-sonnet-4-5"));
    c.prompt(text("x"), None);
    until_finished(&mut stream, 1).await;
    let req = server.requests().pop().unwrap();
    assert_eq!(req.body["model"], "claude-opus-4-1");
    assert!(req.body.get("thinking").is_some(), "{}", req.body);
    c.shutdown().await;
}

#[tokio::test]
async fn compaction_is_queued_like_a_prompt() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("answer"));
    server.push(Script::anthropic_text("the summary"));
    let (c, mut stream) = Controller::new(agent(&env, &server, "anthropic", None), None);
    // Compacting an empty conversation fails with an error event.
    let empty = c.compact(None, None);
    c.prompt(text("q"), None);
    let job = c.compact(Some("keep names".into()), Some("K".into()));
    let evs = until_finished(&mut stream, 3).await;
    assert!(matches!(empty.outcome().await, JobOutcome::Compact(Err(_))));
    assert_eq!(
        job.outcome().await,
        JobOutcome::Compact(Ok("the summary".into()))
    );
    let n = names(&evs);
    let k = n.iter().position(|s| s == "started:K").unwrap();
    assert!(n[k..].contains(&"compact_done".to_string()));
    assert_eq!(n[k..].iter().filter(|s| *s == "done").count(), 0);
    assert!(evs.iter().any(|e| matches!(
        e,
        ControllerEvent::JobStarted {
            kind: JobKind::Compact,
            ..
        }
    )));
    c.shutdown().await;
}

#[tokio::test]
async fn extension_commands_panels_and_ui_frames_reach_the_stream() {
    let env = TestEnv::new();
    let dir = zut_test_support::python_extension(
        &env.project.join("paneler-src"),
        "paneler",
        r#"
import json, sys
def send(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
send({"type":"hello","name":"paneler","version":"1","protocol_version":2})
for line in sys.stdin:
    m = json.loads(line)
    t = m.get("type")
    if t == "hello_ack":
        send({"type":"register_command","name":"pick","description":"d"})
        send({"type":"register_command","name":"ask","description":"d"})
        send({"type":"register_command","name":"show","description":"d"})
        send({"type":"ready"})
    elif t == "command_invoked":
        n = m["name"]
        if n == "pick":
            send({"type":"command_response","id":m["id"],"action":"open_panel","open_panel":{"id":"p1","title":"Pick","lines":["a","b"]}})
        elif n == "ask":
            send({"type":"command_response","id":m["id"],"action":"prompt","prompt":"asked " + m.get("args","")})
        else:
            send({"type":"command_response","id":m["id"],"action":"display","display":"shown"})
    elif t == "panel_key":
        send({"type":"panel_render","panel_id":m["panel_id"],"lines":["key " + m["key"] + " " + m.get("text","")]})
    elif t == "panel_close":
        send({"type":"notify","level":"info","message":"closed " + m["panel_id"]})
    elif t == "shutdown":
        break
"#,
    );
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("fine"));
    let (host, ui) = start_host(&env, &[dir]).await;
    let (c, mut stream) = Controller::new(
        agent(&env, &server, "anthropic", Some(host.clone())),
        Some(ui),
    );
    match c.command("pick", "", None).await.unwrap() {
        CommandOutcome::OpenPanel { extension, panel } => {
            assert_eq!(extension, "paneler");
            assert_eq!(panel.id, "p1");
        }
        other => panic!("{other:?}"),
    }
    c.panel_key("paneler", "p1", "rune", "y");
    c.panel_key("paneler", "p1", "enter", "");
    c.panel_close("paneler", "p1");
    let mut seen = Vec::new();
    while seen.len() < 4 {
        match stream.next().await.unwrap() {
            ControllerEvent::Ui(u) => seen.push(u.kind),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(matches!(&seen[0], UiKind::OpenPanel(p) if p.id == "p1"));
    assert!(matches!(&seen[1], UiKind::PanelRender { lines, .. } if lines == &["key rune y"]));
    assert!(matches!(&seen[2], UiKind::PanelRender { lines, .. } if lines == &["key enter "]));
    assert!(matches!(&seen[3], UiKind::Notify { message, .. } if message == "closed p1"));
    match c.command("/show", "", None).await.unwrap() {
        CommandOutcome::Display { text, .. } => assert_eq!(text, "shown"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        stream.next().await.unwrap(),
        ControllerEvent::Agent(AgentEvent::ExtDisplay {
            extension: "paneler".into(),
            text: "shown".into()
        })
    );
    let CommandOutcome::Queued(job) = c.command("ask", "me", Some("T".into())).await.unwrap()
    else {
        panic!("prompt action queues a job")
    };
    until_finished(&mut stream, 1).await;
    assert!(matches!(
        job.outcome().await,
        JobOutcome::Prompt(PromptOutcome::Completed { .. })
    ));
    let req = server.requests().pop().unwrap();
    assert!(req.raw_body.contains("asked me"));
    let e = c.command("nope", "", None).await.unwrap_err();
    assert!(
        e.contains("unknown command /nope") && e.contains("/pick"),
        "{e}"
    );
    // Reload: the extension is restarted and answers again.
    let CommandOutcome::Queued(job) = c.command("reload-ext", "", None).await.unwrap() else {
        panic!()
    };
    match job.outcome().await {
        JobOutcome::Reload(r) => {
            assert_eq!((r.stopped, r.loaded), (1, 1));
            assert!(r.errors.is_empty());
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        c.command("show", "", None).await.unwrap(),
        CommandOutcome::Display { .. }
    ));
    c.shutdown().await;
    host.shutdown().await;
}

/// A client that asks for the messages (or the state) the moment it sees
/// `done` gets the finished turn (RPC clients of the Go original do this).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn done_comes_after_the_messages_and_state_are_updated() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let (c, mut stream) = Controller::new(agent(&env, &server, "anthropic", None), None);
    for i in 1..=20usize {
        server.push(Script::anthropic_text("answer"));
        c.prompt(text("q"), None);
        loop {
            let ev = tokio::time::timeout(Duration::from_secs(10), stream.next())
                .await
                .expect("stream stalled")
                .expect("stream ended");
            if matches!(ev, ControllerEvent::Agent(AgentEvent::Done)) {
                break;
            }
        }
        // Checked at once, before anything else of the stream.
        assert_eq!(c.messages().len(), 2 * i, "prompt {i}");
        let st = c.state();
        assert_eq!(st.message_count, 2 * i, "prompt {i}");
        assert!(!st.busy, "prompt {i}");
        until_finished(&mut stream, 1).await;
    }
    c.shutdown().await;
}

/// `/btw` is offered by a front end: the kit is taken once it is, and the
/// answer comes from the conversation as of the last job boundary without
/// being added to it. A controller nobody offers it on never takes one
/// (print mode's turns do not pay for it), so its first question is told
/// to ask again, and the next one is answered.
#[tokio::test]
async fn side_questions_are_answered_once_a_front_end_offers_them() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("the word is pear"));
    let (c, mut stream) = Controller::new(agent(&env, &server, "anthropic", None), None);
    c.prompt(text("remember pear"), None);
    until_finished(&mut stream, 1).await;
    c.wait_idle().await;
    let first = c.side_question("which word?".into()).await;
    assert_eq!(
        first.err().as_deref(),
        Some("the conversation is still starting; ask again")
    );
    // Asking offered them: the idle worker takes the kit at once.
    server.push(Script::anthropic_text("pear"));
    let mut answer = None;
    for _ in 0..100 {
        match c.side_question("which word?".into()).await {
            Ok(a) => {
                answer = Some(a);
                break;
            }
            Err(e) if e.contains("ask again") => {
                tokio::time::sleep(Duration::from_millis(20)).await
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(answer.expect("the kit was never taken").text, "pear");
    let asked = server.requests().pop().unwrap();
    let msgs = asked.body["messages"].as_array().unwrap();
    assert!(
        msgs.len() >= 3,
        "the side question saw the conversation: {msgs:?}"
    );
    assert_eq!(c.state().message_count, 2, "nothing was added");

    // A front end that offers them before asking gets its answer.
    server.push(Script::anthropic_text("apple"));
    let (c2, _stream2) = Controller::new(agent(&env, &server, "anthropic", None), None);
    c2.offer_side_questions();
    let mut got = None;
    for _ in 0..100 {
        match c2.side_question("a fruit?".into()).await {
            Ok(a) => {
                got = Some(a);
                break;
            }
            Err(e) if e.contains("ask again") => {
                tokio::time::sleep(Duration::from_millis(20)).await
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(got.expect("no kit").text, "apple");
}
