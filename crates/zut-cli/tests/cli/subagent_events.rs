//! Children seen from the parent's front ends (docs/subagents.md): their
//! token use and cost roll up into the parent's `usage` totals, `--stats`
//! and RPC `get_state`, their progress is forwarded tagged with
//! `subagent_id` (`--json`; RPC only with the `subagents` capability), and
//! their own figures are in the tool's results. The real `zut` binary
//! against the scripted local LLM server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::rpc_support;

use common::*;
use rpc_support::Rpc;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script, Usage};

/// In a request body: the parent offers the `subagent` tool, children never do.
const PARENT: &str = r#""name":"subagent""#;

fn usage(input: u64, output: u64) -> Usage {
    Usage {
        input,
        output,
        cache_read: 0,
        cache_write: 0,
        reasoning: None,
    }
}

/// $3 / $15 per million input / output tokens for `test-model`.
fn priced_models(env: &TestEnv) {
    let body = json!({"providers": {"anthropic": {"models": [{"id": "test-model",
        "priceInput": 3, "priceOutput": 15, "priceCacheRead": 0.3, "priceCacheWrite": 3.75}]}}});
    std::fs::write(env.home.join("models.json"), body.to_string()).unwrap();
}

fn cost(input: u64, output: u64) -> f64 {
    (input as f64 * 3.0 + output as f64 * 15.0) / 1e6
}

fn close(a: &Value, b: f64) -> bool {
    a.as_f64().is_some_and(|a| (a - b).abs() < 1e-9)
}

/// The parent spawns one child and waits; the child reads a file, then
/// answers; the parent answers. Parent calls: 100/10 and 200/20 tokens;
/// child calls: 1000/50 and 2000/60.
fn script(server: &LlmServer) {
    server.push(
        Script::anthropic_tool_call(
            "p1",
            "subagent",
            json!({"action": "spawn", "task": "CHILD-A: read notes.txt", "wait": 60}).to_string(),
        )
        .usage(usage(100, 10))
        .when(PARENT),
    );
    server.push(
        Script::anthropic_text("parent done")
            .usage(usage(200, 20))
            .when(PARENT),
    );
    server.push(
        Script::anthropic_tool_call("k1", "read", json!({"path": "notes.txt"}).to_string())
            .usage(usage(1000, 50))
            .unless(PARENT)
            .when("CHILD-A"),
    );
    server.push(
        Script::anthropic_text("child finished")
            .usage(usage(2000, 60))
            .unless(PARENT)
            .when("CHILD-A"),
    );
}

fn lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

#[tokio::test]
async fn json_tags_child_events_and_the_totals_include_the_childs_usage() {
    let env = TestEnv::new();
    priced_models(&env);
    std::fs::write(env.project.join("notes.txt"), "the notes\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    script(&server);
    let stats = env.project.join("stats.json");
    let mut c = llm_cmd(
        &env,
        &server.url(),
        &[
            "--tools",
            "read,subagent",
            "--json",
            "--stats",
            stats.to_str().unwrap(),
            "delegate",
        ],
    );
    c.env_remove("ZUT_AGENT_PROFILES");
    let r = output_blocking(c).await;
    assert_eq!(r.code, 0, "{r:?}");
    let events = lines(&r.stdout);

    // The child's progress, tagged with its id.
    let tagged: Vec<&Value> = events
        .iter()
        .filter(|e| e.get("subagent_id").is_some())
        .collect();
    let id = tagged[0]["subagent_id"].as_str().unwrap().to_string();
    assert!(id.starts_with("sa-1-"), "{id}");
    assert!(tagged.iter().all(|e| e["subagent_id"] == id.as_str()));
    let types: Vec<&str> = tagged.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types[0], "subagent_start", "{types:?}");
    assert_eq!(tagged[0]["task"], "CHILD-A: read notes.txt");
    assert_eq!(tagged[0]["model"], "test-model");
    for t in [
        "user_message",
        "turn_start",
        "tool_call",
        "tool_execution_started",
        "tool_result",
        "text_delta",
        "assistant_message",
        "usage",
        "turn_end",
        "subagent_end",
    ] {
        assert!(types.contains(&t), "{t} missing in {types:?}");
    }
    assert!(!types.contains(&"done"), "a child's done is not forwarded");
    assert_eq!(types.last(), Some(&"subagent_end"), "{types:?}");
    let started = tagged
        .iter()
        .find(|e| e["type"] == "tool_execution_started")
        .unwrap();
    assert_eq!(started["name"], "read");
    let end = tagged.last().unwrap();
    assert_eq!(end["state"], "completed", "{end}");
    assert_eq!(end["final_text"], "child finished", "{end}");
    assert_eq!(end["turns"], 1);
    assert_eq!(end["usage"]["input"], 3000, "{end}");
    assert_eq!(end["usage"]["output"], 110, "{end}");
    assert!(close(&end["usage"]["cost_usd"], cost(3000, 110)), "{end}");
    assert!(end["transcript"]
        .as_str()
        .unwrap()
        .ends_with(&format!("subagents/{id}/transcript.jsonl")));

    // One `done`: the parent's, last.
    let dones: Vec<&Value> = events.iter().filter(|e| e["type"] == "done").collect();
    assert_eq!(dones.len(), 1);
    assert!(dones[0].get("subagent_id").is_none());
    assert_eq!(events.last().unwrap()["type"], "done");

    // The parent's running total includes the child's calls.
    let parent_usage: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "usage" && e.get("subagent_id").is_none())
        .collect();
    assert_eq!(parent_usage.len(), 2);
    let last = parent_usage[1];
    assert_eq!(last["input"], 200, "this call alone: {last}");
    assert_eq!(last["cumulative"]["input"], 3300, "{last}");
    assert_eq!(last["cumulative"]["output"], 140, "{last}");
    assert!(
        close(&last["cumulative"]["cost_usd"], cost(3300, 140)),
        "{last}"
    );
    assert_eq!(last["cumulative"]["cost_known"], true);

    // --stats: parent and child together.
    let s: Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(s["input_tokens"], 3300, "{s}");
    assert_eq!(s["output_tokens"], 140, "{s}");
    assert!(close(&s["cost_usd"], cost(3300, 140)), "{s}");

    // The spawn's result gives the child's own figures.
    let tool_result = events
        .iter()
        .find(|e| e["type"] == "tool_result" && e.get("subagent_id").is_none() && e["id"] == "p1")
        .unwrap();
    let text = tool_result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("usage: 3000 in, 110 out, $0.01"), "{text}");
}

