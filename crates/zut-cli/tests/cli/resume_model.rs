//! Resuming a session restores the provider and model it last used (issue
//! 20 item 4): the last `meta` row of the file wins, `--provider`/`--model`
//! win over it, and a stored provider without a key leaves the run's own
//! with a warning. The real `zut` binary against the local LLM server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::Write as _;
use std::process::Stdio;

use common::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};

fn session_file(env: &TestEnv) -> std::path::PathBuf {
    let mut stack = vec![env.home.join("sessions")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                return p;
            }
        }
    }
    panic!("no session file");
}

/// Appends a `meta` row naming `provider`/`model` (what a switch writes).
fn switch_in_file(env: &TestEnv, provider: &str, model: &str) {
    let path = session_file(env);
    let text = std::fs::read_to_string(&path).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let mut meta = first["meta"].clone();
    meta["provider"] = json!(provider);
    meta["model"] = json!(model);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    let sep = if text.ends_with('\n') { "" } else { "\n" };
    writeln!(f, "{sep}{}", json!({"type": "meta", "meta": meta})).unwrap();
}

async fn continue_run(env: &TestEnv, extra: &[&str]) -> Run {
    let mut cmd = zut_cmd(env, &[]);
    cmd.args(extra)
        .args(["-c", "-p", "go on"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    output_blocking(cmd).await
}

#[tokio::test]
async fn a_resumed_session_goes_on_with_its_last_model() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    // The first run: anthropic through flags.
    server.push(Script::anthropic_text("first"));
    let r = output_blocking(llm_cmd(&env, &server.url(), &["-p", "remember kiwi"])).await;
    assert_eq!(r.code, 0, "{r:?}");
    // openai is reachable with a stored key; the file says the session
    // switched to gpt-5-mini.
    std::fs::write(
        env.home.join("models.json"),
        json!({"providers": {"openai": {"baseUrl": server.openai_base_url()}}}).to_string(),
    )
    .unwrap();
    let auth = env.home.join("auth.json");
    std::fs::write(&auth, json!({"openai": {"api_key": "sk-oa"}}).to_string()).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&auth, std::fs::Permissions::from_mode(0o600)).unwrap();
    switch_in_file(&env, "openai", "gpt-5-mini");

    server.push(Script::openai_text("second"));
    let r = continue_run(&env, &[]).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("second"));
    let req = server.requests().into_iter().last().unwrap();
    assert_eq!(req.body["model"], "gpt-5-mini", "{}", req.body);
    assert!(req.body.to_string().contains("remember kiwi"));
    assert_eq!(req.header("authorization"), Some("Bearer sk-oa"));

    // --model chooses for this run.
    server.push(Script::openai_text("third"));
    let r = continue_run(&env, &["--model", "gpt-4.1"]).await;
    assert_eq!(r.code, 0, "{r:?}");
    let req = server.requests().into_iter().last().unwrap();
    assert_eq!(req.body["model"], "gpt-4.1");

    // A stored provider without a key: a warning, the run's own model.
    switch_in_file(&env, "groq", "llama-3.3-70b-versatile");
    server.push(Script::openai_text("fourth"));
    let r = continue_run(&env, &[]).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stderr
            .contains("the session last used groq/llama-3.3-70b-versatile, not available now")
            && r.stderr.contains("no API key for provider groq"),
        "{}",
        r.stderr
    );
    let req = server.requests().into_iter().last().unwrap();
    assert_eq!(req.body["model"], "gpt-5");
}
