//! zut-llm-server over real HTTP, read with a minimal raw HTTP/1.1 client
//! (so that cuts and hangs are seen exactly as they are on the wire).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use zut_llm_server::{Block, Format, LlmServer, Script, SseFrame, Usage};

/// What the raw client saw.
#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
    /// The chunked body ended with its terminating zero-size chunk.
    complete: bool,
    /// Reading stopped because nothing arrived for a while.
    stalled: bool,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The SSE frames of the body: (event, data) per blank-line-separated block.
    fn frames(&self) -> Vec<(Option<String>, String)> {
        self.body
            .split("\n\n")
            .filter(|b| !b.is_empty())
            .map(|block| {
                let mut event = None;
                let mut data = Vec::new();
                for line in block.lines() {
                    if let Some(e) = line.strip_prefix("event: ") {
                        event = Some(e.to_string());
                    } else if let Some(d) = line.strip_prefix("data: ") {
                        data.push(d);
                    }
                }
                (event, data.join("\n"))
            })
            .collect()
    }

    fn json_frames(&self) -> Vec<(Option<String>, Value)> {
        self.frames()
            .into_iter()
            .filter(|(_, d)| d != "[DONE]")
            .map(|(e, d)| (e, serde_json::from_str(&d).unwrap()))
            .collect()
    }
}

async fn send(server: &LlmServer, path: &str, extra: &[(&str, &str)], body: &str) -> Reply {
    let addr = server.url().trim_start_matches("http://").to_string();
    let mut stream = TcpStream::connect(&addr).await.unwrap();
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in extra {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();

    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    let mut stalled = false;
    loop {
        match tokio::time::timeout(Duration::from_millis(600), stream.read(&mut buf)).await {
            Err(_) => {
                stalled = true;
                break;
            }
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => raw.extend_from_slice(&buf[..n]),
        }
    }
    parse(&raw, stalled)
}

fn parse(raw: &[u8], stalled: bool) -> Reply {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("response head");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
        .collect();
    let mut rest = &raw[split + 4..];
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    let mut body = Vec::new();
    let mut complete = !chunked;
    if chunked {
        while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
            let size =
                usize::from_str_radix(std::str::from_utf8(&rest[..eol]).unwrap(), 16).unwrap();
            if size == 0 {
                complete = true;
                break;
            }
            let start = eol + 2;
            if rest.len() < start + size {
                body.extend_from_slice(&rest[start..]);
                break;
            }
            body.extend_from_slice(&rest[start..start + size]);
            rest = &rest[(start + size + 2).min(rest.len())..];
        }
    } else {
        body.extend_from_slice(rest);
    }
    Reply {
        status,
        headers,
        body: String::from_utf8_lossy(&body).to_string(),
        complete,
        stalled,
    }
}

fn names(reply: &Reply) -> Vec<String> {
    reply
        .frames()
        .into_iter()
        .map(|(e, _)| e.unwrap_or_default())
        .collect()
}

