//! `config.json`, `models.json`, environment and flags end to end: the real
//! `zut` binary against a real local LLM server (docs/config.md).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::Stdio;

use common::*;
use zut_llm_server::{LlmServer, Script};

fn cmd(env: &TestEnv, args: &[&str]) -> std::process::Command {
    let mut c = zut_cmd(env, args);
    for var in [
        "ZUT_PROVIDER",
        "ZUT_MODEL",
        "ANTHROPIC_BASE_URL",
        "OPENAI_BASE_URL",
        "MY_COMPANY_API_KEY",
        "OPENROUTER_API_KEY",
        "GROQ_API_KEY",
        "DEEPSEEK_API_KEY",
    ] {
        c.env_remove(var);
    }
    c.args(["--no-ext", "--no-session", "--no-skill"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

async fn run(mut c: std::process::Command) -> Run {
    tokio::task::spawn_blocking(move || Run::from(c.output().unwrap()))
        .await
        .unwrap()
}

fn write(env: &TestEnv, file: &str, text: &str) {
    std::fs::write(env.home.join(file), text).unwrap();
}

fn models_json(server: &LlmServer) -> String {
    format!(
        r#"{{"providers": {{"my-company": {{"baseUrl": "{}", "api": "openai",
             "models": [{{"id": "company-llm", "contextWindow": 32000, "maxTokens": 1000}},
                        {{"id": "other"}}]}},
           "resp": {{"baseUrl": "{}", "api": "openai-responses", "models": [{{"id": "r1"}}]}}}}}}"#,
        server.openai_base_url(),
        server.openai_base_url()
    )
}

#[tokio::test]
async fn no_flags_reach_a_custom_provider_from_models_and_config() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::openai_text("from my company"));
    write(&env, "models.json", &models_json(&server));
    write(
        &env,
        "config.json",
        r#"{"provider": "my-company", "temperature": 0.25, "theme": "dark", "lsp_enabled": true}"#,
    );
    let mut c = cmd(&env, &["-p", "hi"]);
    c.env("MY_COMPANY_API_KEY", "sk-company");
    let r = run(c).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout, "from my company\n");
    let req = &server.requests()[0];
    assert_eq!(req.path, "/v1/chat/completions");
    assert_eq!(req.body["model"], "company-llm");
    assert_eq!(
        req.body["max_tokens"], 1000,
        "models.json maxTokens caps output"
    );
    assert_eq!(req.body["temperature"], 0.25);
    assert_eq!(req.header("authorization"), Some("Bearer sk-company"));
}

#[tokio::test]
async fn flag_beats_environment_beats_file() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    for _ in 0..3 {
        server.push(Script::openai_text("ok"));
    }
    write(&env, "models.json", &models_json(&server));
    write(
        &env,
        "config.json",
        r#"{"provider": "my-company", "model": "from-file"}"#,
    );
    let model_of = |i: usize| server.requests()[i].body["model"].clone();
    let r = run(cmd(&env, &["-p", "hi"])).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(model_of(0), "from-file");
    let mut c = cmd(&env, &["-p", "hi"]);
    c.env("ZUT_MODEL", "from-env");
    assert_eq!(run(c).await.code, 0);
    assert_eq!(model_of(1), "from-env");
    let mut c = cmd(
        &env,
        &["--model", "from-flag", "--temperature", "1.5", "-p", "hi"],
    );
    c.env("ZUT_MODEL", "from-env");
    assert_eq!(run(c).await.code, 0);
    assert_eq!(model_of(2), "from-flag");
    assert_eq!(server.requests()[2].body["temperature"], 1.5);

    // `zut config` (global flags only) says where each value came from.
    let mut c = zut_cmd(&env, &["config"]);
    c.env("ZUT_MODEL", "from-env")
        .env_remove("ZUT_PROVIDER")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let r = run(c).await;
    assert_eq!(r.code, 0, "{r:?}");
    let config = env.home.join("config.json");
    let models = env.home.join("models.json");
    for want in [
        format!(
            "provider        my-company  [file {} (provider)]",
            config.display()
        ),
        "model           from-env  [environment ZUT_MODEL]".to_string(),
        format!(
            "base url        {}  [file {} (providers.my-company.baseUrl)]",
            server.openai_base_url(),
            models.display()
        ),
        "theme           auto  [default]".to_string(),
        "temperature     default  [default (the provider's)]".to_string(),
    ] {
        assert!(r.stdout.contains(&want), "want {want:?} in\n{}", r.stdout);
    }
    assert!(
        !r.stdout.contains("not supported"),
        "the Responses wire is supported: {}",
        r.stdout
    );
}

