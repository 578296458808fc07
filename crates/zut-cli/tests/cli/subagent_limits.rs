//! Subagents' limits end to end through `zut -p` against the scripted
//! local LLM server: concurrency (the environment and `config.json`), the
//! time budget from `config.json`, and the RSS figure of eight children
//! streaming at once (ignored: run by hand, docs/benchmarks.md).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::Stdio;

use common::subagents::*;
use common::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};

/// `config.json` `subagents`: `max_concurrent` keeps the second child
/// queued while the first runs; `timeout` bounds the first.
#[tokio::test]
async fn config_limits_concurrency_and_time() {
    let env = TestEnv::new();
    std::fs::write(
        env.home.join("config.json"),
        r#"{"subagents": {"max_concurrent": 1, "timeout": 2, "allowed_roots": ["/"]}}"#,
    )
    .unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(parent(call(
        "c1",
        json!({"action": "spawn", "task": "CFG-A hangs"}),
    )));
    server.push(parent(call(
        "c2",
        json!({"action": "spawn", "task": "CFG-B answers"}),
    )));
    server.push(parent(call("c3", json!({"action": "status"}))));
    server.push(parent(call("c4", json!({"action": "wait", "wait": 60}))));
    server.push(parent(Script::anthropic_text("limits seen")));
    server.push(child("CFG-A", Script::hang()));
    server.push(child("CFG-B", Script::anthropic_text("b done")));
    let mut c = llm_cmd(
        &env,
        &server.url(),
        &["--tools", "read,subagent", "-p", "go"],
    );
    c.env("HOME", user_home(&env))
        .env_remove("ZUT_AGENT_PROFILES")
        .env_remove("ZUT_SUBAGENTS_MAX_CONCURRENT")
        .env_remove("ZUT_SUBAGENTS_TIMEOUT");
    let r = output_blocking(c).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("limits seen"), "{r:?}");
    let results = tool_results(&server);
    assert_eq!(results.len(), 4, "{results:?}");
    let status: Value = serde_json::from_str(&results[2]).unwrap();
    let states: Vec<(String, String)> = status["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["task"].as_str().unwrap().to_string(),
                a["state"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        states,
        vec![
            ("CFG-A hangs".to_string(), "running".to_string()),
            ("CFG-B answers".to_string(), "queued".to_string())
        ],
        "{status}"
    );
    let waited: Value = serde_json::from_str(&results[3]).unwrap();
    let agents = waited["agents"].as_array().unwrap();
    assert_eq!(agents[0]["state"], "failed", "{waited}");
    assert!(
        agents[0]["error"]
            .as_str()
            .unwrap_or_default()
            .contains("time budget of 2 s exceeded"),
        "{waited}"
    );
    assert_eq!(agents[1]["state"], "completed", "{waited}");
    assert_eq!(agents[1]["result"], "b done", "{waited}");
}

