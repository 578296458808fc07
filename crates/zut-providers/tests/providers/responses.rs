//! The OpenAI Responses wire, driven over real HTTP against zut-llm-server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use serde_json::{json, Value};
use zut_llm_server::{Block, Format, LlmServer, Script, SseFrame, Usage};
use zut_providers::{
    resolve, Message, Part, Provider, ProviderConfig, ProviderError, ProviderOptions, Reasoning,
    Role, StopReason, StreamEvent, Usage as ProviderUsage, Wire,
};

fn responses(server: &LlmServer) -> Provider {
    provider(server, "openai-responses")
}

#[tokio::test]
async fn text_streams_with_usage_and_the_documented_request() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::responses_text("The answer is 42 — ✓")
            .delta_bytes(3)
            .usage(Usage {
                input: 100,
                output: 12,
                cache_read: 20,
                cache_write: 0,
                reasoning: Some(4),
            }),
    );
    let provider = responses(&server);
    let (result, events) = run(&provider, &request("question")).await;
    let completion = result.unwrap();
    assert_eq!(shape(&events), vec!["start#1", "assistant", "text"]);
    assert_eq!(text_of(&events), "The answer is 42 — ✓");
    assert_eq!(completion.message.text(), "The answer is 42 — ✓");
    assert_eq!(completion.stop, StopReason::EndTurn);
    assert_eq!(
        completion.usage,
        ProviderUsage {
            input: 100,
            output: 12,
            reasoning: Some(4),
            cache_read: 20,
            cache_write: 0,
        },
        "input_tokens (120) minus cached_tokens (20) is the uncached input"
    );

    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/responses");
    assert_eq!(
        sent.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let body = &sent.body;
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["stream"], true);
    assert_eq!(body["store"], false);
    assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
    assert_eq!(body["instructions"], "You are a test.");
    assert_eq!(body["max_output_tokens"], 1024);
    assert_eq!(
        body["input"],
        json!([{"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": "question"}]}])
    );
    assert!(body.get("reasoning").is_none());
}

#[tokio::test]
async fn a_two_step_tool_loop_sends_the_call_and_its_output_back() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::reply(
            Format::Responses,
            vec![
                Block::text("Reading."),
                Block::tool_call("call_a", "read", r#"{"path":"a.txt"}"#),
                Block::tool_call("call_b", "read", r#"{"path":"b.txt"}"#),
            ],
        )
        .delta_bytes(4),
    );
    server.push(Script::responses_text("Both files say hi."));
    let provider = responses(&server);
    let mut req = request("read a and b");
    req.tools = vec![read_tool()];
    let (result, events) = run(&provider, &req).await;
    let first = result.unwrap();
    assert_eq!(first.stop, StopReason::ToolUse);
    assert_eq!(
        shape(&events),
        vec![
            "start#1",
            "assistant",
            "text",
            "tool_start:call_a:read",
            "args:call_a",
            "tool_end:call_a",
            "tool_start:call_b:read",
            "args:call_b",
            "tool_end:call_b",
        ]
    );
    assert_eq!(args_of(&events, "call_a"), r#"{"path":"a.txt"}"#);
    let calls: Vec<_> = first.message.tool_calls().collect();
    assert_eq!(calls[1], ("call_b", "read", &json!({"path": "b.txt"})));

    req.messages.push(first.message.clone());
    req.messages.push(Message {
        role: Role::User,
        content: vec![
            Part::ToolResult {
                call_id: "call_a".into(),
                is_error: false,
                content: vec![Part::Text { text: "hi".into() }],
            },
            Part::ToolResult {
                call_id: "call_b".into(),
                is_error: true,
                content: vec![Part::Text {
                    text: "no such file".into(),
                }],
            },
        ],
    });
    let second = run(&provider, &req).await.0.unwrap();
    assert_eq!(second.message.text(), "Both files say hi.");

    let body = &server.requests()[1].body;
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["name"], "read");
    assert_eq!(body["tools"][0]["parameters"]["required"], json!(["path"]));
    assert_eq!(body["tool_choice"], "auto");
    let input = body["input"].as_array().unwrap();
    assert_eq!(
        input[1],
        json!({"type": "message", "role": "assistant", "content": "Reading."})
    );
    assert_eq!(
        input[2],
        json!({"type": "function_call", "call_id": "call_a", "name": "read",
               "arguments": "{\"path\":\"a.txt\"}"})
    );
    assert_eq!(
        input[4],
        json!({"type": "function_call_output", "call_id": "call_a", "output": "hi"})
    );
    assert_eq!(input[5]["output"], "Error: no such file");
    assert_eq!(input.len(), 6);
}

