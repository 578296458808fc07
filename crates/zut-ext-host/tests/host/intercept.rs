//! Group H: interception chains (the host side; the agent applies the
//! verdicts).

use std::time::{Duration, Instant};

use serde_json::json;
use zut_ext_host::{AssistantVerdict, ToolCallVerdict, TurnStartVerdict};
use zut_test_support::{install_example, TestEnv};

use crate::common::*;

/// An interceptor of every event whose reply is the Python expression
/// `reply` (a dict of optional fields, using `f`).
fn interceptor(env: &TestEnv, dir_name: &str, name: &str, reply: &str) -> std::path::PathBuf {
    py_ext(
        &env.global_dir(dir_name),
        name,
        &format!(
            "hello()\nsend({{'type': 'subscribe', 'intercept': ['tool_call', 'turn_start', 'assistant_message']}})\n\
             send({{'type': 'ready'}})\n\
             def on(f):\n    if f['type'] != 'event_intercept':\n        return None\n\
             \x20   r = {reply}\n    r.update({{'type': 'event_intercept_response', 'id': f['id']}})\n    return r\n\
             serve(on)"
        ),
    )
}

#[tokio::test]
async fn h1_h2_guard_example_blocks_and_rewrites() {
    let env = TestEnv::new();
    install_example("guard", &env.global_dir("guard"));
    let run = Run::start(env, |_| {}).await;
    assert!(run.report.errors.is_empty(), "{:?}", run.errors());
    assert!(run.host.has_interceptors("tool_call"));
    let v = run
        .host
        .intercept_tool_call("c1", "bash", &json!({"command": "rm -rf /", "timeout": 30}))
        .await;
    let ToolCallVerdict::Block { reason, extension } = v else {
        panic!("not blocked: {v:?}");
    };
    assert!(reason.contains("refused"), "{reason}");
    assert_eq!(extension, "guard");
    let v = run
        .host
        .intercept_tool_call(
            "c2",
            "bash",
            &json!({"command": "git push --force origin main", "timeout": 30}),
        )
        .await;
    assert_eq!(
        v,
        ToolCallVerdict::Allow {
            args: json!({"command": "git push --force-with-lease origin main", "timeout": 30}),
            modified: true
        }
    );
    let args = json!({"path": "x"});
    let v = run.host.intercept_tool_call("c3", "read", &args).await;
    assert_eq!(
        v,
        ToolCallVerdict::Allow {
            args,
            modified: false
        }
    );
    // The guard shows its refusal count as a status.
    assert!(
        run.ui
            .wait(Duration::from_secs(5), |e| e.iter().any(|e| e.extension == "guard"
                && matches!(&e.kind, zut_ext_host::UiKind::Status { text, .. } if text.contains("refused 1"))))
            .await
    );
    run.stop().await;
}

#[tokio::test]
async fn h3_h4_h8_allow_default_reason_and_non_object_args() {
    let env = TestEnv::new();
    let dir = interceptor(
        &env,
        "g",
        "g",
        "{'block': True} if f.get('tool_name') == 'bash' else ({'modified_args': [1, 2]} if f.get('tool_name') == 'arr' else {})",
    );
    let run = Run::start(env, |_| {}).await;
    let args = json!({"path": "a"});
    assert_eq!(
        run.host.intercept_tool_call("1", "read", &args).await,
        ToolCallVerdict::Allow {
            args: args.clone(),
            modified: false
        }
    );
    assert_eq!(
        run.host.intercept_turn_start(1).await,
        TurnStartVerdict::Allow { context: None }
    );
    assert_eq!(
        run.host.intercept_assistant_message("clean").await,
        AssistantVerdict::Allow {
            text: "clean".into(),
            replaced: false
        }
    );
    assert_eq!(
        run.host.intercept_tool_call("2", "bash", &args).await,
        ToolCallVerdict::Block {
            reason: "tool call refused by extension guard".into(),
            extension: "g".into()
        }
    );
    assert_eq!(
        run.host.intercept_tool_call("3", "arr", &args).await,
        ToolCallVerdict::Allow {
            args: args.clone(),
            modified: false
        }
    );
    assert!(has_diag(
        &run.report_of("g"),
        "modified_args must be a JSON object"
    ));
    let frames = received_of(&dir, "event_intercept");
    assert_eq!(frames[0]["event"], "tool_call");
    assert_eq!(frames[0]["tool_id"], "1");
    assert_eq!(frames[0]["tool_name"], "read");
    assert_eq!(frames[0]["tool_args"], args);
    assert_eq!(frames[1]["event"], "turn_start");
    assert_eq!(frames[1]["step"], 1);
    assert_eq!(frames[2]["event"], "assistant_message");
    assert_eq!(frames[2]["text"], "clean");
    run.stop().await;
}

#[tokio::test]
async fn h5_intercept_timeout_allows_and_host_keeps_working() {
    let env = TestEnv::new();
    interceptor(
        &env,
        "a-hang",
        "hang",
        "(time.sleep(5), {'block': True})[1]",
    );
    interceptor(
        &env,
        "b-ctx",
        "ctx",
        "{'context': 'after hang'} if f['event'] == 'turn_start' else {}",
    );
    echo_ext(&env.global_dir("c-tools"), "tools", &["t"]);
    let run = Run::start(env, |c| c.timeouts.intercept = Duration::from_millis(300)).await;
    let args = json!({"x": 1});
    let started = Instant::now();
    let v = run.host.intercept_tool_call("1", "t", &args).await;
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(
        v,
        ToolCallVerdict::Allow {
            args,
            modified: false
        }
    );
    assert!(run
        .env
        .log("hang")
        .contains("[zut] intercept tool_call timed out; allowing"));
    // Next chain: the late block reply of the first call is ignored.
    assert_eq!(
        run.host.intercept_turn_start(2).await,
        TurnStartVerdict::Allow {
            context: Some("[ctx]\nafter hang".into())
        }
    );
    assert_eq!(run.host.call_tool("t", json!({})).await.text(), "t:{}");
    run.stop().await;
}

