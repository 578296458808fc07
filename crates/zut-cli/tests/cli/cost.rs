//! Cost end to end (issue 20): every `usage` event and total carries
//! `cost_usd` as a number and `cost_known`, priced from the embedded model
//! catalog or from models.json (`priceInput`...), on each wire (`--json`,
//! RPC, ACP), in session rows and in `--stats`; bad prices are refused
//! naming the file and key. The real `zut` binary against the local LLM
//! server; the Go original's Python RPC example formatting runs for real.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::Write;
use std::process::Stdio;

use common::*;
use serde_json::{json, Value};
use zut_llm_server::{Block, Body, Format, LlmServer, Script, Usage};

/// 1000 input, 500 output, 2000 cache reads, 100 cache writes.
fn priced_reply(text: &str) -> Script {
    Script::new(Body::Reply {
        format: Format::Anthropic,
        blocks: vec![Block::text(text)],
        stop: None,
        usage: Usage {
            input: 1000,
            output: 500,
            cache_read: 2000,
            cache_write: 100,
            reasoning: None,
        },
        interleave: false,
    })
}

/// At $3 / $15 / $0.30 / $3.75 per million tokens (Claude Sonnet 4.5's
/// list prices, and the models.json prices of these tests).
const EXPECTED: f64 = (1000.0 * 3.0 + 500.0 * 15.0 + 2000.0 * 0.3 + 100.0 * 3.75) / 1e6;

fn close(a: &Value, b: f64) -> bool {
    a.as_f64().is_some_and(|a| (a - b).abs() < 1e-9)
}

fn write_models(env: &TestEnv, body: &Value) {
    std::fs::write(env.home.join("models.json"), body.to_string()).unwrap();
}

fn priced_models(env: &TestEnv) {
    write_models(
        env,
        &json!({"providers": {"anthropic": {"models": [{"id": "test-model",
            "priceInput": 3, "priceOutput": 15, "priceCacheRead": 0.3, "priceCacheWrite": 3.75}]}}}),
    );
}

async fn run(env: &TestEnv, server: &LlmServer, args: &[&str]) -> Run {
    output_blocking(llm_cmd(env, &server.url(), args)).await
}

fn usage_events(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "usage")
        .collect()
}

/// Every session row of kind `usage` under `$ZUT_HOME/sessions`.
fn session_usage_rows(env: &TestEnv) -> Vec<Value> {
    let mut out = Vec::new();
    let mut stack = vec![env.home.join("sessions")];
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                for line in std::fs::read_to_string(&p).unwrap().lines() {
                    let v: Value = serde_json::from_str(line).unwrap();
                    if v["type"] == "usage" {
                        out.push(v);
                    }
                }
            }
        }
    }
    out
}

#[tokio::test]
async fn models_json_prices_reach_json_events_stats_and_session_rows() {
    let env = TestEnv::new();
    priced_models(&env);
    let server = LlmServer::start().await.unwrap();
    server.push(priced_reply("priced"));
    let stats = env.project.join("stats.json");
    let stats_arg = stats.to_string_lossy().to_string();
    let r = run(&env, &server, &["--json", "hi", "--stats", &stats_arg]).await;
    assert_eq!(r.code, 0, "{r:?}");
    let usage = usage_events(&r.stdout);
    assert_eq!(usage.len(), 1, "{}", r.stdout);
    let u = &usage[0];
    assert!(close(&u["cost_usd"], EXPECTED), "{u}");
    assert_eq!(u["cost_known"], true);
    assert!(close(&u["cumulative"]["cost_usd"], EXPECTED), "{u}");
    assert_eq!(u["cumulative"]["cost_known"], true);

    // --stats: the Go original's field names, then zut's.
    let s: Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(s["provider"], "anthropic");
    assert_eq!(s["model"], "test-model");
    assert_eq!(s["prompt_tokens"], 3100, "{s}");
    assert_eq!(s["reasoning_tokens"], Value::Null);
    assert_eq!(s["generated_output_tokens"], 500);
    assert!(s["elapsed_ms"].as_u64().is_some());
    assert!(close(&s["cost_usd"], EXPECTED), "{s}");
    assert_eq!(s["cost_known"], true);
    assert_eq!(s["input_tokens"], 1000);

    // The session row carries the cost too (the Go original's key).
    let rows = session_usage_rows(&env);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(close(&rows[0]["usage"]["cost_usd"], EXPECTED), "{rows:?}");
    assert_eq!(rows[0]["usage"]["cost_known"], true);
    assert!(close(&rows[0]["cumulative"]["cost_usd"], EXPECTED));
}