#[tokio::test]
async fn environment_base_url_reaches_a_preset() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("proxied"));
    let mut c = cmd(
        &env,
        &["--provider", "anthropic", "--api-key", "k", "-p", "hi"],
    );
    c.env("ANTHROPIC_BASE_URL", server.url());
    let r = run(c).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout, "proxied\n");
    // --base-url beats the environment.
    let flagged = LlmServer::start().await.unwrap();
    flagged.push(Script::anthropic_text("direct"));
    let url = flagged.url();
    let mut c = cmd(
        &env,
        &[
            "--provider",
            "anthropic",
            "--api-key",
            "k",
            "--base-url",
            &url,
            "-p",
            "hi",
        ],
    );
    c.env("ANTHROPIC_BASE_URL", server.url());
    let r = run(c).await;
    assert_eq!(r.stdout, "direct\n", "{r:?}");
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn bad_files_fail_clearly_and_send_nothing() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "config.json",
            "{\"provider\": ".into(),
            "config.json: not valid JSON",
        ),
        (
            "config.json",
            r#"{"temperature": "warm"}"#.into(),
            "config.json: temperature: expected a number, found a string",
        ),
        (
            "models.json",
            "[]".into(),
            "models.json: expected a JSON object at the top",
        ),
        (
            "models.json",
            r#"{"providers": {"x": {"baseUrl": "http://127.0.0.1:1", "api": "soap"}}}"#.into(),
            "models.json: providers.x.api: unknown api \"soap\"",
        ),
        (
            "models.json",
            r#"{"providers": {"x": {"api": "openai", "models": [{"id": "m"}]}}}"#.into(),
            "models.json: providers.x.baseUrl: custom provider \"x\" has no baseUrl",
        ),
    ];
    for (file, text, want) in cases {
        let _ = std::fs::remove_file(env.home.join("config.json"));
        let _ = std::fs::remove_file(env.home.join("models.json"));
        write(&env, file, &text);
        let r = run(cmd(
            &env,
            &[
                "--api-key",
                "k",
                "--provider",
                "anthropic",
                "--base-url",
                &server.url(),
                "-p",
                "hi",
            ],
        ))
        .await;
        assert_eq!(r.code, 1, "{file} {text}: {r:?}");
        assert!(
            r.stderr
                .contains(&env.home.join(file).display().to_string()),
            "{r:?}"
        );
        assert!(r.stderr.contains(want), "want {want:?}: {r:?}");
    }
    assert_eq!(server.request_count(), 0);
    // A custom provider on the Responses wire.
    let _ = std::fs::remove_file(env.home.join("config.json"));
    write(&env, "models.json", &models_json(&server));
    server.push(Script::responses_text("from the Responses API"));
    let r = run(cmd(&env, &["--provider", "resp", "-p", "hi"])).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("from the Responses API"), "{r:?}");
    assert_eq!(server.request_count(), 1);
    let sent = server.requests().pop().unwrap();
    assert_eq!(sent.path, "/v1/responses");
    assert_eq!(sent.body["model"], "r1");
    assert_eq!(sent.body["store"], false);
    let r = run(cmd(&env, &["--temperature", "hot", "-p", "hi"])).await;
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("--temperature \"hot\": expected a number from 0 to 2"),
        "{r:?}"
    );
}

#[tokio::test]
async fn list_models_shows_presets_and_custom_models() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    write(&env, "models.json", &models_json(&server));
    let r = run(cmd(&env, &["--list-models"])).await;
    assert_eq!(r.code, 0, "{r:?}");
    let line = |p: &str, m: &str| {
        r.stdout
            .lines()
            .find(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                w.len() >= 2 && w[0] == p && w[1] == m
            })
            .unwrap_or_else(|| panic!("no {p} {m} in\n{}", r.stdout))
            .to_string()
    };
    assert!(
        line("anthropic", "claude-sonnet-4-5").contains("200000"),
        "{}",
        r.stdout
    );
    assert!(line("anthropic", "claude-sonnet-4-5").contains("preset, default"));
    assert!(line("my-company", "company-llm").contains("32000"));
    assert!(line("my-company", "company-llm").contains("models.json, openai"));
    assert!(line("my-company", "other").contains(" - "));
    assert!(line("resp", "r1").contains("models.json, openai-responses"));
}