#[tokio::test]
async fn h6_h7_chain_in_load_order() {
    let env = TestEnv::new();
    // Load order is by directory name: "a-first" before "b-second".
    let first = interceptor(
        &env,
        "a-first",
        "zz-first",
        "{'block': True, 'reason': 'first says no'} if f.get('tool_args', {}).get('stop') else \
         {'modified_args': dict(f['tool_args'], step='first')} if f['event'] == 'tool_call' else {}",
    );
    let second = interceptor(
        &env,
        "b-second",
        "aa-second",
        "{'modified_args': dict(f['tool_args'], seen=f['tool_args'].get('step'), step='second')} if f['event'] == 'tool_call' else {}",
    );
    let run = Run::start(env, |_| {}).await;
    for _ in 0..3 {
        let v = run
            .host
            .intercept_tool_call("1", "x", &json!({"a": 1}))
            .await;
        assert_eq!(
            v,
            ToolCallVerdict::Allow {
                args: json!({"a": 1, "seen": "first", "step": "second"}),
                modified: true
            }
        );
    }
    let v = run
        .host
        .intercept_tool_call("2", "x", &json!({"stop": true}))
        .await;
    assert_eq!(
        v,
        ToolCallVerdict::Block {
            reason: "first says no".into(),
            extension: "zz-first".into()
        }
    );
    assert_eq!(received_of(&first, "event_intercept").len(), 4);
    assert_eq!(
        received_of(&second, "event_intercept").len(),
        3,
        "after a block the second is never asked"
    );
    run.stop().await;
}

#[tokio::test]
async fn h9_h10_assistant_message_replace_and_block() {
    let env = TestEnv::new();
    interceptor(
        &env,
        "a-redact",
        "redact",
        "{'replace_text': f['text'].replace('SECRET', '[redacted]')} if f['event'] == 'assistant_message' else {}",
    );
    interceptor(
        &env,
        "b-block",
        "blocker",
        "{'block': True, 'reason': 'hidden'} if 'HIDE' in f.get('text', '') else {}",
    );
    let run = Run::start(env, |_| {}).await;
    assert_eq!(
        run.host.intercept_assistant_message("the SECRET is").await,
        AssistantVerdict::Allow {
            text: "the [redacted] is".into(),
            replaced: true
        }
    );
    assert_eq!(
        run.host.intercept_assistant_message("HIDE me").await,
        AssistantVerdict::Block {
            reason: "hidden".into(),
            extension: "blocker".into()
        }
    );
    run.stop().await;
}

#[tokio::test]
async fn h11_h12_h13_turn_start_block_and_contexts() {
    let env = TestEnv::new();
    interceptor(
        &env,
        "a",
        "A",
        "{'block': True, 'reason': 'outside business hours'} if f.get('step') == 9 else \
         {'context': '\u{754c}' * 16384} if f.get('step') == 5 else {'context': '  a  '}",
    );
    interceptor(&env, "b", "B", "{'context': 'b'}");
    let run = Run::start(env, |_| {}).await;
    assert_eq!(
        run.host.intercept_turn_start(1).await,
        TurnStartVerdict::Allow {
            context: Some("[A]\na\n\n[B]\nb".into())
        }
    );
    assert_eq!(
        run.host.intercept_turn_start(9).await,
        TurnStartVerdict::Block {
            reason: "outside business hours".into(),
            extension: "A".into()
        }
    );
    let TurnStartVerdict::Allow { context: Some(ctx) } = run.host.intercept_turn_start(5).await
    else {
        panic!("expected a context");
    };
    assert!(ctx.len() <= 16 * 1024, "{}", ctx.len());
    assert!(ctx.starts_with("[A]\n\u{754c}"));
    assert!(ctx.ends_with("\n[extension context truncated]"));
    run.stop().await;
}

#[tokio::test]
async fn interceptor_dying_mid_chain_is_skipped_at_once() {
    let env = TestEnv::new();
    interceptor(&env, "a-dies", "dies", "os._exit(1)");
    interceptor(
        &env,
        "b-rewrites",
        "rewrites",
        "{'modified_args': {'by': 'b'}} if f['event'] == 'tool_call' else {}",
    );
    let run = Run::start(env, |c| c.timeouts.intercept = Duration::from_secs(60)).await;
    let started = Instant::now();
    let v = run.host.intercept_tool_call("1", "x", &json!({})).await;
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "waited for the intercept timeout"
    );
    assert_eq!(
        v,
        ToolCallVerdict::Allow {
            args: json!({"by": "b"}),
            modified: true
        }
    );
    assert!(run.ui.wait_chrome_clear("dies").await);
    assert!(!run.report_of("dies").alive);
    assert!(
        eventually(Duration::from_secs(5), || run
            .env
            .log("dies")
            .contains("[zut] process exited: exit status 1"))
        .await
    );
    run.stop().await;
}
