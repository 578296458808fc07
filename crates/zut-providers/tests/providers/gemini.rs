//! The Gemini wire (`google`) against a local zut-llm-server over HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use serde_json::json;
use zut_llm_server::{Block, Format, LlmServer, Script, SseFrame, Usage};
use zut_providers::{
    resolve, Message, Part, Provider, ProviderConfig, ProviderError, ProviderOptions, Reasoning,
    Role, StopReason, StreamEvent, ToolSpec,
};

fn gemini(server: &LlmServer, model: &str) -> Provider {
    let config = ProviderConfig::new("google", &server.url(), Some(KEY), model)
        .unwrap()
        .with_retry(fast_retry(3));
    Provider::new(config).unwrap()
}

#[tokio::test]
async fn plain_reply_with_usage_cache_and_thoughts() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::reply(
            Format::Gemini,
            vec![
                Block::thinking("pondering", ""),
                Block::text("Hello, wörld!"),
            ],
        )
        .delta_bytes(4)
        .usage(Usage {
            input: 100,
            output: 7,
            cache_read: 40,
            cache_write: 0,
            reasoning: Some(12),
        }),
    );
    let provider = gemini(&server, "gemini-2.5-flash");
    let (result, events) = run(&provider, &request("hi")).await;
    let done = result.unwrap();
    assert_eq!(text_of(&events), "Hello, wörld!");
    assert_eq!(thinking_of(&events), "pondering");
    assert_eq!(done.stop, StopReason::EndTurn);
    assert_eq!(done.usage.input, 100);
    assert_eq!(done.usage.cache_read, 40);
    assert_eq!(done.usage.output, 19);
    assert_eq!(done.usage.reasoning, Some(12));
    let req = &server.requests()[0];
    assert_eq!(
        req.path,
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    assert_eq!(req.header("x-goog-api-key"), Some(KEY));
    assert_eq!(req.header("authorization"), None);
    assert_eq!(
        req.body["systemInstruction"],
        json!({"parts": [{"text": "You are a test."}]})
    );
    assert_eq!(
        req.body["contents"],
        json!([{"role": "user", "parts": [{"text": "hi"}]}])
    );
    assert_eq!(req.body["generationConfig"]["maxOutputTokens"], 1024);
    assert!(req.body["generationConfig"].get("thinkingConfig").is_none());
}

#[tokio::test]
async fn two_step_tool_loop_with_thought_signature_carried_back() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::reply(
        Format::Gemini,
        vec![
            Block::thinking("need the file", "SIG-ABC"),
            Block::tool_call("", "read", r#"{"path":"a.txt"}"#),
        ],
    ));
    server.push(Script::gemini_text("It says hello."));
    let provider = gemini(&server, "gemini-3-pro-preview");
    let mut req = request("read a.txt");
    req.tools = vec![read_tool()];
    req.reasoning = Reasoning::Medium;
    let (first, events) = run(&provider, &req).await;
    let first = first.unwrap();
    assert_eq!(first.stop, StopReason::ToolUse);
    assert_eq!(thinking_of(&events), "need the file");
    let (id, name, args) = first
        .message
        .tool_calls()
        .next()
        .map(|(i, n, a)| (i.to_string(), n.to_string(), a.clone()))
        .unwrap();
    assert_eq!((name.as_str(), &args), ("read", &json!({"path": "a.txt"})));
    assert!(events
        .iter()
        .any(|e| matches!(e, StreamEvent::ToolUseEnd { id: i } if *i == id)));
    let body = &server.requests()[0].body;
    assert_eq!(
        body["generationConfig"]["thinkingConfig"],
        json!({"includeThoughts": true, "thinkingLevel": "HIGH"})
    );
    assert_eq!(
        body["tools"][0]["functionDeclarations"][0]["parameters"],
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
    );

    req.messages.push(first.message.clone());
    req.messages.push(Message {
        role: Role::User,
        content: vec![Part::ToolResult {
            call_id: id.clone(),
            is_error: false,
            content: vec![Part::Text {
                text: "hello".into(),
            }],
        }],
    });
    let (second, _) = run(&provider, &req).await;
    assert_eq!(second.unwrap().message.text(), "It says hello.");
    let body = &server.requests()[1].body;
    let model_turn = &body["contents"][1];
    assert_eq!(model_turn["role"], "model");
    assert_eq!(
        model_turn["parts"],
        json!([
            {"text": "need the file", "thought": true},
            {"functionCall": {"id": id, "name": "read", "args": {"path": "a.txt"}},
             "thoughtSignature": "SIG-ABC"}
        ])
    );
    assert_eq!(
        body["contents"][2]["parts"][0]["functionResponse"],
        json!({"id": id, "name": "read", "response": {"output": "hello"}})
    );
}

