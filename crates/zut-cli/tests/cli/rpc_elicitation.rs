//! MCP elicitation over RPC (opt-in `mcp_elicitation` in `hello`): the
//! MCP server (the official Python SDK one, tool `book`) asks for input,
//! the client gets an `mcp_elicitation` event and answers with
//! `elicitation_response`; an answer that does not fit the form is
//! refused with the field and the reason, the request keeps waiting, and
//! the right answer reaches the tool. Without the opt-in the command is
//! unknown and the server is told nobody can answer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::rpc_support;

use common::*;
use rpc_support::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};

fn have_python_mcp() -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import mcp.server, pydantic"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "the Python `mcp` package is required under CI"
        );
        eprintln!("skipped: the Python `mcp` package is not installed");
    }
    ok
}

fn setup(env: &TestEnv) {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../zut-mcp/tests/fixtures/fastmcp_server.py");
    std::fs::write(
        env.home.join("config.json"),
        json!({"mcpServers": {"py": {"command": "python3", "args": [script.display().to_string()]}}})
            .to_string(),
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_opted_in_client_answers_the_form() {
    if !have_python_mcp() {
        return;
    }
    let env = TestEnv::new();
    setup(&env);
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "c1",
        "mcp__py__book",
        r#"{"day":"monday"}"#,
    ));
    server.push(Script::anthropic_text("Done."));
    let mut rpc = Rpc::start(&env, &server, &[], &[]);
    let r = rpc.request(json!({"id":"h","type":"hello","capabilities":["mcp_elicitation"]}));
    assert_eq!(r["data"]["capabilities"], json!(["mcp_elicitation"]), "{r}");
    rpc.send(json!({"id":"1","type":"prompt","message":"book monday"}));
    let lines = rpc.until(|v| v["type"] == "mcp_elicitation");
    let ev = lines.last().unwrap();
    assert_eq!(ev["server"], "py");
    assert_eq!(ev["message"], "Book a table on monday?");
    assert_eq!(ev["order"], json!(["name", "guests", "vegetarian"]), "{ev}");
    let rid = ev["request_id"].clone();
    let r = rpc.request(
        json!({"id":"e1","type":"elicitation_response","request_id":rid,
        "action":"accept","content":{"name":"Ada","guests":99}}),
    );
    assert_eq!(r["success"], false, "{r}");
    assert!(
        r["error"].as_str().unwrap().contains("guests: at most 10"),
        "{r}"
    );
    let r = rpc.request(
        json!({"id":"e2","type":"elicitation_response","request_id":rid,
        "action":"accept","content":{"name":"Ada","guests":5}}),
    );
    assert_eq!(r["success"], true, "{r}");
    rpc.until(is_done);
    let reqs = server.requests();
    assert!(
        reqs[1]
            .raw_body
            .contains("booked for Ada, 5 guests, vegetarian=False"),
        "{}",
        reqs[1].raw_body
    );
    let r = rpc.request(
        json!({"id":"e3","type":"elicitation_response","request_id":rid,
        "action":"accept","content":{"name":"Ada"}}),
    );
    assert_eq!(r["success"], false, "{r}");
    rpc.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_opt_in_nothing_is_asked() {
    if !have_python_mcp() {
        return;
    }
    let env = TestEnv::new();
    setup(&env);
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "c1",
        "mcp__py__book",
        r#"{"day":"monday"}"#,
    ));
    server.push(Script::anthropic_text("Done."));
    let mut rpc = Rpc::start(&env, &server, &[], &[]);
    let r = rpc
        .request(json!({"id":"e","type":"elicitation_response","request_id":1,"action":"decline"}));
    assert_eq!(r["error"], "unknown command", "{r}");
    rpc.send(json!({"id":"1","type":"prompt","message":"book monday"}));
    let lines = rpc.until(is_done);
    assert!(!types(&lines).iter().any(|t| t == "mcp_elicitation"));
    assert!(
        server.requests()[1].raw_body.contains("not booked"),
        "{}",
        server.requests()[1].raw_body
    );
    rpc.close();
}

/// URL mode: the event carries `url` and an empty form; an accept without
/// content reaches the server. The server then saying the flow finished
/// (`pay_done`: `notifications/elicitation/complete`) arrives as
/// `mcp_elicitation_complete` with the request's id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_opted_in_client_gets_url_requests() {
    if !have_python_mcp() {
        return;
    }
    let env = TestEnv::new();
    setup(&env);
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "c1",
        "mcp__py__pay",
        r#"{"amount":7}"#,
    ));
    server.push(Script::anthropic_tool_call(
        "c2",
        "mcp__py__pay_done",
        r#"{"amount":8}"#,
    ));
    server.push(Script::anthropic_text("Done."));
    let mut rpc = Rpc::start(&env, &server, &[], &[]);
    rpc.request(json!({"id":"h","type":"hello","capabilities":["mcp_elicitation"]}));
    rpc.send(json!({"id":"1","type":"prompt","message":"pay 7"}));
    let lines = rpc.until(|v| v["type"] == "mcp_elicitation");
    let ev = lines.last().unwrap();
    assert_eq!(ev["message"], "Confirm paying 7 EUR", "{ev}");
    assert_eq!(
        ev["url"], "https://pay.example.com/confirm?amount=7",
        "{ev}"
    );
    assert_eq!(ev["order"], json!([]), "{ev}");
    let r = rpc.request(json!({"id":"e1","type":"elicitation_response",
        "request_id":ev["request_id"].clone(),"action":"accept"}));
    assert_eq!(r["success"], true, "{r}");
    let lines = rpc.until(|v| v["type"] == "mcp_elicitation");
    let ev = lines.last().unwrap();
    assert_eq!(ev["url"], "https://pay.example.com/done?amount=8", "{ev}");
    let second = ev["request_id"].clone();
    let r = rpc.request(json!({"id":"e2","type":"elicitation_response",
        "request_id":second.clone(),"action":"accept"}));
    assert_eq!(r["success"], true, "{r}");
    // The completion may come before or after the turn's end.
    let seen = std::cell::Cell::new((false, false));
    let lines = rpc.until(|v| {
        let (mut complete, mut done) = seen.get();
        complete |= v["type"] == "mcp_elicitation_complete";
        done |= is_done(v);
        seen.set((complete, done));
        complete && done
    });
    let complete: Vec<&Value> = lines
        .iter()
        .filter(|v| v["type"] == "mcp_elicitation_complete")
        .collect();
    assert_eq!(complete.len(), 1, "{lines:?}");
    assert_eq!(complete[0]["request_id"], second, "{}", complete[0]);
    assert_eq!(complete[0]["server"], "py", "{}", complete[0]);
    assert!(
        server.requests()[1]
            .raw_body
            .contains("payment accept; declared form=True url=True"),
        "{}",
        server.requests()[1].raw_body
    );
    assert!(
        server.requests()[2].raw_body.contains("payment accept"),
        "{}",
        server.requests()[2].raw_body
    );
    rpc.close();
}
