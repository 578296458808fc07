//! Retries, errors and cancellation, over real HTTP against zut-llm-server's
//! injected failures.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::json;
use tokio_util::sync::CancellationToken;
use zut_llm_server::{Block, Body, Format, LlmServer, Script, SseFrame};
use zut_providers::{ProviderConfig, ProviderError, StreamEvent};

fn retries(events: &[StreamEvent]) -> Vec<(u32, u64, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::RetryScheduled {
                attempt,
                delay_ms,
                reason,
                ..
            } => Some((*attempt, *delay_ms, reason.clone())),
            _ => None,
        })
        .collect()
}

/// Neither the error's text nor its Debug form contains the key.
fn assert_no_key(err: &ProviderError) {
    assert!(!err.to_string().contains(KEY), "key in Display: {err}");
    assert!(!format!("{err:?}").contains(KEY), "key in Debug: {err:?}");
}

#[tokio::test]
async fn rate_limit_honours_retry_after_then_succeeds() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::status(429).retry_after(1).message("slow down"));
    server.push(Script::anthropic_text("after the wait"));
    let provider = provider(&server, "anthropic");
    let started = Instant::now();
    let (result, events) = run(&provider, &request("x")).await;
    let completion = result.unwrap();
    assert_eq!(completion.message.text(), "after the wait");

    let retries = retries(&events);
    assert_eq!(retries.len(), 1, "{events:?}");
    let (attempt, delay_ms, reason) = &retries[0];
    assert_eq!(*attempt, 1);
    assert_eq!(*delay_ms, 1000, "retry-after: 1 is honoured exactly");
    assert!(
        reason.contains("429") && reason.contains("slow down"),
        "{reason}"
    );
    assert!(started.elapsed() >= Duration::from_millis(950));
    assert_eq!(
        shape(&events),
        vec!["start#1", "retry#1", "start#2", "assistant", "text"]
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn retry_after_ms_header_and_cap() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::status(429).header("retry-after-ms", "150"));
    server.push(Script::status(429).retry_after(3600));
    server.push(Script::openai_text("ok"));
    let provider = provider(&server, "openai-compatible");
    let (result, events) = run(&provider, &request("x")).await;
    result.unwrap();
    let delays: Vec<u64> = retries(&events).iter().map(|r| r.1).collect();
    assert_eq!(
        delays,
        vec![150, 2000],
        "retry-after-ms honoured; an hour is capped at max_delay"
    );
}

#[tokio::test]
async fn server_errors_are_retried_with_backoff() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::status(500).message("backend exploded"));
    server.push(Script::status(529));
    server.push(Script::status(503));
    server.push(Script::openai_text("finally"));
    let provider = provider(&server, "openai-compatible");
    let (result, events) = run(&provider, &request("x")).await;
    assert_eq!(result.unwrap().message.text(), "finally");
    let retries = retries(&events);
    assert_eq!(retries.len(), 3);
    assert!(retries[0].2.contains("500") && retries[0].2.contains("backend exploded"));
    assert!(retries[1].2.contains("529") && retries[1].2.contains("overloaded"));
    for (attempt, delay, _) in &retries {
        // base 5 ms doubled per attempt, with jitter between half and all of it.
        let full = 5u64 << (attempt - 1);
        assert!(
            *delay >= full / 2 && *delay <= full,
            "attempt {attempt}: {delay} ms"
        );
    }
    assert_eq!(server.requests().len(), 4);
}

