//! The `plan` tool (issue 24, tools.md §7) through real `zut --json -p`
//! turns against the scripted local LLM server: `plan_update` events before
//! the call's `tool_result`, the Go result texts, the `meta.plan` rows in
//! the session file, resume (`-c`, `--session` of a Go-written file), forks,
//! the `update_plan` alias and bad input.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::{json, Value};
use zut_llm_server::{Block, Format, LlmServer, Script};

fn sessions_dir(env: &TestEnv) -> PathBuf {
    zut_session::sessions_dir(&env.home, &env.project.display().to_string())
}

fn rows(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// One step per element of `steps`: the model calls those tools (one
/// message each), then answers "done". Returns every JSON event.
async fn run(env: &TestEnv, steps: &[Vec<(&str, Value)>], extra: &[&str]) -> (Vec<Value>, Run) {
    let server = LlmServer::start().await.unwrap();
    let mut n = 0;
    for calls in steps {
        let blocks = calls
            .iter()
            .map(|(name, args)| {
                n += 1;
                Block::tool_call(format!("t{n}"), *name, args.to_string())
            })
            .collect();
        server.push(Script::reply(Format::Anthropic, blocks));
    }
    server.push(Script::anthropic_text("done"));
    let mut args = vec!["--no-ext", "--json"];
    args.extend_from_slice(extra);
    args.push("go");
    let r = output_blocking(llm_cmd(env, &server.url(), &args)).await;
    assert_eq!(r.code, 0, "{r:?}");
    let events = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect();
    (events, r)
}

fn of_type<'a>(events: &'a [Value], t: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == t).collect()
}

fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn plan_rows(path: &Path) -> Vec<Value> {
    rows(path)
        .into_iter()
        .filter(|r| r["type"] == "meta" && r["meta"].get("plan").is_some())
        .map(|r| r["meta"]["plan"].clone())
        .collect()
}

#[tokio::test]
async fn plan_updates_emit_events_persist_and_resume() {
    let env = TestEnv::new();
    let (events, _) = run(
        &env,
        &[
            vec![(
                "plan",
                json!({"action":"set","explanation":"first cut","steps":[{"step":"read the code"},{"step":"fix the bug","status":"in_progress"},{"step":"test"}]}),
            )],
            vec![
                ("plan", json!({"action":"update","index":1,"status":"completed"})),
                ("plan", json!({"action":"add","steps":[{"step":"write docs"}]})),
                ("plan", json!({"action":"remove","index":4})),
                ("plan", json!({"action":"show"})),
            ],
        ],
        &[],
    )
    .await;
    let results = of_type(&events, "tool_result");
    let texts: Vec<String> = results.iter().map(|r| text(r)).collect();
    assert_eq!(
        texts,
        [
            "Plan updated (0/3 completed; in progress: step 2)",
            "Plan updated (1/3 completed; in progress: step 2)",
            "Plan updated (1/4 completed; in progress: step 2)",
            "Plan updated (1/3 completed; in progress: step 2)",
            "1. [x] read the code\n2. [~] fix the bug\n3. [ ] test",
        ]
    );
    assert!(results.iter().all(|r| r["is_error"] == false));
    // One plan_update per mutation (show emits none), each right before
    // its call's tool_result, with the Go field names.
    let updates = of_type(&events, "plan_update");
    assert_eq!(updates.len(), 4);
    assert_eq!(updates[0]["call_id"], "t1");
    assert_eq!(updates[0]["explanation"], "first cut");
    assert_eq!(updates[1]["explanation"], Value::Null);
    assert_eq!(
        updates[0]["plan"],
        json!([{"step":"read the code","status":"pending"},{"step":"fix the bug","status":"in_progress"},{"step":"test","status":"pending"}])
    );
    for u in &updates {
        let i = events.iter().position(|e| e == *u).unwrap();
        assert_eq!(events[i + 1]["type"], "tool_result");
        assert_eq!(events[i + 1]["id"], u["call_id"]);
    }

    // The session file: a meta row with the plan after each mutation.
    let files = zut_session::list_files(&sessions_dir(&env));
    assert_eq!(files.len(), 1);
    let plans = plan_rows(&files[0]);
    assert_eq!(plans.len(), 4);
    assert_eq!(plans[3]["steps"], updates[3]["plan"]);
    assert!(plans[3]["updated"].as_str().unwrap().ends_with('Z'));

    // A new process continuing the session starts with that plan.
    let (events, _) = run(&env, &[vec![("plan", json!({"action":"show"}))]], &["-c"]).await;
    let results = of_type(&events, "tool_result");
    assert_eq!(
        text(results[0]),
        "1. [x] read the code\n2. [~] fix the bug\n3. [ ] test"
    );
}

