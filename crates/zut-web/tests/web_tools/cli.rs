//! The four tools through `zut -p`: the scripted LLM server asks for
//! web_search (a SearXNG fixture), web_open of the result, web_find,
//! web_click and a refused private address; and `--tools`/config switches
//! decide which tools are offered.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::{Command, Stdio};

use common::{Fixture, Reply};
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};
use zut_test_support::{workspace_bin, TestEnv};

/// Runs `zut` off the runtime (the LLM server runs on it).
async fn zut(env: &TestEnv, server: &LlmServer, args: &[&str]) -> std::process::Output {
    let mut cmd = command(env, server, args);
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

fn command(env: &TestEnv, server: &LlmServer, args: &[&str]) -> Command {
    let mut cmd = Command::new(workspace_bin("zut"));
    cmd.args([
        "--provider",
        "anthropic",
        "--base-url",
        &server.url(),
        "--api-key",
        "sk-test",
        "--model",
        "test-model",
    ])
    .args(args)
    .env("ZUT_HOME", &env.home)
    .env_remove("ANTHROPIC_API_KEY")
    .env_remove("OPENAI_API_KEY")
    .current_dir(&env.project)
    .stdin(Stdio::null());
    cmd
}

fn write_config(env: &TestEnv, config: Value) {
    std::fs::write(env.home.join("config.json"), config.to_string()).unwrap();
}

/// Tool result texts of a request, in order.
fn tool_results(body: &Value) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    for m in body["messages"].as_array().unwrap() {
        for block in m["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                let text = match &block["content"] {
                    Value::String(s) => s.clone(),
                    Value::Array(parts) => parts
                        .iter()
                        .filter_map(|p| p["text"].as_str())
                        .collect::<Vec<_>>()
                        .join("\n"),
                    _ => String::new(),
                };
                out.push((block["is_error"].as_bool().unwrap_or(false), text));
            }
        }
    }
    out
}

fn offered(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn each_web_tool_runs_through_zut_print_mode() {
    let site = Fixture::start(|path, _| {
        match path.split('?').next().unwrap() {
        "/search" => Reply::Full(200, vec![("Content-Type".into(), "application/json".into())], Vec::new()),
        "/doc" => Reply::html(
            "<html><head><title>Widget docs</title></head><body><main><h1>Widgets</h1>\
             <p>Call <code>spin()</code>; see <a href=\"/api\">the API</a>.</p></main></body></html>",
        ),
        "/api" => Reply::html("<main><p>The spin API turns widgets.</p></main>"),
        _ => Reply::status(404, "text/plain", "no"),
    }
    });
    // The search answer names the fixture's own page.
    let doc_url = site.url("/doc");
    let searx = Fixture::start(move |_, _| {
        Reply::typed(
            "application/json",
            json!({"results": [{"url": doc_url, "title": "Widget docs", "content": "How to spin widgets."}]})
                .to_string()
                .into_bytes(),
        )
    });
    let env = TestEnv::new();
    write_config(
        &env,
        json!({"web": {"search": {"backend": "searxng", "url": searx.url("")},
                        "allow_hosts": [format!("127.0.0.1:{}", site.port)]}}),
    );
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
        "web_find",
        r#"{"ref_id":"web-2","pattern":"spin"}"#,
    ));
    server.push(Script::anthropic_tool_call(
        "c4",
        "web_click",
        r#"{"ref_id":"web-2","id":1}"#,
    ));
    server.push(Script::anthropic_tool_call(
        "c5",
        "web_click",
        r#"{"ref_id":"web-2","id":7}"#,
    ));
    let private = format!(r#"{{"url":"http://localhost:{}/doc"}}"#, site.port);
    server.push(Script::anthropic_tool_call("c6", "web_open", &private));
    server.push(Script::anthropic_text("The spin API turns widgets."));
    let out = zut(&env, &server, &["-p", "how do I spin a widget?"]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "The spin API turns widgets."
    );

    let reqs = server.requests();
    let names = offered(&reqs[0].body);
    for t in ["web_search", "web_open", "web_find", "web_click"] {
        assert!(names.contains(&t.to_string()), "{names:?}");
    }
    let results = tool_results(&reqs.last().unwrap().body);
    assert_eq!(results.len(), 6, "{results:?}");
    let (err, search) = &results[0];
    assert!(
        !err && search.starts_with("Web search via SearXNG."),
        "{search}"
    );
    assert!(search.contains("[1] Widget docs (ref: web-1)"), "{search}");
    let (err, page) = &results[1];
    assert!(
        !err && page.contains("Page reference: web-2 (HTML"),
        "{page}"
    );
    assert!(page.contains("<<<BEGIN UNTRUSTED WEB CONTENT>>>\n# Widgets\n\nCall `spin()`; see [the API][1].\n<<<END UNTRUSTED WEB CONTENT>>>"), "{page}");
    let (err, found) = &results[2];
    assert!(
        !err && found.contains("line 3 (under # Widgets): Call `spin()`"),
        "{found}"
    );
    let (err, clicked) = &results[3];
    assert!(
        !err && clicked.contains("The spin API turns widgets."),
        "{clicked}"
    );
    let (err, unknown) = &results[4];
    assert!(
        *err && unknown
            .starts_with("web page: unknown or expired reference: web-2 has no link [7]"),
        "{unknown}"
    );
    let (err, refused) = &results[5];
    assert!(
        *err && refused.contains("localhost resolves to") && refused.contains("loopback"),
        "{refused}"
    );
}

#[tokio::test]
async fn tools_flag_and_config_switch_the_four_tools_together() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let web = ["web_search", "web_open", "web_find", "web_click"].map(String::from);
    let has_web = |names: &[String]| web.iter().all(|w| names.contains(w));
    let has_none = |names: &[String]| web.iter().all(|w| !names.contains(w));

    for (args, config, want_web) in [
        (vec!["-p", "x"], json!({}), true),
        (vec!["--tools", "read", "-p", "x"], json!({}), false),
        (
            vec!["--tools", "read,web_search", "-p", "x"],
            json!({"web_search_enabled": false}),
            true,
        ),
        (vec!["-p", "x"], json!({"web_search_enabled": false}), false),
        (vec!["--no-tools", "-p", "x"], json!({}), false),
    ] {
        write_config(&env, config.clone());
        server.push(Script::anthropic_text("ok"));
        let out = zut(&env, &server, &args).await;
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let names = offered(&server.requests().last().unwrap().body);
        if want_web {
            assert!(has_web(&names), "{args:?} {config}: {names:?}");
        } else {
            assert!(has_none(&names), "{args:?} {config}: {names:?}");
        }
    }
    write_config(&env, json!({"web": {"search": {"backend": "google"}}}));
    let out = zut(&env, &server, &["-p", "x"]).await;
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("web.search.backend"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
