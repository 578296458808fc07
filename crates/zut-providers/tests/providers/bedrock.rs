//! The Bedrock wire (`amazon-bedrock`): Converse-Stream over binary event
//! streams, SigV4 or bearer authentication, against a local zut-llm-server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use serde_json::json;
use zut_llm_server::{Block, EventFrame, Format, LlmServer, Script, Usage};
use zut_providers::{
    resolve, BedrockCredentials, CloudAuth, Message, Part, Provider, ProviderConfig, ProviderError,
    ProviderOptions, Reasoning, Role, StopReason, StreamEvent,
};

const MODEL: &str = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";

fn keys() -> BedrockCredentials {
    BedrockCredentials::Keys {
        access_key_id: "AKIDEXAMPLE".into(),
        secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
        session_token: None,
    }
}

fn bedrock(server: &LlmServer, credentials: BedrockCredentials) -> Provider {
    let config = ProviderConfig::new("amazon-bedrock", &server.url(), None, MODEL)
        .unwrap()
        .with_retry(fast_retry(3))
        .with_cloud(CloudAuth::bedrock(
            credentials,
            "us-west-2",
            "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY",
        ));
    Provider::new(config).unwrap()
}

#[tokio::test]
async fn plain_reply_signed_with_sigv4_and_usage_with_cache() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::bedrock_text("Hello from Bedrock — ünïcode")
            .delta_bytes(5)
            .chunk_bytes(7)
            .usage(Usage {
                input: 20,
                output: 9,
                cache_read: 300,
                cache_write: 50,
                reasoning: None,
            }),
    );
    let provider = bedrock(&server, keys());
    let (result, events) = run(&provider, &request("hi")).await;
    let done = result.unwrap();
    assert_eq!(text_of(&events), "Hello from Bedrock — ünïcode");
    assert_eq!(done.message.text(), "Hello from Bedrock — ünïcode");
    assert_eq!(done.stop, StopReason::EndTurn);
    assert_eq!(
        (
            done.usage.input,
            done.usage.output,
            done.usage.cache_read,
            done.usage.cache_write
        ),
        (20, 9, 300, 50)
    );
    let r = &server.requests()[0];
    assert_eq!(
        r.path,
        "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"
    );
    let auth = r.header("authorization").unwrap();
    assert!(
        auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
            && auth.contains("/us-west-2/bedrock/aws4_request")
            && auth.contains("SignedHeaders=content-type;host;x-amz-date, Signature="),
        "{auth}"
    );
    assert!(r.header("x-amz-date").is_some());
    assert_eq!(
        r.header("accept"),
        Some("application/vnd.amazon.eventstream")
    );
    assert_eq!(r.body["system"][0]["text"], "You are a test.");
    assert_eq!(
        r.body["system"][1],
        json!({"cachePoint": {"type": "default"}})
    );
    assert_eq!(
        r.body["messages"],
        json!([{"role": "user", "content": [{"text": "hi"}]}])
    );
    assert_eq!(r.body["inferenceConfig"]["maxTokens"], 1024);
}

