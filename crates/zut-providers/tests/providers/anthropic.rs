//! The Anthropic Messages wire, driven over real HTTP against zut-llm-server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use serde_json::json;
use zut_llm_server::{Block, Format, LlmServer, Script, SseFrame, Usage};
use zut_providers::{
    Part, Reasoning, StopReason, StreamEvent, Usage as ProviderUsage, REDACTED_THINKING_PREFIX,
};

#[tokio::test]
async fn text_streams_in_order_with_usage() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::anthropic_text("Hello there, friend. ✓ done")
            .delta_bytes(4)
            .usage(Usage {
                input: 120,
                output: 17,
                cache_read: 30,
                cache_write: 5,
                reasoning: None,
            }),
    );
    let provider = provider(&server, "anthropic");
    let (result, events) = run(&provider, &request("hi")).await;
    let completion = result.unwrap();

    assert_eq!(
        shape(&events),
        vec!["start#1", "assistant", "text"],
        "{events:?}"
    );
    assert_eq!(
        events[0],
        StreamEvent::RequestStarted {
            attempt: 1,
            max_attempts: 4
        }
    );
    let deltas = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::TextDelta(_)))
        .count();
    assert!(deltas >= 7, "one event per 4-byte delta, got {deltas}");
    assert_eq!(text_of(&events), "Hello there, friend. ✓ done");
    assert_eq!(completion.message.text(), "Hello there, friend. ✓ done");
    assert_eq!(
        completion.message.content,
        vec![Part::Text {
            text: "Hello there, friend. ✓ done".into()
        }]
    );
    assert_eq!(completion.stop, StopReason::EndTurn);
    assert_eq!(
        completion.usage,
        ProviderUsage {
            input: 120,
            output: 17,
            reasoning: None,
            cache_read: 30,
            cache_write: 5,
        }
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn every_stop_reason_is_mapped() {
    let cases = [
        ("end_turn", StopReason::EndTurn),
        ("max_tokens", StopReason::Length),
        ("stop_sequence", StopReason::EndTurn),
        ("tool_use", StopReason::ToolUse),
        ("pause_turn", StopReason::EndTurn),
        ("refusal", StopReason::EndTurn),
        ("model_context_window_exceeded", StopReason::Length),
        ("some_future_reason", StopReason::EndTurn),
    ];
    let server = LlmServer::start().await.unwrap();
    let provider = provider(&server, "anthropic");
    for (wire, expected) in cases {
        server.push(Script::anthropic_text("x").stop(wire));
        let (result, _) = run(&provider, &request("hi")).await;
        assert_eq!(result.unwrap().stop, expected, "stop_reason {wire}");
    }
}

#[tokio::test]
async fn tool_call_is_assembled_from_input_json_deltas() {
    let args = r#"{"path": "src/main.rs", "limit": 10, "note": "ünïcode \"quoted\""}"#;
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::reply(
            Format::Anthropic,
            vec![
                Block::text("Let me look."),
                Block::tool_call("toolu_01", "read", args),
            ],
        )
        .delta_bytes(3),
    );
    let provider = provider(&server, "anthropic");
    let mut req = request("read main");
    req.tools = vec![read_tool()];
    let (result, events) = run(&provider, &req).await;
    let completion = result.unwrap();

    assert_eq!(
        shape(&events),
        vec![
            "start#1",
            "assistant",
            "text",
            "tool_start:toolu_01:read",
            "args:toolu_01",
            "tool_end:toolu_01"
        ]
    );
    let pieces = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::ToolUseArgs { .. }))
        .count();
    assert!(pieces > 10, "partial_json arrives in pieces ({pieces})");
    assert_eq!(args_of(&events, "toolu_01"), args);
    assert_eq!(completion.stop, StopReason::ToolUse);
    assert_eq!(
        completion.message.content,
        vec![
            Part::Text {
                text: "Let me look.".into()
            },
            Part::ToolCall {
                id: "toolu_01".into(),
                name: "read".into(),
                args: json!({"path": "src/main.rs", "limit": 10, "note": "ünïcode \"quoted\""}),
            }
        ]
    );
}

#[tokio::test]
async fn tool_call_without_arguments_gets_an_empty_object() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call("t1", "now", ""));
    let provider = provider(&server, "anthropic");
    let completion = run(&provider, &request("time?")).await.0.unwrap();
    assert_eq!(
        completion.message.tool_calls().collect::<Vec<_>>(),
        vec![("t1", "now", &json!({}))]
    );
}