#[tokio::test]
async fn anthropic_text_reply_follows_the_documented_event_flow() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::anthropic_text("Hello, wörld!")
            .delta_bytes(4)
            .usage(Usage {
                input: 25,
                output: 15,
                cache_read: 3,
                cache_write: 2,
                reasoning: None,
            }),
    );
    let reply = send(&server, "/v1/messages", &[], "{}").await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    assert!(reply.complete);
    assert_eq!(
        names(&reply),
        vec![
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    let frames = reply.json_frames();
    for (event, data) in &frames {
        assert_eq!(
            Some(data["type"].as_str().unwrap()),
            event.as_deref(),
            "event name = data type"
        );
    }
    let start = &frames[0].1["message"];
    assert_eq!(start["role"], "assistant");
    assert_eq!(start["content"], json!([]));
    assert_eq!(start["usage"]["input_tokens"], 25);
    assert_eq!(start["usage"]["cache_read_input_tokens"], 3);
    assert_eq!(start["usage"]["cache_creation_input_tokens"], 2);
    assert_eq!(
        frames[2].1["content_block"],
        json!({"type": "text", "text": ""})
    );
    let text: String = frames
        .iter()
        .filter(|(e, _)| e.as_deref() == Some("content_block_delta"))
        .map(|(_, d)| {
            assert_eq!(d["delta"]["type"], "text_delta");
            assert_eq!(d["index"], 0);
            d["delta"]["text"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(text, "Hello, wörld!");
    let delta = &frames[8].1;
    assert_eq!(delta["delta"]["stop_reason"], "end_turn");
    assert_eq!(delta["usage"]["output_tokens"], 15);
}

#[tokio::test]
async fn anthropic_tool_use_and_thinking_blocks() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::reply(
            Format::Anthropic,
            vec![
                Block::thinking("hmm", "sig=="),
                Block::tool_call("toolu_1", "get_weather", r#"{"location": "Paris"}"#),
            ],
        )
        .delta_bytes(5),
    );
    let frames = send(&server, "/v1/messages", &[], "{}").await.json_frames();
    let blocks: Vec<&Value> = frames
        .iter()
        .filter(|(e, _)| e.as_deref() == Some("content_block_start"))
        .map(|(_, d)| d)
        .collect();
    assert_eq!(
        blocks[0]["content_block"],
        json!({"type": "thinking", "thinking": ""})
    );
    assert_eq!(blocks[1]["index"], 1);
    assert_eq!(
        blocks[1]["content_block"],
        json!({"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}})
    );
    let deltas: Vec<&Value> = frames
        .iter()
        .filter(|(e, _)| e.as_deref() == Some("content_block_delta"))
        .map(|(_, d)| &d["delta"])
        .collect();
    assert_eq!(
        deltas[0],
        &json!({"type": "thinking_delta", "thinking": "hmm"})
    );
    assert_eq!(
        deltas[1],
        &json!({"type": "signature_delta", "signature": "sig=="})
    );
    // The first input_json_delta is empty, as the API sends it.
    assert_eq!(
        deltas[2],
        &json!({"type": "input_json_delta", "partial_json": ""})
    );
    let args: String = deltas[2..]
        .iter()
        .map(|d| d["partial_json"].as_str().unwrap())
        .collect();
    assert_eq!(args, r#"{"location": "Paris"}"#);
    assert!(deltas.len() > 5);
    let message_delta = frames
        .iter()
        .find(|(e, _)| e.as_deref() == Some("message_delta"))
        .unwrap();
    assert_eq!(message_delta.1["delta"]["stop_reason"], "tool_use");
}

#[tokio::test]
async fn openai_reply_chunks_with_and_without_usage() {
    let server = LlmServer::start().await.unwrap();
    let script = Script::openai_text("abcdefgh").delta_bytes(3).usage(Usage {
        input: 7,
        output: 3,
        cache_read: 2,
        cache_write: 0,
        reasoning: Some(1),
    });
    server.push(script.clone());
    server.push(script);

    let with = send(
        &server,
        "/v1/chat/completions",
        &[],
        r#"{"stream": true, "stream_options": {"include_usage": true}}"#,
    )
    .await;
    assert!(with.complete);
    let frames = with.frames();
    assert_eq!(frames.last().unwrap().1, "[DONE]");
    assert!(frames.iter().all(|(e, _)| e.is_none()), "data-only frames");
    let chunks: Vec<Value> = with.json_frames().into_iter().map(|(_, d)| d).collect();
    for c in &chunks {
        assert_eq!(c["object"], "chat.completion.chunk");
        assert!(c.get("usage").is_some(), "usage: null on every chunk");
    }
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    let text: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, "abcdefgh");
    let finish = &chunks[chunks.len() - 2];
    assert_eq!(finish["choices"][0]["finish_reason"], "stop");
    assert_eq!(finish["choices"][0]["delta"], json!({}));
    let usage = chunks.last().unwrap();
    assert_eq!(usage["choices"], json!([]));
    assert_eq!(usage["usage"]["prompt_tokens"], 9);
    assert_eq!(usage["usage"]["completion_tokens"], 3);
    assert_eq!(usage["usage"]["prompt_tokens_details"]["cached_tokens"], 2);
    assert_eq!(
        usage["usage"]["completion_tokens_details"]["reasoning_tokens"],
        1
    );

    let without = send(&server, "/v1/chat/completions", &[], r#"{"stream": true}"#).await;
    let chunks: Vec<Value> = without.json_frames().into_iter().map(|(_, d)| d).collect();
    assert!(chunks.iter().all(|c| c.get("usage").is_none()));
    assert_eq!(
        chunks.last().unwrap()["choices"][0]["finish_reason"],
        "stop"
    );
}

#[tokio::test]
async fn openai_tool_calls_sequential_and_interleaved() {
    let server = LlmServer::start().await.unwrap();
    let blocks = vec![
        Block::tool_call("call_1", "read", r#"{"path":"a"}"#),
        Block::tool_call("call_2", "grep", r#"{"q":"b"}"#),
    ];
    server.push(Script::reply(Format::Openai, blocks.clone()).delta_bytes(4));
    server.push(
        Script::reply(Format::Openai, blocks)
            .delta_bytes(4)
            .interleave(),
    );
    for interleaved in [false, true] {
        let reply = send(&server, "/v1/chat/completions", &[], "{}").await;
        let calls: Vec<Value> = reply
            .json_frames()
            .into_iter()
            .filter_map(|(_, c)| c["choices"][0]["delta"].get("tool_calls").cloned())
            .map(|calls| calls[0].clone())
            .collect();
        // The first fragment of each call carries id, type and name.
        let firsts: Vec<&Value> = calls.iter().filter(|c| c.get("id").is_some()).collect();
        assert_eq!(firsts.len(), 2);
        assert_eq!(firsts[0]["type"], "function");
        assert_eq!(firsts[0]["function"]["name"], "read");
        assert_eq!(firsts[1]["index"], 1);
        let order: Vec<u64> = calls.iter().map(|c| c["index"].as_u64().unwrap()).collect();
        let switches = order.windows(2).filter(|w| w[0] != w[1]).count();
        if interleaved {
            assert!(switches > 2, "{order:?}");
        } else {
            assert_eq!(switches, 1, "{order:?}");
        }
        for index in 0..2u64 {
            let args: String = calls
                .iter()
                .filter(|c| c["index"] == index)
                .map(|c| c["function"]["arguments"].as_str().unwrap())
                .collect();
            assert_eq!(
                args,
                if index == 0 {
                    r#"{"path":"a"}"#
                } else {
                    r#"{"q":"b"}"#
                }
            );
        }
        let finish = reply.json_frames();
        let finish = finish
            .iter()
            .find_map(|(_, c)| {
                c["choices"][0]["finish_reason"]
                    .as_str()
                    .map(str::to_string)
            })
            .unwrap();
        assert_eq!(finish, "tool_calls");
    }
}

#[tokio::test]
async fn requests_are_recorded() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("a"));
    server.push(Script::openai_text("b"));
    assert_eq!(server.pending(), 2);
    send(
        &server,
        "/v1/messages?beta=true",
        &[("X-Api-Key", "k1"), ("anthropic-version", "2023-06-01")],
        r#"{"model": "claude", "stream": true}"#,
    )
    .await;
    send(
        &server,
        "/v1/chat/completions",
        &[("Authorization", "Bearer t")],
        "not json",
    )
    .await;
    assert_eq!(server.pending(), 0);

    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0].method, "POST");
    assert_eq!(reqs[0].path, "/v1/messages?beta=true");
    assert_eq!(reqs[0].header("x-api-key"), Some("k1"));
    assert_eq!(reqs[0].header("X-API-KEY"), Some("k1"), "case-insensitive");
    assert_eq!(reqs[0].header("anthropic-version"), Some("2023-06-01"));
    assert!(reqs[0]
        .headers
        .iter()
        .all(|(k, _)| *k == k.to_ascii_lowercase()));
    assert_eq!(reqs[0].body, json!({"model": "claude", "stream": true}));
    assert_eq!(reqs[0].raw_body, r#"{"model": "claude", "stream": true}"#);
    assert_eq!(reqs[1].header("authorization"), Some("Bearer t"));
    assert_eq!(reqs[1].body, Value::Null);
    assert_eq!(reqs[1].raw_body, "not json");
}

#[tokio::test]
async fn error_statuses_with_retry_after_and_json_bodies() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::status(429).retry_after(7));
    server.push(Script::status(529));
    server.push(Script::status(500).message("custom failure"));
    let reply = send(&server, "/v1/messages", &[], "{}").await;
    assert_eq!(reply.status, 429);
    assert_eq!(reply.header("retry-after"), Some("7"));
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let body: Value = serde_json::from_str(&reply.body).unwrap();
    assert_eq!(
        body,
        json!({"type": "error", "error": {"type": "rate_limit_error", "message": "rate limited"}})
    );
    let body: Value = serde_json::from_str(&send(&server, "/", &[], "").await.body).unwrap();
    assert_eq!(body["error"]["type"], "overloaded_error");
    let reply = send(&server, "/", &[], "").await;
    assert_eq!(reply.status, 500);
    assert!(reply.body.contains("custom failure"));

    // Nothing queued: a 500 that says so.
    let reply = send(&server, "/", &[], "").await;
    assert_eq!(reply.status, 500);
    assert!(reply.body.contains("no script queued"), "{}", reply.body);
}

#[tokio::test]
async fn cut_after_drops_the_connection_after_n_frames() {
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::anthropic_text("abcdefghij")
            .delta_bytes(2)
            .cut_after(4),
    );
    let reply = send(&server, "/v1/messages", &[], "{}").await;
    assert_eq!(reply.status, 200);
    assert!(!reply.complete, "no terminating chunk");
    assert!(!reply.stalled);
    assert_eq!(
        names(&reply),
        vec![
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta"
        ]
    );
}

#[tokio::test]
async fn hang_after_stops_sending_but_keeps_the_connection() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::openai_text("abcdef").delta_bytes(1).hang_after(3));
    let reply = send(&server, "/v1/chat/completions", &[], "{}").await;
    assert!(reply.stalled && !reply.complete);
    assert_eq!(reply.frames().len(), 3);

    // hang() never answers at all.
    server.push(Script::hang());
    let addr = server.url().trim_start_matches("http://").to_string();
    let mut stream = TcpStream::connect(&addr).await.unwrap();
    stream
        .write_all(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 64];
    let read = tokio::time::timeout(Duration::from_millis(400), stream.read(&mut buf)).await;
    assert!(read.is_err(), "no response head");
}