#[tokio::test]
async fn two_step_tool_loop_with_signed_reasoning_carried_back() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::reply(
            Format::Bedrock,
            vec![
                Block::thinking("I need a.txt", "SIG-BEDROCK"),
                Block::text("Reading."),
                Block::tool_call("tooluse_1", "read", r#"{"path": "a.txt"}"#),
            ],
        )
        .delta_bytes(3),
    );
    server.push(Script::bedrock_text("It says hello."));
    let provider = bedrock(
        &server,
        BedrockCredentials::Bearer("bedrock-api-key-xyz".into()),
    );
    let mut req = request("read a.txt");
    req.tools = vec![read_tool()];
    req.reasoning = Reasoning::Medium;
    let (first, events) = run(&provider, &req).await;
    let first = first.unwrap();
    assert_eq!(first.stop, StopReason::ToolUse);
    assert_eq!(thinking_of(&events), "I need a.txt");
    assert_eq!(args_of(&events, "tooluse_1"), r#"{"path": "a.txt"}"#);
    assert_eq!(
        shape(&events),
        vec![
            "start#1",
            "assistant",
            "thinking",
            "text",
            "tool_start:tooluse_1:read",
            "args:tooluse_1",
            "tool_end:tooluse_1"
        ]
    );
    let r = &server.requests()[0];
    assert_eq!(
        r.header("authorization"),
        Some("Bearer bedrock-api-key-xyz")
    );
    assert_eq!(
        r.body["additionalModelRequestFields"],
        json!({"thinking": {"type": "enabled", "budget_tokens": 8192}})
    );
    assert_eq!(r.body["inferenceConfig"]["maxTokens"], 1024 + 8192);
    assert_eq!(
        r.body["toolConfig"]["tools"][0],
        json!({"toolSpec": {"name": "read", "description": "Read a file", "inputSchema": {"json": *read_tool().input_schema}}})
    );

    req.messages.push(first.message.clone());
    req.messages.push(Message {
        role: Role::User,
        content: vec![Part::ToolResult {
            call_id: "tooluse_1".into(),
            is_error: false,
            content: vec![Part::Text {
                text: "hello".into(),
            }],
        }],
    });
    let (second, _) = run(&provider, &req).await;
    assert_eq!(second.unwrap().message.text(), "It says hello.");
    let body = &server.requests()[1].body;
    assert_eq!(
        body["messages"][1],
        json!({"role": "assistant", "content": [
            {"reasoningContent": {"reasoningText": {"text": "I need a.txt", "signature": "SIG-BEDROCK"}}},
            {"text": "Reading."},
            {"toolUse": {"toolUseId": "tooluse_1", "name": "read", "input": {"path": "a.txt"}}}
        ]})
    );
    assert_eq!(
        body["messages"][2]["content"][0],
        json!({"toolResult": {"toolUseId": "tooluse_1", "content": [{"text": "hello"}]}})
    );
}

#[tokio::test]
async fn stream_cut_in_the_middle_of_tool_arguments() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::reply(
            Format::Bedrock,
            vec![Block::tool_call(
                "t1",
                "read",
                r#"{"path": "a-long-file-name.txt"}"#,
            )],
        )
        .delta_bytes(4)
        .cut_after(4),
    );
    let (result, events) = run(&bedrock(&server, keys()), &request("go")).await;
    let err = result.unwrap_err();
    assert!(matches!(err, ProviderError::Transport { .. }), "{err}");
    assert!(events
        .iter()
        .any(|e| matches!(e, StreamEvent::ToolUseStart { .. })));
    assert_eq!(
        server.request_count(),
        1,
        "output was streamed: not retried"
    );
}

#[tokio::test]
async fn malformed_json_and_corrupt_frames_are_protocol_errors() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::malformed(Format::Bedrock));
    let err = run(&bedrock(&server, keys()), &request("go"))
        .await
        .0
        .unwrap_err();
    assert!(
        matches!(&err, ProviderError::Protocol { message, .. } if message.contains("invalid JSON in a contentBlockDelta event")),
        "{err}"
    );
    server.push(Script::event_stream(vec![
        EventFrame::event("messageStart", r#"{"role":"assistant"}"#),
        EventFrame::event(
            "contentBlockDelta",
            r#"{"contentBlockIndex":0,"delta":{"text":"x"}}"#,
        )
        .corrupted(),
    ]));
    let err = run(&bedrock(&server, keys()), &request("go"))
        .await
        .0
        .unwrap_err();
    assert!(
        matches!(&err, ProviderError::Protocol { message, .. } if message.contains("corrupt event-stream frame")),
        "{err}"
    );
}

