//! Keys end to end (issue 20 item 5): `zut auth login|list|logout` against
//! the local LLM server's model list, `api_key_command` with real programs
//! through the real `zut` binary, concurrent saves from several processes,
//! and a broken `auth.json` that is never overwritten.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::Write as _;
use std::process::Stdio;

use common::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};

const MODELS: &str =
    r#"{"data":[{"id":"test-model","type":"model"},{"id":"other"}],"has_more":false}"#;

/// `zut auth <args>` with `key` on standard input, on a blocking thread.
async fn auth(env: &TestEnv, args: &[&str], key: &str) -> Run {
    let mut cmd = zut_cmd(env, &["auth"]);
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let key = key.to_string();
    tokio::task::spawn_blocking(move || {
        let mut child = cmd.spawn().unwrap();
        let _ = child.stdin.take().unwrap().write_all(key.as_bytes());
        Run::from(child.wait_with_output().unwrap())
    })
    .await
    .unwrap()
}

fn auth_json(env: &TestEnv) -> Value {
    serde_json::from_str(&std::fs::read_to_string(env.home.join("auth.json")).unwrap()).unwrap()
}

/// `-p` against the server with no `--api-key`: the key must come from
/// auth.json (or its command).
async fn print_run(env: &TestEnv, server: &LlmServer, provider: &str, base: &str) -> Run {
    let mut cmd = zut_cmd(env, &[]);
    cmd.args([
        "--provider",
        provider,
        "--base-url",
        base,
        "--model",
        "test-model",
    ])
    .args(["--no-session", "-p", "hi"])
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let _ = server;
    output_blocking(cmd).await
}

#[tokio::test]
async fn login_probes_saves_0600_and_the_key_is_used_then_logout() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::json(200, MODELS));
    let url = server.url();
    let r = auth(
        &env,
        &["login", "anthropic", "--base-url", &url],
        "sk-ant-good\n",
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stdout.contains("saved the key for anthropic"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("2 models"), "{}", r.stdout);
    assert!(!r.stdout.contains("sk-ant-good") && !r.stderr.contains("sk-ant-good"));
    let probe = &server.requests()[0];
    assert_eq!(probe.method, "GET");
    assert!(probe.path.starts_with("/v1/models"), "{}", probe.path);
    assert_eq!(probe.header("x-api-key"), Some("sk-ant-good"));
    assert_eq!(mode(&env.home.join("auth.json")), 0o600);
    assert_eq!(auth_json(&env)["anthropic"]["api_key"], "sk-ant-good");

    let r = zut(&env, &["auth", "list"]);
    assert_eq!(r.code, 0, "{r:?}");
    let line = r
        .stdout
        .lines()
        .find(|l| l.starts_with("anthropic "))
        .unwrap();
    assert!(line.contains("auth.json"), "{line}");
    assert!(!r.stdout.contains("sk-ant-good"));
    let r = zut(&env, &["auth", "list", "--json"]);
    let rows: Value = serde_json::from_str(r.stdout.trim()).unwrap();
    let row = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["provider"] == "anthropic")
        .unwrap();
    assert_eq!(row["ready"], true);
    assert_eq!(row["source"], "auth.json");

    server.push(Script::anthropic_text("hello from the stored key"));
    let r = print_run(&env, &server, "anthropic", &url).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("hello from the stored key"));
    assert_eq!(
        server.requests()[1].header("x-api-key"),
        Some("sk-ant-good")
    );

    let r = zut(&env, &["auth", "logout", "anthropic"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stdout.contains("removed the key for anthropic"),
        "{}",
        r.stdout
    );
    assert!(auth_json(&env).get("anthropic").is_none());
    let r = zut(&env, &["auth", "logout", "anthropic"]);
    assert!(r.stdout.contains("no key stored"), "{}", r.stdout);
}

#[tokio::test]
async fn a_rejected_key_is_not_saved() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::json(
        401,
        r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#,
    ));
    let base = server.openai_base_url();
    let r = auth(
        &env,
        &["login", "openrouter", "--base-url", &base],
        "sk-or-bad\n",
    )
    .await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("openrouter rejected the key"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("nothing saved"), "{}", r.stderr);
    assert!(!r.stderr.contains("sk-or-bad"), "{}", r.stderr);
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer sk-or-bad")
    );
    assert!(server.requests()[0].path.ends_with("/v1/models"));
    assert!(!env.home.join("auth.json").exists());
    // An HTML page (a captive portal) is not a model list: not saved either.
    server.push(Script::raw_sse("<html>sign in</html>").with_status(200));
    let r = auth(
        &env,
        &["login", "openrouter", "--base-url", &base],
        "sk-or-x\n",
    )
    .await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stderr.contains("not JSON"), "{}", r.stderr);
    assert!(!env.home.join("auth.json").exists());
    // No key, an unknown provider: clear errors.
    let r = auth(&env, &["login", "openrouter", "--no-probe"], "\n").await;
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("no key on standard input"),
        "{}",
        r.stderr
    );
    let r = auth(&env, &["login", "nosuch", "--no-probe"], "k\n").await;
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("unknown provider \"nosuch\""),
        "{}",
        r.stderr
    );
}

