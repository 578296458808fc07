//! The `gemini` and `bedrock` script formats over real HTTP, read raw
//! (HTTP/1.0, body until close) and checked against the documented wire:
//! Gemini's SSE `GenerateContentResponse` chunks, Bedrock's binary
//! event-stream frames (prelude, CRCs, string headers, JSON payloads).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use zut_llm_server::{Block, EventFrame, Format, LlmServer, Script, Usage};

/// POSTs `{}` with HTTP/1.0; returns the status line, the headers block and the raw body.
async fn post(server: &LlmServer, path: &str) -> (String, String, Vec<u8>) {
    let addr = server.url().trim_start_matches("http://").to_string();
    let mut stream = TcpStream::connect(&addr).await.unwrap();
    let request = format!(
        "POST {path} HTTP/1.0\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw).await;
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let (status, headers) = head.split_once("\r\n").unwrap();
    (
        status.to_string(),
        headers.to_ascii_lowercase(),
        raw[split + 4..].to_vec(),
    )
}

fn sse_data(body: &[u8]) -> Vec<Value> {
    String::from_utf8(body.to_vec())
        .unwrap()
        .split("\n\n")
        .filter(|b| !b.is_empty())
        .map(|b| serde_json::from_str(b.strip_prefix("data: ").unwrap()).unwrap())
        .collect()
}

/// Decodes event-stream frames, checking both CRCs: (message type, event or exception type, payload).
fn frames(mut body: &[u8]) -> Vec<(String, String, Value)> {
    let be = |b: &[u8]| u32::from_be_bytes(b[..4].try_into().unwrap()) as usize;
    let mut out = Vec::new();
    while !body.is_empty() {
        let total = be(&body[0..]);
        let headers_len = be(&body[4..]);
        assert_eq!(
            be(&body[8..]) as u32,
            crc32fast::hash(&body[..8]),
            "prelude CRC"
        );
        let frame = &body[..total];
        assert_eq!(
            be(&frame[total - 4..]) as u32,
            crc32fast::hash(&frame[..total - 4]),
            "message CRC"
        );
        let mut h = &frame[12..12 + headers_len];
        let (mut message_type, mut kind) = (String::new(), String::new());
        while !h.is_empty() {
            let n = h[0] as usize;
            let name = std::str::from_utf8(&h[1..1 + n]).unwrap().to_string();
            assert_eq!(h[1 + n], 7, "string header");
            let len = u16::from_be_bytes([h[2 + n], h[3 + n]]) as usize;
            let value = std::str::from_utf8(&h[4 + n..4 + n + len])
                .unwrap()
                .to_string();
            h = &h[4 + n + len..];
            match name.as_str() {
                ":message-type" => message_type = value,
                ":event-type" | ":exception-type" => kind = value,
                ":content-type" => assert_eq!(value, "application/json"),
                other => panic!("unexpected header {other}"),
            }
        }
        let payload = serde_json::from_slice(&frame[12 + headers_len..total - 4]).unwrap();
        out.push((message_type, kind, payload));
        body = &body[total..];
    }
    out
}

#[tokio::test]
async fn gemini_reply_with_thoughts_signature_call_and_usage() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::reply(
            Format::Gemini,
            vec![
                Block::thinking("hmm", "SIG"),
                Block::tool_call("c1", "read", r#"{"path":"a"}"#),
                Block::text("done"),
            ],
        )
        .usage(Usage {
            input: 10,
            output: 5,
            cache_read: 4,
            cache_write: 0,
            reasoning: Some(3),
        }),
    );
    let (status, headers, body) =
        post(&server, "/v1beta/models/m:streamGenerateContent?alt=sse").await;
    assert!(status.contains("200"), "{status}");
    assert!(
        headers.contains("content-type: text/event-stream"),
        "{headers}"
    );
    let chunks = sse_data(&body);
    let parts: Vec<&Value> = chunks
        .iter()
        .map(|c| &c["candidates"][0]["content"]["parts"][0])
        .collect();
    assert_eq!(*parts[0], json!({"text": "hmm", "thought": true}));
    assert_eq!(
        *parts[1],
        json!({"functionCall": {"name": "read", "args": {"path": "a"}, "id": "c1"}, "thoughtSignature": "SIG"})
    );
    assert_eq!(*parts[2], json!({"text": "done"}));
    let last = chunks.last().unwrap();
    assert_eq!(last["candidates"][0]["finishReason"], "STOP");
    assert_eq!(
        last["usageMetadata"],
        json!({"promptTokenCount": 14, "candidatesTokenCount": 5, "totalTokenCount": 22,
               "cachedContentTokenCount": 4, "thoughtsTokenCount": 3})
    );
}