#[tokio::test]
async fn budget_thinking_for_2_5_models() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::gemini_text("ok"));
    let provider = gemini(&server, "gemini-2.5-pro");
    let mut req = request("hi");
    req.reasoning = Reasoning::High;
    run(&provider, &req).await.0.unwrap();
    assert_eq!(
        server.requests()[0].body["generationConfig"]["thinkingConfig"],
        json!({"includeThoughts": true, "thinkingBudget": 24576})
    );
}

#[tokio::test]
async fn images_are_sent_inline() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::gemini_text("a cat"));
    let provider = gemini(&server, "gemini-2.5-flash");
    let mut req = request("what is it?");
    req.messages[0].content.push(Part::Image {
        mime_type: "image/png".into(),
        data: "iVBORw0KGgo=".into(),
    });
    run(&provider, &req).await.0.unwrap();
    assert_eq!(
        server.requests()[0].body["contents"][0]["parts"][1],
        json!({"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}})
    );
}

#[tokio::test]
async fn stream_cut_after_a_function_call_is_an_error_not_retried() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::reply(
            Format::Gemini,
            vec![
                Block::text("let me look"),
                Block::tool_call("c1", "read", r#"{"path":"x"}"#),
            ],
        )
        .cut_after(2),
    );
    server.push(Script::gemini_text("never sent"));
    let (result, _) = run(&gemini(&server, "gemini-2.5-flash"), &request("go")).await;
    let err = result.unwrap_err();
    assert!(matches!(err, ProviderError::Transport { .. }), "{err}");
    assert_eq!(server.request_count(), 1, "content was streamed: no retry");
}

#[tokio::test]
async fn malformed_chunk_is_a_protocol_error() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::malformed(Format::Gemini));
    let (result, _) = run(&gemini(&server, "gemini-2.5-flash"), &request("go")).await;
    let err = result.unwrap_err();
    assert!(
        matches!(&err, ProviderError::Protocol { provider, .. } if provider == "google"),
        "{err}"
    );
}

#[tokio::test]
async fn unknown_parts_and_fields_are_ignored() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::events(vec![
        SseFrame::data(r#"{"candidates":[{"content":{"parts":[{"executableCode":{"language":"PYTHON","code":"1"}}],"role":"model"},"index":0}],"somethingNew":{"x":1}}"#),
        SseFrame::data(r#"{"candidates":[{"content":{"parts":[{"text":"fine"}],"role":"model"},"finishReason":"STOP","index":0,"safetyRatings":[]}]}"#),
    ]));
    let (result, _) = run(&gemini(&server, "gemini-2.5-flash"), &request("go")).await;
    assert_eq!(result.unwrap().message.text(), "fine");
}

#[tokio::test]
async fn error_object_inside_a_200_stream() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::gemini_error(
        200,
        400,
        "INVALID_ARGUMENT",
        "bad turn order",
    ));
    let (result, _) = run(&gemini(&server, "gemini-2.5-flash"), &request("go")).await;
    assert_eq!(
        result.unwrap_err().to_string(),
        "google: INVALID_ARGUMENT: bad turn order"
    );
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn malformed_function_call_is_retried_as_a_fresh_attempt() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::reply(
        Format::Gemini,
        vec![Block::tool_call("c1", "read", r#"{"path": "a.txt""#)],
    ));
    server.push(Script::gemini_text("recovered"));
    let (result, events) = run(&gemini(&server, "gemini-2.5-flash"), &request("go")).await;
    assert_eq!(result.unwrap().message.text(), "recovered");
    assert!(events.iter().any(|e| matches!(e, StreamEvent::RetryScheduled { reason, .. } if reason.contains("MALFORMED_FUNCTION_CALL"))));
}

