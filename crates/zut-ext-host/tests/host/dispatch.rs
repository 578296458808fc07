//! Groups E and F: commands and tools, request/reply dispatch.

use std::time::{Duration, Instant};

use serde_json::json;
use zut_ext_host::{CommandError, ToolContent};
use zut_test_support::TestEnv;

use crate::common::*;

/// An extension whose command `/cmd` answers with the frame in `reply`
/// (a Python dict expression using `f`) and records what it got.
fn command_ext(env: &TestEnv, name: &str, reply: &str) -> std::path::PathBuf {
    py_ext(
        &env.global_dir(name),
        name,
        &format!(
            "hello()\nsend({{'type': 'register_command', 'name': 'cmd'}})\nsend({{'type': 'ready'}})\n\
             serve_threaded(lambda f: {reply} if f['type'] == 'command_invoked' else None)"
        ),
    )
}

#[tokio::test]
async fn e1_e2_command_invocation_and_args() {
    let env = TestEnv::new();
    let dir = command_ext(
        &env,
        "cmdx",
        "{'type': 'command_response', 'id': f['id'], 'action': 'display', 'display': 'pong', 'extra': 1}",
    );
    let run = Run::start(env, |_| {}).await;
    let reply = run.host.invoke_command("cmd", "").await.unwrap();
    assert_eq!(reply.response.action, "display");
    assert_eq!(reply.response.display, "pong");
    assert!(reply.response.error.is_empty());
    run.host
        .invoke_command("CMD", "  first line\n\tsecond  ")
        .await
        .unwrap();
    let sent = received_of(&dir, "command_invoked");
    assert_eq!(sent.len(), 2);
    assert!(
        sent[0].get("args").is_none(),
        "empty args omitted: {}",
        sent[0]
    );
    assert_eq!(sent[1]["args"], "first line\n\tsecond");
    assert_ne!(sent[0]["id"], sent[1]["id"], "ids are unique");
    run.stop().await;
}

#[tokio::test]
async fn e3_e5_response_fields_pass_through() {
    let env = TestEnv::new();
    command_ext(
        &env,
        "acts",
        "{'type': 'command_response', 'id': f['id'], 'action': f.get('args', 'noop'), 'prompt': 'p', 'insert': 'i', \
         'error': 'x' if f.get('args') == 'prompt' else ''}",
    );
    let run = Run::start(env, |_| {}).await;
    let r = run.host.invoke_command("cmd", "insert").await.unwrap();
    assert_eq!(
        (r.response.action.as_str(), r.response.insert.as_str()),
        ("insert", "i")
    );
    let r = run.host.invoke_command("cmd", "prompt").await.unwrap();
    assert_eq!(
        r.response.error, "x",
        "error reported, the embedder does not act"
    );
    let r = run.host.invoke_command("cmd", "frobnicate").await.unwrap();
    assert_eq!(r.response.action, "frobnicate");
    run.stop().await;
}

#[tokio::test]
async fn e6_command_timeout_and_late_reply_ignored() {
    let env = TestEnv::new();
    command_ext(
        &env,
        "sleepy",
        "(time.sleep(1.0), {'type': 'command_response', 'id': f['id'], 'action': 'display', 'display': 'late'})[1] \
         if f.get('args') == 'slow' else {'type': 'command_response', 'id': f['id'], 'action': 'display', 'display': 'fast'}",
    );
    let run = Run::start(env, |c| c.timeouts.command = Duration::from_millis(300)).await;
    let err = run.host.invoke_command("cmd", "slow").await.unwrap_err();
    assert_eq!(
        err,
        CommandError::Timeout {
            extension: "sleepy".into(),
            command: "cmd".into()
        }
    );
    assert_eq!(err.to_string(), "timeout waiting for sleepy/cmd");
    assert!(run
        .env
        .log("sleepy")
        .contains("[zut] command /cmd timed out"));
    // The late reply arrives while the next request is pending and must
    // not be taken for its answer.
    let r = run.host.invoke_command("cmd", "quick").await.unwrap();
    assert_eq!(r.response.display, "fast");
    run.stop().await;
}