#[tokio::test]
async fn invalid_tool_arguments_are_kept_raw_for_the_model_to_be_told() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call("t1", "read", r#"{"path": "a"#).stop("tool_use"));
    let provider = provider(&server, "anthropic");
    let completion = run(&provider, &request("x")).await.0.unwrap();
    assert_eq!(completion.stop, StopReason::ToolUse);
    let calls: Vec<_> = completion.message.tool_calls().collect();
    assert_eq!(calls, vec![("t1", "read", &json!(r#"{"path": "a"#))]);
    let told = zut_providers::invalid_args_message("read", calls[0].2).unwrap();
    assert!(
        told.contains("not valid JSON") && told.contains(r#"{"path": "a"#),
        "{told}"
    );
    assert_eq!(server.requests().len(), 1, "not retried");
}

#[tokio::test]
async fn tool_call_cut_by_max_tokens_is_dropped_and_reported_as_length() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::reply(
            Format::Anthropic,
            vec![
                Block::text("Writing the file"),
                Block::tool_call("t1", "write", r#"{"path": "a.txt", "content": "lots of"#),
            ],
        )
        .stop("max_tokens"),
    );
    let provider = provider(&server, "anthropic");
    let completion = run(&provider, &request("x")).await.0.unwrap();
    assert_eq!(completion.stop, StopReason::Length);
    assert_eq!(completion.message.text(), "Writing the file");
    assert_eq!(completion.message.tool_calls().count(), 0);
}

#[tokio::test]
async fn thinking_blocks_with_signature_when_reasoning_is_on() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::reply(
            Format::Anthropic,
            vec![
                Block::thinking("Let me think step by step.", "EqQBCgIYAhIM-sig"),
                Block::text("42"),
            ],
        )
        .delta_bytes(5),
    );
    let provider = provider(&server, "anthropic");
    let mut req = request("6 * 7?");
    req.reasoning = Reasoning::Medium;
    let (result, events) = run(&provider, &req).await;
    let completion = result.unwrap();

    assert_eq!(
        shape(&events),
        vec!["start#1", "assistant", "thinking", "text"]
    );
    assert_eq!(thinking_of(&events), "Let me think step by step.");
    assert_eq!(
        completion.message.content,
        vec![
            Part::Thinking {
                text: "Let me think step by step.".into(),
                signature: Some("EqQBCgIYAhIM-sig".into()),
            },
            Part::Text { text: "42".into() },
        ]
    );

    let body = &server.requests()[0].body;
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 8192})
    );
    assert!(
        body["max_tokens"].as_u64().unwrap() > 8192,
        "budget_tokens must stay below max_tokens: {body}"
    );
}

#[tokio::test]
async fn no_thinking_config_when_reasoning_is_off() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("ok"));
    let provider = provider(&server, "anthropic");
    run(&provider, &request("x")).await.0.unwrap();
    let body = &server.requests()[0].body;
    assert!(body.get("thinking").is_none(), "{body}");
    assert_eq!(body["max_tokens"], 1024);
}

#[tokio::test]
async fn redacted_thinking_round_trips() {
    let server = LlmServer::start().await.unwrap();
    let frame = |event: &str, data: serde_json::Value| SseFrame::named(event, data.to_string());
    server.push(Script::events(vec![
        frame(
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "m", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 5, "output_tokens": 1}}}),
        ),
        frame(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "redacted_thinking", "data": "ENCRYPTED=="}}),
        ),
        frame(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        frame(
            "content_block_start",
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
        ),
        frame(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "hi"}}),
        ),
        frame(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 1}),
        ),
        frame(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 3}}),
        ),
        frame("message_stop", json!({"type": "message_stop"})),
    ]));
    server.push(Script::anthropic_text("again"));
    let provider = provider(&server, "anthropic");
    let mut req = request("x");
    req.reasoning = Reasoning::Low;
    let completion = run(&provider, &req).await.0.unwrap();
    assert_eq!(
        completion.message.content[0],
        Part::Thinking {
            text: String::new(),
            signature: Some(format!("{REDACTED_THINKING_PREFIX}ENCRYPTED==")),
        }
    );
    assert_eq!(completion.usage.output, 3);

    req.messages.push(completion.message);
    req.messages.push(zut_providers::Message::user_text("more"));
    run(&provider, &req).await.0.unwrap();
    let body = &server.requests()[1].body;
    assert_eq!(
        body["messages"][1]["content"][0],
        json!({"type": "redacted_thinking", "data": "ENCRYPTED=="})
    );
    assert_eq!(body["messages"][1]["content"][1]["text"], "hi");
}