#[tokio::test]
async fn bad_plan_calls_get_clear_errors_and_change_nothing() {
    let env = TestEnv::new();
    let many: Vec<Value> = (0..10_000)
        .map(|i| json!({ "step": format!("step {i}") }))
        .collect();
    let (events, _) = run(
        &env,
        &[vec![
            ("plan", json!({"action":"set","steps":[{"step":"only"}]})),
            (
                "plan",
                json!({"action":"update","index":7,"status":"completed"}),
            ),
            ("plan", json!({"action":"set","steps":[]})),
            ("plan", json!({"action":"set","steps":many})),
            (
                "plan",
                json!({"action":"add","steps":[{"step":"x".repeat(1_001)}]}),
            ),
            ("plan", json!({"action":"update","index":1})),
            ("plan", json!({"action":"show"})),
        ]],
        &[],
    )
    .await;
    let results = of_type(&events, "tool_result");
    let errors: Vec<(bool, String)> = results
        .iter()
        .map(|r| (r["is_error"].as_bool().unwrap(), text(r)))
        .collect();
    assert_eq!(errors[0], (false, "Plan updated (0/1 completed)".into()));
    assert_eq!(
        errors[1],
        (true, "plan: index 7 out of range (plan has 1 steps)".into())
    );
    assert_eq!(
        errors[2],
        (
            true,
            "plan: steps are required for set (use clear to remove every step)".into()
        )
    );
    assert!(
        errors[3].0 && errors[3].1.contains("at most 200 steps"),
        "{:?}",
        errors[3]
    );
    assert!(errors[3].1.contains("10000"));
    assert!(
        errors[4].0 && errors[4].1.contains("at most 1000"),
        "{:?}",
        errors[4]
    );
    assert_eq!(
        errors[5],
        (true, "plan: update requires status or step".into())
    );
    assert_eq!(errors[6], (false, "1. [ ] only".into()));
    assert_eq!(of_type(&events, "plan_update").len(), 1);
    let files = zut_session::list_files(&sessions_dir(&env));
    assert_eq!(plan_rows(&files[0]).len(), 1);
}

#[tokio::test]
async fn update_plan_is_an_alias_and_works_without_a_session() {
    let env = TestEnv::new();
    let (events, _) = run(
        &env,
        &[vec![
            (
                "update_plan",
                json!({"explanation":"old name","plan":[{"step":"a","status":"completed"},{"step":"b","status":"in_progress"}]}),
            ),
            ("plan", json!({"action":"clear"})),
        ]],
        &["--no-session"],
    )
    .await;
    let results = of_type(&events, "tool_result");
    assert_eq!(
        text(results[0]),
        "Plan updated (1/2 completed; in progress: step 2)"
    );
    assert_eq!(text(results[1]), "Plan cleared");
    let updates = of_type(&events, "plan_update");
    assert_eq!(updates.len(), 2);
    assert_eq!(updates[1]["plan"], json!([]));
    assert!(zut_session::list_files(&sessions_dir(&env)).is_empty());
}

const GO_ID: &str = "9a9a0000-1111-4222-8333-444444444444";

