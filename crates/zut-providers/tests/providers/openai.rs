//! The OpenAI-compatible chat completions wire, driven over real HTTP
//! against zut-llm-server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use serde_json::json;
use zut_llm_server::{Block, Format, LlmServer, Script, SseFrame, Usage};
use zut_providers::{Part, Reasoning, StopReason, StreamEvent, Usage as ProviderUsage};

#[tokio::test]
async fn text_streams_in_order_with_usage() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::openai_text("The answer is 42 — ✓")
            .delta_bytes(3)
            .usage(Usage {
                input: 100,
                output: 12,
                cache_read: 20,
                cache_write: 0,
                reasoning: Some(4),
            }),
    );
    let provider = provider(&server, "openai-compatible");
    let (result, events) = run(&provider, &request("question")).await;
    let completion = result.unwrap();

    assert_eq!(shape(&events), vec!["start#1", "assistant", "text"]);
    assert!(
        events
            .iter()
            .filter(|e| matches!(e, StreamEvent::TextDelta(_)))
            .count()
            >= 6
    );
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
        "prompt_tokens (120) minus cached_tokens (20) is the uncached input"
    );
}

#[tokio::test]
async fn finish_reasons_are_mapped() {
    let server = LlmServer::start().await.unwrap();
    let provider = provider(&server, "openai-compatible");
    for (wire, expected) in [
        ("stop", StopReason::EndTurn),
        ("length", StopReason::Length),
        ("content_filter", StopReason::EndTurn),
        ("tool_calls", StopReason::ToolUse),
        ("function_call", StopReason::ToolUse),
    ] {
        server.push(Script::openai_text("x").stop(wire));
        let completion = run(&provider, &request("x")).await.0.unwrap();
        assert_eq!(completion.stop, expected, "finish_reason {wire}");
    }
    // Some servers say "stop" even though they called tools.
    server.push(Script::openai_tool_call("c1", "read", r#"{"path":"a"}"#).stop("stop"));
    let completion = run(&provider, &request("x")).await.0.unwrap();
    assert_eq!(completion.stop, StopReason::ToolUse);
}

#[tokio::test]
async fn tool_call_deltas_are_assembled() {
    let args = r#"{"path": "src/lib.rs", "offset": 3}"#;
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::reply(
            Format::Openai,
            vec![
                Block::text("Reading."),
                Block::tool_call("call_abc", "read", args),
            ],
        )
        .delta_bytes(4),
    );
    let provider = provider(&server, "openai-compatible");
    let (result, events) = run(&provider, &request("x")).await;
    let completion = result.unwrap();
    assert_eq!(
        shape(&events),
        vec![
            "start#1",
            "assistant",
            "text",
            "tool_start:call_abc:read",
            "args:call_abc",
            "tool_end:call_abc"
        ]
    );
    assert_eq!(args_of(&events, "call_abc"), args);
    assert_eq!(completion.stop, StopReason::ToolUse);
    assert_eq!(
        completion.message.content,
        vec![
            Part::Text {
                text: "Reading.".into()
            },
            Part::ToolCall {
                id: "call_abc".into(),
                name: "read".into(),
                args: json!({"path": "src/lib.rs", "offset": 3}),
            }
        ]
    );
}

#[tokio::test]
async fn parallel_tool_calls_interleaved_by_index() {
    let a = r#"{"path": "one.txt"}"#;
    let b = r#"{"pattern": "fn main", "glob": "*.rs"}"#;
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::reply(
            Format::Openai,
            vec![
                Block::tool_call("call_A", "read", a),
                Block::tool_call("call_B", "grep", b),
            ],
        )
        .delta_bytes(3)
        .interleave(),
    );
    let provider = provider(&server, "openai-compatible");
    let (result, events) = run(&provider, &request("x")).await;
    let completion = result.unwrap();

    // Both calls open before their arguments interleave.
    let order = shape(&events);
    assert_eq!(
        &order[..4],
        &[
            "start#1",
            "assistant",
            "tool_start:call_A:read",
            "tool_start:call_B:grep"
        ]
    );
    let switches = order
        .iter()
        .filter(|s| s.as_str() == "args:call_A" || s.as_str() == "args:call_B")
        .count();
    assert!(switches > 4, "argument deltas alternate: {order:?}");
    assert_eq!(args_of(&events, "call_A"), a);
    assert_eq!(args_of(&events, "call_B"), b);
    assert_eq!(
        completion.message.tool_calls().collect::<Vec<_>>(),
        vec![
            ("call_A", "read", &json!({"path": "one.txt"})),
            (
                "call_B",
                "grep",
                &json!({"pattern": "fn main", "glob": "*.rs"})
            ),
        ]
    );
    assert_eq!(completion.stop, StopReason::ToolUse);
    let ends: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolUseEnd { id } => Some(id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(ends, vec!["call_A", "call_B"]);
}

#[tokio::test]
async fn tool_call_fragments_without_id_or_name_in_later_chunks() {
    // llama.cpp / vLLM style: the name may arrive before any argument, the id
    // only once, and a call may have no id at all.
    let server = LlmServer::start().await.unwrap();
    let chunk = |delta: serde_json::Value, finish: Option<&str>| {
        SseFrame::data(
            json!({"id": "x", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
                .to_string(),
        )
    };
    server.push(Script::events(vec![
        chunk(json!({"role": "assistant", "content": null}), None),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"name": "ls", "arguments": "{\"di"}}]}),
            None,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "r\": \".\"}"}}]}),
            None,
        ),
        chunk(json!({}), Some("tool_calls")),
        SseFrame::data("[DONE]"),
    ]));
    let provider = provider(&server, "openai-compatible");
    let (result, events) = run(&provider, &request("x")).await;
    let completion = result.unwrap();
    assert_eq!(
        completion.message.tool_calls().collect::<Vec<_>>(),
        vec![("call_0", "ls", &json!({"dir": "."}))]
    );
    assert_eq!(args_of(&events, "call_0"), r#"{"dir": "."}"#);
}

