//! Live model discovery (issue 20 item 2): a `models.json` provider with
//! `"discover": true` has its model list asked in the background, cached in
//! `$ZUT_HOME/models-cache.json` for 24 hours and offered by
//! `--list-models`; a list endpoint that sleeps, hangs, answers HTML or
//! lists 10,000 models never delays a `-p` turn nor shows an error.
//! The real `zut` binary against the local LLM server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};

fn setup(env: &TestEnv, server: &LlmServer) {
    std::fs::write(
        env.home.join("models.json"),
        json!({"providers": {"co": {"baseUrl": server.openai_base_url(), "api": "openai",
            "discover": true, "models": [{"id": "listed-model"}]}}})
        .to_string(),
    )
    .unwrap();
}

/// `zut --provider co -p hi`, timed.
async fn print_run(env: &TestEnv) -> (Run, Duration) {
    let mut cmd = zut_cmd(env, &["--provider", "co", "--no-session", "-p", "hi"]);
    cmd.env("CO_API_KEY", "sk-co")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let t = Instant::now();
    let r = output_blocking(cmd).await;
    (r, t.elapsed())
}

/// The turn's reply (a chat request has `messages`; the list GET has no body).
fn reply(text: &str) -> Script {
    Script::openai_text(text).when("\"messages\"")
}

fn list(n: usize) -> Script {
    let data: Vec<Value> = (0..n)
        .map(|i| json!({"id": format!("found-{i}"), "context_length": 64000}))
        .collect();
    Script::json(200, json!({"data": data}).to_string()).unless("messages")
}

fn gets(server: &LlmServer) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r.method == "GET")
        .count()
}

fn cache(env: &TestEnv) -> Option<Value> {
    let text = std::fs::read_to_string(env.home.join("models-cache.json")).ok()?;
    serde_json::from_str(&text).ok()
}

#[tokio::test]
async fn discovered_models_are_cached_for_a_day_and_listed() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    setup(&env, &server);
    // The reply waits a little, so the list is in before the run ends.
    server.push(list(3));
    server.push(reply("answer one").delay_ms(2000));
    let (r, _) = print_run(&env).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("answer one"));
    let get = server
        .requests()
        .into_iter()
        .find(|r| r.method == "GET")
        .unwrap();
    assert_eq!(get.path, "/v1/models");
    assert_eq!(get.header("authorization"), Some("Bearer sk-co"));
    assert!(wait_until(5, || cache(&env).is_some()));
    let c = cache(&env).unwrap();
    let entry = &c["providers"]["co"];
    assert_eq!(entry["models"].as_array().unwrap().len(), 3);
    assert_eq!(entry["base_url"], server.openai_base_url());
    assert!(!std::fs::read_to_string(env.home.join("models-cache.json"))
        .unwrap()
        .contains("sk-co"));

    // Fresh: the next run asks nothing.
    server.push(reply("answer two"));
    let (r, _) = print_run(&env).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(gets(&server), 1);

    // Listed by --list-models after the models.json one.
    let r = zut(&env, &["--list-models"]);
    let rows: Vec<&str> = r.stdout.lines().filter(|l| l.starts_with("co ")).collect();
    assert_eq!(rows.len(), 4, "{}", r.stdout);
    assert!(rows[0].contains("listed-model"));
    assert!(
        rows[1].contains("found-0") && rows[1].contains("64000") && rows[1].contains("discovered")
    );

    // A day later it is asked again.
    let mut c = cache(&env).unwrap();
    let old = c["providers"]["co"]["fetched_at"].as_u64().unwrap() - 25 * 3600;
    c["providers"]["co"]["fetched_at"] = json!(old);
    std::fs::write(env.home.join("models-cache.json"), c.to_string()).unwrap();
    server.push(list(5));
    server.push(reply("answer three").delay_ms(2000));
    let (r, _) = print_run(&env).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(gets(&server), 2);
    assert!(wait_until(5, || cache(&env).is_some_and(|c| c
        ["providers"]["co"]["models"]
        .as_array()
        .map(Vec::len)
        == Some(5))));
}