/// A session file as the Go original writes it: a meta row carrying a
/// plan (and a goal) after the first exchange.
fn go_session_with_plan(env: &TestEnv) -> PathBuf {
    let dir = sessions_dir(env);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("20261201-070000-9a9a0000.jsonl");
    let cwd = env.project.display().to_string();
    let rows = [
        format!(r#"{{"type":"meta","meta":{{"id":"{GO_ID}","cwd":"{cwd}","model":"m","provider":"anthropic","started":"2026-12-01T07:00:00Z","version":"0.12.0"}}}}"#),
        r#"{"type":"message","message":{"role":"user","content":[{"text":"plan it"}],"time":"2026-12-01T07:00:01Z"}}"#.to_string(),
        r#"{"type":"message","message":{"role":"assistant","content":[{"id":"c1","name":"plan","arguments":{"action":"set","steps":[{"step":"one"},{"step":"two"}]}}],"time":"2026-12-01T07:00:02Z"}}"#.to_string(),
        format!(r#"{{"type":"meta","meta":{{"id":"{GO_ID}","cwd":"{cwd}","model":"m","provider":"anthropic","started":"2026-12-01T07:00:00Z","version":"0.12.0","plan":{{"steps":[{{"step":"one","status":"completed"}},{{"step":"two","status":"in_progress"}}],"updated":"2026-12-01T07:00:03Z"}}}}}}"#),
        r#"{"type":"message","message":{"role":"tool","content":[{"call_id":"c1","content":[{"text":"Plan updated (0/2 completed)"}],"is_error":false}],"time":"2026-12-01T07:00:03Z"}}"#.to_string(),
        r#"{"type":"message","message":{"role":"assistant","content":[{"text":"Planned."}],"time":"2026-12-01T07:00:04Z"}}"#.to_string(),
    ];
    std::fs::write(&path, rows.join("\n") + "\n").unwrap();
    path
}

#[tokio::test]
async fn a_go_written_plan_resumes_and_is_written_back_go_readable() {
    let env = TestEnv::new();
    let path = go_session_with_plan(&env);
    let (events, _) = run(
        &env,
        &[vec![
            ("plan", json!({"action":"show"})),
            (
                "plan",
                json!({"action":"update","index":2,"status":"completed"}),
            ),
        ]],
        &["--session", path.to_str().unwrap()],
    )
    .await;
    let results = of_type(&events, "tool_result");
    assert_eq!(text(results[0]), "1. [x] one\n2. [~] two");
    assert_eq!(text(results[1]), "Plan updated (2/2 completed)");
    // Written back as the Go reader expects: the last meta row holds the
    // same id and the plan in the Go `SessionPlan` shape.
    let all = rows(&path);
    let last_meta = all.iter().rev().find(|r| r["type"] == "meta").unwrap();
    assert_eq!(last_meta["meta"]["id"], GO_ID);
    assert_eq!(
        last_meta["meta"]["plan"]["steps"],
        json!([{"step":"one","status":"completed"},{"step":"two","status":"completed"}])
    );
    assert!(last_meta["meta"]["plan"]["updated"].is_string());
    assert!(zut_session::read(&path).is_ok());

    // A fork of the whole conversation inherits the plan.
    let r = zut(&env, &["session", "fork", GO_ID]);
    assert_eq!(r.code, 0, "{r:?}");
    let forked = PathBuf::from(r.stdout.trim());
    let (events, _) = run(
        &env,
        &[vec![("plan", json!({"action":"show"}))]],
        &["--session", forked.to_str().unwrap()],
    )
    .await;
    assert_eq!(
        text(of_type(&events, "tool_result")[0]),
        "1. [x] one\n2. [x] two"
    );
}

#[tokio::test]
async fn plan_is_advertised_with_the_go_schema() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("ok"));
    let r = output_blocking(llm_cmd(&env, &server.url(), &["--no-ext", "-p", "hi"])).await;
    assert_eq!(r.code, 0, "{r:?}");
    let body: Value = serde_json::from_str(&server.requests()[0].raw_body).unwrap();
    let plan = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "plan")
        .expect("plan advertised")
        .clone();
    let schema = &plan["input_schema"];
    assert_eq!(
        schema["properties"]["action"]["enum"],
        json!(["set", "add", "update", "remove", "clear", "show"])
    );
    assert_eq!(schema["required"], json!(["action"]));
    assert_eq!(schema["additionalProperties"], false);
    assert!(body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["name"] != "update_plan"));
}