#[tokio::test]
async fn reasoning_is_shown_and_carried_to_the_next_request() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::reply(
            Format::Responses,
            vec![
                Block::thinking("Let me think about it.", "gAAAA-encrypted=="),
                Block::text("Done."),
            ],
        )
        .delta_bytes(5),
    );
    server.push(Script::responses_text("Again."));
    let provider = responses(&server);
    let mut req = request("think");
    req.reasoning = Reasoning::High;
    let (result, events) = run(&provider, &req).await;
    let completion = result.unwrap();
    assert_eq!(
        shape(&events),
        vec!["start#1", "assistant", "thinking", "text"]
    );
    assert_eq!(thinking_of(&events), "Let me think about it.");
    let Part::Thinking { text, signature } = &completion.message.content[0] else {
        panic!("{:?}", completion.message.content);
    };
    assert_eq!(text, "Let me think about it.");
    assert_eq!(
        signature.as_deref(),
        Some("openai-reasoning:rs_0:gAAAA-encrypted==")
    );
    assert_eq!(
        server.requests()[0].body["reasoning"],
        json!({"effort": "high", "summary": "auto"})
    );

    req.messages.push(completion.message);
    req.messages.push(Message::user_text("and?"));
    run(&provider, &req).await.0.unwrap();
    let input = server.requests()[1].body["input"].clone();
    assert_eq!(
        input[1],
        json!({"type": "reasoning", "id": "rs_0", "encrypted_content": "gAAAA-encrypted==",
               "summary": [{"type": "summary_text", "text": "Let me think about it."}]})
    );
    assert_eq!(input[2]["content"], "Done.");
}

#[tokio::test]
async fn reasoning_levels_are_clamped_per_model() {
    let server = LlmServer::start().await.unwrap();
    for _ in 0..3 {
        server.push(Script::responses_text("ok"));
    }
    let provider = responses(&server);
    let mut req = request("x");
    req.reasoning = Reasoning::Max;
    run(&provider, &req).await.0.unwrap();
    req.model = "gpt-5.6-luna".into();
    run(&provider, &req).await.0.unwrap();
    req.reasoning = Reasoning::Minimum;
    req.model = String::new();
    run(&provider, &req).await.0.unwrap();
    let efforts: Vec<Value> = server
        .requests()
        .iter()
        .map(|r| r.body["reasoning"]["effort"].clone())
        .collect();
    assert_eq!(efforts, vec![json!("xhigh"), json!("max"), json!("low")]);
    let note = provider
        .config()
        .clamp_reasoning(Reasoning::Max)
        .note
        .unwrap();
    assert_eq!(
        note,
        "reasoning \"max\" is not offered by test-model on openai-responses: using \"xhigh\""
    );
}