#[tokio::test]
async fn catalog_prices_a_known_model_and_an_unknown_one_costs_zero_not_null() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(priced_reply("from the catalog"));
    let url = server.url();
    let mut cmd = zut_cmd(
        &env,
        &[
            "--provider",
            "anthropic",
            "--base-url",
            &url,
            "--api-key",
            "sk-test",
            // A catalog model: Claude Sonnet 4.5's list prices.
            "--model",
            "claude-sonnet-4-5",
            "--no-session",
            "--json",
            "hi",
        ],
    );
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let r = output_blocking(cmd).await;
    assert_eq!(r.code, 0, "{r:?}");
    let u = &usage_events(&r.stdout)[0];
    assert!(close(&u["cost_usd"], EXPECTED), "{u}");
    assert_eq!(u["cost_known"], true);

    server.push(priced_reply("unknown"));
    let r = run(&env, &server, &["--json", "hi", "--no-session"]).await;
    assert_eq!(r.code, 0, "{r:?}");
    let u = &usage_events(&r.stdout)[0];
    assert_eq!(u["cost_usd"], json!(0.0), "a number, never null: {u}");
    assert_eq!(u["cost_known"], false);
    assert_eq!(u["cumulative"]["cost_usd"], json!(0.0));
    assert_eq!(u["cumulative"]["cost_known"], false);
}

#[tokio::test]
async fn bad_prices_in_models_json_are_refused_naming_file_and_key() {
    for (price, found) in [
        (json!(-1), "-1"),
        (json!("cheap"), "a string"),
        (json!({"usd": 1}), "an object"),
    ] {
        let env = TestEnv::new();
        write_models(
            &env,
            &json!({"providers": {"anthropic": {"models": [{"id": "test-model",
                "priceInput": 1, "priceOutput": price}]}}}),
        );
        let before = std::fs::read_to_string(env.home.join("models.json")).unwrap();
        let server = LlmServer::start().await.unwrap();
        let r = run(&env, &server, &["-p", "hi", "--no-session"]).await;
        assert_ne!(r.code, 0, "{r:?}");
        assert!(r.stderr.contains("models.json"), "{}", r.stderr);
        assert!(
            r.stderr
                .contains("providers.anthropic.models[0].priceOutput"),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains(found), "{}", r.stderr);
        assert!(server.requests().is_empty(), "nothing sent");
        // The file is left as it was.
        assert_eq!(
            std::fs::read_to_string(env.home.join("models.json")).unwrap(),
            before
        );
    }
}

/// The Go original's example RPC client (examples/rpc/python) prints each
/// usage line with `cum.get('cost_usd', 0):.4f`, which fails on `null`.
const PY_CLIENT: &str = r#"
import json, subprocess, sys

argv = sys.argv[1:]
proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
proc.stdin.write(json.dumps({"type": "prompt", "message": "hello"}) + "\n")
proc.stdin.flush()
for line in proc.stdout:
    ev = json.loads(line)
    t = ev.get("type")
    if t == "text_delta":
        sys.stdout.write(ev.get("delta", ""))
    elif t == "usage":
        cum = ev.get("cumulative", {})
        print(
            f"\n[usage] cum input={cum.get('input')} "
            f"output={cum.get('output')} cost=${cum.get('cost_usd', 0):.4f}"
        )
    elif t == "done":
        break
proc.stdin.close()
proc.wait(timeout=10)
"#;

