//! Goals (issue 24 item 2): `/goal` and `update_goal` through real
//! `zut -p` runs against the scripted LLM server — continuation turns
//! until `update_goal complete`, the Go meta rows (`mission`, `goal`,
//! `goal_history`, `zut_goal_continue` messages), budgets, Go-written
//! session files with goals.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

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

fn events(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect()
}

fn call(id: &str, name: &str, args: Value) -> Script {
    Script::reply(
        Format::Anthropic,
        vec![Block::tool_call(id.to_string(), name, args.to_string())],
    )
}

#[tokio::test]
async fn goal_continues_until_update_goal_complete() {
    let env = TestEnv::new();
    std::fs::write(env.project.join("a.txt"), "alpha\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    // The objective's own turn ends with text only: the goal is still
    // active, so zut continues.
    server.push(Script::anthropic_text("Starting."));
    // Continuation 1: a real action, then text.
    server.push(call("c1", "read", json!({"path":"a.txt"})));
    server.push(Script::anthropic_text("Read the file."));
    // Continuation 2: the model marks the goal complete.
    server.push(call("c2", "update_goal", json!({"status":"complete"})));
    server.push(Script::anthropic_text("Goal complete."));
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &["--no-ext", "--json", "/goal read a.txt and report"],
    ))
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    let evs = events(&r.stdout);
    // Two visible continuation turns, each a user_message.
    let continuations: Vec<&Value> = evs
        .iter()
        .filter(|e| e["type"] == "user_message")
        .filter(|e| {
            e["content"][0]["text"]
                .as_str()
                .unwrap_or("")
                .starts_with("[goal continuation]")
        })
        .collect();
    assert_eq!(continuations.len(), 2, "{}", r.stdout);
    let goal_updates: Vec<&Value> = evs.iter().filter(|e| e["type"] == "goal_update").collect();
    assert_eq!(goal_updates.first().unwrap()["status"], "active");
    assert_eq!(goal_updates.first().unwrap()["owner"], "user");
    assert_eq!(goal_updates.first().unwrap()["token_budget"], 400_000);
    let last = goal_updates.last().unwrap();
    assert_eq!(last["status"], "done");
    assert_eq!(last["continuations"], 2);
    assert!(last["tokens_used"].as_u64().unwrap() > 0, "{last}");
    let results: Vec<&Value> = evs.iter().filter(|e| e["type"] == "tool_result").collect();
    assert_eq!(
        results.last().unwrap()["content"][0]["text"],
        "autonomous goal marked done"
    );
    // Five model calls: the prompt, 2 + 2 in the continuations; no more.
    assert_eq!(server.requests().len(), 5);
    // The session file: Go's meta rows and the hidden-continuation meta.
    let files = zut_session::list_files(&sessions_dir(&env));
    let all = rows(&files[0]);
    let last_meta = all.iter().rev().find(|r| r["type"] == "meta").unwrap();
    assert_eq!(last_meta["meta"]["goal"]["status"], "done");
    assert_eq!(
        last_meta["meta"]["goal"]["objective"],
        "read a.txt and report"
    );
    assert_eq!(last_meta["meta"]["mission"]["status"], "completed");
    assert!(!last_meta["meta"]["goal_history"]
        .as_array()
        .unwrap()
        .is_empty());
    let marked = all
        .iter()
        .filter(|r| r["type"] == "message" && r["message"]["meta"]["zut_goal_continue"] == "true")
        .count();
    assert_eq!(marked, 2);

    // Print mode says so on stderr; /goal shows the status.
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &["--no-ext", "-c", "-p", "/goal"],
    ))
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stdout
            .starts_with("goal done (user): read a.txt and report ("),
        "{}",
        r.stdout
    );
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &["--no-ext", "-c", "-p", "/goal history"],
    ))
    .await;
    assert!(r.stdout.starts_with("goal history: active (user)"), "{r:?}");
}

const GO_ID: &str = "7b7b0000-1111-4222-8333-444444444444";

fn go_session_with_goal(env: &TestEnv, goal: Value) -> PathBuf {
    let dir = sessions_dir(env);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("20261201-080000-7b7b0000.jsonl");
    let cwd = env.project.display().to_string();
    let meta = json!({"type":"meta","meta":{"id":GO_ID,"cwd":cwd,"model":"m","provider":"anthropic","started":"2026-12-01T08:00:00Z","version":"0.12.0",
        "mission":{"id":"m-1","objective":goal["objective"],"status":"active","source":"user","active_goal_id":"g-1"},
        "goal":goal}});
    let rows = [
        meta.to_string(),
        r#"{"type":"message","message":{"role":"user","content":[{"text":"start"}],"time":"2026-12-01T08:00:01Z"}}"#.to_string(),
        r#"{"type":"message","message":{"role":"assistant","content":[{"text":"On it."}],"time":"2026-12-01T08:00:02Z"}}"#.to_string(),
    ];
    std::fs::write(&path, rows.join("\n") + "\n").unwrap();
    path
}

