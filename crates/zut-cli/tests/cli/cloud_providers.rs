//! `zut -p` over the Gemini and Bedrock wires: the real binary, keys from
//! the environment as users set them, a real local LLM server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::Stdio;

use common::*;
use zut_llm_server::{Block, Format, LlmServer, Script};

const CLEARED: &[&str] = &[
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_CLOUD_API_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "ZUT_PROVIDER",
    "ZUT_MODEL",
];

async fn zut_p(env: &TestEnv, args: &[&str], vars: &[(&str, &str)]) -> Run {
    let mut cmd = zut_cmd(env, &["--no-ext"]);
    for name in CLEARED {
        cmd.env_remove(name);
    }
    cmd.env("HOME", &env.home)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    tokio::task::spawn_blocking(move || Run::from(cmd.output().unwrap()))
        .await
        .unwrap()
}

#[tokio::test]
async fn gemini_tool_loop_with_gemini_api_key_and_base_url() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::reply(
        Format::Gemini,
        vec![Block::tool_call(
            "",
            "write",
            r#"{"path":"out.txt","content":"from gemini\n"}"#,
        )],
    ));
    server.push(Script::gemini_text("Wrote it."));
    let url = server.url();
    let r = zut_p(
        &env,
        &[
            "--provider",
            "google",
            "--base-url",
            &url,
            "--model",
            "gemini-2.5-flash",
            "-p",
            "write out.txt",
        ],
        &[("GEMINI_API_KEY", "gm-cli-key-1")],
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout, "Wrote it.\n");
    assert_eq!(
        std::fs::read_to_string(env.project.join("out.txt")).unwrap(),
        "from gemini\n"
    );
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(
        reqs[0].path,
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    assert_eq!(reqs[0].header("x-goog-api-key"), Some("gm-cli-key-1"));
    assert!(reqs[1].raw_body.contains("functionResponse"));
}

#[tokio::test]
async fn bedrock_sigv4_reply_and_clock_skew_error() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::bedrock_text("Hi from Bedrock."));
    server.push(Script::bedrock_error(
        403,
        "InvalidSignatureException",
        "Signature not yet current: 20300101T000000Z is still later than 20260101T000500Z (20260101T000000Z + 5 min.)",
    ));
    let url = server.url();
    let vars = [
        ("AWS_ACCESS_KEY_ID", "AKIACLITEST"),
        ("AWS_SECRET_ACCESS_KEY", "cli-secret-key-value"),
        ("AWS_REGION", "eu-west-1"),
    ];
    let args = ["--provider", "bedrock", "--base-url", &url, "-p", "hi"];
    let r = zut_p(&env, &args, &vars).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout, "Hi from Bedrock.\n");
    let req = &server.requests()[0];
    assert_eq!(
        req.path,
        "/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"
    );
    let auth = req.header("authorization").unwrap();
    assert!(
        auth.contains("Credential=AKIACLITEST/")
            && auth.contains("/eu-west-1/bedrock/aws4_request"),
        "{auth}"
    );

    let r = zut_p(&env, &args, &vars).await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr
            .contains("amazon-bedrock: HTTP 403: Signature not yet current"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("clock is off"), "{}", r.stderr);
    assert!(!r.stderr.contains("cli-secret-key-value"));

    // No credentials at all: a configuration error naming the variables.
    let r = zut_p(&env, &args, &[]).await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("AWS_BEARER_TOKEN_BEDROCK"),
        "{}",
        r.stderr
    );
}