#[tokio::test]
async fn go_original_python_rpc_client_prints_the_cost() {
    let Ok(py) = which_python() else {
        panic!("python3 is needed for this test");
    };
    for (priced, expect) in [(true, "cost=$0.0115"), (false, "cost=$0.0000")] {
        let env = TestEnv::new();
        if priced {
            priced_models(&env);
        }
        let server = LlmServer::start().await.unwrap();
        server.push(priced_reply("rpc answer"));
        let client = env.project.join("zut_client.py");
        std::fs::write(&client, PY_CLIENT).unwrap();
        let url = server.url();
        let zut = env!("CARGO_BIN_EXE_zut");
        let mut cmd = std::process::Command::new(&py);
        cmd.arg(&client)
            .args([
                zut,
                "rpc",
                "--provider",
                "anthropic",
                "--base-url",
                &url,
                "--api-key",
                "sk-rpc",
                "--model",
                "test-model",
                "--no-ext",
                "--no-session",
            ])
            .env("ZUT_HOME", &env.home)
            .env_remove("ZUTCORE_RPC_TOKEN")
            .current_dir(&env.project)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let r = output_blocking(cmd).await;
        assert_eq!(r.code, 0, "{r:?}");
        assert!(r.stdout.contains("rpc answer"), "{r:?}");
        assert!(
            r.stdout
                .contains(&format!("[usage] cum input=1000 output=500 {expect}")),
            "{r:?}"
        );
    }
}

fn which_python() -> Result<String, ()> {
    for p in ["python3", "python"] {
        if std::process::Command::new(p)
            .arg("-c")
            .arg("pass")
            .status()
            .is_ok_and(|s| s.success())
        {
            return Ok(p.to_string());
        }
    }
    Err(())
}

#[tokio::test]
async fn rpc_get_state_reports_the_session_cost() {
    let env = TestEnv::new();
    priced_models(&env);
    let server = LlmServer::start().await.unwrap();
    server.push(priced_reply("one"));
    server.push(priced_reply("two"));
    let mut cmd = zut_cmd(&env, &["rpc"]);
    cmd.args([
        "--provider",
        "anthropic",
        "--base-url",
        &server.url(),
        "--api-key",
        "sk-rpc",
        "--model",
        "test-model",
        "--no-ext",
        "--no-session",
    ])
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let out = tokio::task::spawn_blocking(move || {
        let mut child = cmd.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
        let mut seen = Vec::new();
        for msg in ["one", "two"] {
            writeln!(stdin, "{}", json!({"type":"prompt","message": msg})).unwrap();
            for l in lines.by_ref() {
                let v: Value = serde_json::from_str(&l.unwrap()).unwrap();
                let done = v["type"] == "done";
                seen.push(v);
                if done {
                    break;
                }
            }
        }
        writeln!(stdin, "{}", json!({"id":"s","type":"get_state"})).unwrap();
        for l in lines.by_ref() {
            let v: Value = serde_json::from_str(&l.unwrap()).unwrap();
            let state = v["command"] == "get_state";
            seen.push(v);
            if state {
                break;
            }
        }
        drop(stdin);
        let _ = child.wait();
        seen
    })
    .await
    .unwrap();
    let state = out.last().unwrap();
    assert_eq!(state["success"], true, "{state}");
    assert!(
        close(&state["data"]["usage"]["cost_usd"], 2.0 * EXPECTED),
        "{state}"
    );
    assert_eq!(state["data"]["usage"]["cost_known"], true);
    let usage: Vec<&Value> = out.iter().filter(|v| v["type"] == "usage").collect();
    assert_eq!(usage.len(), 2);
    for u in usage {
        assert!(close(&u["cost_usd"], EXPECTED), "{u}");
    }
}

