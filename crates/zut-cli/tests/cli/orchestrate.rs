//! `--orchestrate` end to end: `zut --json --orchestrate` against the
//! scripted local LLM server. The parent offers only read-only tools and
//! `subagent`, a child does the writing, the parent's reply ends while the
//! child still works, and zut hands the parent the completion notes as a
//! visible user message (a completion wave) before the synthesis.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};

/// In a request body: the parent offers the `subagent` tool, children never do.
const PARENT: &str = r#""name":"subagent""#;
/// A request carrying a tool result.
const RESULT: &str = r#""type":"tool_result""#;
/// The completion notes of a wave (their first line; the tool's
/// description names the marker too, so matching uses the newline).
const WAVE: &str = "[auto-subagents update]\\n";
const REFUSED: &str = "not available while orchestrating";

fn offered(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The parent's events (children's carry `subagent_id`).
fn events(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v.get("subagent_id").is_none())
        .collect()
}

#[tokio::test]
async fn the_parent_delegates_waits_for_the_child_and_writes_the_synthesis() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    // The parent: spawn, end its reply, then (in the wave) try to run a
    // command itself (refused), then the synthesis.
    server.push(Script::anthropic_text("ALL DONE: CHILD-A wrote a.txt").when(REFUSED));
    server.push(
        Script::anthropic_tool_call("p3", "bash", json!({"command": "echo hi"}).to_string())
            .when(WAVE)
            .unless(REFUSED),
    );
    server.push(
        Script::anthropic_text("waiting for CHILD-A")
            .when(PARENT)
            .when(RESULT)
            .unless(WAVE),
    );
    server.push(
        Script::anthropic_tool_call(
            "p1",
            "subagent",
            json!({"action": "spawn", "task": "CHILD-A: write a.txt"}).to_string(),
        )
        .when(PARENT)
        .unless(RESULT),
    );
    // The child: write the file, then report (late, so that the parent's
    // reply has ended and zut has to wait for it).
    server.push(
        Script::anthropic_tool_call(
            "c1",
            "write",
            json!({"path": "a.txt", "content": "from the child\n"}).to_string(),
        )
        .when("CHILD-A")
        .unless(PARENT)
        .unless(RESULT),
    );
    server.push(
        Script::anthropic_text("child wrote a.txt")
            .when("CHILD-A")
            .unless(PARENT)
            .when(RESULT)
            .delay_ms(1500),
    );

    let cmd = llm_cmd(
        &env,
        &server.url(),
        &["--json", "--orchestrate", "split the work"],
    );
    let r = output_blocking(cmd).await;
    assert_eq!(r.code, 0, "{r:?}");
    let written = std::fs::read_to_string(env.project.join("a.txt"));
    assert_eq!(written.ok().as_deref(), Some("from the child\n"), "{r:?}");

    // The parent offered only reading tools and `subagent`; the child the rest.
    let requests = server.requests();
    let (parents, children): (Vec<_>, Vec<_>) =
        requests.iter().partition(|r| r.raw_body.contains(PARENT));
    assert_eq!(
        parents.len(),
        4,
        "{:?}",
        parents.iter().map(|r| &r.raw_body).collect::<Vec<_>>()
    );
    assert_eq!(children.len(), 2);
    for p in &parents {
        let tools = offered(&p.body);
        for t in &tools {
            assert!(
                zut_agent::subagent::orchestrate::PARENT_TOOLS.contains(&t.as_str()),
                "the parent was offered {t}: {tools:?}"
            );
        }
        assert!(tools.iter().any(|t| t == "read"), "{tools:?}");
        assert!(p.raw_body.contains("You are orchestrating this task"));
    }
    let child_tools = offered(&children[0].body);
    for t in ["write", "edit", "bash", "read"] {
        assert!(child_tools.iter().any(|c| c == t), "{t}: {child_tools:?}");
    }
    assert!(!children[0]
        .raw_body
        .contains("You are orchestrating this task"));

    // The wave: a visible user message with the child's completion, after
    // the parent's first reply ended; the refused command; the synthesis.
    let ev = events(&r.stdout);
    let users: Vec<&Value> = ev.iter().filter(|e| e["type"] == "user_message").collect();
    assert_eq!(users.len(), 2, "{ev:?}");
    let wave = users[1].to_string();
    assert!(wave.contains("[auto-subagents update]"), "{wave}");
    assert!(wave.contains("completed"), "{wave}");
    assert!(wave.contains("child wrote a.txt"), "{wave}");
    let texts: Vec<String> = ev
        .iter()
        .filter(|e| e["type"] == "assistant_message")
        .map(Value::to_string)
        .collect();
    assert!(
        texts.iter().any(|t| t.contains("waiting for CHILD-A")),
        "{texts:?}"
    );
    let refused = ev
        .iter()
        .find(|e| e["type"] == "tool_result" && e["id"] == "p3")
        .unwrap();
    assert_eq!(refused["is_error"], true, "{refused}");
    assert!(refused.to_string().contains(REFUSED), "{refused}");
    assert!(ev
        .iter()
        .any(|e| e["type"] == "assistant_message" && e.to_string().contains("ALL DONE")));

    // The session file keeps the wave as a user row.
    let dir = zut_session::sessions_dir(&env.home, &env.project.display().to_string());
    let files = zut_session::list_files(&dir);
    assert_eq!(files.len(), 1);
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(text.contains("auto-subagents update"), "{text}");
}

#[tokio::test]
async fn orchestrate_is_refused_outside_the_headless_modes_and_without_tools() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let r = output_blocking(llm_cmd(&env, &server.url(), &["--rpc", "--orchestrate"])).await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr
            .contains("--orchestrate is for -p, --stream and --json runs"),
        "{}",
        r.stderr
    );
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &["-p", "--orchestrate", "--no-tools", "hi"],
    ))
    .await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("--orchestrate needs tools"),
        "{}",
        r.stderr
    );
    assert!(server.requests().is_empty());
}