#[tokio::test]
async fn a_spent_budget_refuses_and_an_exhausted_one_stops_with_a_clear_line() {
    let env = TestEnv::new();
    // A Go-written goal whose budget is already spent: resume refuses.
    let path = go_session_with_goal(
        &env,
        json!({"id":"g-1","mission_id":"m-1","objective":"ship","status":"budget_limited","owner":"user","token_budget":100,"tokens_used":150,"reason":"configured token budget exhausted"}),
    );
    let server = LlmServer::start().await.unwrap();
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &[
            "--no-ext",
            "--session",
            path.to_str().unwrap(),
            "-p",
            "/goal resume",
        ],
    ))
    .await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr
            .contains("goal: its token budget is spent (150 / 100 tokens)"),
        "{}",
        r.stderr
    );
    assert!(server.requests().is_empty());

    // An active Go goal with 5 tokens left: the user's turn spends them,
    // no continuation starts, the goal becomes budget_limited and print
    // mode says so.
    let env = TestEnv::new();
    let path = go_session_with_goal(
        &env,
        json!({"id":"g-1","mission_id":"m-1","objective":"ship","status":"active","owner":"user","token_budget":100,"tokens_used":95,"continuation_id":"stale"}),
    );
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("Did a bit."));
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &[
            "--no-ext",
            "--session",
            path.to_str().unwrap(),
            "-p",
            "keep going",
        ],
    ))
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout, "Did a bit.\n");
    assert!(
        r.stderr
            .contains("zut: goal budget_limited: configured token budget exhausted"),
        "{}",
        r.stderr
    );
    assert_eq!(server.requests().len(), 1);
    let all = rows(&path);
    let last_meta = all.iter().rev().find(|r| r["type"] == "meta").unwrap();
    assert_eq!(last_meta["meta"]["id"], GO_ID);
    assert_eq!(last_meta["meta"]["goal"]["status"], "budget_limited");
    assert_eq!(last_meta["meta"]["goal"]["id"], "g-1");
    assert!(last_meta["meta"]["goal"].get("continuation_id").is_none());
    assert_eq!(last_meta["meta"]["mission"]["status"], "blocked");
    assert!(zut_session::read(&path).is_ok());
}

#[tokio::test]
async fn update_goal_rejections_have_the_go_texts() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::reply(
        Format::Anthropic,
        vec![
            Block::tool_call("a", "update_goal", json!({"status":"complete"}).to_string()),
            Block::tool_call("b", "update_goal", json!({"status":"active"}).to_string()),
            Block::tool_call("c", "update_goal", json!({"status":"blocked"}).to_string()),
            Block::tool_call(
                "d",
                "update_goal",
                json!({"status":"active","objective":"tidy the docs"}).to_string(),
            ),
            Block::tool_call(
                "e",
                "update_goal",
                json!({"status":"active","objective":"another"}).to_string(),
            ),
            Block::tool_call(
                "f",
                "update_goal",
                json!({"status":"blocked","reason":"no access"}).to_string(),
            ),
        ],
    ));
    server.push(Script::anthropic_text("stopped"));
    let r = output_blocking(llm_cmd(&env, &server.url(), &["--no-ext", "--json", "go"])).await;
    assert_eq!(r.code, 0, "{r:?}");
    let texts: Vec<String> = events(&r.stdout)
        .iter()
        .filter(|e| e["type"] == "tool_result")
        .map(|e| e["content"][0]["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        texts,
        [
            "goal transition rejected: no active goal",
            "objective is required when setting a goal",
            "reason is required when blocking a goal",
            "autonomous goal marked active",
            "goal transition rejected: the current goal is still active",
            "autonomous goal marked blocked: no access",
        ]
    );
    // Blocked in the same turn: no continuation ran.
    assert_eq!(server.requests().len(), 2);
    // update_goal is offered headless; schedule is interactive only.
    let body = &server.requests()[0].raw_body;
    assert!(body.contains("\"name\":\"update_goal\""), "{body}");
    assert!(!body.contains("\"name\":\"schedule\""), "{body}");
}