#[tokio::test]
async fn acp_sends_usage_updates_with_the_running_session_cost() {
    use agent_client_protocol::schema::ProtocolVersion;
    use agent_client_protocol::v1::schema::{
        ContentBlock, InitializeRequest, NewSessionRequest, PromptRequest, SessionNotification,
        SessionUpdate, TextContent,
    };
    use agent_client_protocol::{AcpAgent, AcpAgentConfig, Client};
    use std::sync::{Arc, Mutex};

    let env = TestEnv::new();
    priced_models(&env);
    let server = LlmServer::start().await.unwrap();
    server.push(priced_reply("one"));
    server.push(priced_reply("two"));
    let agent = AcpAgent::new(
        AcpAgentConfig::new(env!("CARGO_BIN_EXE_zut"))
            .args([
                "acp",
                "--no-ext",
                "--no-session",
                "--context-window",
                "100000",
                "--provider",
                "anthropic",
                "--base-url",
                &server.url(),
                "--api-key",
                "sk-acp",
                "--model",
                "test-model",
            ])
            .env("ZUT_HOME", env.home.display().to_string()),
    );
    let seen: Arc<Mutex<Vec<SessionUpdate>>> = Arc::default();
    let sink = seen.clone();
    let cwd = env.project.clone();
    let run = Client
        .v1()
        .on_receive_notification(
            async move |n: SessionNotification, _cx| {
                sink.lock().unwrap().push(n.update);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_with(agent, async move |cx| {
            cx.send_request(InitializeRequest::new(ProtocolVersion::V1))
                .block_task()
                .await?;
            let sid = cx
                .send_request(NewSessionRequest::new(cwd))
                .block_task()
                .await?
                .session_id;
            for msg in ["one", "two"] {
                let text = vec![ContentBlock::Text(TextContent::new(msg))];
                cx.send_request(PromptRequest::new(sid.clone(), text))
                    .block_task()
                    .await?;
            }
            Ok(())
        });
    tokio::time::timeout(std::time::Duration::from_secs(30), run)
        .await
        .expect("timed out")
        .expect("ACP exchange failed");
    let updates = seen.lock().unwrap().clone();
    let usage: Vec<Value> = updates
        .iter()
        .filter(|u| matches!(u, SessionUpdate::UsageUpdate(_)))
        .map(|u| serde_json::to_value(u).unwrap())
        .collect();
    assert_eq!(usage.len(), 2, "{updates:?}");
    for (i, u) in usage.iter().enumerate() {
        assert_eq!(u["sessionUpdate"], "usage_update");
        assert_eq!(u["used"], 3600, "{u}");
        assert_eq!(u["size"], 100000, "{u}");
        assert_eq!(u["cost"]["currency"], "USD");
        assert!(
            close(&u["cost"]["amount"], (i + 1) as f64 * EXPECTED),
            "{u}"
        );
        assert_eq!(u["_meta"]["zut"]["cost_known"], true);
    }
}

/// `zut -p --json` with `args` (no session, no extensions, no cloud
/// variables of the developer's shell).
async fn json_turn(env: &TestEnv, args: &[&str]) -> Run {
    let mut cmd = zut_cmd(env, &["--no-ext", "--no-session", "--json"]);
    for name in [
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_PROFILE",
        "AWS_BEARER_TOKEN_BEDROCK",
        "OPENROUTER_API_KEY",
        "ZUT_PROVIDER",
        "ZUT_MODEL",
    ] {
        cmd.env_remove(name);
    }
    cmd.env("HOME", &env.home)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    output_blocking(cmd).await
}

/// Cost figures for the same scripted usage on each wire: every wire's
/// usage decodes to the same counts and is priced from models.json
/// (`priceInput`...), on a preset (Messages, Gemini, Bedrock) and on custom
/// providers (Chat Completions, Responses).
#[tokio::test]
async fn the_same_scripted_usage_costs_the_same_on_every_wire() {
    let usage = Usage {
        input: 1000,
        output: 500,
        cache_read: 2000,
        cache_write: 0,
        reasoning: None,
    };
    let expected = (1000.0 * 3.0 + 500.0 * 15.0 + 2000.0 * 0.3) / 1e6;
    let priced = json!([{"id": "m", "priceInput": 3, "priceOutput": 15,
        "priceCacheRead": 0.3, "priceCacheWrite": 3.75}]);
    for (format, provider) in [
        (Format::Anthropic, "anthropic"),
        (Format::Openai, "chat"),
        (Format::Responses, "resp"),
        (Format::Gemini, "google"),
        (Format::Bedrock, "amazon-bedrock"),
    ] {
        let env = TestEnv::new();
        let server = LlmServer::start().await.unwrap();
        server.push(Script::new(Body::Reply {
            format,
            blocks: vec![Block::text("ok")],
            stop: None,
            usage,
            interleave: false,
        }));
        let url = server.url();
        let v1 = server.openai_base_url();
        write_models(
            &env,
            &json!({"providers": {
                "anthropic": {"models": priced},
                "google": {"models": priced},
                "amazon-bedrock": {"models": priced},
                "chat": {"api": "openai-completions", "baseUrl": v1, "models": priced},
                "resp": {"api": "openai-responses", "baseUrl": v1, "apiKey": "k", "models": priced},
            }}),
        );
        let mut args = vec!["--provider", provider, "--model", "m"];
        if !matches!(provider, "chat" | "resp") {
            args.extend(["--base-url", url.as_str(), "--api-key", "k"]);
        }
        args.push("hi");
        let r = json_turn(&env, &args).await;
        assert_eq!(r.code, 0, "{format:?}: {r:?}");
        let events = usage_events(&r.stdout);
        assert_eq!(events.len(), 1, "{format:?}: {}", r.stdout);
        let u = &events[0];
        assert_eq!(
            (&u["input"], &u["output"], &u["cache_read"]),
            (&json!(1000), &json!(500), &json!(2000)),
            "{format:?}: {u}"
        );
        assert!(close(&u["cost_usd"], expected), "{format:?}: {u}");
        assert_eq!(u["cost_known"], true, "{format:?}: {u}");
    }
}

/// A model list that carries prices (OpenRouter's `pricing`, dollars per
/// token) prices the models it lists once a login's key check or
/// discovery cached it; models.json still wins; a listed model without a
/// price costs 0 with `cost_known: false`.
#[tokio::test]
async fn discovered_prices_are_used_and_models_json_wins() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    write_models(
        &env,
        &json!({"providers": {"openrouter": {"baseUrl": server.openai_base_url(),
            "models": [{"id": "own/priced", "priceInput": 1, "priceOutput": 2}]}}}),
    );
    server.push(Script::json(
        200,
        json!({"data": [
            {"id": "live/priced", "pricing": {"prompt": "0.000003", "completion": "0.000015",
                "input_cache_read": "0.0000003", "input_cache_write": "0.00000375"}},
            {"id": "own/priced", "pricing": {"prompt": "0.00005", "completion": "0.00005"}},
            {"id": "live/unpriced"},
            {"id": "live/varies", "pricing": {"prompt": "-1", "completion": "-1"}}
        ]})
        .to_string(),
    ));
    // `zut auth login` checks the key with the list and caches it.
    let mut login = zut_cmd(&env, &["auth", "login", "openrouter"]);
    login
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = login.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"sk-or-test\n")
        .unwrap();
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let cache: Value =
        serde_json::from_str(&std::fs::read_to_string(env.home.join("models-cache.json")).unwrap())
            .unwrap();
    let models = &cache["providers"]["openrouter"]["models"];
    assert_eq!(models[0]["prices"]["input"], json!(3.0), "{cache}");
    assert!(models[2].get("prices").is_none(), "{cache}");

    let reply = || {
        Script::new(Body::Reply {
            format: Format::Openai,
            blocks: vec![Block::text("ok")],
            stop: None,
            usage: Usage {
                input: 1000,
                output: 500,
                cache_read: 2000,
                cache_write: 0,
                reasoning: None,
            },
            interleave: false,
        })
        .when("\"messages\"")
    };
    for (model, cost, known) in [
        (
            "live/priced",
            (1000.0 * 3.0 + 500.0 * 15.0 + 2000.0 * 0.3) / 1e6,
            true,
        ),
        ("own/priced", (1000.0 * 1.0 + 500.0 * 2.0) / 1e6, true),
        ("live/unpriced", 0.0, false),
        ("live/varies", 0.0, false),
    ] {
        server.push(reply());
        let r = json_turn(&env, &["--provider", "openrouter", "--model", model, "hi"]).await;
        assert_eq!(r.code, 0, "{model}: {r:?}");
        let u = &usage_events(&r.stdout)[0];
        assert!(close(&u["cost_usd"], cost), "{model}: {u}");
        assert_eq!(u["cost_known"], known, "{model}: {u}");
    }
    // `--list-models` shows the discovered price.
    let r = output_blocking({
        let mut c = zut_cmd(&env, &["--list-models"]);
        c.stdout(Stdio::piped()).stderr(Stdio::piped());
        c
    })
    .await;
    let line = r
        .stdout
        .lines()
        .find(|l| l.contains("live/priced"))
        .unwrap_or_default()
        .to_string();
    assert!(line.contains("3/15"), "{}", r.stdout);
}