#[tokio::test]
async fn refusals_and_output_limits() {
    let server = LlmServer::start().await.unwrap();
    let refusal = [
        (
            "response.created",
            json!({"response": {"id": "r", "status": "in_progress"}}),
        ),
        (
            "response.output_item.added",
            json!({"output_index": 0, "item": {"id": "msg_0", "type": "message", "role": "assistant", "content": []}}),
        ),
        (
            "response.refusal.delta",
            json!({"item_id": "msg_0", "output_index": 0, "content_index": 0, "delta": "I can't help"}),
        ),
        (
            "response.refusal.delta",
            json!({"item_id": "msg_0", "output_index": 0, "content_index": 0, "delta": " with that."}),
        ),
        (
            "response.completed",
            json!({"response": {"id": "r", "status": "completed", "usage": {"input_tokens": 5, "output_tokens": 3}}}),
        ),
    ];
    server.push(Script::events(
        refusal
            .iter()
            .map(|(kind, data)| {
                let mut data = data.clone();
                data["type"] = json!(kind);
                SseFrame::named(*kind, data.to_string())
            })
            .collect(),
    ));
    server.push(
        Script::reply(
            Format::Responses,
            vec![
                Block::text("partial"),
                Block::tool_call("call_1", "read", r#"{"pa"#),
            ],
        )
        .stop("max_output_tokens"),
    );
    let provider = responses(&server);
    let refused = run(&provider, &request("x")).await.0.unwrap();
    assert_eq!(refused.message.text(), "I can't help with that.");
    assert_eq!(refused.stop, StopReason::EndTurn);
    assert_eq!(refused.usage.input, 5);

    let cut = run(&provider, &request("x")).await.0.unwrap();
    assert_eq!(cut.stop, StopReason::Length);
    assert_eq!(cut.message.text(), "partial");
    assert_eq!(
        cut.message.tool_calls().count(),
        0,
        "the cut call is dropped"
    );
}

#[tokio::test]
async fn a_stream_cut_inside_function_call_arguments_is_not_resent() {
    let server = LlmServer::start().await.unwrap();
    // Frames: created, in_progress, item added, then argument deltas.
    server.push(
        Script::responses_tool_call("call_1", "read", r#"{"path":"a-long-name.txt"}"#)
            .delta_bytes(4)
            .cut_after(5),
    );
    server.push(Script::responses_text("never asked"));
    let provider = responses(&server);
    let (result, events) = run(&provider, &request("x")).await;
    let err = result.unwrap_err();
    assert!(matches!(err, ProviderError::Transport { .. }), "{err:?}");
    assert!(events
        .iter()
        .any(|e| matches!(e, StreamEvent::ToolUseArgs { .. })));
    assert_eq!(
        server.requests().len(),
        1,
        "output had started: not retried"
    );

    // Cut before any output: retried.
    let server = LlmServer::start().await.unwrap();
    server.push(Script::responses_text("hello").cut_after(2));
    server.push(Script::responses_text("hello"));
    let provider = responses(&server);
    let completion = run(&provider, &request("x")).await.0.unwrap();
    assert_eq!(completion.message.text(), "hello");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn malformed_and_unknown_events() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::malformed(Format::Responses));
    let provider = responses(&server);
    let err = run(&provider, &request("x")).await.0.unwrap_err();
    assert!(matches!(err, ProviderError::Protocol { .. }), "{err:?}");
    assert!(err.to_string().contains("malformed stream"), "{err}");
    assert_eq!(server.requests().len(), 1, "not retried");

    // Unknown event types (a future feature) are ignored.
    let mut frames: Vec<SseFrame> = Vec::new();
    for (i, frame) in Script::responses_text("fine").frames().iter().enumerate() {
        if i == 2 {
            frames.push(SseFrame::named(
                "response.web_search_call.searching",
                r#"{"type":"response.web_search_call.searching","output_index":9,"item_id":"ws"}"#,
            ));
            frames.push(SseFrame::named(
                "response.future_thing",
                r#"{"type":"response.future_thing"}"#,
            ));
        }
        let event = frame.lines().next().unwrap().trim_start_matches("event: ");
        let data = frame.lines().nth(1).unwrap().trim_start_matches("data: ");
        frames.push(SseFrame::named(event, data));
    }
    server.push(Script::events(frames));
    let completion = run(&provider, &request("x")).await.0.unwrap();
    assert_eq!(completion.message.text(), "fine");
}

#[tokio::test]
async fn errors_inside_a_200_stream() {
    let server = LlmServer::start().await.unwrap();
    // Retryable before output: retried, then succeeds.
    server.push(Script::responses_error_event(
        "server_error",
        "The server had an error",
    ));
    server.push(Script::responses_text("recovered"));
    let provider = responses(&server);
    let (result, events) = run(&provider, &request("x")).await;
    assert_eq!(result.unwrap().message.text(), "recovered");
    assert!(events.iter().any(|e| matches!(
        e,
        StreamEvent::RetryScheduled { reason, .. } if reason.contains("server_error: The server had an error")
    )));

    // Not retryable: reported as is.
    server.push(Script::responses_error_event(
        "context_length_exceeded",
        "Your input exceeds the context window of this model.",
    ));
    let err = run(&provider, &request("x")).await.0.unwrap_err();
    assert_eq!(
        err.to_string(),
        "openai-responses: context_length_exceeded: Your input exceeds the context window of this model."
    );

    // `response.failed`.
    server.push(Script::responses_failed("invalid_prompt", "Bad prompt."));
    let err = run(&provider, &request("x")).await.0.unwrap_err();
    assert_eq!(
        err.to_string(),
        "openai-responses: invalid_prompt: Bad prompt."
    );
    assert_eq!(server.requests().len(), 4);
}

#[tokio::test]
async fn invalid_json_in_streamed_arguments_reaches_the_model() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::responses_tool_call("call_1", "read", r#"{"path": "a"#).delta_bytes(3));
    let provider = responses(&server);
    let completion = run(&provider, &request("x")).await.0.unwrap();
    assert_eq!(completion.stop, StopReason::ToolUse);
    let (id, name, args) = completion.message.tool_calls().next().unwrap();
    assert_eq!((id, name), ("call_1", "read"));
    let told = zut_providers::invalid_args_message(name, args).unwrap();
    assert!(told.contains("not valid JSON"), "{told}");
}

#[tokio::test]
async fn a_wrong_key_names_the_variable_it_came_from() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::status(401).message("Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys."),
    );
    let home = tempfile::tempdir().unwrap();
    let opts = ProviderOptions {
        provider: Some("openai-responses".into()),
        base_url: Some(server.openai_base_url()),
        ..Default::default()
    };
    let env = |name: &str| (name == "OPENAI_API_KEY").then(|| "sk-wrong".to_string());
    let config = resolve(&opts, &env, home.path())
        .unwrap()
        .with_retry(fast_retry(3));
    let provider = Provider::new(config).unwrap();
    let err = run(&provider, &request("x")).await.0.unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("openai-responses: HTTP 401: Incorrect API key provided: [redacted]."),
        "{text}"
    );
    assert!(
        text.ends_with("(model gpt-5; check OPENAI_API_KEY)"),
        "{text}"
    );
    assert_eq!(server.requests().len(), 1, "401 is not retried");
}

