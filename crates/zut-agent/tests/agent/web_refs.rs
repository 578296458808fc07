//! `web-N` references live for the conversation: a page opened in one
//! prompt is found by the next, and is gone after `Agent::clear` (new
//! conversation) or once the web tools were turned off (tools.md §10.1).
//! Real HTTP: the scripted LLM server and a one-page server on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::{Read, Write};
use std::net::TcpListener;

use common::*;
use serde_json::Value;
use zut_agent::{Agent, AgentConfig};
use zut_llm_server::{LlmServer, Script};
use zut_test_support::TestEnv;

/// Serves one HTML page on 127.0.0.1 to every request; returns its URL.
fn page_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            let mut buf = [0u8; 4096];
            let _ = conn.read(&mut buf);
            let body = "<html><body><main><p>hello reference</p></main></body></html>";
            let _ = write!(
                conn,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://127.0.0.1:{port}/")
}

/// The last tool result the model got: (is_error, text).
fn last_result(server: &LlmServer) -> (bool, String) {
    let reqs = server.requests();
    let body = &reqs.last().unwrap().body;
    let mut found = None;
    for m in body["messages"].as_array().unwrap() {
        for b in m["content"].as_array().into_iter().flatten() {
            if b["type"] == "tool_result" {
                let text = match &b["content"] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                found = Some((b["is_error"].as_bool().unwrap_or(false), text));
            }
        }
    }
    found.unwrap()
}

async fn find_web_1(a: &mut Agent, server: &LlmServer) -> (bool, String) {
    server.push(Script::anthropic_tool_call(
        "f",
        "web_find",
        r#"{"ref_id":"web-1","pattern":"hello"}"#,
    ));
    server.push(Script::anthropic_text("ok"));
    run(a, "find it").await;
    last_result(server)
}

#[tokio::test]
async fn references_end_with_the_conversation_and_when_web_is_turned_off() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let url = page_server();
    let mut cfg = AgentConfig::new(&env.project, &env.home);
    cfg.builtin_tools
        .extend(zut_agent::web::TOOL_NAMES.iter().map(|s| s.to_string()));
    cfg.web.allow_hosts = vec![zut_agent::web::AllowedHost::parse("127.0.0.1").unwrap()];
    let web_tools = cfg.builtin_tools.clone();
    let mut a = Agent::new(provider(&server, "anthropic", &env.home), None, cfg);

    server.push(Script::anthropic_tool_call(
        "o",
        "web_open",
        format!(r#"{{"url":"{url}"}}"#),
    ));
    server.push(Script::anthropic_text("opened"));
    run(&mut a, "open it").await;
    let (err, text) = last_result(&server);
    assert!(!err && text.contains("Page reference: web-1"), "{text}");
    // The next prompt of the same conversation still has it.
    let (err, text) = find_web_1(&mut a, &server).await;
    assert!(!err && text.contains("hello reference"), "{text}");

    // A new conversation: gone.
    a.clear();
    let (err, text) = find_web_1(&mut a, &server).await;
    assert!(
        err && text.contains("unknown or expired reference"),
        "{text}"
    );

    // Opened again (web-2), then the web tools turned off for a prompt and
    // back on: gone too.
    server.push(Script::anthropic_tool_call(
        "o2",
        "web_open",
        format!(r#"{{"url":"{url}"}}"#),
    ));
    server.push(Script::anthropic_text("opened"));
    run(&mut a, "open again").await;
    assert!(last_result(&server).1.contains("Page reference: web-2"));
    a.config_mut()
        .builtin_tools
        .retain(|t| !zut_agent::web::is_web_tool(t));
    server.push(Script::anthropic_text("no web"));
    run(&mut a, "no web now").await;
    a.config_mut().builtin_tools = web_tools;
    server.push(Script::anthropic_tool_call(
        "f2",
        "web_find",
        r#"{"ref_id":"web-2","pattern":"hello"}"#,
    ));
    server.push(Script::anthropic_text("ok"));
    run(&mut a, "find again").await;
    let (err, text) = last_result(&server);
    assert!(
        err && text.contains("unknown or expired reference"),
        "{text}"
    );
}