#[tokio::test]
async fn reasoning_content_becomes_thinking_and_effort_is_sent() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::reply(
            Format::Openai,
            vec![
                Block::thinking("Considering the options.", ""),
                Block::text("B."),
            ],
        )
        .delta_bytes(6),
    );
    let provider = provider(&server, "openai-compatible");
    let mut req = request("A or B?");
    req.reasoning = Reasoning::High;
    let (result, events) = run(&provider, &req).await;
    let completion = result.unwrap();
    assert_eq!(
        shape(&events),
        vec!["start#1", "assistant", "thinking", "text"]
    );
    assert_eq!(
        completion.message.content,
        vec![
            Part::Thinking {
                text: "Considering the options.".into(),
                signature: None,
            },
            Part::Text { text: "B.".into() },
        ]
    );
    assert_eq!(server.requests()[0].body["reasoning_effort"], "high");
}

#[tokio::test]
async fn reasoning_sent_in_both_fields_is_not_duplicated() {
    let server = LlmServer::start().await.unwrap();
    let chunk = |delta: serde_json::Value| {
        SseFrame::data(
            json!({"choices": [{"index": 0, "delta": delta, "finish_reason": null}]}).to_string(),
        )
    };
    server.push(Script::events(vec![
        chunk(json!({"reasoning_content": "think ", "reasoning": "think "})),
        chunk(json!({"reasoning": "more"})),
        chunk(json!({"content": "done"})),
        SseFrame::data(
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}).to_string(),
        ),
        SseFrame::data("[DONE]"),
    ]));
    let provider = provider(&server, "openrouter");
    let (result, events) = run(&provider, &request("x")).await;
    result.unwrap();
    assert_eq!(thinking_of(&events), "think more");
}

#[tokio::test]
async fn request_shape_headers_and_body() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::openai_text("ok"));
    let provider = provider(&server, "openai-compatible");
    run(&provider, &conversation()).await.0.unwrap();

    let req = &server.requests()[0];
    assert_eq!(req.method, "POST");
    assert_eq!(req.path, "/v1/chat/completions");
    assert_eq!(
        req.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(req.header("x-api-key"), None);
    assert_eq!(req.header("content-type"), Some("application/json"));

    let body = &req.body;
    assert_eq!(body["model"], "override-model");
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(body["max_tokens"], 2000);
    assert!(body.get("max_completion_tokens").is_none());
    assert!(body.get("reasoning_effort").is_none());
    assert_eq!(
        body["tools"],
        json!([{
            "type": "function",
            "function": {
                "name": "read",
                "description": "Read a file",
                "parameters": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                    "required": ["path"],
                },
            },
        }])
    );
    assert_eq!(
        body["messages"],
        json!([
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "read a.txt"},
            {"role": "assistant", "content": "Reading.", "tool_calls": [{
                "id": "call_1",
                "type": "function",
                "function": {"name": "read", "arguments": "{\"path\":\"a.txt\"}"},
            }]},
            {"role": "tool", "tool_call_id": "call_1", "content": "hello from a.txt"},
            {"role": "user", "content": "and now?"},
        ]),
        "thinking is not sent back on this wire; tool results follow the call"
    );
}

#[tokio::test]
async fn openai_preset_uses_max_completion_tokens() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::openai_text("ok"));
    let provider = provider(&server, "openai");
    run(&provider, &request("x")).await.0.unwrap();
    let body = &server.requests()[0].body;
    assert_eq!(body["max_completion_tokens"], 1024);
    assert!(body.get("max_tokens").is_none());
}

#[tokio::test]
async fn keyless_local_server_gets_no_auth_header() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::openai_text("local"));
    let provider = provider_with(&server, "ollama", None, fast_retry(1));
    let completion = run(&provider, &request("x")).await.0.unwrap();
    assert_eq!(completion.message.text(), "local");
    assert_eq!(server.requests()[0].header("authorization"), None);
}

#[tokio::test]
async fn usage_is_zero_when_the_server_sends_none() {
    // A stream ending with finish_reason but without usage or [DONE] is complete.
    let server = LlmServer::start().await.unwrap();
    server.push(Script::events(vec![
        SseFrame::data(
            json!({"choices": [{"index": 0, "delta": {"content": "hey"}, "finish_reason": null}]})
                .to_string(),
        ),
        SseFrame::data(
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": null})
                .to_string(),
        ),
    ]));
    let provider = provider(&server, "openai-compatible");
    let completion = run(&provider, &request("x")).await.0.unwrap();
    assert_eq!(completion.message.text(), "hey");
    assert_eq!(completion.usage, ProviderUsage::default());
}

#[tokio::test]
async fn stream_without_finish_or_done_is_incomplete() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::events(vec![SseFrame::data(
        json!({"choices": [{"index": 0, "delta": {"content": "partial"}, "finish_reason": null}]})
            .to_string(),
    )]));
    let provider = provider(&server, "openai-compatible");
    let err = run(&provider, &request("x")).await.0.unwrap_err();
    assert!(
        err.to_string()
            .contains("ended before the reply was complete"),
        "{err}"
    );
    assert_eq!(server.requests().len(), 1, "output was streamed: no retry");
}