#[tokio::test]
async fn openai_routes_responses_only_models_there() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::openai_text("chat"));
    server.push(Script::responses_text("responses"));
    let config =
        ProviderConfig::new("openai", &server.openai_base_url(), Some(KEY), "gpt-5").unwrap();
    let provider = Provider::new(config).unwrap();
    let mut req = request("x");
    assert_eq!(run(&provider, &req).await.0.unwrap().message.text(), "chat");
    req.model = "gpt-5.6-sol".into();
    assert_eq!(
        run(&provider, &req).await.0.unwrap().message.text(),
        "responses"
    );
    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(paths, vec!["/v1/chat/completions", "/v1/responses"]);
}

#[tokio::test]
async fn azure_maps_deployments_versions_and_keys() {
    let server = LlmServer::start().await.unwrap();
    for _ in 0..2 {
        server.push(Script::responses_text("ok"));
    }
    server.push(Script::openai_text("ok"));
    let home = tempfile::tempdir().unwrap();
    let vars = [
        ("AZURE_OPENAI_BASE_URL", server.url()),
        ("AZURE_OPENAI_API_KEY", "az-key-123456".to_string()),
        (
            "AZURE_OPENAI_DEPLOYMENT_NAME_MAP",
            "gpt-5=prod-gpt5, o3 = team-o3".to_string(),
        ),
    ];
    let env = |name: &str| {
        vars.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.clone())
    };
    let opts = ProviderOptions {
        provider: Some("azure-openai-responses".into()),
        ..Default::default()
    };
    let provider = Provider::new(resolve(&opts, &env, home.path()).unwrap()).unwrap();
    run(&provider, &request("x")).await.0.unwrap();
    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/openai/v1/responses?api-version=v1");
    assert_eq!(sent.header("api-key"), Some("az-key-123456"));
    assert_eq!(sent.header("authorization"), None);
    assert_eq!(sent.body["model"], "prod-gpt5");

    // An Entra ID token when there is no key; another API version.
    let vars2 = [
        ("AZURE_OPENAI_RESOURCE_NAME", "myres".to_string()),
        ("AZURE_OPENAI_AD_TOKEN", "entra-token-xyz".to_string()),
        ("AZURE_OPENAI_API_VERSION", "2025-04-01-preview".to_string()),
    ];
    let env2 = |name: &str| {
        vars2
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.clone())
    };
    let config = resolve(&opts, &env2, home.path()).unwrap();
    assert_eq!(config.base_url, "https://myres.openai.azure.com");
    let config = ProviderConfig {
        base_url: format!("{}/openai/v1", server.url()),
        ..config
    };
    let provider = Provider::new(config).unwrap();
    let mut req = request("x");
    req.model = "o3".into();
    run(&provider, &req).await.0.unwrap();
    let sent = &server.requests()[1];
    assert_eq!(
        sent.path,
        "/openai/v1/responses?api-version=2025-04-01-preview"
    );
    assert_eq!(sent.header("authorization"), Some("Bearer entra-token-xyz"));
    assert_eq!(sent.header("api-key"), None);
    assert_eq!(
        sent.body["model"], "o3",
        "unmapped: the model is its deployment"
    );

    // Neither: an error naming both variables.
    let err = resolve(
        &opts,
        &|name: &str| (name == "AZURE_OPENAI_RESOURCE_NAME").then(|| "r".into()),
        home.path(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("AZURE_OPENAI_API_KEY") && err.contains("AZURE_OPENAI_AD_TOKEN"),
        "{err}"
    );
    let err = resolve(
        &opts,
        &|name: &str| (name == "AZURE_OPENAI_API_KEY").then(|| "k".into()),
        home.path(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("AZURE_OPENAI_RESOURCE_NAME") && err.contains("AZURE_OPENAI_BASE_URL"),
        "{err}"
    );

    // Azure chat completions: the deployment is in the path.
    let chat = ProviderOptions {
        provider: Some("azure-openai".into()),
        ..Default::default()
    };
    let provider = Provider::new(resolve(&chat, &env, home.path()).unwrap()).unwrap();
    run(&provider, &request("x")).await.0.unwrap();
    let sent = server.requests().last().unwrap().clone();
    assert_eq!(
        sent.path,
        "/openai/deployments/prod-gpt5/chat/completions?api-version=2024-10-21"
    );
    assert_eq!(sent.header("api-key"), Some("az-key-123456"));
}

#[test]
fn every_prefix_and_chunking_of_a_body_decodes_or_fails_cleanly() {
    let body = Script::reply(
        Format::Responses,
        vec![
            Block::thinking("why \"not\"", "enc=="),
            Block::text("h\u{e9}llo\n"),
            Block::tool_call("call_1", "read", r#"{"path":"\u00e9"}"#),
        ],
    )
    .delta_bytes(3)
    .render_body();
    let full =
        zut_providers::parse_stream(Wire::Responses, [body.as_bytes()], &mut |_| {}).unwrap();
    assert_eq!(full.message.text(), "h\u{e9}llo\n");
    assert_eq!(full.stop, StopReason::ToolUse);
    for cut in 0..body.len() {
        let prefix = &body.as_bytes()[..cut];
        let result = zut_providers::parse_stream(Wire::Responses, [prefix], &mut |_| {});
        assert!(
            result.is_err() || cut + 2 >= body.len(),
            "cut at {cut} still succeeded"
        );
    }
    for size in [1, 2, 5, 64] {
        let again =
            zut_providers::parse_stream(Wire::Responses, body.as_bytes().chunks(size), &mut |_| {})
                .unwrap();
        assert_eq!(again, full, "chunks of {size}");
    }
}

#[tokio::test]
async fn rate_limits_and_server_errors_are_retried_before_output() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::status(429)
            .message("Rate limit reached for gpt-5")
            .retry_after(1),
    );
    server.push(Script::status(500));
    server.push(Script::responses_text("third time"));
    let provider = responses(&server);
    let (result, events) = run(&provider, &request("x")).await;
    assert_eq!(result.unwrap().message.text(), "third time");
    let delays: Vec<(u64, String)> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::RetryScheduled {
                delay_ms, reason, ..
            } => Some((*delay_ms, reason.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(delays.len(), 2);
    assert_eq!(delays[0].0, 1000, "retry-after is honoured exactly");
    assert_eq!(
        delays[0].1,
        "openai-responses: HTTP 429: Rate limit reached for gpt-5 (model test-model)"
    );
    assert!(
        delays[1].1.starts_with("openai-responses: HTTP 500:"),
        "{}",
        delays[1].1
    );
}
