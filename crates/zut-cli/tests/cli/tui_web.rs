//! The web tools in the interactive TUI end to end (issue 26: "the TUI
//! shows fetched URLs"): the real binary in tmux, the local LLM server,
//! a real HTTP server on 127.0.0.1 (allowed with `web.allow_hosts`) and a
//! SearXNG-shaped search answer: the search box lists the result's title
//! and URL, the opened page its title, URL and reference, the clicked
//! link the URL it landed on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::{Read, Write};
use std::net::TcpListener;

use common::tmux::*;
use common::*;
use serde_json::json;
use zut_llm_server::{LlmServer, Script};

/// Serves `answer(path)` as `(content type, body)` on 127.0.0.1.
fn serve(answer: impl Fn(&str) -> (&'static str, String) + Send + 'static) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                match conn.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            }
            let head = String::from_utf8_lossy(&buf).to_string();
            let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
            let (ct, body) = answer(&path);
            let _ = write!(
                conn,
                "HTTP/1.1 200 OK\r\nContent-Type: {ct}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_tools_show_fetched_urls_in_the_tui() {
    if !have_tmux() {
        return;
    }
    let site = serve(|path| {
        match path {
        "/doc" => (
            "text/html; charset=utf-8",
            "<html><head><title>Widget docs</title></head><body><main><h1>Widgets</h1>\
             <p>Call <code>spin()</code>; see <a href=\"/api\">the API</a>.</p></main></body></html>"
                .to_string(),
        ),
        _ => (
            "text/html; charset=utf-8",
            "<html><head><title>Spin API</title></head><body><main><p>The spin API turns widgets.</p></main></body></html>"
                .to_string(),
        ),
    }
    });
    let doc = format!("http://127.0.0.1:{site}/doc");
    let searx = {
        let doc = doc.clone();
        serve(move |_| {
            (
                "application/json",
                json!({"results": [{"url": doc, "title": "Widget docs", "content": "How to spin widgets."}]})
                    .to_string(),
            )
        })
    };
    let env = TestEnv::new();
    std::fs::write(
        env.home.join("config.json"),
        json!({"web": {"search": {"backend": "searxng", "url": format!("http://127.0.0.1:{searx}")},
                        "allow_hosts": [format!("127.0.0.1:{site}")]}})
        .to_string(),
    )
    .unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "c1",
        "web_search",
        r#"{"query":"spin widgets"}"#,
    ));
    server.push(Script::anthropic_tool_call(
        "c2",
        "web_open",
        r#"{"ref_id":"web-1"}"#,
    ));
    server.push(Script::anthropic_tool_call(
        "c3",
        "web_click",
        r#"{"ref_id":"web-2","id":1}"#,
    ));
    server.push(Script::anthropic_text("Spun."));
    let t = Tmux::start(&env, &server, &["--no-ext"], 100, 50);
    started(&t);
    t.typ("how do I spin a widget?");
    t.keys(&["Enter"]);
    let s = t.wait_for("Spun.", 30);
    assert!(s.contains(r#"┌─ web_search "spin widgets""#), "{s}");
    assert!(s.contains("│ 1. Widget docs  web-1"), "{s}");
    assert!(s.contains(&format!("│    {doc}")), "{s}");
    assert!(s.contains("│ 1 result via SearXNG"), "{s}");
    assert!(s.contains("┌─ web_open web-1"), "{s}");
    assert!(s.contains(&format!("│ {doc} ")), "{s}");
    assert!(s.contains("│ web-2 (HTML, lines 1-3 of 3) · 1 link"), "{s}");
    assert!(s.contains("┌─ web_click link [1] of web-2"), "{s}");
    assert!(
        s.contains(&format!("│ http://127.0.0.1:{site}/api ")),
        "{s}"
    );
    assert!(s.contains("│ Spin API"), "{s}");
    // The page text is the model's; the boxes stay compact.
    assert!(!s.contains("Call `spin()`"), "{s}");
    t.keys(&["C-o"]);
    t.wait_for("The spin API turns widgets.", 5);
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}
