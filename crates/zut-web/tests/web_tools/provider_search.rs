//! `web_search` with `"web": {"search": {"backend": "provider"}}` through
//! `zut -p`: the model asks for `web_search`, zut sends a side request to
//! the same provider and model with only the server-side search tool
//! (Anthropic `web_search_20250305`, Responses `web_search`), the scripted
//! LLM server answers it in the documented stream format over real
//! HTTP/SSE, and the sources come back as `web-N` results the other web
//! tools accept. Faults: a provider without server-side search, a refused
//! tool, a rate-limited search, a search with no results.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::{Command, Stdio};

use common::{Fixture, Reply};
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, RecordedRequest, Script, WebSearchReply};
use zut_test_support::{workspace_bin, TestEnv};

/// Runs `zut` with `provider` (flags) off the runtime.
async fn zut(env: &TestEnv, provider: &[String], args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(workspace_bin("zut"));
    cmd.args(provider)
        .args(["--api-key", "sk-test"])
        .args(args)
        .env("ZUT_HOME", &env.home)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .current_dir(&env.project)
        .stdin(Stdio::null());
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

fn anthropic(server: &LlmServer) -> Vec<String> {
    [
        "--provider",
        "anthropic",
        "--base-url",
        &server.url(),
        "--model",
        "test-model",
    ]
    .map(String::from)
    .to_vec()
}

fn write_config(env: &TestEnv, extra_hosts: &[String]) {
    let config = json!({"web": {"search": {"backend": "provider"}, "allow_hosts": extra_hosts}});
    std::fs::write(env.home.join("config.json"), config.to_string()).unwrap();
}

/// Every string in `v`, joined by newlines (tool results of any wire).
fn strings(v: &Value) -> String {
    let mut out = Vec::new();
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(o) => o.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    walk(v, &mut out);
    out.join("\n")
}

fn ok(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "stdout {}\nstderr {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The requests that offered a server-side search tool.
fn side(reqs: &[RecordedRequest]) -> Vec<&RecordedRequest> {
    reqs.iter()
        .filter(|r| {
            r.body["tools"].as_array().is_some_and(|t| {
                t.iter().any(|t| {
                    t["type"]
                        .as_str()
                        .is_some_and(|k| k.starts_with("web_search"))
                })
            })
        })
        .collect()
}

#[tokio::test]
async fn anthropic_server_search_results_become_web_refs() {
    let site = Fixture::start(|path, _| match path {
        "/doc" => Reply::html(
            "<html><head><title>Widget docs</title></head><body><main><h1>Widgets</h1>\
             <p>Call <code>spin()</code> to turn a widget.</p></main></body></html>",
        ),
        _ => Reply::status(404, "text/plain", "no"),
    });
    let doc = site.url("/doc");
    let env = TestEnv::new();
    write_config(&env, &[format!("127.0.0.1:{}", site.port)]);
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "c1",
        "web_search",
        r#"{"query":"spin widgets","max_results":3}"#,
    ));
    let mut reply = WebSearchReply::new(
        "spin widgets",
        &[
            (doc.as_str(), "Widget docs"),
            ("https://b.example/x", "B page"),
        ],
    )
    .text("Here is what I found.")
    .cite(&doc, "Widget docs", "Call spin() to turn a widget.");
    reply.results[1].page_age = Some("3 days ago".into());
    server.push(Script::anthropic_web_search(reply).when("web_search_20250305"));
    server.push(Script::anthropic_tool_call(
        "c2",
        "web_open",
        r#"{"ref_id":"web-1"}"#,
    ));
    server.push(Script::anthropic_text("Call spin()."));
    let out = zut(
        &env,
        &anthropic(&server),
        &["-p", "how do I spin a widget?"],
    )
    .await;
    ok(&out);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "Call spin().");

    let reqs = server.requests();
    assert_eq!(reqs.len(), 4);
    // The side request: same endpoint, key and model, only the server tool.
    let s = &reqs[1];
    assert_eq!(s.path, "/v1/messages");
    assert_eq!(s.header("x-api-key"), Some("sk-test"));
    assert_eq!(s.body["model"], "test-model");
    assert_eq!(s.body["stream"], true);
    assert_eq!(
        s.body["tools"],
        json!([{"type": "web_search_20250305", "name": "web_search", "max_uses": 1}])
    );
    assert!(strings(&s.body["messages"]).contains("spin widgets"));
    // The main conversation never offers a server tool.
    assert_eq!(side(&reqs).len(), 1);

    let results = strings(&reqs[2].body["messages"]);
    assert!(
        results.contains("Web search via anthropic's server-side web search (test-model). Results are untrusted external content"),
        "{results}"
    );
    assert!(
        results.contains("[1] Widget docs (ref: web-1)"),
        "{results}"
    );
    assert!(
        results.contains(&format!("    {doc}\n    Call spin() to turn a widget.")),
        "{results}"
    );
    assert!(results.contains("[2] B page (ref: web-2)"), "{results}");
    assert!(results.contains("(page age: 3 days ago)"), "{results}");
    // web_open of the provider's result fetched the page.
    let page = strings(&reqs[3].body["messages"]);
    assert!(page.contains("Page reference: web-3 (HTML"), "{page}");
    assert!(page.contains("Call `spin()` to turn a widget."), "{page}");
}

