//! Shared rig for the agent's end-to-end tests: a real local LLM server, a
//! real extension host with real extension processes, the real loop.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;
use zut_agent::{Agent, AgentConfig, AgentEvent, PromptOutcome};
use zut_ext_host::{ui_channel, ExtensionHost, HostConfig, UiReceiver, ZutHome};
use zut_llm_server::LlmServer;
use zut_providers::{Part, Provider, ProviderOptions};
use zut_test_support::TestEnv;

/// A provider of `kind` (`anthropic` or `openai-compatible`) pointed at `server`.
pub fn provider(server: &LlmServer, kind: &str, home: &Path) -> Provider {
    let base = if kind == "anthropic" {
        server.url()
    } else {
        format!("{}/v1", server.url())
    };
    let opts = ProviderOptions {
        provider: Some(kind.to_string()),
        model: Some("test-model".into()),
        base_url: Some(base),
        api_key: Some("sk-test-secret".into()),
        ..Default::default()
    };
    let cfg = zut_providers::resolve(&opts, &|_| None, home).unwrap();
    Provider::new(cfg).unwrap()
}

/// Starts a host over `--ext` directories with short timeouts.
pub async fn start_host(env: &TestEnv, exts: &[PathBuf]) -> (Arc<ExtensionHost>, UiReceiver) {
    start_host_with(env, exts, |_| {}).await
}

/// Like [`start_host`], letting the test adjust the configuration.
pub async fn start_host_with(
    env: &TestEnv,
    exts: &[PathBuf],
    adjust: impl FnOnce(&mut HostConfig),
) -> (Arc<ExtensionHost>, UiReceiver) {
    let mut cfg = HostConfig::new(ZutHome::new(&env.home), &env.project);
    cfg.ext_paths = exts.to_vec();
    cfg.no_ext = true;
    cfg.builtin_tools = zut_tools::BUILTIN_NAMES
        .iter()
        .map(|s| s.to_string())
        .collect();
    cfg.timeouts.tool = Duration::from_secs(3);
    cfg.timeouts.intercept = Duration::from_secs(2);
    cfg.timeouts.shutdown_grace = Duration::from_millis(500);
    adjust(&mut cfg);
    let (tx, rx) = ui_channel();
    let (host, report) = ExtensionHost::start(cfg, tx).await;
    assert!(report.errors.is_empty(), "load errors: {:?}", report.errors);
    (Arc::new(host), rx)
}

/// An agent over `server` working in the env's project.
pub fn agent(
    env: &TestEnv,
    server: &LlmServer,
    kind: &str,
    host: Option<Arc<ExtensionHost>>,
) -> Agent {
    let cfg = AgentConfig::new(&env.project, &env.home);
    Agent::new(provider(server, kind, &env.home), host, cfg)
}

/// Runs one prompt; returns the outcome and every event as JSON.
pub async fn run(agent: &mut Agent, text: &str) -> (PromptOutcome, Vec<Value>) {
    run_with(agent, text, &CancellationToken::new()).await
}

/// Runs one prompt with `cancel`.
pub async fn run_with(
    agent: &mut Agent,
    text: &str,
    cancel: &CancellationToken,
) -> (PromptOutcome, Vec<Value>) {
    let mut events = Vec::new();
    let mut sink =
        |ev: AgentEvent| events.push(serde_json::from_str::<Value>(&ev.to_json()).unwrap());
    let outcome = agent
        .prompt(vec![Part::Text { text: text.into() }], cancel, &mut sink)
        .await;
    (outcome, events)
}

/// The `type`s of `events`, in order.
pub fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap_or("").to_string())
        .collect()
}

/// Events of one type.
pub fn of_type<'a>(events: &'a [Value], t: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == t).collect()
}

/// A Python extension speaking protocol v2: `register` is a list of frames
/// sent after `hello_ack`; `on_tool`, `on_intercept` and `on_event` are
/// Python statements run with `msg` bound (use `emit({...})`).
pub fn py_ext(
    dir: &Path,
    name: &str,
    register: &[Value],
    on_tool: &str,
    on_intercept: &str,
    on_event: &str,
) -> PathBuf {
    let register = serde_json::to_string(register).unwrap();
    let body = format!(
        r#"import json, sys
def emit(o):
    sys.stdout.write(json.dumps(o) + "\n")
    sys.stdout.flush()
emit({{"type": "hello", "protocol_version": 2, "name": {name:?}, "version": "1.0.0"}})
for line in sys.stdin:
    msg = json.loads(line)
    t = msg.get("type")
    if t == "hello_ack":
        for f in json.loads({register:?}):
            emit(f)
        emit({{"type": "ready"}})
    elif t == "tool_call":
{on_tool}
    elif t == "event_intercept":
{on_intercept}
    elif t == "event":
{on_event}
    elif t == "shutdown":
        emit({{"type": "shutdown_ack"}})
        break
"#,
        on_tool = indent(on_tool),
        on_intercept = indent(on_intercept),
        on_event = indent(on_event),
    );
    zut_test_support::python_extension(dir, name, &body)
}

fn indent(code: &str) -> String {
    let code = if code.trim().is_empty() { "pass" } else { code };
    code.lines().map(|l| format!("        {l}\n")).collect()
}

/// The text of the tool_result parts in a recorded Anthropic request.
pub fn anthropic_tool_results(body: &Value) -> Vec<(String, bool, String)> {
    let mut out = Vec::new();
    for m in body["messages"].as_array().into_iter().flatten() {
        for c in m["content"].as_array().into_iter().flatten() {
            if c["type"] == "tool_result" {
                let text = match &c["content"] {
                    Value::String(s) => s.clone(),
                    Value::Array(a) => a
                        .iter()
                        .filter_map(|b| b["text"].as_str())
                        .collect::<Vec<_>>()
                        .join(""),
                    _ => String::new(),
                };
                out.push((
                    c["tool_use_id"].as_str().unwrap_or("").to_string(),
                    c["is_error"].as_bool().unwrap_or(false),
                    text,
                ));
            }
        }
    }
    out
}

/// Tool names offered in a recorded request (either wire format).
pub fn offered_tools(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            t["name"]
                .as_str()
                .or_else(|| t["function"]["name"].as_str())
        })
        .map(str::to_string)
        .collect()
}

/// A scratch directory next to the env's home and project.
pub fn scratch(env: &TestEnv) -> PathBuf {
    env.home.parent().unwrap().join("scratch")
}

/// Python statements (for [`py_ext`]'s `on_event`) appending each event
/// frame to `<dir>/events.jsonl`.
pub fn log_event_to(dir: &Path) -> String {
    format!(
        "with open({:?}, 'a') as f:\n    f.write(json.dumps(msg) + '\\n')",
        dir.join("events.jsonl").display().to_string()
    )
}

/// The event frames logged by [`log_event_to`] once there are `n` of them
/// (waits up to 5 s).
pub async fn logged_events(dir: &Path, n: usize) -> Vec<Value> {
    for _ in 0..200 {
        let text = std::fs::read_to_string(dir.join("events.jsonl")).unwrap_or_default();
        let v: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        if v.len() >= n {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("fewer than {n} events arrived");
}