/// An extension with tool `t` whose result is the Python expression
/// `result` (using `f`).
fn tool_ext(env: &TestEnv, name: &str, result: &str) -> std::path::PathBuf {
    py_ext(
        &env.global_dir(name),
        name,
        &format!(
            "hello()\nsend({{'type': 'register_tool', 'name': 't', 'description': 'd', 'schema': {{'type': 'object'}}}})\n\
             send({{'type': 'register_tool', 'name': 'lazy', 'deferred': True}})\nsend({{'type': 'ready'}})\n\
             serve_threaded(lambda f: {result} if f['type'] == 'tool_call' else None)"
        ),
    )
}

#[tokio::test]
async fn f1_tool_call_frame_and_result() {
    let env = TestEnv::new();
    let dir = tool_ext(&env, "echo", "text(f, 'echoed')");
    let run = Run::start(env, |_| {}).await;
    let out = run.host.call_tool("t", json!({"msg": "hi"})).await;
    assert!(!out.is_error);
    assert_eq!(out.content, vec![ToolContent::Text("echoed".into())]);
    assert_eq!((out.extension.as_str(), out.tool.as_str()), ("echo", "t"));
    run.host.call_tool("t", serde_json::Value::Null).await;
    let calls = received_of(&dir, "tool_call");
    assert_eq!(calls[0]["name"], "t");
    assert_eq!(calls[0]["args"], json!({"msg": "hi"}));
    assert!(calls[0]["id"].as_str().is_some_and(|s| !s.is_empty()));
    assert_eq!(calls[1]["args"], json!({}), "empty args are sent as {{}}");
    run.stop().await;
}

#[tokio::test]
async fn f2_f3_content_conversion() {
    let env = TestEnv::new();
    tool_ext(
        &env,
        "conv",
        "{'type': 'tool_result', 'id': f['id'], 'is_error': f['args'].get('err', False), \
         'activate_tools': ['lazy', 'nope'], 'details': {'v': 1}, 'content': f['args']['content']}",
    );
    let run = Run::start(env, |_| {}).await;
    let call = |content: serde_json::Value, err: bool| {
        let host = run.host.clone();
        async move {
            host.call_tool("t", json!({"content": content, "err": err}))
                .await
        }
    };
    let out = call(
        json!([{"type": "text", "text": ""}, {"type": "text", "text": "a"},
               {"type": "image", "mime_type": "image/png", "data": "aGk="}]),
        true,
    )
    .await;
    assert!(out.is_error);
    assert_eq!(
        out.content,
        vec![
            ToolContent::Text("a".into()),
            ToolContent::Image {
                mime_type: "image/png".into(),
                data: b"hi".to_vec()
            }
        ]
    );
    assert_eq!(
        out.activate_tools,
        vec!["lazy".to_string(), "nope".to_string()]
    );
    assert_eq!(out.details, Some(json!({"v": 1})));

    let out = call(
        json!([{"type": "image", "mime_type": "image/png", "data": "%%%"}]),
        false,
    )
    .await;
    assert!(out.is_error);
    assert!(
        out.text()
            .contains("extension conv/t returned undecodable image"),
        "{out:?}"
    );

    let out = call(json!([{"type": "video"}]), false).await;
    assert_eq!(
        out.text(),
        "[unknown block type \"video\" from extension conv]"
    );

    let out = call(json!([]), false).await;
    assert_eq!(out.text(), "(extension returned no content)");
    run.stop().await;
}