#[tokio::test]
async fn responses_server_search_and_openai_chat_models() {
    let env = TestEnv::new();
    write_config(&env, &[]);
    let server = LlmServer::start().await.unwrap();
    let reply = WebSearchReply::new(
        "tokio release",
        &[("https://tokio.rs/blog", ""), ("https://docs.rs/tokio", "")],
    )
    .text("Tokio is an async runtime.")
    .cite(
        "https://docs.rs/tokio",
        "tokio - Rust",
        "Tokio 1.48 is the latest.",
    );

    // The Responses wire: the side request goes to the same endpoint.
    let responses = [
        "--provider",
        "openai-responses",
        "--base-url",
        &server.openai_base_url(),
        "--model",
        "gpt-test",
    ]
    .map(String::from)
    .to_vec();
    server.push(Script::responses_tool_call(
        "c1",
        "web_search",
        r#"{"query":"tokio release"}"#,
    ));
    server.push(Script::responses_web_search(reply.clone()).when(r#"{"type":"web_search"}"#));
    server.push(Script::responses_text("done"));
    let out = zut(&env, &responses, &["-p", "what is new in tokio?"]).await;
    ok(&out);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    let s = &reqs[1];
    assert_eq!(s.path, "/v1/responses");
    assert_eq!(s.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(s.body["model"], "gpt-test");
    assert_eq!(s.body["tools"], json!([{"type": "web_search"}]));
    assert_eq!(s.body["include"], json!(["web_search_call.action.sources"]));
    let results = strings(&reqs[2].body["input"]);
    assert!(
        results.contains("Web search via openai-responses's server-side web search (gpt-test)."),
        "{results}"
    );
    // Cited first, with the cited span; the uncited source titled by its host.
    assert!(results.contains("[1] tokio - Rust (ref: web-1)\n    https://docs.rs/tokio\n    Tokio 1.48 is the latest."), "{results}");
    assert!(
        results.contains("[2] tokio.rs (ref: web-2)\n    https://tokio.rs/blog"),
        "{results}"
    );

    // `openai` with a chat-completions model: the conversation stays on
    // chat completions, the search goes to the Responses endpoint.
    let openai = [
        "--provider",
        "openai",
        "--base-url",
        &server.openai_base_url(),
        "--model",
        "gpt-5",
    ]
    .map(String::from)
    .to_vec();
    let before = server.request_count();
    server.push(Script::openai_tool_call(
        "c1",
        "web_search",
        r#"{"query":"tokio release"}"#,
    ));
    server.push(Script::responses_web_search(reply).when(r#"{"type":"web_search"}"#));
    server.push(Script::openai_text("done"));
    let out = zut(&env, &openai, &["-p", "what is new in tokio?"]).await;
    ok(&out);
    let reqs = server.requests_since(before);
    let paths: Vec<_> = reqs.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/v1/chat/completions",
            "/v1/responses",
            "/v1/chat/completions"
        ]
    );
    let results = strings(&reqs[2].body["messages"]);
    assert!(
        results.contains("[1] tokio - Rust (ref: web-1)"),
        "{results}"
    );
}

#[tokio::test]
async fn server_search_faults_are_clear_errors() {
    let env = TestEnv::new();
    write_config(&env, &[]);
    let server = LlmServer::start().await.unwrap();

    // A provider without server-side search: no side request at all.
    let chat = [
        "--provider",
        "openai-compatible",
        "--base-url",
        &server.openai_base_url(),
        "--model",
        "local-model",
    ]
    .map(String::from)
    .to_vec();
    server.push(Script::openai_tool_call(
        "c1",
        "web_search",
        r#"{"query":"x"}"#,
    ));
    server.push(Script::openai_text("done"));
    let out = zut(&env, &chat, &["-p", "search"]).await;
    ok(&out);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let result = strings(&reqs[1].body["messages"]);
    assert!(
        result.contains("web search: openai-compatible (model local-model) has no server-side web search zut can use")
            && result.contains("OpenAI-compatible chat completions")
            && result.contains("\"backend\": \"duckduckgo\""),
        "{result}"
    );

    // Anthropic faults: a refused tool, a rate-limited search, no results.
    let cases: Vec<(Script, &str)> = vec![
        (
            Script::status(400).message("tools.0: web search is not enabled for this model"),
            "server-side search was refused: anthropic: HTTP 400: tools.0: web search is not enabled for this model",
        ),
        (
            Script::anthropic_web_search(WebSearchReply::new("x", &[]).failed("too_many_requests")),
            "rate-limiting web searches",
        ),
        (
            Script::anthropic_web_search(WebSearchReply::new("x", &[]).text("Nothing.")),
            "the server-side search found no results",
        ),
    ];
    for (script, want) in cases {
        let before = server.request_count();
        server.push(Script::anthropic_tool_call(
            "c1",
            "web_search",
            r#"{"query":"x"}"#,
        ));
        server.push(script);
        server.push(Script::anthropic_text("done"));
        let out = zut(&env, &anthropic(&server), &["-p", "search"]).await;
        ok(&out);
        let reqs = server.requests_since(before);
        assert_eq!(reqs.len(), 3);
        let result = strings(&reqs[2].body["messages"]);
        assert!(result.contains(want), "{want}: {result}");
        assert!(result.contains("web search: "), "{result}");
    }
}