#[tokio::test]
async fn gemini_errors_blocks_and_malformed_calls() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::gemini_error(
        429,
        429,
        "RESOURCE_EXHAUSTED",
        "quota",
    ));
    server.push(Script::gemini_prompt_blocked("SAFETY"));
    server.push(Script::reply(
        Format::Gemini,
        vec![Block::tool_call("c", "f", "{oops")],
    ));
    let (status, headers, body) = post(&server, "/x").await;
    assert!(status.contains("429"));
    assert!(headers.contains("content-type: application/json"));
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap(),
        json!({"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}})
    );
    let (_, _, body) = post(&server, "/x").await;
    assert_eq!(
        sse_data(&body)[0]["promptFeedback"]["blockReason"],
        "SAFETY"
    );
    let (_, _, body) = post(&server, "/x").await;
    let chunks = sse_data(&body);
    assert_eq!(
        chunks[0]["candidates"][0]["finishReason"],
        "MALFORMED_FUNCTION_CALL"
    );
}

#[tokio::test]
async fn bedrock_reply_as_binary_event_stream_frames() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::reply(
            Format::Bedrock,
            vec![
                Block::thinking("hm", "SIG"),
                Block::text("héllo"),
                Block::tool_call("tu1", "read", r#"{"p":1}"#),
            ],
        )
        .delta_bytes(3)
        .usage(Usage {
            input: 7,
            output: 2,
            cache_read: 1,
            cache_write: 5,
            reasoning: None,
        }),
    );
    let (status, headers, body) = post(&server, "/model/m/converse-stream").await;
    assert!(status.contains("200"));
    assert!(
        headers.contains("content-type: application/vnd.amazon.eventstream"),
        "{headers}"
    );
    let frames = frames(&body);
    let kinds: Vec<&str> = frames.iter().map(|f| f.1.as_str()).collect();
    assert_eq!(
        kinds,
        vec![
            "messageStart",
            "contentBlockDelta",
            "contentBlockDelta",
            "contentBlockStop",
            "contentBlockDelta",
            "contentBlockDelta",
            "contentBlockStop",
            "contentBlockStart",
            "contentBlockDelta",
            "contentBlockDelta",
            "contentBlockDelta",
            "contentBlockStop",
            "messageStop",
            "metadata"
        ]
    );
    assert!(frames.iter().all(|f| f.0 == "event"));
    assert_eq!(
        frames[2].2["delta"],
        json!({"reasoningContent": {"signature": "SIG"}})
    );
    assert_eq!(frames[4].2["delta"]["text"], "hé");
    assert_eq!(
        frames[7].2["start"],
        json!({"toolUse": {"toolUseId": "tu1", "name": "read"}})
    );
    assert_eq!(frames[12].2, json!({"stopReason": "tool_use"}));
    assert_eq!(frames[13].2["usage"]["cacheWriteInputTokens"], 5);
}

#[tokio::test]
async fn bedrock_exceptions_errors_and_corrupt_frames() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::event_stream(vec![EventFrame::exception(
        "throttlingException",
        "slow",
    )]));
    server.push(Script::bedrock_error(
        403,
        "InvalidSignatureException",
        "Signature expired",
    ));
    server.push(Script::event_stream(vec![EventFrame::event(
        "messageStart",
        "{}",
    )
    .corrupted()]));
    let (_, _, body) = post(&server, "/x").await;
    assert_eq!(
        frames(&body),
        vec![(
            "exception".into(),
            "throttlingException".into(),
            json!({"message": "slow"})
        )]
    );
    let (status, headers, body) = post(&server, "/x").await;
    assert!(status.contains("403"));
    assert!(
        headers.contains("x-amzn-errortype: invalidsignatureexception:"),
        "{headers}"
    );
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap(),
        json!({"message": "Signature expired"})
    );
    let (_, _, body) = post(&server, "/x").await;
    let total = body.len();
    let crc = u32::from_be_bytes(body[total - 4..].try_into().unwrap());
    assert_ne!(
        crc,
        crc32fast::hash(&body[..total - 4]),
        "the message CRC is wrong on purpose"
    );
}