#[tokio::test]
async fn safety_blocks_are_reported_as_such() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::gemini_text("partial").stop("SAFETY"));
    server.push(Script::gemini_prompt_blocked("SAFETY"));
    let provider = gemini(&server, "gemini-2.5-flash");
    let err = run(&provider, &request("x")).await.0.unwrap_err();
    assert!(
        err.to_string()
            .contains("withheld the reply (finish reason SAFETY"),
        "{err}"
    );
    let err = run(&provider, &request("x")).await.0.unwrap_err();
    assert!(
        err.to_string()
            .contains("Gemini blocked the prompt (SAFETY)"),
        "{err}"
    );
    assert!(!err.is_retryable());
}

#[tokio::test]
async fn a_schema_gemini_cannot_express_fails_before_sending() {
    let server = LlmServer::start().await.unwrap();
    let mut req = request("go");
    req.tools = vec![ToolSpec {
        name: "tree".into(),
        description: "a tree".into(),
        input_schema: json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}).into(),
        activated_after: None,
    }];
    let err = run(&gemini(&server, "gemini-2.5-flash"), &req)
        .await
        .0
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, ProviderError::Config(_)), "{text}");
    assert!(
        text.contains("tool \"tree\"") && text.contains("recursive $ref"),
        "{text}"
    );
    assert_eq!(server.request_count(), 0);
}

fn env_of(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
    move |k| {
        vars.iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.to_string())
    }
}

#[tokio::test]
async fn provider_google_with_base_url_and_gemini_api_key() {
    let server = LlmServer::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let opts = ProviderOptions {
        provider: Some("google".into()),
        base_url: Some(server.url()),
        model: Some("gemini-2.5-flash".into()),
        ..Default::default()
    };
    let env = env_of(&[("GEMINI_API_KEY", "gm-key-123456")]);
    let config = resolve(&opts, &env, home.path()).unwrap();
    server.push(Script::gemini_text("hi there"));
    let provider = Provider::new(config).unwrap();
    assert_eq!(
        run(&provider, &request("hi"))
            .await
            .0
            .unwrap()
            .message
            .text(),
        "hi there"
    );
    assert_eq!(
        server.requests()[0].header("x-goog-api-key"),
        Some("gm-key-123456")
    );

    // GOOGLE_API_KEY as the fallback; a rejected key names its variable.
    let env = env_of(&[("GOOGLE_API_KEY", "old-google-key-1")]);
    let config = resolve(&opts, &env, home.path()).unwrap();
    server.push(Script::gemini_error(
        400,
        400,
        "INVALID_ARGUMENT",
        "API key not valid. Please pass a valid API key.",
    ));
    let err = run(&Provider::new(config).unwrap(), &request("hi"))
        .await
        .0
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("google: HTTP 400: API key not valid"),
        "{text}"
    );
    assert!(
        text.contains("(model gemini-2.5-flash; check GOOGLE_API_KEY)"),
        "{text}"
    );
    assert!(!text.contains("old-google-key-1"));

    // No key at all: the configuration names both variables.
    let err = resolve(&opts, &env_of(&[]), home.path()).unwrap_err();
    assert!(
        err.to_string()
            .contains("set GEMINI_API_KEY (or GOOGLE_API_KEY)"),
        "{err}"
    );
}

#[tokio::test]
async fn an_error_array_body_gives_its_message() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::json(
        404,
        r#"[{"error": {"code": 404, "message": "models/nope is not found for API version v1beta", "status": "NOT_FOUND"}}]"#,
    ));
    let err = run(&gemini(&server, "nope"), &request("go"))
        .await
        .0
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "google: HTTP 404: models/nope is not found for API version v1beta (model nope)"
    );
}

#[tokio::test]
async fn rate_limit_is_retried_with_the_provider_message() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::gemini_error(429, 429, "RESOURCE_EXHAUSTED", "Quota exceeded").retry_after(0),
    );
    server.push(Script::gemini_text("after wait"));
    let (result, events) = run(&gemini(&server, "gemini-2.5-flash"), &request("go")).await;
    assert_eq!(result.unwrap().message.text(), "after wait");
    assert!(events.iter().any(|e| matches!(e, StreamEvent::RetryScheduled { reason, .. } if reason == "google: HTTP 429: Quota exceeded (model gemini-2.5-flash)")));
}