#[tokio::test]
async fn unknown_events_are_ignored() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::event_stream(vec![
        EventFrame::event("messageStart", r#"{"role":"assistant"}"#),
        EventFrame::event("someFutureEvent", r#"{"anything": [1, 2]}"#),
        EventFrame::event("contentBlockDelta", r#"{"contentBlockIndex":0,"delta":{"text":"fine"},"p":"abcdefgh"}"#),
        EventFrame::event("contentBlockStop", r#"{"contentBlockIndex":0}"#),
        EventFrame::event("messageStop", r#"{"stopReason":"end_turn"}"#),
        EventFrame::event("metadata", r#"{"usage":{"inputTokens":3,"outputTokens":1,"totalTokens":4},"metrics":{"latencyMs":5}}"#),
    ]));
    let done = run(&bedrock(&server, keys()), &request("go"))
        .await
        .0
        .unwrap();
    assert_eq!(done.message.text(), "fine");
    assert_eq!(done.usage.input, 3);
}

#[tokio::test]
async fn exception_inside_a_200_stream() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::event_stream(vec![
        EventFrame::event("messageStart", r#"{"role":"assistant"}"#),
        EventFrame::exception(
            "validationException",
            "The model returned an invalid tool use.",
        ),
    ]));
    let err = run(&bedrock(&server, keys()), &request("go"))
        .await
        .0
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "amazon-bedrock: validationException: The model returned an invalid tool use."
    );
    assert!(!err.is_retryable());

    // A throttling exception before any output is retried.
    server.push(Script::event_stream(vec![EventFrame::exception(
        "throttlingException",
        "Too many requests",
    )]));
    server.push(Script::bedrock_text("later"));
    let (result, events) = run(&bedrock(&server, keys()), &request("go")).await;
    assert_eq!(result.unwrap().message.text(), "later");
    assert!(events.iter().any(|e| matches!(e, StreamEvent::RetryScheduled { reason, .. } if reason.contains("throttlingException: Too many requests"))));
}

#[tokio::test]
async fn invalid_tool_arguments_are_reported_and_never_replayed_raw() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::reply(
        Format::Bedrock,
        vec![Block::tool_call("t9", "read", r#"{"path": "a.txt""#)],
    ));
    let provider = bedrock(&server, keys());
    // The shared assembler either fails the request naming the call, or
    // (once the agent tells the model instead) keeps the raw text as a
    // string argument; both are accepted here, the wire's part is the same.
    let call = match run(&provider, &request("go")).await.0 {
        Err(err) => {
            assert!(
                matches!(&err, ProviderError::InvalidToolArgs { id, name, .. } if id == "t9" && name == "read"),
                "{err}"
            );
            Part::ToolCall {
                id: "t9".into(),
                name: "read".into(),
                args: serde_json::Value::String(r#"{"path": "a.txt""#.into()),
            }
        }
        Ok(done) => {
            let (id, name, args) = done.message.tool_calls().next().unwrap();
            assert_eq!((id, name), ("t9", "read"));
            assert_eq!(args, &json!(r#"{"path": "a.txt""#));
            done.message.content[0].clone()
        }
    };
    // Such a call goes back to Bedrock with an empty object as input.
    let mut req = request("go");
    req.messages.push(Message {
        role: Role::Assistant,
        content: vec![call],
    });
    server.push(Script::bedrock_text("ok"));
    run(&provider, &req).await.0.unwrap();
    assert_eq!(
        server.requests()[1].body["messages"][1]["content"][0]["toolUse"]["input"],
        json!({})
    );
}

#[tokio::test]
async fn clock_skew_rejection_says_to_fix_the_clock() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::bedrock_error(
        403,
        "InvalidSignatureException",
        "Signature expired: 20150830T123600Z is now earlier than 20260101T000000Z (20260101T000500Z - 5 min.)",
    ));
    let err = run(&bedrock(&server, keys()), &request("go"))
        .await
        .0
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("amazon-bedrock: HTTP 403: Signature expired"),
        "{text}"
    );
    assert!(
        text.contains("clock is off") && text.contains("timedatectl"),
        "{text}"
    );
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn wrong_credentials_name_their_source() {
    let server = LlmServer::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let aws = home.path().join(".aws");
    std::fs::create_dir_all(&aws).unwrap();
    std::fs::write(
        aws.join("credentials"),
        "[default]\naws_access_key_id = AKIADEFAULT\naws_secret_access_key = s1\n\n[work]\naws_access_key_id = AKIAWORK\naws_secret_access_key = s2\naws_session_token = tok\n",
    )
    .unwrap();
    std::fs::write(
        aws.join("config"),
        "[profile work]\nregion = eu-central-1\n[profile sso]\nsso_session = corp\n",
    )
    .unwrap();
    let opts = ProviderOptions {
        provider: Some("bedrock".into()),
        base_url: Some(server.url()),
        ..Default::default()
    };
    let home_s = home.path().display().to_string();
    let env = |profile: Option<&'static str>| {
        let home_s = home_s.clone();
        move |k: &str| match k {
            "HOME" => Some(home_s.clone()),
            "AWS_PROFILE" => profile.map(str::to_string),
            _ => None,
        }
    };
    let config = resolve(&opts, &env(Some("work")), home.path()).unwrap();
    assert_eq!(config.provider, "amazon-bedrock");
    assert_eq!(config.model, "anthropic.claude-sonnet-4-5-20250929-v1:0");
    let provider = Provider::new(config).unwrap();
    server.push(Script::bedrock_error(
        403,
        "UnrecognizedClientException",
        "The security token included in the request is invalid.",
    ));
    let err = run(&provider, &request("go")).await.0.unwrap_err();
    let text = err.to_string();
    let file = aws.join("credentials").display().to_string();
    assert!(
        text.contains("The security token included in the request is invalid."),
        "{text}"
    );
    assert!(text.contains(&format!("profile work in {file}")), "{text}");
    let r = &server.requests()[0];
    assert!(
        r.header("authorization").unwrap().contains("AKIAWORK/")
            && r.header("authorization")
                .unwrap()
                .contains("/eu-central-1/bedrock/")
    );
    assert_eq!(r.header("x-amz-security-token"), Some("tok"));

    // The default profile without AWS_PROFILE; an SSO profile whose
    // session is not defined says which section is missing.
    let config = resolve(&opts, &env(None), home.path()).unwrap();
    assert!(format!("{:?}", config.cloud).contains("AKIADEFAULT"));
    assert!(
        !format!("{:?}", config.cloud).contains("s1"),
        "Debug hides secrets"
    );
    let err = resolve(&opts, &env(Some("sso")), home.path()).unwrap_err();
    assert!(
        err.to_string().contains("no [sso-session corp] section in"),
        "{err}"
    );
    let err = resolve(&opts, &|_: &str| None, home.path()).unwrap_err();
    assert!(
        err.to_string().contains("AWS_BEARER_TOKEN_BEDROCK"),
        "{err}"
    );
}

#[tokio::test]
async fn bearer_token_from_the_environment_and_region_in_the_default_url() {
    let home = tempfile::tempdir().unwrap();
    let opts = ProviderOptions {
        provider: Some("amazon-bedrock".into()),
        model: Some(MODEL.into()),
        ..Default::default()
    };
    let env = |k: &str| match k {
        "AWS_BEARER_TOKEN_BEDROCK" => Some("ABSK-key".to_string()),
        "AWS_REGION" => Some("ap-northeast-1".to_string()),
        _ => None,
    };
    let config = resolve(&opts, &env, home.path()).unwrap();
    assert_eq!(
        config.base_url,
        "https://bedrock-runtime.ap-northeast-1.amazonaws.com"
    );
    let provider = Provider::new(config).unwrap();
    assert_eq!(
        provider.endpoint(),
        "https://bedrock-runtime.ap-northeast-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"
    );
}

/// A profile's `credential_process` (how SSO logins reach zut): run once,
/// its keys cached and signed with, run again when they are about to
/// expire; a failing or malformed one is a clear error naming the profile.
#[tokio::test]
async fn credential_process_profiles_are_run_cached_and_refreshed() {
    let server = LlmServer::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let aws = home.path().join(".aws");
    std::fs::create_dir_all(&aws).unwrap();
    let runs = home.path().join("runs.txt");
    // Prints keys valid for `$1` seconds and counts its runs.
    let script = home.path().join("creds.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho run >> '{}'\nexp=$(date -u -d \"@$(( $(date +%s) + $1 ))\" +%Y-%m-%dT%H:%M:%SZ)\n\
             printf '{{\\n  \"Version\": 1,\\n  \"AccessKeyId\": \"AKIAPROC%s\",\\n  \"SecretAccessKey\": \"procsecret\",\\n  \"SessionToken\": \"proctoken\",\\n  \"Expiration\": \"%s\"\\n}}\\n' \"$1\" \"$exp\"\n",
            runs.display()
        ),
    )
    .unwrap();
    std::fs::write(
        aws.join("config"),
        format!(
            "[profile long]\nregion = us-west-2\ncredential_process = sh {s} 3600\n\
             [profile short]\nregion = us-west-2\ncredential_process = sh {s} 120\n\
             [profile broken]\ncredential_process = sh -c 'exit 3'\n\
             [profile garbage]\ncredential_process = echo not-json\n",
            s = script.display()
        ),
    )
    .unwrap();
    let opts = ProviderOptions {
        provider: Some("amazon-bedrock".into()),
        base_url: Some(server.url()),
        model: Some(MODEL.into()),
        ..Default::default()
    };
    let home_s = home.path().display().to_string();
    let env = |profile: &'static str| {
        let home_s = home_s.clone();
        move |k: &str| match k {
            "HOME" => Some(home_s.clone()),
            "AWS_PROFILE" => Some(profile.to_string()),
            _ => None,
        }
    };
    let count = || {
        std::fs::read_to_string(&runs)
            .unwrap_or_default()
            .lines()
            .count()
    };

    // Valid for an hour: one run for two requests.
    let provider = Provider::new(resolve(&opts, &env("long"), home.path()).unwrap()).unwrap();
    assert_eq!(count(), 0, "nothing runs before the first request");
    for _ in 0..2 {
        server.push(Script::bedrock_text("ok"));
        run(&provider, &request("hi")).await.0.unwrap();
    }
    assert_eq!(count(), 1);
    for r in server.requests() {
        let auth = r.header("authorization").unwrap();
        assert!(auth.contains("Credential=AKIAPROC3600/"), "{auth}");
        assert_eq!(r.header("x-amz-security-token"), Some("proctoken"));
    }

    // Expiring within five minutes: fetched again for each request.
    let provider = Provider::new(resolve(&opts, &env("short"), home.path()).unwrap()).unwrap();
    for _ in 0..2 {
        server.push(Script::bedrock_text("ok"));
        run(&provider, &request("hi")).await.0.unwrap();
    }
    assert_eq!(count(), 3);
    let last = server.requests().pop().unwrap();
    assert!(last
        .header("authorization")
        .unwrap()
        .contains("Credential=AKIAPROC120/"));

    // Failures name the profile and send nothing.
    let before = server.requests().len();
    for (profile, why) in [
        ("broken", "exited with status 3"),
        ("garbage", "not the credential JSON AWS documents"),
    ] {
        let provider = Provider::new(resolve(&opts, &env(profile), home.path()).unwrap()).unwrap();
        let err = run(&provider, &request("hi"))
            .await
            .0
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!("credential_process of profile {profile} in"))
                && err.contains(why),
            "{err}"
        );
    }
    assert_eq!(server.requests().len(), before);
}
