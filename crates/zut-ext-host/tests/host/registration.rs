//! Group D: registration and readiness; E7 and F6 name resolution.

use std::time::{Duration, Instant};

use serde_json::json;
use zut_ext_host::{Readiness, SlotState};
use zut_test_support::{process_alive, TestEnv};

use crate::common::*;

#[tokio::test]
async fn d1_ready_extension_is_ready_not_auto_ready() {
    let env = TestEnv::new();
    echo_ext(&env.global_dir("prompt"), "prompt", &["t"]);
    let run = Run::start(env, |_| {}).await;
    let r = run.report_of("prompt");
    assert_eq!(r.readiness, Readiness::Ready);
    assert!(r.alive);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert!(!run.env.log("prompt").contains("auto-ready"));
    run.stop().await;
}

#[tokio::test]
async fn d2_no_ready_is_auto_ready_after_idle() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("legacy"),
        "legacy",
        "hello()\nsend({'type': 'register_command', 'name': 'old'})\nserve()",
    );
    let started = Instant::now();
    let run = Run::start(env, |c| c.timeouts.ready = Duration::from_secs(20)).await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "auto-ready releases start-up long before the ready deadline"
    );
    let r = run.report_of("legacy");
    assert_eq!(r.readiness, Readiness::AutoReady);
    assert!(
        has_diag(&r, "no ready frame; auto-ready after idle"),
        "{r:?}"
    );
    assert!(run
        .env
        .log("legacy")
        .contains("[zut] no ready frame; auto-readying after idle"));
    assert!(run.host.has_command("old"));
    run.stop().await;
}

#[tokio::test]
async fn d3a_chatty_extension_without_ready_times_out_but_lives() {
    let env = TestEnv::new();
    let dir = py_ext(
        &env.global_dir("chatty"),
        "chatty",
        "hello()\nwhile True:\n    send({'type': 'notify', 'message': 'tick'})\n    time.sleep(0.1)",
    );
    let run = Run::start(env, |c| c.timeouts.ready = Duration::from_millis(1200)).await;
    let r = run.report_of("chatty");
    assert_eq!(r.readiness, Readiness::ReadyTimeout);
    assert!(has_diag(&r, "timed out waiting for ready frame"), "{r:?}");
    assert!(run
        .env
        .log("chatty")
        .contains("[zut] timed out waiting for ready frame; proceeding"));
    let pid = pid_of(&dir).await;
    assert!(process_alive(pid), "a ready timeout kills nothing");
    assert!(r.alive);
    run.stop().await;
    assert!(!process_alive(pid));
}

#[tokio::test]
async fn d3b_ready_waits_run_in_parallel() {
    let env = TestEnv::new();
    for name in ["slow1", "slow2", "slow3"] {
        py_ext(
            &env.global_dir(name),
            name,
            "hello()\nfor _ in range(15):\n    send({'type': 'status', 'key': 'k', 'text': 'loading'})\n    time.sleep(0.1)\n\
             send({'type': 'ready'})\nserve()",
        );
    }
    let started = Instant::now();
    let run = Run::start(env, |c| c.timeouts.ready = Duration::from_secs(10)).await;
    let took = started.elapsed();
    for name in ["slow1", "slow2", "slow3"] {
        assert_eq!(run.report_of(name).readiness, Readiness::Ready);
    }
    // Each needs 1.5 s; serial waits would need at least 4.5 s.
    assert!(took < Duration::from_millis(4400), "took {took:?}");
    run.stop().await;
}

#[tokio::test]
async fn d4_conflicting_commands_and_tools() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("a"),
        "a",
        "hello()\nsend({'type': 'register_command', 'name': 'CaseTest'})\n\
         send({'type': 'register_tool', 'name': 'shared'})\nsend({'type': 'ready'})\n\
         serve(lambda f: text(f, 'from a') if f['type'] == 'tool_call' else None)",
    );
    py_ext(
        &env.global_dir("b"),
        "b",
        "hello()\nsend({'type': 'register_command', 'name': 'casetest'})\n\
         send({'type': 'register_tool', 'name': 'shared'})\nsend({'type': 'ready'})\n\
         serve(lambda f: text(f, 'from b') if f['type'] == 'tool_call' else None)",
    );
    let run = Run::start(env, |_| {}).await;
    let (a, b) = (run.report_of("a"), run.report_of("b"));
    assert_eq!(a.commands[0].state, SlotState::Active);
    assert_eq!(a.tools[0].state, SlotState::Active);
    assert_eq!(b.commands[0].state, SlotState::Shadowed);
    assert_eq!(b.tools[0].state, SlotState::Shadowed);
    assert!(has_diag(
        &b,
        "command /casetest conflicts with another extension registering the same name"
    ));
    assert!(has_diag(
        &b,
        "tool shared conflicts with another extension registering the same name"
    ));
    assert!(run.env.log("b").contains("tool shared conflicts"));
    let cmds = run.host.commands();
    assert_eq!(cmds.len(), 1);
    assert_eq!(
        (cmds[0].name.as_str(), cmds[0].extension.as_str()),
        ("CaseTest", "a")
    );
    let tools = run.host.tools();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].extension, "a", "the registry entry is the owner's");
    let out = run.host.call_tool("shared", json!({})).await;
    assert_eq!(out.text(), "from a");
    run.stop().await;
}