#[tokio::test]
async fn f4_tool_timeout_late_reply_ignored_and_host_keeps_working() {
    let env = TestEnv::new();
    tool_ext(
        &env,
        "hang",
        "(time.sleep(1.4), text(f, 'late'))[1] if f['args'].get('slow') else (time.sleep(0.6), text(f, 'quick'))[1]",
    );
    // Timeline: the first call times out at 1.0 s; the second is pending
    // from 1.0 s to 1.6 s and the late reply of the first arrives at 1.4 s.
    let run = Run::start(env, |c| c.timeouts.tool = Duration::from_millis(1000)).await;
    let out = run.host.call_tool("t", json!({"slow": true})).await;
    assert!(out.is_error);
    assert_eq!(
        out.text(),
        "extension hang/t failed: timeout waiting for hang/t"
    );
    assert!(run.env.log("hang").contains("tool t timed out"));
    // Sent while the extension is still sleeping; its late reply must not
    // be mistaken for this one.
    let out = run.host.call_tool("t", json!({})).await;
    assert_eq!(out.text(), "quick");
    run.stop().await;
}

#[tokio::test]
async fn f5_crash_mid_call_fails_at_once_then_unregistered() {
    let env = TestEnv::new();
    tool_ext(&env, "crashy", "os._exit(3)");
    echo_ext(&env.global_dir("other"), "other", &["alive"]);
    let run = Run::start(env, |c| c.timeouts.tool = Duration::from_secs(60)).await;
    let started = Instant::now();
    let out = run.host.call_tool("t", json!({})).await;
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "failed well before the 60 s timeout ({:?})",
        started.elapsed()
    );
    assert!(out.is_error);
    assert_eq!(
        out.text(),
        "extension crashy/t failed: extension disconnected"
    );
    assert!(run.ui.wait_chrome_clear("crashy").await);
    // Reported: how the process ended, in doctor and in the log.
    assert!(
        eventually(Duration::from_secs(5), || has_diag(
            &run.report_of("crashy"),
            "process exited: exit status 3"
        ))
        .await
    );
    let log = run.env.log("crashy");
    assert!(log.contains("[zut] process exited: exit status 3"), "{log}");
    assert!(
        log.contains("[zut] extension crashy read loop exited at "),
        "{log}"
    );
    let later = run.host.call_tool("t", json!({})).await;
    assert!(later.is_error);
    assert_eq!(
        later.text(),
        "extension crashy/t failed: no extension registered for tool \"t\""
    );
    // Only the crashed extension lost its tools.
    let names: Vec<String> = run.host.tools().into_iter().map(|t| t.name).collect();
    assert_eq!(names, vec!["alive".to_string()]);
    assert_eq!(
        run.host.call_tool("alive", json!({"a": 1})).await.text(),
        "alive:{\"a\": 1}"
    );
    run.stop().await;
}

#[tokio::test]
async fn f7_deferred_flag_is_reported() {
    let env = TestEnv::new();
    tool_ext(&env, "defer", "text(f, 'x')");
    let run = Run::start(env, |_| {}).await;
    let tools = run.host.tools();
    let lazy = tools.iter().find(|t| t.name == "lazy").unwrap();
    assert!(lazy.deferred);
    assert_eq!(lazy.schema, json!({"type": "object", "properties": {}}));
    let t = tools.iter().find(|t| t.name == "t").unwrap();
    assert!(!t.deferred);
    assert_eq!(t.description, "d");
    run.stop().await;
}

#[tokio::test]
async fn concurrent_requests_are_matched_by_id() {
    let env = TestEnv::new();
    // Answers the first call only after the second arrived, so replies
    // come back in the opposite order.
    py_ext(
        &env.global_dir("swap"),
        "swap",
        "hello()\nsend({'type': 'register_tool', 'name': 't'})\nsend({'type': 'ready'})\n\
         held = []\n\
         def on(f):\n    if f['type'] != 'tool_call':\n        return None\n    held.append(f)\n\
         \x20   if len(held) == 2:\n        return [text(held[1], held[1]['args']['n']), text(held[0], held[0]['args']['n'])]\n\
         serve(on)",
    );
    let run = Run::start(env, |_| {}).await;
    let (a, b) = tokio::join!(
        run.host.call_tool("t", json!({"n": "one"})),
        run.host.call_tool("t", json!({"n": "two"}))
    );
    assert_eq!((a.text(), b.text()), ("one".to_string(), "two".to_string()));
    run.stop().await;
}