#[tokio::test]
async fn delays_chunking_and_malformed_streams() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("x").delay_ms(300));
    let started = Instant::now();
    let reply = send(&server, "/", &[], "").await;
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert!(reply.complete);

    // chunk_bytes changes the HTTP chunking, not the content.
    let script = Script::anthropic_text("ünïcødé split anywhere").delta_bytes(3);
    server.push(script.clone().chunk_bytes(5));
    let reply = send(&server, "/", &[], "").await;
    assert_eq!(reply.body, script.render_body());

    server.push(
        Script::anthropic_text("slow")
            .delta_bytes(1)
            .event_delay_ms(30),
    );
    let started = Instant::now();
    send(&server, "/", &[], "").await;
    assert!(started.elapsed() >= Duration::from_millis(200));

    for format in [Format::Anthropic, Format::Openai] {
        server.push(Script::malformed(format));
        let reply = send(&server, "/", &[], "").await;
        let bad = reply
            .frames()
            .into_iter()
            .filter(|(_, d)| serde_json::from_str::<Value>(d).is_err())
            .count();
        assert_eq!(bad, 1, "{format:?}: exactly one frame is invalid JSON");
    }

    server.push(Script::raw_sse("data: raw\n\n"));
    assert_eq!(send(&server, "/", &[], "").await.body, "data: raw\n\n");
}