#[tokio::test]
async fn a_slow_hanging_or_html_endpoint_never_delays_a_turn() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    setup(&env, &server);
    // Baseline: a run whose list answers at once.
    server.push(list(1));
    server.push(reply("baseline"));
    let (r, base) = print_run(&env).await;
    assert_eq!(r.code, 0, "{r:?}");
    eprintln!("figure: -p turn, list answered at once: {base:?}");
    std::fs::remove_file(env.home.join("models-cache.json")).ok();

    // A list endpoint that sleeps 5 s: the turn does not wait for it.
    server.push(list(2).delay_ms(5000));
    server.push(reply("not delayed"));
    let (r, took) = print_run(&env).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("not delayed"));
    assert!(took < Duration::from_secs(3), "the turn took {took:?}");
    eprintln!("figure: -p turn with a 5 s discovery endpoint: {took:?}");
    assert!(r.stderr.is_empty(), "{}", r.stderr);

    // One that never answers.
    server.push(Script::hang().unless("messages"));
    server.push(reply("still quick"));
    let (r, took) = print_run(&env).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert!(r.stderr.is_empty(), "{}", r.stderr);

    // HTML (a login page): no cache, a line in the log, nothing on screen.
    server.push(
        Script::raw_sse("<!doctype html><html><body>Sign in</body></html>").unless("messages"),
    );
    server.push(reply("html run").delay_ms(2000));
    let (r, _) = print_run(&env).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    let log = env.home.join("logs/discovery.log");
    assert!(wait_until(5, || std::fs::read_to_string(&log)
        .is_ok_and(|t| t.contains("co: ") && t.contains("not JSON"))));
    assert!(!std::fs::read_to_string(&log).unwrap().contains("sk-co"));
    // No list cached; the failure is (the negative cache).
    assert!(wait_until(5, || cache(&env)
        .is_some_and(|c| c["failures"]["co"]["attempts"] == 1)));
    assert!(cache(&env).unwrap()["providers"].get("co").is_none());
}

#[tokio::test]
async fn ten_thousand_models_are_kept_and_listed_quickly() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    setup(&env, &server);
    server.push(list(10_000));
    server.push(reply("big list").delay_ms(3000));
    let (r, took) = print_run(&env).await;
    assert_eq!(r.code, 0, "{r:?}");
    eprintln!("figure: -p turn (3 s scripted reply) with a 10,000-model list: {took:?}");
    assert!(wait_until(10, || cache(&env).is_some()));
    let c = cache(&env).unwrap();
    assert_eq!(
        c["providers"]["co"]["models"].as_array().unwrap().len(),
        10_000
    );
    let t = Instant::now();
    let r = zut(&env, &["--list-models"]);
    let took = t.elapsed();
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout.lines().filter(|l| l.starts_with("co ")).count(),
        10_001
    );
    eprintln!("figure: --list-models with 10,000 discovered models: {took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

/// The negative cache: a list that fails (the test server answers 500,
/// then 401) is recorded in `models-cache.json` with a back-off — 5
/// minutes, then 10 — and not asked again before it ends; a success
/// clears the record.
#[tokio::test]
async fn a_failing_list_is_not_asked_again_before_its_back_off_ends() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    setup(&env, &server);
    let failure = |status: u16| {
        Script::json(
            status,
            r#"{"error": {"message": "list is down"}}"#.to_string(),
        )
        .unless("messages")
    };
    server.push(failure(500));
    server.push(reply("answer one").delay_ms(1500));
    let (r, _) = print_run(&env).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("answer one"));
    assert!(!r.stderr.contains("list is down"), "silent: {}", r.stderr);
    assert!(wait_until(5, || cache(&env)
        .is_some_and(|c| c["failures"]["co"].is_object())));
    let c = cache(&env).unwrap();
    let f = &c["failures"]["co"];
    assert_eq!(f["attempts"], 1, "{c}");
    assert_eq!(f["base_url"], server.openai_base_url());
    let (at, retry) = (
        f["failed_at"].as_u64().unwrap(),
        f["retry_at"].as_u64().unwrap(),
    );
    assert_eq!(retry - at, 300, "{c}");
    assert!(f["error"].as_str().unwrap().contains("500"), "{c}");
    assert!(c["providers"].get("co").is_none(), "{c}");
    let gets_before = gets(&server);
    assert!(gets_before >= 1);
    let log = std::fs::read_to_string(env.home.join("logs/discovery.log")).unwrap();
    assert!(log.contains("failure 1 in a row"), "{log}");
    assert!(!log.contains("sk-co"), "{log}");

    // Within the back-off: the next start does not ask.
    server.push(reply("answer two").delay_ms(1500));
    let (r, _) = print_run(&env).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(gets(&server), gets_before);

    // Once it ends: asked again; a second failure doubles the wait.
    let expire = |env: &TestEnv| {
        let mut c = cache(env).unwrap();
        c["failures"]["co"]["retry_at"] = json!(0);
        std::fs::write(env.home.join("models-cache.json"), c.to_string()).unwrap();
    };
    expire(&env);
    server.push(failure(401));
    server.push(reply("answer three").delay_ms(1500));
    let (r, _) = print_run(&env).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(gets(&server) > gets_before);
    assert!(wait_until(5, || cache(&env)
        .is_some_and(|c| c["failures"]["co"]["attempts"] == 2)));
    let f = cache(&env).unwrap()["failures"]["co"].clone();
    assert_eq!(
        f["retry_at"].as_u64().unwrap() - f["failed_at"].as_u64().unwrap(),
        600
    );

    // A success clears the record and fills the cache.
    expire(&env);
    server.push(list(2));
    server.push(reply("answer four").delay_ms(1500));
    let (r, _) = print_run(&env).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(wait_until(5, || cache(&env).is_some_and(|c| c
        ["providers"]["co"]["models"]
        .as_array()
        .map(Vec::len)
        == Some(2))));
    assert!(cache(&env).unwrap().get("failures").is_none());
}