#[tokio::test]
async fn d5_late_registrations() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("late"),
        "late",
        "hello()\nsend({'type': 'ready'})\n\
         def on(f):\n    if f['type'] == 'tool_call':\n        return text(f, 'late ok')\n    if f['type'] == 'command_invoked':\n        return {'type': 'command_response', 'id': f['id'], 'action': 'display', 'display': 'hi'}\n\
         time.sleep(0.3)\nsend({'type': 'register_command', 'name': 'newcmd'})\n\
         send({'type': 'register_tool', 'name': 'newtool', 'schema': {'type': 'object'}})\nserve(on)",
    );
    let run = Run::start(env, |_| {}).await;
    assert!(eventually(Duration::from_secs(5), || run.host.has_command("newcmd")).await);
    let reply = run.host.invoke_command("newcmd", "").await.unwrap();
    assert_eq!(reply.response.display, "hi");
    assert!(
        run.host.tools().is_empty(),
        "late tool not offered before a rebuild"
    );
    let r = run.report_of("late");
    assert!(has_diag(&r, "tool newtool registered after ready"), "{r:?}");
    run.host.rebuild_tools();
    assert_eq!(run.host.tools()[0].name, "newtool");
    assert_eq!(
        run.host.call_tool("newtool", json!({})).await.text(),
        "late ok"
    );
    run.stop().await;
}

#[tokio::test]
async fn d6_subscribe_union_and_unknown_intercepts() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("subs"),
        "subs",
        "hello()\nsend({'type': 'subscribe', 'intercept': ['tool_call', 'bogus']})\n\
         send({'type': 'subscribe', 'events': ['turn_end'], 'intercept': ['turn_start']})\n\
         send({'type': 'ready'})\n\
         serve(lambda f: {'type': 'event_intercept_response', 'id': f['id']} if f['type'] == 'event_intercept' else None)",
    );
    let run = Run::start(env, |_| {}).await;
    assert!(run.host.has_interceptors("tool_call"));
    assert!(run.host.has_interceptors("turn_start"));
    assert!(!run.host.has_interceptors("bogus"));
    assert!(!run.host.has_interceptors("assistant_message"));
    run.stop().await;
}

#[tokio::test]
async fn d7_command_names_are_case_insensitive_with_canonical_spelling() {
    let env = TestEnv::new();
    let dir = py_ext(
        &env.global_dir("pinger"),
        "pinger",
        "hello()\nsend({'type': 'register_command', 'name': 'Ping', 'description': 'pong'})\n\
         send({'type': 'ready'})\n\
         serve(lambda f: {'type': 'command_response', 'id': f['id'], 'action': 'display', 'display': 'pong'} if f['type'] == 'command_invoked' else None)",
    );
    let run = Run::start(env, |_| {}).await;
    assert!(run.host.has_command("PING"));
    assert!(run.host.has_command("pInG"));
    let cmds = run.host.commands();
    assert_eq!(cmds[0].extension, "pinger");
    assert_eq!(cmds[0].description, "pong");
    let reply = run.host.invoke_command("PING", "").await.unwrap();
    assert_eq!(reply.command, "Ping");
    assert_eq!(reply.extension, "pinger");
    let sent = received_of(&dir, "command_invoked");
    assert_eq!(sent[0]["name"], "Ping");
    run.stop().await;
}

#[tokio::test]
async fn d8_exit_before_ready_releases_waiters_at_once() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("quitter"),
        "quitter",
        "hello()\nsend({'type': 'register_command', 'name': 'gone'})\nsys.exit(0)",
    );
    let started = Instant::now();
    let run = Run::start(env, |c| {
        c.timeouts.ready = Duration::from_secs(30);
        c.timeouts.auto_ready_idle = Duration::from_secs(30);
    })
    .await;
    assert!(started.elapsed() < Duration::from_secs(15));
    assert!(!run.report_of("quitter").alive);
    assert!(!run.host.has_command("gone"));
    assert!(
        eventually(Duration::from_secs(5), || has_diag(
            &run.report_of("quitter"),
            "process exited: exit status 0"
        ))
        .await
    );
    assert!(run.env.log("quitter").contains("read loop exited at "));
    run.stop().await;
}

