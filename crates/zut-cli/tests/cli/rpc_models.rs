//! RPC `get_models` across providers and the session's model on resume
//! (issue 20): `get_models` lists the models of every provider with
//! credentials (a stored key, a models.json provider with its key), with
//! the Go original's field names; RPC `switch_session` and ACP
//! `session/load` go on with the provider and model the session last used,
//! as the TUI's resume does. Real `zut rpc` / `zut acp` processes against
//! the local LLM server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::rpc_support;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::*;
use rpc_support::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};

fn write_private(path: &std::path::Path, v: &Value) {
    std::fs::write(path, v.to_string()).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_models_lists_every_provider_with_credentials() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    write_private(
        &env.home.join("auth.json"),
        &json!({"openai": {"api_key": "sk-oa"},
                "additional_api_key_creds": {"co": {"api_key": "sk-co"}}}),
    );
    std::fs::write(
        env.home.join("models.json"),
        json!({"providers": {"co": {"baseUrl": server.openai_base_url(), "api": "openai",
            "models": [{"id": "co-model", "contextWindow": 32000, "maxTokens": 4000,
                        "reasoningLevelMap": {"high": "high"}}]}}})
        .to_string(),
    )
    .unwrap();
    let mut rpc = Rpc::start(&env, &server, &[], &[("ZUT_NO_DISCOVERY", "1")]);
    let r = rpc.request(json!({"id":"m","type":"get_models"}));
    assert_eq!(r["success"], true, "{r}");
    let models = r["data"]["models"].as_array().unwrap();
    // The Go original's fields, and only those.
    for m in models {
        let mut keys: Vec<&str> = m.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "context_window",
                "id",
                "max_output",
                "provider",
                "reasoning"
            ],
            "{m}"
        );
    }
    let find = |p: &str, id: &str| {
        models
            .iter()
            .find(|m| m["provider"] == p && m["id"] == id)
            .cloned()
    };
    // The model in use first, then the providers with credentials.
    assert_eq!(models[0]["provider"], "anthropic");
    assert_eq!(models[0]["id"], "test-model");
    let gpt = find("openai", "gpt-5").expect("openai has a stored key");
    assert!(gpt["context_window"].as_u64().unwrap() > 100_000, "{gpt}");
    assert_eq!(gpt["reasoning"], true);
    let co = find("co", "co-model").expect("models.json provider with its key");
    assert_eq!(
        co,
        json!({"id": "co-model", "provider": "co", "context_window": 32000,
               "max_output": 4000, "reasoning": true})
    );
    if std::env::var_os("GROQ_API_KEY").is_none() {
        assert!(
            !models.iter().any(|m| m["provider"] == "groq"),
            "no key, no models"
        );
    }
    let providers: std::collections::BTreeSet<&str> = models
        .iter()
        .filter_map(|m| m["provider"].as_str())
        .collect();
    assert!(providers.len() >= 3, "{providers:?}");
    rpc.finish();
}

