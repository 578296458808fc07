//! Goals (issue 24 item 2): `/goal` and `update_goal` through real
//! `zut -p` runs against the scripted LLM server — continuation turns
//! until `update_goal complete`, the Go meta rows (`mission`, `goal`,
//! `goal_history`, `zut_goal_continue` messages), budgets, Go-written
//! session files with goals.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::rpc_support;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::{json, Value};
use zut_llm_server::{Block, Format, LlmServer, Script};

fn sessions_dir(env: &TestEnv) -> PathBuf {
    zut_session::sessions_dir(&env.home, &env.project.display().to_string())
}

fn rows_of(path: &Path) -> Vec<Value> {
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
    let all = rows_of(&files[0]);
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
    let all = rows_of(&path);
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rpc_streams_goal_updates_and_continuations() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    // The model starts its own goal, ends its turn: zut continues.
    server.push(call(
        "g1",
        "update_goal",
        json!({"status":"active","objective":"tidy the docs"}),
    ));
    server.push(Script::anthropic_text("Started."));
    server.push(call("g2", "update_goal", json!({"status":"complete"})));
    server.push(Script::anthropic_text("Tidied."));
    let mut rpc = rpc_support::Rpc::start(&env, &server, &[], &[]);
    rpc.send(json!({"id":"1","type":"prompt","message":"tidy up"}));
    let evs = rpc.until(rpc_support::is_done);
    let goals: Vec<&Value> = evs.iter().filter(|e| e["type"] == "goal_update").collect();
    let statuses: Vec<&str> = goals
        .iter()
        .map(|g| g["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["active", "active", "done"], "{evs:?}");
    assert_eq!(goals[0]["owner"], "manager");
    assert_eq!(goals[0]["objective"], "tidy the docs");
    assert_eq!(goals[1]["continuations"], 1);
    let continuation = evs
        .iter()
        .filter(|e| e["type"] == "user_message")
        .nth(1)
        .unwrap();
    assert!(continuation["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("[goal continuation] Keep working on the goal autonomously: tidy the docs"));
    assert_eq!(evs.iter().filter(|e| e["type"] == "done").count(), 1);
    assert_eq!(server.requests().len(), 4);
    let (code, _, _) = rpc.finish();
    assert_eq!(code, 0);
}

#[tokio::test]
async fn a_go_session_with_goal_rows_is_continued_and_written_back_in_go_shape() {
    let env = TestEnv::new();
    let dir = sessions_dir(&env);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("20261201-090000-7b7b0000.jsonl");
    let cwd = env.project.display().to_string();
    // What the Go original writes: meta rows with mission/goal/history, a
    // hidden continuation message, an update_goal call and its result.
    let meta = |goal: Value, history: Value| {
        json!({"type":"meta","meta":{"id":GO_ID,"cwd":cwd,"model":"m","provider":"anthropic","started":"2026-12-01T09:00:00Z","version":"0.12.0",
            "mission":{"id":"m-1","objective":"ship v2","status":"active","source":"user","active_goal_id":"g-2","transition_count":1},
            "goal":goal,"goal_history":history}})
        .to_string()
    };
    let g1 = json!({"id":"g-1","mission_id":"m-1","objective":"ship v2","status":"active","owner":"user","ordinal":1,"token_budget":400000,"tokens_used":1200});
    let g2 = json!({"id":"g-2","mission_id":"m-1","objective":"write the changelog","status":"active","owner":"manager","ordinal":2,"token_budget":400000,"tokens_used":300,"continuation_id":"c-stale","consecutive_no_progress_turns":1});
    let rows = [
        meta(g1.clone(), json!([])),
        r#"{"type":"message","message":{"role":"user","content":[{"text":"ship v2"}],"time":"2026-12-01T09:00:01Z"}}"#.to_string(),
        r#"{"type":"message","message":{"role":"assistant","content":[{"id":"u1","name":"update_goal","arguments":{"status":"complete"}}],"time":"2026-12-01T09:00:02Z"}}"#.to_string(),
        r#"{"type":"message","message":{"role":"tool","content":[{"call_id":"u1","content":[{"text":"autonomous goal marked done"}],"is_error":false}],"time":"2026-12-01T09:00:03Z"}}"#.to_string(),
        meta(g2.clone(), json!([g1])),
        r#"{"type":"message","message":{"role":"user","content":[{"text":"Continue the active goal: write the changelog"}],"meta":{"zut_goal_continue":"true"},"time":"2026-12-01T09:00:04Z"}}"#.to_string(),
        r#"{"type":"message","message":{"role":"assistant","content":[{"text":"Working on it."}],"time":"2026-12-01T09:00:05Z"}}"#.to_string(),
    ];
    std::fs::write(&path, rows.join("\n") + "\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    // zut picks the goal up: the user's turn, one continuation that
    // completes it with the mission id Go gave it.
    server.push(Script::anthropic_text("Drafted."));
    server.push(call(
        "z1",
        "update_goal",
        json!({"status":"complete","mission_id":"m-1"}),
    ));
    server.push(Script::anthropic_text("Changelog written."));
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &[
            "--no-ext",
            "--session",
            path.to_str().unwrap(),
            "-p",
            "go on",
        ],
    ))
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stderr.contains("zut: goal continuation 1"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("zut: goal done"), "{}", r.stderr);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    // Go's hidden continuation message is part of the history sent.
    assert!(reqs[0]
        .raw_body
        .contains("Continue the active goal: write the changelog"));
    // The continuation names Go's mission id.
    assert!(reqs[1]
        .raw_body
        .contains("Use mission_id m-1 when setting a next goal."));
    // Written back: Go's field names and ids, the history grown, the
    // stale lease gone, the file still readable.
    let all = rows_of(&path);
    let last = all.iter().rev().find(|r| r["type"] == "meta").unwrap();
    let m = &last["meta"];
    assert_eq!(m["id"], GO_ID);
    assert_eq!(m["mission"]["id"], "m-1");
    assert_eq!(m["mission"]["status"], "completed");
    assert_eq!(m["mission"]["transition_count"], 1);
    assert_eq!(m["goal"]["id"], "g-2");
    assert_eq!(m["goal"]["status"], "done");
    assert_eq!(m["goal"]["owner"], "manager");
    assert_eq!(m["goal"]["ordinal"], 2);
    assert!(m["goal"].get("continuation_id").is_none());
    assert!(m["goal"]["tokens_used"].as_u64().unwrap() > 300);
    let history = m["goal_history"].as_array().unwrap();
    assert_eq!(history[0]["id"], "g-1");
    assert!(history.len() >= 2, "{history:?}");
    // Every goal object has only fields of Go's SessionGoal.
    let go_fields = [
        "id",
        "mission_id",
        "objective",
        "status",
        "owner",
        "ordinal",
        "reason",
        "token_budget",
        "tokens_used",
        "continuation_id",
        "consecutive_no_progress_turns",
    ];
    for g in history.iter().chain([&m["goal"]]) {
        for k in g.as_object().unwrap().keys() {
            assert!(go_fields.contains(&k.as_str()), "{k} in {g}");
        }
    }
    let marked = all
        .iter()
        .filter(|r| r["type"] == "message" && r["message"]["meta"]["zut_goal_continue"] == "true")
        .count();
    assert_eq!(marked, 2);
    let snap = zut_session::read(&path).unwrap();
    assert_eq!(snap.meta.id, GO_ID);
}

#[tokio::test]
async fn the_config_budget_stops_continuations_with_a_clear_line() {
    let env = TestEnv::new();
    // Go's key: every scripted reply costs 12 tokens (10 in, 2 out).
    std::fs::write(
        env.home.join("config.json"),
        r#"{"goals":{"max_token_budget":20}}"#,
    )
    .unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("First."));
    server.push(Script::anthropic_text("Second."));
    server.push(Script::anthropic_text("never sent"));
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &["--no-ext", "-p", "/goal polish the README"],
    ))
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(server.requests().len(), 2, "{r:?}");
    assert!(
        r.stderr.contains("zut: goal continuation 1"),
        "{}",
        r.stderr
    );
    let line = r
        .stderr
        .lines()
        .find(|l| l.starts_with("zut: goal budget_limited"))
        .unwrap_or_else(|| panic!("{}", r.stderr));
    assert!(
        line.starts_with("zut: goal budget_limited: configured token budget exhausted ("),
        "{line}"
    );
    assert!(line.ends_with(" / 20 tokens)"), "{line}");
    // A bad value is an error naming the key, before any request.
    std::fs::write(
        env.home.join("config.json"),
        r#"{"goals":{"max_token_budget":"lots"}}"#,
    )
    .unwrap();
    let r = output_blocking(llm_cmd(&env, &server.url(), &["--no-ext", "-p", "/goal x"])).await;
    assert_ne!(r.code, 0, "{r:?}");
    assert!(r.stderr.contains("goals.max_token_budget"), "{}", r.stderr);
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rpc_a_prompt_sent_during_a_goal_runs_before_the_next_continuation() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(call(
        "g1",
        "update_goal",
        json!({"status":"active","objective":"sort the notes"}),
    ));
    server.push(Script::anthropic_text("Begun."));
    // The first continuation is slow: a second prompt arrives meanwhile.
    server.push(Script::anthropic_text("Still sorting.").delay_ms(1500));
    server.push(Script::anthropic_text("Answer to the aside."));
    server.push(call("g2", "update_goal", json!({"status":"complete"})));
    server.push(Script::anthropic_text("Sorted."));
    let mut rpc = rpc_support::Rpc::start(&env, &server, &[], &[]);
    rpc.send(json!({"id":"1","type":"prompt","message":"sort my notes"}));
    rpc.until(|v| v["type"] == "goal_update" && v["continuations"] == 1);
    rpc.send(json!({"id":"2","type":"prompt","message":"a quick aside"}));
    let first = rpc.until(rpc_support::is_done);
    let texts = |evs: &[Value]| -> String {
        evs.iter()
            .filter(|v| v["type"] == "text_delta")
            .map(|v| v["delta"].as_str().unwrap())
            .collect()
    };
    // The first prompt's job ends after one continuation, goal still active.
    assert!(texts(&first).ends_with("Still sorting."), "{first:?}");
    let second = rpc.until(rpc_support::is_done);
    let t = texts(&second);
    assert!(t.starts_with("Answer to the aside."), "{t}");
    assert!(t.ends_with("Sorted."), "{t}");
    let last = second.iter().rfind(|e| e["type"] == "goal_update").unwrap();
    assert_eq!(last["status"], "done");
    assert_eq!(last["continuations"], 2);
    assert_eq!(server.requests().len(), 6);
    let (code, _, _) = rpc.finish();
    assert_eq!(code, 0);
}

#[tokio::test]
async fn a_failed_continuation_blocks_the_goal_instead_of_looping() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("Started."));
    // The continuation's request fails for good (400: not retried).
    server.push(Script::anthropic_error_event(
        "invalid_request_error",
        "bad things",
    ));
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &["--no-ext", "-p", "/goal ship the release"],
    ))
    .await;
    assert_ne!(r.code, 0, "{r:?}");
    assert!(
        r.stderr.contains("zut: goal blocked: a turn failed: "),
        "{}",
        r.stderr
    );
    assert_eq!(server.requests().len(), 2);
    let files = zut_session::list_files(&sessions_dir(&env));
    let all = rows_of(&files[0]);
    let last = all.iter().rev().find(|r| r["type"] == "meta").unwrap();
    assert_eq!(last["meta"]["goal"]["status"], "blocked");
    assert_eq!(last["meta"]["mission"]["status"], "blocked");
}