#[tokio::test]
async fn exhausted_retries_report_status_and_message_but_never_the_key() {
    let server = LlmServer::start().await.unwrap();
    for _ in 0..3 {
        server.push(
            Script::status(503).message(format!("upstream unavailable (key {KEY} was fine)")),
        );
    }
    let provider = provider_with(&server, "anthropic", Some(KEY), fast_retry(3));
    let (result, events) = run(&provider, &request("x")).await;
    let err = result.unwrap_err();
    match &err {
        ProviderError::Http {
            provider,
            status,
            message,
            retryable,
        } => {
            assert_eq!(provider, "anthropic");
            assert_eq!(*status, 503);
            assert!(message.contains("upstream unavailable"), "{message}");
            assert!(retryable);
        }
        other => panic!("expected an HTTP error, got {other:?}"),
    }
    let text = err.to_string();
    assert!(
        text.contains("503") && text.contains("upstream unavailable"),
        "{text}"
    );
    assert!(text.contains("[redacted]"), "{text}");
    assert_no_key(&err);
    for (_, _, reason) in retries(&events) {
        assert!(!reason.contains(KEY), "{reason}");
    }
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    for status in [400, 401, 403, 404] {
        let server = LlmServer::start().await.unwrap();
        server.push(Script::status(status));
        server.push(Script::anthropic_text("never reached"));
        let provider = provider(&server, "anthropic");
        let (result, events) = run(&provider, &request("x")).await;
        let err = result.unwrap_err();
        assert!(matches!(err, ProviderError::Http { status: s, .. } if s == status));
        assert!(!err.is_retryable());
        assert!(retries(&events).is_empty());
        assert_eq!(server.requests().len(), 1, "status {status}");
        assert_no_key(&err);
    }
    let server = LlmServer::start().await.unwrap();
    server.push(Script::status(401).message("invalid x-api-key"));
    let provider = provider(&server, "anthropic");
    let err = run(&provider, &request("x")).await.0.unwrap_err();
    assert_eq!(
        err.to_string(),
        "anthropic: HTTP 401: invalid x-api-key (model test-model; check --api-key)"
    );
}

#[tokio::test]
async fn stream_cut_before_any_output_is_retried() {
    let server = LlmServer::start().await.unwrap();
    // message_start and ping only, then the connection drops.
    server.push(Script::anthropic_text("first try").cut_after(2));
    server.push(Script::anthropic_text("second try"));
    let provider = provider(&server, "anthropic");
    let (result, events) = run(&provider, &request("x")).await;
    assert_eq!(result.unwrap().message.text(), "second try");
    let retries = retries(&events);
    assert_eq!(retries.len(), 1);
    assert!(
        retries[0].2.contains("stream interrupted") || retries[0].2.contains("ended before"),
        "{}",
        retries[0].2
    );
    assert!(!events
        .iter()
        .any(|e| matches!(e, StreamEvent::TextDelta(t) if t.contains("first"))));
}

#[tokio::test]
async fn openai_stream_cut_before_output_is_retried_too() {
    let server = LlmServer::start().await.unwrap();
    // Only the role chunk (empty content) arrives.
    server.push(Script::openai_text("lost").cut_after(1));
    server.push(Script::openai_text("kept"));
    let provider = provider(&server, "openai-compatible");
    let (result, _) = run(&provider, &request("x")).await;
    assert_eq!(result.unwrap().message.text(), "kept");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn stream_cut_after_output_is_an_error_without_retry() {
    let server = LlmServer::start().await.unwrap();
    // message_start, ping, content_block_start, two text deltas, then the cut.
    server.push(
        Script::anthropic_text("partial answer that never ends")
            .delta_bytes(4)
            .cut_after(5),
    );
    server.push(Script::anthropic_text("must not be used"));
    let provider = provider(&server, "anthropic");
    let (result, events) = run(&provider, &request("x")).await;
    let err = result.unwrap_err();
    assert!(matches!(err, ProviderError::Transport { .. }), "{err:?}");
    assert_eq!(text_of(&events), "partial ");
    assert!(retries(&events).is_empty());
    assert_eq!(server.requests().len(), 1);
    assert_eq!(server.pending(), 1);
}

#[tokio::test]
async fn malformed_sse_is_a_clear_error() {
    for (format, preset) in [
        (Format::Anthropic, "anthropic"),
        (Format::Openai, "openai-compatible"),
    ] {
        let server = LlmServer::start().await.unwrap();
        server.push(Script::malformed(format));
        let provider = provider(&server, preset);
        let err = run(&provider, &request("x")).await.0.unwrap_err();
        assert!(matches!(err, ProviderError::Protocol { .. }), "{err:?}");
        let text = err.to_string();
        assert!(
            text.starts_with(&format!("{preset}: malformed stream: invalid JSON")),
            "{text}"
        );
        assert_eq!(
            server.requests().len(),
            1,
            "malformed streams are not retried"
        );
    }
}

#[tokio::test]
async fn garbage_body_is_reported_not_hung() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::raw_sse("this is not an event stream\n\nat all"));
    let provider = provider_with(&server, "anthropic", Some(KEY), fast_retry(1));
    let err = run(&provider, &request("x")).await.0.unwrap_err();
    assert!(
        err.to_string()
            .contains("ended before the reply was complete"),
        "{err}"
    );
}