/// `zut -p` with `--model model`, saving a session; its id.
async fn session_with(env: &TestEnv, server: &LlmServer, args: &[&str], text: &str) -> String {
    let before: Vec<String> = sessions(env);
    server.push(Script::anthropic_text(text));
    let mut cmd = zut_cmd(env, args);
    cmd.args(["--no-ext", "-p", "remember this"])
        .env("ZUT_NO_DISCOVERY", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let r = output_blocking(cmd).await;
    assert_eq!(r.code, 0, "{r:?}");
    sessions(env)
        .into_iter()
        .find(|s| !before.contains(s))
        .expect("a new session file")
}

fn sessions(env: &TestEnv) -> Vec<String> {
    let dir = zut_session::sessions_dir(
        &env.home,
        &env.project.canonicalize().unwrap().display().to_string(),
    );
    zut_session::list(&dir, true)
        .into_iter()
        .map(|s| s.id)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn switch_session_restores_the_sessions_model() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let url = server.url();
    let a = session_with(
        &env,
        &server,
        &[
            "--provider",
            "anthropic",
            "--base-url",
            &url,
            "--api-key",
            "sk-a",
            "--model",
            "model-a",
        ],
        "A.",
    )
    .await;
    let mut rpc = Rpc::start(&env, &server, &[], &[("ZUT_NO_DISCOVERY", "1")]);
    let r = rpc.request(json!({"id":"h","type":"hello","capabilities":["sessions"]}));
    assert_eq!(r["success"], true, "{r}");
    let r = rpc.request(json!({"id":"s","type":"switch_session","session_id": a}));
    assert_eq!(r["success"], true, "{r}");
    assert_eq!(r["data"]["model"], "anthropic/model-a", "{r}");
    assert!(r["data"].get("model_warning").is_none(), "{r}");
    let st = rpc.request(json!({"id":"st","type":"get_state"}));
    assert_eq!(st["data"]["model"], "model-a", "{st}");
    server.push(Script::anthropic_text("Again A."));
    let n = server.requests().len();
    rpc.send(json!({"id":"p","type":"prompt","message":"and now?"}));
    rpc.until(is_done);
    let sent = &server.requests()[n];
    assert_eq!(sent.body["model"], "model-a");
    assert!(
        sent.raw_body.contains("remember this"),
        "the resumed history"
    );
    // Switching back to a session of the model in use changes nothing.
    rpc.finish();
}

/// A `zut acp` process driven with raw JSON-RPC lines.
struct Acp {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
}

impl Acp {
    fn call(&mut self, id: u64, method: &str, params: Value) -> Value {
        let stdin = self.child.stdin.as_mut().unwrap();
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            assert!(Instant::now() < deadline, "no answer to {method}");
            let mut l = String::new();
            assert!(self.out.read_line(&mut l).unwrap() > 0, "zut acp ended");
            let v: Value = serde_json::from_str(&l).unwrap();
            if v["id"] == id && v.get("method").is_none() {
                return v;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acp_session_load_restores_the_sessions_model() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    // The run's default: provider `co` (config.json), first model `model-b`.
    std::fs::write(
        env.home.join("models.json"),
        json!({"providers": {"co": {"baseUrl": server.url(), "api": "anthropic",
            "auth": "none", "models": [{"id": "model-b"}, {"id": "model-a"}]}}})
        .to_string(),
    )
    .unwrap();
    std::fs::write(env.home.join("config.json"), r#"{"provider": "co"}"#).unwrap();
    let a = session_with(&env, &server, &["--model", "model-a"], "A.").await;
    let mut cmd = zut_cmd(&env, &["acp", "--no-ext"]);
    cmd.env("ZUT_NO_DISCOVERY", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    let mut acp = Acp { child, out };
    let r = acp.call(
        1,
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}}),
    );
    assert!(r.get("result").is_some(), "{r}");
    let cwd = env.project.canonicalize().unwrap().display().to_string();
    let r = acp.call(
        2,
        "session/load",
        json!({"sessionId": a, "cwd": cwd, "mcpServers": []}),
    );
    assert!(r.get("result").is_some(), "{r}");
    server.push(Script::anthropic_text("Again A."));
    let n = server.requests().len();
    let r = acp.call(
        3,
        "session/prompt",
        json!({"sessionId": a, "prompt": [{"type": "text", "text": "and now?"}]}),
    );
    assert_eq!(r["result"]["stopReason"], "end_turn", "{r}");
    let sent = &server.requests()[n];
    assert_eq!(sent.body["model"], "model-a");
    assert!(sent.raw_body.contains("remember this"));
    // A new session keeps the run's own model.
    let r = acp.call(4, "session/new", json!({"cwd": cwd, "mcpServers": []}));
    let sid = r["result"]["sessionId"].as_str().unwrap().to_string();
    server.push(Script::anthropic_text("B."));
    let r = acp.call(
        5,
        "session/prompt",
        json!({"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}),
    );
    assert_eq!(r["result"]["stopReason"], "end_turn", "{r}");
    assert_eq!(server.requests().last().unwrap().body["model"], "model-b");
    drop(acp.child.stdin.take());
    let _ = acp.child.wait();
}

/// The ids `get_models` lists for `provider`.
fn listed(rpc: &mut Rpc, id: &str, provider: &str) -> Vec<String> {
    let r = rpc.request(json!({"id": id, "type": "get_models"}));
    assert_eq!(r["success"], true, "{r}");
    r["data"]["models"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["provider"] == provider)
        .filter_map(|m| m["id"].as_str().map(String::from))
        .collect()
}

/// The live refresh: a `zut rpc` left open asks a discovered list again
/// once it is due (here: its back-off after a failure ended), in the
/// background, when `get_models` is asked; the next `get_models` has the
/// models. Nothing waits for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_process_refreshes_a_list_that_is_due() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    std::fs::write(
        env.home.join("models.json"),
        json!({"providers": {"co": {"baseUrl": server.openai_base_url(), "api": "openai",
            "discover": true, "models": [{"id": "listed-model"}]}}})
        .to_string(),
    )
    .unwrap();
    let list = |body: Value| Script::json(200, body.to_string()).unless("messages");
    server.push(
        Script::json(500, r#"{"error": {"message": "down"}}"#.to_string()).unless("messages"),
    );
    let mut rpc = Rpc::start(&env, &server, &[], &[("CO_API_KEY", "sk-co")]);
    let cache_path = env.home.join("models-cache.json");
    let cache = || -> Option<Value> {
        serde_json::from_str(&std::fs::read_to_string(&cache_path).ok()?).ok()
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while !cache().is_some_and(|c| c["failures"]["co"].is_object()) {
        assert!(Instant::now() < deadline, "no failure recorded");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(listed(&mut rpc, "a", "co"), ["listed-model"]);

    // The back-off ends (as if minutes passed): the next ask refreshes.
    let mut c = cache().unwrap();
    c["failures"]["co"]["retry_at"] = json!(0);
    std::fs::write(&cache_path, c.to_string()).unwrap();
    server.push(list(
        json!({"data": [{"id": "fresh-1"}, {"id": "fresh-2"}]}),
    ));
    let _ = listed(&mut rpc, "b", "co");
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut n = 0;
    loop {
        n += 1;
        let ids = listed(&mut rpc, &format!("c{n}"), "co");
        if ids.contains(&"fresh-2".to_string()) {
            assert!(ids.contains(&"listed-model".to_string()), "{ids:?}");
            break;
        }
        assert!(Instant::now() < deadline, "not refreshed: {ids:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let gets = server
        .requests()
        .iter()
        .filter(|r| r.method == "GET")
        .count();
    assert_eq!(gets, 2, "one start-up ask, one refresh");
    assert!(cache().unwrap().get("failures").is_none());
    rpc.finish();
}

/// A provider logged into while a `zut rpc` runs (here `zut auth login`
/// from another process; the TUI's `/login` takes the same path) is
/// usable without a restart: the key check's model list is cached by the
/// login, and the open process's next `get_models` lists those models.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_logged_into_while_running_lists_its_models() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    std::fs::write(
        env.home.join("models.json"),
        json!({"providers": {"openrouter": {"baseUrl": server.openai_base_url()}}}).to_string(),
    )
    .unwrap();
    let mut rpc = Rpc::start(&env, &server, &[], &[("ZUT_NO_DISCOVERY", "1")]);
    if std::env::var_os("OPENROUTER_API_KEY").is_none() {
        assert!(listed(&mut rpc, "before", "openrouter").is_empty());
    }
    server.push(
        Script::json(
            200,
            json!({"data": [{"id": "found/after-login", "context_length": 64000}]}).to_string(),
        )
        .unless("messages"),
    );
    let mut login = zut_cmd(&env, &["auth", "login", "openrouter"]);
    login
        .env_remove("OPENROUTER_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = login.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"sk-or-live\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let ids = listed(&mut rpc, "after", "openrouter");
    assert!(ids.contains(&"found/after-login".to_string()), "{ids:?}");
    // Catalog models of the provider are offered too.
    assert!(ids.len() > 1, "{ids:?}");
    let gets = server
        .requests()
        .iter()
        .filter(|r| r.method == "GET")
        .count();
    assert_eq!(gets, 1, "only the login's key check asked the list");
    rpc.finish();
}