#[tokio::test]
async fn four_children_run_in_parallel_up_to_the_limit() {
    // No clock: the `status` the parent asks for right after the four
    // spawns shows how many run at once (each child's answer is held back
    // long enough for the parent's next request to happen meanwhile).
    for (limit, delay, running) in [("4", 3000, 4), ("1", 1500, 1)] {
        let env = TestEnv::new();
        let server = LlmServer::start().await.unwrap();
        let spawns: Vec<zut_llm_server::Block> = (1..=4)
            .map(|i| {
                zut_llm_server::Block::tool_call(
                    format!("s{i}"),
                    "subagent",
                    json!({"action": "spawn", "task": format!("PAR-TASK-{i}")}).to_string(),
                )
            })
            .collect();
        server.push(parent(Script::reply(
            zut_llm_server::Format::Anthropic,
            spawns,
        )));
        server.push(parent(call("st", json!({"action": "status"}))));
        server.push(parent(call("w", json!({"action": "wait", "wait": 60}))));
        server.push(parent(Script::anthropic_text("all four done")));
        for i in 1..=4 {
            server.push(child(
                &format!("PAR-TASK-{i}"),
                Script::anthropic_text(format!("result {i}")).delay_ms(delay),
            ));
        }
        let r = run_p(
            &env,
            &server,
            &[("ZUT_SUBAGENTS_MAX_CONCURRENT", limit)],
            &["--tools", "read,subagent", "-p", "fan out"],
        )
        .await;
        assert_eq!(r.code, 0, "{r:?}");
        assert!(r.stdout.contains("all four done"), "{r:?}");
        let results = tool_results(&server);
        assert_eq!(results.len(), 6, "{results:?}");
        let status: Value = serde_json::from_str(&results[4]).unwrap();
        let mut states: Vec<&str> = status["agents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["state"].as_str().unwrap())
            .collect();
        // Which of them got the slot is the scheduler's business.
        states.sort_unstable_by_key(|s| *s != "running");
        let expected: Vec<&str> = std::iter::repeat_n("running", running)
            .chain(std::iter::repeat_n("queued", 4 - running))
            .collect();
        assert_eq!(states, expected, "limit {limit}: {status}");
        let waited: Value = serde_json::from_str(results.last().unwrap()).unwrap();
        assert_eq!(waited["timed_out"], false, "{waited}");
        let agents = waited["agents"].as_array().unwrap();
        assert_eq!(agents.len(), 4);
        for a in agents {
            assert_eq!(a["state"], "completed", "{a}");
            let task = a["task"].as_str().unwrap();
            let n = task.trim_start_matches("PAR-TASK-");
            assert_eq!(a["result"], format!("result {n}"), "{a}");
        }
        let parent_id = rows(&parent_session(&env))[0]["meta"]["id"].clone();
        let dirs = child_dirs(&env);
        assert_eq!(dirs.len(), 4);
        for d in &dirs {
            let meta = rows(&d.join("transcript.jsonl"))[0]["meta"].clone();
            assert_eq!(meta["parent"], parent_id);
            assert_eq!(
                meta["subagent"]["agent_id"].as_str(),
                d.file_name().and_then(|n| n.to_str())
            );
        }
    }
}

/// A figure, not a check (`--ignored --nocapture`): peak RSS of a `zut -p`
/// parent whose eight children (`ZUT_FIGURE_CHILDREN`) stream a 100 KB reply each at once
/// (100-byte deltas, 2 ms apart), measured with `/usr/bin/time -f %M`.
#[tokio::test]
#[ignore]
async fn figure_rss_with_eight_children_streaming() {
    let n: usize = std::env::var("ZUT_FIGURE_CHILDREN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8);
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let spawns: Vec<zut_llm_server::Block> = (1..=n)
        .map(|i| {
            zut_llm_server::Block::tool_call(
                format!("s{i}"),
                "subagent",
                json!({"action": "spawn", "task": format!("STREAM-{i}")}).to_string(),
            )
        })
        .collect();
    server.push(parent(Script::reply(
        zut_llm_server::Format::Anthropic,
        spawns,
    )));
    server.push(parent(call("w", json!({"action": "wait", "wait": 120}))));
    server.push(parent(Script::anthropic_text("streamed")));
    let text = "lorem ipsum dolor sit amet ".repeat(3800);
    for i in 1..=n {
        server.push(child(
            &format!("STREAM-{i}"),
            Script::anthropic_text(text.clone())
                .delta_bytes(100)
                .event_delay_ms(2),
        ));
    }
    let mut c = std::process::Command::new("/usr/bin/time");
    c.args(["-f", "ZUT-RSS-KIB %M"])
        .arg(env!("CARGO_BIN_EXE_zut"))
        .args([
            "--provider",
            "anthropic",
            "--base-url",
            &server.url(),
            "--api-key",
            "sk-test",
            "--model",
            "test-model",
            "--tools",
            "read,subagent",
            "-p",
            "stream",
        ])
        .env("ZUT_HOME", &env.home)
        .env("HOME", user_home(&env))
        .env("ZUT_SUBAGENTS_MAX_CONCURRENT", "8")
        .current_dir(&env.project)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = std::time::Instant::now();
    let r = output_blocking(c).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("streamed"), "{r:?}");
    let rss = r
        .stderr
        .lines()
        .find(|l| l.starts_with("ZUT-RSS-KIB"))
        .unwrap();
    println!(
        "{rss} ({n} children x 100 KB streamed, took {:?})",
        started.elapsed()
    );
}