#[tokio::test]
async fn print_mode_says_on_stderr_when_a_child_ends() {
    let env = TestEnv::new();
    std::fs::write(env.project.join("notes.txt"), "the notes\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    script(&server);
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &["--tools", "read,subagent", "-p", "delegate"],
    ))
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout.trim(), "parent done", "{r:?}");
    assert!(r.stderr.contains("zut: subagent sa-1-"), "{r:?}");
    assert!(r.stderr.contains(": completed"), "{r:?}");
}

fn run_rpc(env: &TestEnv, server: &LlmServer, caps: Value) -> (Value, Vec<Value>, Value) {
    let mut rpc = Rpc::start(env, server, &["--tools", "read,subagent"], &[]);
    let hello = rpc.request(json!({"id": "h", "type": "hello", "capabilities": caps}));
    rpc.send(json!({"id": "1", "type": "prompt", "message": "delegate"}));
    let events = rpc.until(|v| v["type"] == "done" && v.get("subagent_id").is_none());
    let state = rpc.request(json!({"id": "s", "type": "get_state"}));
    let (code, _, stderr) = rpc.finish();
    assert_eq!(code, 0, "{stderr}");
    (hello, events, state)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rpc_forwards_child_events_only_to_clients_that_ask() {
    let env = TestEnv::new();
    priced_models(&env);
    std::fs::write(env.project.join("notes.txt"), "the notes\n").unwrap();
    let server = LlmServer::start().await.unwrap();

    // A client that does not ask sees the Go protocol: no child events.
    script(&server);
    let (hello, events, state) = run_rpc(&env, &server, json!(["commands"]));
    assert_eq!(hello["data"]["capabilities"], json!(["commands"]));
    assert!(
        events.iter().all(|e| e.get("subagent_id").is_none()),
        "{events:?}"
    );
    // Its figures still include the child's.
    let usage = &state["data"]["usage"];
    assert_eq!(usage["input"], 3300, "{state}");
    let last = events.iter().rfind(|e| e["type"] == "usage").unwrap();
    assert_eq!(last["cumulative"]["input"], 3300, "{last}");

    // One that asks gets them, tagged.
    script(&server);
    let (hello, events, state) = run_rpc(&env, &server, json!(["subagents"]));
    assert_eq!(hello["data"]["capabilities"], json!(["subagents"]));
    let tagged: Vec<&Value> = events
        .iter()
        .filter(|e| e.get("subagent_id").is_some())
        .collect();
    assert!(
        tagged
            .iter()
            .any(|e| e["type"] == "tool_execution_started" && e["name"] == "read"),
        "{tagged:?}"
    );
    let end = tagged.iter().find(|e| e["type"] == "subagent_end").unwrap();
    assert_eq!(end["state"], "completed");
    assert_eq!(end["final_text"], "child finished");
    assert!(
        close(&state["data"]["usage"]["cost_usd"], cost(3300, 140)),
        "{state}"
    );
}