#[tokio::test]
async fn cycle_requeues_scripts() {
    let server = LlmServer::start().await.unwrap();
    server.set_cycle(true);
    server.push(Script::anthropic_text("one"));
    server.push(Script::anthropic_text("two"));
    let mut texts = Vec::new();
    for _ in 0..4 {
        let frames = send(&server, "/", &[], "").await.json_frames();
        let text: String = frames
            .iter()
            .filter_map(|(_, d)| d["delta"]["text"].as_str())
            .collect();
        texts.push(text);
    }
    assert_eq!(texts, vec!["one", "two", "one", "two"]);
    assert_eq!(server.pending(), 2);
}

#[test]
fn frames_render_and_scripts_round_trip_as_json() {
    let frame = SseFrame::named("message_stop", "line one\nline two");
    assert_eq!(
        frame.render(),
        "event: message_stop\ndata: line one\ndata: line two\n\n"
    );
    assert_eq!(SseFrame::data("[DONE]").render(), "data: [DONE]\n\n");

    let script = Script::openai_tool_call("c", "read", "{}")
        .delta_bytes(2)
        .cut_after(3)
        .retry_after(1);
    let json = serde_json::to_string(&script).unwrap();
    let back: Script = serde_json::from_str(&json).unwrap();
    assert_eq!(back, script);

    // The short form documented for the binary.
    let short: Script = serde_json::from_str(
        r#"{"body":{"kind":"reply","format":"anthropic","blocks":[{"type":"text","text":"hi"}]},"delta_bytes":10}"#,
    )
    .unwrap();
    assert_eq!(short.status, 200);
    assert_eq!(short.delta_bytes, Some(10));

    // Deltas split on char boundaries, never inside a UTF-8 sequence.
    let frames = Script::anthropic_text("ééé").delta_bytes(1).frames();
    let deltas = frames.iter().filter(|f| f.contains("text_delta")).count();
    assert_eq!(deltas, 3);
}