#[tokio::test]
async fn concurrent_logins_from_processes_lose_nothing() {
    let env = TestEnv::new();
    let providers = [
        "anthropic",
        "openai",
        "openrouter",
        "groq",
        "deepseek",
        "mistral",
        "xai",
        "cerebras",
    ];
    let mut children = Vec::new();
    for p in providers {
        let mut cmd = zut_cmd(&env, &["auth", "login", p, "--no-probe"]);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        children.push((p, cmd.spawn().unwrap()));
    }
    // Feed every key at once so the saves overlap.
    for (p, child) in &mut children {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(format!("key-{p}\n").as_bytes())
            .unwrap();
    }
    for (p, child) in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{p}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let v = auth_json(&env);
    for p in providers {
        let entry = v.get(p).or_else(|| v["additional_api_key_creds"].get(p));
        assert_eq!(entry.unwrap()["api_key"], format!("key-{p}"), "{v}");
    }
    // The Go original's layout: dedicated providers at the top level.
    assert!(v.get("anthropic").is_some() && v.get("openai").is_some());
    assert!(v["additional_api_key_creds"].get("groq").is_some());
}

#[tokio::test]
async fn a_broken_auth_json_is_a_clear_error_and_never_overwritten() {
    let env = TestEnv::new();
    let path = env.home.join("auth.json");
    let text = "{\"anthropic\": {\"api_key\": \"sk-half-writ";
    std::fs::write(&path, text).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    let r = auth(&env, &["login", "openai", "--no-probe"], "sk-new\n").await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("auth.json is not valid JSON"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("sk-half"), "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    let r = zut(&env, &["auth", "list"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("not valid JSON"), "{}", r.stderr);
    let r = zut(&env, &["auth", "logout", "anthropic"]);
    assert_eq!(r.code, 1);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

fn write_auth(env: &TestEnv, v: &Value) {
    let path = env.home.join("auth.json");
    std::fs::write(&path, v.to_string()).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

#[tokio::test]
async fn api_key_command_feeds_the_key_and_failures_are_clear() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let bin = env.home.join("bin");
    let helper = write_executable(
        &bin,
        "key-helper",
        "#!/bin/sh\n[ \"$1\" = read ] || exit 9\necho \"sk-from-helper-$2\"\necho 'extra: line'\n",
    );
    let failing = write_executable(&bin, "bad-helper", "#!/bin/sh\necho sk-leaky\nexit 4\n");
    let hanging = write_executable(&bin, "slow-helper", "#!/bin/sh\nsleep 30\necho sk-late\n");
    write_auth(
        &env,
        &json!({
            "anthropic": {"api_key_command": {"program": helper, "args": ["read", "ant"]}},
            "additional_api_key_creds": {
                "my-company": {"api_key_command": {"program": helper, "args": ["read", "co"]}},
                "openrouter": {"api_key_command": {"program": failing}},
                "groq": {"api_key_command": {"program": hanging, "timeout_ms": 300}}
            }
        }),
    );
    std::fs::write(
        env.home.join("models.json"),
        json!({"providers": {"my-company": {"baseUrl": server.openai_base_url(), "api": "openai",
            "models": [{"id": "test-model"}]}}})
        .to_string(),
    )
    .unwrap();
    server.push(Script::anthropic_text("via the command"));
    let r = print_run(&env, &server, "anthropic", &server.url()).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("via the command"));
    assert_eq!(
        server.requests()[0].header("x-api-key"),
        Some("sk-from-helper-ant")
    );

    // A models.json provider's key from additional_api_key_creds.
    server.push(Script::openai_text("custom provider"));
    let mut cmd = zut_cmd(
        &env,
        &["--provider", "my-company", "--no-session", "-p", "hi"],
    );
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let r = output_blocking(cmd).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(
        server.requests()[1].header("authorization"),
        Some("Bearer sk-from-helper-co")
    );

    let r = zut(&env, &["auth", "list"]);
    let line = r
        .stdout
        .lines()
        .find(|l| l.starts_with("my-company "))
        .unwrap();
    assert!(line.contains("auth.json command"), "{line}");

    // Exits non-zero: clear error naming the file and provider, no key.
    let r = print_run(&env, &server, "openrouter", &server.openai_base_url()).await;
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("auth.json"), "{}", r.stderr);
    assert!(r.stderr.contains("exited with status 4"), "{}", r.stderr);
    assert!(!r.stderr.contains("sk-leaky") && !r.stdout.contains("sk-leaky"));
    // Hangs: killed at its timeout.
    let t = std::time::Instant::now();
    let r = print_run(&env, &server, "groq", &server.openai_base_url()).await;
    assert_ne!(r.code, 0);
    assert!(
        t.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        t.elapsed()
    );
    assert!(
        r.stderr.contains("did not finish within 300 ms"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("sk-late"));
    // No model request was sent for the failing providers.
    assert_eq!(server.request_count(), 2);
    // Nothing of the keys was written anywhere under ZUT_HOME but auth.json's
    // own command description.
    for f in walk(&env.home) {
        if f.ends_with("auth.json") || f.starts_with(&bin) {
            continue;
        }
        let text = std::fs::read(&f).unwrap_or_default();
        let text = String::from_utf8_lossy(&text);
        assert!(
            !text.contains("sk-from-helper"),
            "key written to {}",
            f.display()
        );
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// `zut auth login openrouter --oauth` against a local stand-in for
/// OpenRouter's key exchange: the printed URL carries an S256 challenge
/// and a localhost callback; the "browser" (this test) follows the
/// callback with a code; zut exchanges code + verifier and saves the key.
#[tokio::test]
async fn openrouter_oauth_pkce_saves_the_exchanged_key() {
    use std::io::{BufRead as _, BufReader, Read as _};
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::json(
        200,
        r#"{"key":"sk-or-v1-from-oauth","user_id":"u1"}"#,
    ));
    let mut cmd = zut_cmd(&env, &["auth", "login", "openrouter", "--oauth"]);
    cmd.env("ZUT_OPENROUTER_AUTH_URL", server.url())
        .env("ZUT_OAUTH_TIMEOUT_SECS", "20")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (url, rest) = tokio::task::spawn_blocking(move || {
        let mut lines = BufReader::new(stderr).lines();
        let url = loop {
            let l = lines.next().unwrap().unwrap();
            if l.contains("/auth?callback_url=") {
                break l;
            }
        };
        (url, lines)
    })
    .await
    .unwrap();
    assert!(url.starts_with(&format!("{}/auth?", server.url())), "{url}");
    assert!(url.contains("code_challenge_method=S256"), "{url}");
    let challenge = url
        .split("code_challenge=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap()
        .to_string();
    let port: u16 = url
        .split("localhost%3A")
        .nth(1)
        .unwrap()
        .split('%')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    // The browser: a stray favicon request first, then the redirect.
    let get = move |path: &str| {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(s, "GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out
    };
    let page = tokio::task::spawn_blocking(move || {
        assert!(get("/favicon.ico").starts_with("HTTP/1.1 404"));
        get("/callback?code=the-code-42")
    })
    .await
    .unwrap();
    assert!(page.contains("zut is authorized"), "{page}");
    let out = tokio::task::spawn_blocking(move || {
        drop(rest);
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("saved the key for openrouter"), "{stdout}");
    assert!(!stdout.contains("sk-or-v1-from-oauth"));
    let req = &server.requests()[0];
    assert_eq!(req.method, "POST");
    assert_eq!(req.path, "/api/v1/auth/keys");
    assert_eq!(req.body["code"], "the-code-42");
    assert_eq!(req.body["code_challenge_method"], "S256");
    let verifier = req.body["code_verifier"].as_str().unwrap();
    assert_eq!(
        zut_providers::oauth_openrouter::challenge(verifier),
        challenge
    );
    // No other application's identity: zut's own user agent only.
    assert!(req.header("user-agent").unwrap().starts_with("zut/"));
    let saved = auth_json(&env);
    assert_eq!(
        saved["additional_api_key_creds"]["openrouter"]["api_key"],
        "sk-or-v1-from-oauth"
    );
    assert_eq!(mode(&env.home.join("auth.json")), 0o600);
    // Only OpenRouter offers it.
    let r = zut(&env, &["auth", "login", "openai", "--oauth"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("--oauth is offered for openrouter only"),
        "{}",
        r.stderr
    );
}