#[tokio::test]
async fn unknown_events_blocks_and_deltas_are_ignored() {
    let server = LlmServer::start().await.unwrap();
    let frame = |event: &str, data: serde_json::Value| SseFrame::named(event, data.to_string());
    server.push(Script::events(vec![
        frame(
            "message_start",
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 9, "output_tokens": 1}}}),
        ),
        frame("ping", json!({"type": "ping"})),
        frame("brand_new_event", json!({"type": "brand_new_event", "x": 1})),
        frame(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {}}}),
        ),
        frame(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"q\":1}"}}),
        ),
        frame("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        frame(
            "content_block_start",
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
        ),
        frame(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "citations_delta", "citation": {"type": "x"}}}),
        ),
        frame(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "only this"}}),
        ),
        frame("content_block_stop", json!({"type": "content_block_stop", "index": 1})),
        frame(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 4}}),
        ),
        frame("message_stop", json!({"type": "message_stop"})),
    ]));
    let provider = provider(&server, "anthropic");
    let (result, events) = run(&provider, &request("x")).await;
    let completion = result.unwrap();
    assert_eq!(
        completion.message.content,
        vec![Part::Text {
            text: "only this".into()
        }]
    );
    assert!(!events
        .iter()
        .any(|e| matches!(e, StreamEvent::ToolUseStart { .. })));
    assert_eq!((completion.usage.input, completion.usage.output), (9, 4));
}

#[tokio::test]
async fn request_shape_headers_and_body() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("ok"));
    let provider = provider(&server, "anthropic");
    run(&provider, &conversation()).await.0.unwrap();

    let req = &server.requests()[0];
    assert_eq!(req.method, "POST");
    assert_eq!(req.path, "/v1/messages");
    assert_eq!(req.header("x-api-key"), Some(KEY));
    assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(req.header("accept"), Some("text/event-stream"));
    assert_eq!(req.header("authorization"), None, "no bearer on this wire");

    let body = &req.body;
    assert_eq!(body["model"], "override-model", "the request's model wins");
    assert_eq!(body["stream"], true);
    assert_eq!(body["max_tokens"], 2000);
    assert_eq!(body["system"][0]["type"], "text");
    assert_eq!(body["system"][0]["text"], "Be brief.");
    assert_eq!(
        body["tools"][0]["name"], "read",
        "tools: name, description, input_schema"
    );
    assert_eq!(body["tools"][0]["description"], "Read a file");
    assert_eq!(
        body["tools"][0]["input_schema"]["required"],
        json!(["path"])
    );

    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(
        messages[0]["content"][0],
        json!({"type": "text", "text": "read a.txt"})
    );
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(
        messages[1]["content"],
        json!([
            {"type": "thinking", "thinking": "I should read it", "signature": "sig-1"},
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "call_1", "name": "read", "input": {"path": "a.txt"}},
        ])
    );
    assert_eq!(messages[2]["role"], "user");
    let user = messages[2]["content"].as_array().unwrap();
    assert_eq!(user[0]["type"], "tool_result", "tool results come first");
    assert_eq!(user[0]["tool_use_id"], "call_1");
    assert_eq!(
        user[0]["content"],
        json!([{"type": "text", "text": "hello from a.txt"}])
    );
    assert!(user[0].get("is_error").is_none());
    assert_eq!(user[1]["text"], "and now?");
}

#[tokio::test]
async fn tool_errors_and_empty_results() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("ok"));
    let provider = provider(&server, "anthropic");
    let mut req = conversation();
    req.messages[2].content = vec![Part::ToolResult {
        call_id: "call_1".into(),
        is_error: true,
        content: vec![],
    }];
    run(&provider, &req).await.0.unwrap();
    let result = &server.requests()[0].body["messages"][2]["content"][0];
    assert_eq!(result["is_error"], true);
    assert!(result.get("content").is_none(), "{result}");
}

#[tokio::test]
async fn empty_reply_still_completes() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::reply(Format::Anthropic, vec![]));
    let provider = provider(&server, "anthropic");
    let (result, events) = run(&provider, &request("x")).await;
    let completion = result.unwrap();
    assert!(completion.message.content.is_empty());
    assert_eq!(completion.stop, StopReason::EndTurn);
    assert_eq!(shape(&events), vec!["start#1", "assistant"]);
}

#[tokio::test]
async fn http_chunks_split_anywhere_still_parse() {
    let text = "chunked ✓ across UTF-8 boundaries and CRLF-free frames";
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text(text).delta_bytes(3).chunk_bytes(1));
    server.push(Script::anthropic_text(text).delta_bytes(3).chunk_bytes(7));
    let provider = provider(&server, "anthropic");
    for _ in 0..2 {
        let completion = run(&provider, &request("x")).await.0.unwrap();
        assert_eq!(completion.message.text(), text);
    }
}

#[tokio::test]
async fn base_url_ending_in_v1_is_accepted() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("ok"));
    let config = zut_providers::ProviderConfig::new(
        "anthropic",
        &format!("{}/v1/", server.url()),
        Some(KEY),
        "m",
    )
    .unwrap();
    let provider = zut_providers::Provider::new(config).unwrap();
    run(&provider, &request("x")).await.0.unwrap();
    assert_eq!(server.requests()[0].path, "/v1/messages");
}