#[tokio::test]
async fn anthropic_overloaded_error_event_before_output_is_retried() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_error_event(
        "overloaded_error",
        "Overloaded",
    ));
    server.push(Script::anthropic_text("recovered"));
    let provider = provider(&server, "anthropic");
    let (result, events) = run(&provider, &request("x")).await;
    assert_eq!(result.unwrap().message.text(), "recovered");
    let retries = retries(&events);
    assert_eq!(retries.len(), 1);
    assert_eq!(retries[0].2, "anthropic: overloaded_error: Overloaded");
}

#[tokio::test]
async fn anthropic_error_event_after_output_fails_the_request() {
    let server = LlmServer::start().await.unwrap();
    let mut frames: Vec<SseFrame> = Vec::new();
    let frame = |event: &str, data: serde_json::Value| SseFrame::named(event, data.to_string());
    frames.push(frame(
        "message_start",
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 3, "output_tokens": 1}}}),
    ));
    frames.push(frame(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    ));
    frames.push(frame(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Half"}}),
    ));
    frames.push(frame(
        "error",
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    ));
    server.push(Script::events(frames));
    server.push(Script::anthropic_text("unused"));
    let provider = provider(&server, "anthropic");
    let (result, events) = run(&provider, &request("x")).await;
    let err = result.unwrap_err();
    assert_eq!(
        err,
        ProviderError::Api {
            provider: "anthropic".into(),
            kind: "overloaded_error".into(),
            message: "Overloaded".into(),
            retryable: true,
        }
    );
    assert_eq!(text_of(&events), "Half");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn anthropic_non_retryable_error_event() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_error_event(
        "invalid_request_error",
        "prompt is too long",
    ));
    let provider = provider(&server, "anthropic");
    let err = run(&provider, &request("x")).await.0.unwrap_err();
    assert_eq!(
        err.to_string(),
        "anthropic: invalid_request_error: prompt is too long"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn openai_in_stream_errors() {
    let server = LlmServer::start().await.unwrap();
    // OpenRouter style: numeric code, retryable when 5xx.
    server.push(Script::events(vec![SseFrame::data(
        json!({"id": "x", "object": "chat.completion.chunk", "error": {"code": 502, "message": "provider returned error"}, "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}]})
            .to_string(),
    )]));
    // vLLM style bare error object: not retryable.
    server.push(Script::events(vec![SseFrame::data(
        json!({"object": "error", "message": "context too long", "type": "BadRequestError", "code": 400})
            .to_string(),
    )]));
    let provider = provider(&server, "openai-compatible");
    let (result, events) = run(&provider, &request("x")).await;
    let err = result.unwrap_err();
    assert_eq!(retries(&events).len(), 1);
    assert!(retries(&events)[0].2.contains("provider returned error"));
    assert_eq!(
        err.to_string(),
        "openai-compatible: BadRequestError: context too long"
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn json_error_body_with_status_200() {
    let server = LlmServer::start().await.unwrap();
    let mut script = Script::new(Body::Error {
        error_type: "invalid_request_error".into(),
        message: "model not found".into(),
    });
    script.status = 200;
    server.push(script);
    let provider = provider(&server, "openai-compatible");
    let err = run(&provider, &request("x")).await.0.unwrap_err();
    assert_eq!(
        err.to_string(),
        "openai-compatible: invalid_request_error: model not found"
    );
}

#[tokio::test]
async fn connection_refused_is_retried_then_reported() {
    let port = dead_port();
    let config = ProviderConfig::new(
        "openai-compatible",
        &format!("http://127.0.0.1:{port}/v1"),
        Some(KEY),
        "m",
    )
    .unwrap()
    .with_retry(fast_retry(2));
    let provider = zut_providers::Provider::new(config).unwrap();
    let (result, events) = run(&provider, &request("x")).await;
    let err = result.unwrap_err();
    assert!(matches!(err, ProviderError::Transport { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("openai-compatible: request failed"),
        "{err}"
    );
    assert_eq!(retries(&events).len(), 1);
    assert_no_key(&err);
}

#[tokio::test]
async fn stalled_stream_times_out_and_is_retried_before_output() {
    let server = LlmServer::start().await.unwrap();
    // message_start, ping, content_block_start: then silence.
    server.push(Script::anthropic_text("stuck").hang_after(3));
    server.push(Script::anthropic_text("flowing"));
    let config = ProviderConfig::new("anthropic", &server.url(), Some(KEY), "m")
        .unwrap()
        .with_retry(fast_retry(2))
        .with_timeouts(Duration::from_secs(5), Duration::from_millis(300));
    let provider = zut_providers::Provider::new(config).unwrap();
    let (result, events) = run(&provider, &request("x")).await;
    assert_eq!(result.unwrap().message.text(), "flowing");
    let retries = retries(&events);
    assert_eq!(retries.len(), 1);
    assert!(retries[0].2.contains("stalled"), "{}", retries[0].2);
}

#[tokio::test]
async fn cancellation_mid_stream_returns_aborted_promptly() {
    for (format, preset) in [
        (Format::Anthropic, "anthropic"),
        (Format::Openai, "openai-compatible"),
    ] {
        let server = LlmServer::start().await.unwrap();
        // A few deltas, then the server hangs forever.
        server.push(
            Script::reply(format, vec![Block::text("streaming and then nothing")])
                .delta_bytes(3)
                .hang_after(5),
        );
        let provider = provider(&server, preset);
        let cancel = CancellationToken::new();
        let trigger = cancel.clone();
        let started = Instant::now();
        let mut events = Vec::new();
        let result = provider
            .stream(&request("x"), &cancel, &mut |e| {
                if matches!(e, StreamEvent::TextDelta(_)) {
                    trigger.cancel();
                }
                events.push(e);
            })
            .await;
        assert_eq!(result, Err(ProviderError::Aborted), "{preset}");
        assert!(started.elapsed() < Duration::from_secs(10), "sanity");
        assert!(!text_of(&events).is_empty());
        assert_eq!(server.requests().len(), 1);
    }
}

#[tokio::test]
async fn cancellation_while_waiting_for_headers_and_during_backoff() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::hang());
    let provider = provider(&server, "anthropic");
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let (result, _) = run_with(&provider, &request("x"), &cancel).await;
    assert_eq!(result.unwrap_err(), ProviderError::Aborted);

    // A long retry-after sleep is interrupted too.
    server.push(Script::status(429).retry_after(60));
    let config = ProviderConfig::new("anthropic", &server.url(), Some(KEY), "m")
        .unwrap()
        .with_retry(zut_providers::RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(5),
            max_delay: Duration::from_secs(120),
        });
    let provider = zut_providers::Provider::new(config).unwrap();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let started = Instant::now();
    let mut events = Vec::new();
    let result = provider
        .stream(&request("x"), &cancel, &mut |e| {
            if matches!(e, StreamEvent::RetryScheduled { .. }) {
                trigger.cancel();
            }
            events.push(e);
        })
        .await;
    assert_eq!(result.unwrap_err(), ProviderError::Aborted);
    assert_eq!(retries(&events)[0].1, 60_000);
    assert!(started.elapsed() < Duration::from_secs(30), "sanity");
}

#[tokio::test]
async fn already_cancelled_token_sends_nothing() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("x"));
    let provider = provider(&server, "anthropic");
    let cancel = CancellationToken::new();
    cancel.cancel();
    let (result, events) = run_with(&provider, &request("x"), &cancel).await;
    assert_eq!(result.unwrap_err(), ProviderError::Aborted);
    assert!(events.is_empty());
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn huge_error_bodies_are_read_only_in_part_and_clipped() {
    let server = LlmServer::start().await.unwrap();
    // A 4 MB message in a JSON error body (401: not retried): only the
    // first 64 KiB are read, which no longer parse as JSON, so the error
    // shows the start of the raw body, clipped.
    server.push(Script::status(401).message("x".repeat(4 * 1024 * 1024)));
    // A 3,000-character message in a small body: clipped to 2,000.
    server.push(Script::status(401).message("y".repeat(3000)));
    let provider = provider(&server, "anthropic");
    let err = run(&provider, &request("x"))
        .await
        .0
        .unwrap_err()
        .to_string();
    assert!(
        // The body's key order depends on serde_json's `preserve_order`
        // (enabled in the workspace by agent-client-protocol).
        err.starts_with("anthropic: HTTP 401: {") && err.contains("\"error\""),
        "{}",
        &err[..80]
    );
    assert!(err.len() < 600, "clipped: {} chars", err.len());
    assert!(
        err.ends_with("… (model test-model; check --api-key)"),
        "{err}"
    );
    let err = run(&provider, &request("x"))
        .await
        .0
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        format!(
            "anthropic: HTTP 401: {}… (model test-model; check --api-key)",
            "y".repeat(2000)
        )
    );
}

#[tokio::test]
async fn an_sse_event_that_never_ends_is_refused_at_16_mib() {
    let server = LlmServer::start().await.unwrap();
    // One `data:` line of 17 MiB with no line break: the stream must fail
    // with a clear error instead of buffering without bound.
    server.push(Script::raw_sse(format!(
        "data: {}",
        "z".repeat(17 * 1024 * 1024)
    )));
    let provider = provider(&server, "anthropic");
    let err = run(&provider, &request("x")).await.0.unwrap_err();
    assert_eq!(
        err.to_string(),
        "anthropic: malformed stream: an SSE event larger than 16 MiB"
    );
}

/// Runs `req` until the provider says it waits for the rate limit, then
/// cancels it; returns its events.
async fn until_rate_limited(provider: &zut_providers::Provider) -> Vec<StreamEvent> {
    let cancel = CancellationToken::new();
    let mut events = Vec::new();
    let result = provider
        .stream(&request("x"), &cancel, &mut |e| {
            if matches!(e, StreamEvent::RateLimited { .. }) {
                cancel.cancel();
            }
            events.push(e);
        })
        .await;
    assert!(matches!(result, Err(ProviderError::Aborted)), "{result:?}");
    events
}

#[tokio::test]
async fn a_429_for_one_request_holds_back_the_providers_other_requests() {
    // A conversation and its subagents share one provider (clones, or
    // `with_model` for a child on another model): the first request's 429
    // with retry-after makes the others wait before their attempt instead
    // of each finding the limit on its own.
    let server = LlmServer::start().await.unwrap();
    server.push(Script::status(429).retry_after(30).message("slow down"));
    let retry = zut_providers::RetryPolicy {
        max_attempts: 1,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_secs(60),
    };
    let parent = provider_with(&server, "anthropic", Some(KEY), retry);
    let (result, _) = run(&parent, &request("x")).await;
    assert!(
        matches!(result, Err(ProviderError::Http { status: 429, .. })),
        "{result:?}"
    );
    for other in [parent.clone(), parent.with_model("other-model")] {
        let events = until_rate_limited(&other).await;
        match events.first() {
            Some(StreamEvent::RateLimited { delay_ms }) => {
                assert!(*delay_ms > 0 && *delay_ms <= 30_000, "{delay_ms}")
            }
            other => panic!("no rate-limit wait first: {other:?}"),
        }
        assert_eq!(shape(&events), vec!["rate_limited"]);
    }
    // Nothing more reached the server while the limit held.
    assert_eq!(server.requests().len(), 1);

    // A provider built on its own does not wait.
    server.push(Script::anthropic_text("fresh"));
    let fresh = provider_with(&server, "anthropic", Some(KEY), retry);
    let (result, events) = run(&fresh, &request("x")).await;
    assert_eq!(result.unwrap().message.text(), "fresh");
    assert_eq!(shape(&events), vec!["start#1", "assistant", "text"]);
}