#[tokio::test]
async fn e7_f6_builtins_and_reserved_names_win() {
    let env = TestEnv::new();
    let dir = py_ext(
        &env.global_dir("greedy"),
        "greedy",
        "hello()\n\
         for c in ['help', 'CLEAR', 'mine']:\n    send({'type': 'register_command', 'name': c})\n\
         for t in ['read', 'bash', 'grep', 'web_search', 'python', 'update_plan', 'own']:\n    send({'type': 'register_tool', 'name': t})\n\
         send({'type': 'ready'})\n\
         serve(lambda f: text(f, 'ext ' + f['name']) if f['type'] == 'tool_call' else ({'type': 'command_response', 'id': f['id']} if f['type'] == 'command_invoked' else None))",
    );
    let run = Run::start(env, |c| {
        c.builtin_commands = vec!["help".into(), "clear".into()];
        // `bash` inactive (as with `--tools read`).
        c.builtin_tools = vec!["read".into()];
    })
    .await;
    assert!(!run.host.has_command("help"));
    assert!(!run.host.has_command("clear"));
    assert!(run.host.has_command("mine"));
    assert!(matches!(
        run.host.invoke_command("help", "").await,
        Err(zut_ext_host::CommandError::Unknown(_))
    ));
    let err = run.host.invoke_command("xyz", "").await.unwrap_err();
    assert_eq!(err.to_string(), "unknown command /xyz");
    assert!(received_of(&dir, "command_invoked").is_empty());
    let names: Vec<String> = run.host.tools().into_iter().map(|t| t.name).collect();
    assert_eq!(names, vec!["bash".to_string(), "own".to_string()]);
    assert_eq!(
        run.host.call_tool("bash", json!({})).await.text(),
        "ext bash"
    );
    let grep = run.host.call_tool("grep", json!({})).await;
    assert!(grep.is_error);
    let r = run.report_of("greedy");
    assert!(has_diag(
        &r,
        "tool grep is shadowed by a built-in or reserved name"
    ));
    assert!(has_diag(&r, "command /help is shadowed by a built-in"));
    assert!(run.env.log("greedy").contains("tool read is shadowed"));
    run.stop().await;
}

#[tokio::test]
async fn settle_waits_for_frames_sent_right_after_ready() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("trailing"),
        "trailing",
        "hello()\nsend({'type': 'ready'})\ntime.sleep(0.15)\n\
         send({'type': 'register_tool', 'name': 'after'})\ntime.sleep(0.15)\nsys.exit(0)",
    );
    let run = Run::start(env, |_| {}).await;
    let started = Instant::now();
    run.host
        .settle(Duration::from_millis(400), Duration::from_secs(5))
        .await;
    assert!(started.elapsed() < Duration::from_secs(4));
    let r = run.report_of("trailing");
    assert!(!r.alive, "the exit after ready is seen");
    assert_eq!(r.tools.len(), 1, "{r:?}");
    assert!(has_diag(&r, "registered after ready"), "{r:?}");
    run.stop().await;
}

/// Registrations the host refuses: what it did (nothing registered, the
/// extension keeps working) and what it reported (diagnostic + log line).
#[tokio::test]
async fn invalid_registrations_are_refused_with_diagnostics() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("sloppyreg"),
        "sloppyreg",
        "hello()\n\
         send({'type': 'register_tool', 'name': 'stringy', 'schema': {'type': 'string'}})\n\
         send({'type': 'register_tool', 'name': 'listy', 'schema': [1]})\n\
         send({'type': 'register_tool', 'name': 'two words'})\n\
         send({'type': 'register_tool', 'name': ''})\n\
         send({'type': 'register_command', 'name': 'a b'})\n\
         send({'type': 'register_command', 'name': ''})\n\
         send({'type': 'hello', 'protocol_version': 2, 'name': NAME})\n\
         send({'type': 'register_tool', 'name': 'fine', 'schema': {'type': 'object', 'properties': {}}})\n\
         send({'type': 'register_command', 'name': 'okcmd'})\n\
         send({'type': 'ready'})\n\
         serve(lambda f: text(f, 'fine') if f['type'] == 'tool_call' else None)",
    );
    let run = Run::start(env, |_| {}).await;
    let names: Vec<String> = run.host.tools().into_iter().map(|t| t.name).collect();
    assert_eq!(names, vec!["fine".to_string()]);
    let cmds: Vec<String> = run.host.commands().into_iter().map(|c| c.name).collect();
    assert_eq!(cmds, vec!["okcmd".to_string()]);
    let r = run.report_of("sloppyreg");
    assert_eq!(r.readiness, Readiness::Ready);
    assert_eq!(r.tools.len(), 1, "refused tools are not listed: {r:?}");
    for needle in [
        "bad register_tool frame: tool stringy: schema must be a JSON Schema object",
        "bad register_tool frame: tool listy: schema must be a JSON Schema object",
        "bad register_tool frame: tool name \"two words\" is invalid",
        "bad register_tool frame: tool name \"\" is invalid",
        "command name \"a b\" is invalid",
        "command name \"\" is invalid",
        "unexpected hello after the handshake; ignored",
    ] {
        assert!(has_diag(&r, needle), "{needle}: {:?}", r.diagnostics);
        assert!(
            run.env
                .log("sloppyreg")
                .contains(&format!("[zut] {needle}")),
            "{needle}"
        );
    }
    assert_eq!(run.host.call_tool("fine", json!({})).await.text(), "fine");
    assert_eq!(
        run.host.call_tool("stringy", json!({})).await.text(),
        "extension ?/stringy failed: no extension registered for tool \"stringy\""
    );
    run.stop().await;
}