#[test]
fn binary_help_and_bad_usage() {
    let bin = env!("CARGO_BIN_EXE_zut-llm-server");
    let out = std::process::Command::new(bin)
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.starts_with("usage: zut-llm-server"), "{help}");
    assert!(help.contains("cycle"));

    let out = std::process::Command::new(bin).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = std::process::Command::new(bin)
        .arg("/nonexistent/script.json")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

#[tokio::test]
async fn binary_serves_a_script_file() {
    use tokio::io::AsyncBufReadExt;
    let script = r#"[{"body":{"kind":"reply","format":"openai","blocks":[{"type":"text","text":"from the binary"}]}}]"#;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_zut-llm-server"))
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(script.as_bytes()).await.unwrap();
    drop(stdin);
    let stdout = child.stdout.take().unwrap();
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");

    let addr = url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let body = r#"{"stream":true}"#;
    stream
        .write_all(
            format!(
                "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut raw))
        .await
        .unwrap()
        .unwrap();
    let reply = parse(&raw, false);
    assert!(reply.body.contains("from the binary"));
    assert!(reply.body.ends_with("data: [DONE]\n\n"));
    child.kill().await.unwrap();
}

#[tokio::test]
async fn prerendered_scripts_send_the_same_body_and_recording_can_be_off() {
    let server = LlmServer::start().await.unwrap();
    let reply = Script::reply(
        Format::Openai,
        vec![
            Block::text("pre-rendered"),
            Block::tool_call("c", "read", "{}"),
        ],
    )
    .delta_bytes(3);
    let raw = reply.prerendered();
    assert!(matches!(raw.body, zut_llm_server::Body::Raw { .. }));
    assert_eq!(raw.delta_bytes, None);
    // Scripts whose playback counts frames stay as they are.
    let cut = reply.clone().cut_after(2);
    assert_eq!(cut.prerendered(), cut);
    let error = Script::status(429).retry_after(1);
    assert_eq!(error.prerendered(), error);

    server.push(reply);
    server.push(raw);
    let usage = r#"{"stream":true,"stream_options":{"include_usage":true}}"#;
    let a = send(&server, "/v1/chat/completions", &[], usage).await;
    let b = send(&server, "/v1/chat/completions", &[], usage).await;
    assert_eq!(a.body, b.body);
    assert!(a.body.contains("\"usage\""));
    assert_eq!(server.request_count(), 2);
    assert_eq!(server.requests_since(1).len(), 1);
    assert_eq!(server.requests_since(5).len(), 0);

    server.set_record(false);
    server.push(Script::anthropic_text("x"));
    send(&server, "/v1/messages", &[], "{}").await;
    assert_eq!(server.request_count(), 3);
    assert_eq!(server.requests().len(), 2, "not recorded");
}

#[tokio::test]
async fn binary_quiet_and_prerender_flags() {
    use tokio::io::AsyncBufReadExt;
    let script = r#"{"cycle": true, "scripts": [{"body":{"kind":"reply","format":"anthropic","blocks":[{"type":"text","text":"cycled"}]},"delta_bytes":2}]}"#;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_zut-llm-server"))
        .args(["--prerender", "--quiet", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(script.as_bytes()).await.unwrap();
    drop(stdin);
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let addr = url.trim_start_matches("http://").to_string();
    for _ in 0..3 {
        let mut stream = TcpStream::connect(&addr).await.unwrap();
        stream
            .write_all(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
            .await
            .unwrap();
        let mut raw = Vec::new();
        tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut raw))
            .await
            .unwrap()
            .unwrap();
        let reply = parse(&raw, false);
        let text: String = reply
            .json_frames()
            .iter()
            .filter_map(|(_, d)| d["delta"]["text"].as_str().map(str::to_string))
            .collect();
        assert_eq!(text, "cycled");
    }
    child.kill().await.unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .await
        .unwrap();
    assert!(stderr.contains("pre-rendered"), "{stderr}");
    assert!(!stderr.contains("POST"), "quiet: no request log: {stderr}");
}

#[tokio::test]
async fn responses_format_over_http() {
    let server = LlmServer::start().await.unwrap();
    let script: Script = serde_json::from_value(json!({
        "body": {"kind": "reply", "format": "responses",
                 "blocks": [{"type": "thinking", "text": "hmm", "signature": "enc"},
                            {"type": "text", "text": "hello"},
                            {"type": "tool_call", "id": "call_1", "name": "read", "args": "{\"a\":1}"}],
                 "usage": {"input": 7, "output": 3, "cache_read": 2, "reasoning": 1}},
        "delta_bytes": 2
    }))
    .unwrap();
    server.push(script);
    server.push(Script::responses_error_event("server_error", "boom"));
    server.push(Script::responses_failed("invalid_prompt", "bad"));
    let reply = send(&server, "/v1/responses", &[], r#"{"stream":true}"#).await;
    assert_eq!(reply.status, 200);
    let frames = reply.json_frames();
    for (i, (event, data)) in frames.iter().enumerate() {
        assert_eq!(event.as_deref(), data["type"].as_str(), "frame {i}");
        assert_eq!(data["sequence_number"], i);
    }
    let types: Vec<&str> = frames
        .iter()
        .map(|(_, d)| d["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types[..3],
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added"
        ]
    );
    let text: String = frames
        .iter()
        .filter(|(_, d)| d["type"] == "response.output_text.delta")
        .map(|(_, d)| d["delta"].as_str().unwrap())
        .collect();
    assert_eq!(text, "hello");
    let args: Vec<&str> = frames
        .iter()
        .filter(|(_, d)| d["type"] == "response.function_call_arguments.delta")
        .map(|(_, d)| d["delta"].as_str().unwrap())
        .collect();
    assert_eq!(args, vec!["{\"", "a\"", ":1", "}"]);
    let (_, last) = frames.last().unwrap();
    assert_eq!(last["type"], "response.completed");
    assert_eq!(last["response"]["usage"]["input_tokens"], 9);
    assert_eq!(
        last["response"]["usage"]["output_tokens_details"]["reasoning_tokens"],
        1
    );
    assert_eq!(last["response"]["output"][0]["encrypted_content"], "enc");

    let reply = send(&server, "/v1/responses", &[], "{}").await;
    let (_, last) = reply.json_frames().pop().unwrap();
    assert_eq!(
        last,
        json!({"type": "error", "sequence_number": 2, "code": "server_error", "message": "boom", "param": null})
    );
    let reply = send(&server, "/v1/responses", &[], "{}").await;
    let (_, last) = reply.json_frames().pop().unwrap();
    assert_eq!(last["response"]["status"], "failed");
    assert_eq!(
        last["response"]["error"],
        json!({"code": "invalid_prompt", "message": "bad"})
    );
}

#[tokio::test]
async fn when_and_unless_pick_the_first_matching_script() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("for the parent").when("PARENT"));
    server.push(Script::anthropic_text("for child b").when("child-b"));
    server.push(Script::anthropic_text("for any child").unless("PARENT"));
    let r = send(&server, "/v1/messages", &[], r#"{"m":"child-a"}"#).await;
    assert!(r.body.contains("for any child"), "{}", r.body);
    let r = send(&server, "/v1/messages", &[], r#"{"m":"PARENT child-b"}"#).await;
    assert!(r.body.contains("for the parent"), "{}", r.body);
    let r = send(&server, "/v1/messages", &[], r#"{"m":"child-b"}"#).await;
    assert!(r.body.contains("for child b"), "{}", r.body);
    // Nothing left that matches: the usual 500.
    let r = send(&server, "/v1/messages", &[], r#"{"m":"x"}"#).await;
    assert_eq!(r.status, 500);
    // The JSON form (the binary's scripts) carries the fields.
    let s: Script = serde_json::from_value(json!({
        "body": {"kind": "reply", "format": "anthropic", "blocks": []},
        "when": "a", "unless": "b"
    }))
    .unwrap();
    assert!(s.matches("a") && !s.matches("ab") && !s.matches("c"));
}
