//! `zut -p`, `zut --stream` and `zut --json` end to end: the real binary
//! against a real local LLM server, with real extensions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::Stdio;

use common::*;
use serde_json::{json, Value};
use zut_llm_server::{Block, Format, LlmServer, Script};

/// `zut` with provider flags pointing at `server` (stdout/stderr piped,
/// stdin closed), then `args`.
fn llm_cmd(env: &TestEnv, server: &LlmServer, args: &[&str]) -> std::process::Command {
    let url = server.url();
    let mut cmd = zut_cmd(env, &[]);
    cmd.args([
        "--provider",
        "anthropic",
        "--base-url",
        &url,
        "--api-key",
        "sk-cli-secret",
        "--model",
        "test-model",
    ])
    .args(args)
    .env_remove("ANTHROPIC_API_KEY")
    .env_remove("OPENAI_API_KEY")
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    cmd
}

/// Runs `zut` with provider flags pointing at `server`, off the async runtime.
async fn zut_llm(env: &TestEnv, server: &LlmServer, args: &[&str], stdin: Option<&str>) -> Run {
    let mut cmd = llm_cmd(env, server, args);
    let stdin = stdin.map(str::to_string);
    tokio::task::spawn_blocking(move || {
        use std::io::Write;
        if stdin.is_some() {
            cmd.stdin(Stdio::piped());
        }
        let mut child = cmd.spawn().unwrap();
        if let Some(text) = stdin {
            let mut w = child.stdin.take().unwrap();
            w.write_all(text.as_bytes()).unwrap();
        }
        Run::from(child.wait_with_output().unwrap())
    })
    .await
    .unwrap()
}

fn json_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l:?}: {e}")))
        .collect()
}

#[tokio::test]
async fn print_mode_prints_the_final_text_only() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("Hello from the model."));
    let r = zut_llm(&env, &server, &["--no-ext", "-p", "say hi"], None).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout, "Hello from the model.\n");
    let req = &server.requests()[0];
    assert_eq!(req.header("x-api-key"), Some("sk-cli-secret"));
    assert!(req.raw_body.contains("say hi"));
}

#[tokio::test]
async fn stream_mode_separates_the_text_of_successive_steps() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    // Step 1: text without a trailing newline, then a tool call; step 2:
    // the final text. Their texts must not run into each other.
    server.push(Script::reply(
        Format::Anthropic,
        vec![
            Block::text("Let me look."),
            Block::tool_call("t1", "bash", r#"{"command":"echo hi","timeout":10}"#),
        ],
    ));
    server.push(Script::anthropic_text("Done: it printed hi."));
    let r = zut_llm(&env, &server, &["--no-ext", "--stream", "go"], None).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout, "Let me look.\n\nDone: it printed hi.\n");
}

#[tokio::test]
async fn sigterm_aborts_the_run_shuts_extensions_down_and_exits_143() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    // message_start, content_block_start, then two 5-byte text deltas.
    server.push(
        Script::anthropic_text("partial answer that never ends")
            .delta_bytes(5)
            .hang_after(5),
    );
    let dir = env.global_dir("polite");
    zut_test_support::python_extension(
        &dir,
        "polite",
        r#"import json, sys
def emit(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
emit({"type": "hello", "protocol_version": 2, "name": "polite", "version": "1.0.0"})
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello_ack":
        emit({"type": "ready"})
    elif msg["type"] == "shutdown":
        sys.stderr.write("polite: got shutdown\n"); sys.stderr.flush()
        emit({"type": "shutdown_ack"})
        break
"#,
    );
    let child = llm_cmd(&env, &server, &["--stream", "go"]).spawn().unwrap();
    let pid = child.id() as i32;
    for _ in 0..200 {
        if !server.requests().is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    // SAFETY: plain kill(2) on our own child.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let r = Run::from(out);
    assert_eq!(r.code, 143, "{r:?}");
    assert!(r.stderr.contains("zut: aborted"), "{r:?}");
    // The streamed part reached stdout and the line was ended.
    assert_eq!(r.stdout, "partial an\n", "{r:?}");
    // The extension got a proper shutdown, not just a kill.
    let log =
        std::fs::read_to_string(env.home.join("logs").join("ext-polite.log")).unwrap_or_default();
    assert!(log.contains("polite: got shutdown"), "extension log: {log}");
}

#[tokio::test]
async fn a_reader_that_left_early_is_not_a_crash() {
    // stdout (and then stderr too) is a pipe whose read end is closed
    // before zut writes: the writes fail with EPIPE, which must not become
    // a panic (exit status 101).
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let url = server.url();
    let cases: [(&[&str], i32); 5] = [
        (&["--no-ext", "-p", "hi"], 0),
        (&["--no-ext", "--stream", "hi"], 0),
        (&["--no-ext", "--json", "hi"], 0),
        (&["--help"], 0),
        // Fails (unknown provider): the message goes to the closed stderr.
        (&["--provider", "nosuch", "-p", "hi"], 1),
    ];
    for close_stderr in [false, true] {
        for (args, code) in cases {
            server.push(Script::anthropic_text("nobody reads this").delay_ms(200));
            let mut cmd = zut_cmd(&env, &[]);
            cmd.args(["--base-url", &url, "--api-key", "k"])
                .args(if args.contains(&"nosuch") {
                    &[][..]
                } else {
                    &["--provider", "anthropic"][..]
                })
                .args(args)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            let out = tokio::task::spawn_blocking(move || {
                let mut child = cmd.spawn().unwrap();
                drop(child.stdout.take());
                if close_stderr {
                    drop(child.stderr.take());
                }
                child.wait_with_output().unwrap()
            })
            .await
            .unwrap();
            let r = Run::from(out);
            assert!(!r.stderr.contains("panicked"), "{args:?}: {r:?}");
            assert_eq!(
                r.code, code,
                "{args:?} (stderr closed: {close_stderr}): {r:?}"
            );
        }
    }
    // `zut ext list` with both streams closed: its error, not a panic.
    let mut cmd = zut_cmd(&env, &["ext", "list"]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    drop(child.stdout.take());
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_ne!(status.code(), Some(101), "no panic");
}

#[tokio::test]
async fn oversized_piped_stdin_is_refused_before_any_request() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("never"));
    let mut cmd = llm_cmd(&env, &server, &["--no-ext", "-p", "summarise"]);
    cmd.stdin(Stdio::piped());
    let out = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = cmd.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // 17 MiB; zut stops reading after 16 MiB + 1 byte, so the rest of
        // the write may fail with a broken pipe.
        let writer = std::thread::spawn(move || {
            let chunk = vec![b'x'; 1024 * 1024];
            for _ in 0..17 {
                if stdin.write_all(&chunk).is_err() {
                    break;
                }
            }
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        out
    })
    .await
    .unwrap();
    let r = Run::from(out);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("piped stdin is larger than 16 MiB"),
        "{r:?}"
    );
    assert!(server.requests().is_empty(), "no request was sent");
}

#[tokio::test]
async fn piped_stdin_joins_the_prompt_and_stats_are_written() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("summary"));
    let stats = env.project.join("stats.json");
    let stats_arg = stats.to_string_lossy().to_string();
    let r = zut_llm(
        &env,
        &server,
        &["-p", "summarise this:", "--stats", &stats_arg],
        Some("line one\nline two\n"),
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    let body = &server.requests()[0].raw_body;
    assert!(
        body.contains("line one\\nline two\\nsummarise this:"),
        "{body}"
    );
    let s: Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(s["provider"], "anthropic");
    assert_eq!(s["model"], "test-model");
    assert!(s["input_tokens"].as_u64().is_some());
    assert!(s["output_tokens"].as_u64().is_some());
    assert!(s["elapsed_ms"].as_u64().is_some());
}

/// The request's last user text (Anthropic wire), without the hidden
/// `<context>` block zut appends.
fn last_user_text(server: &LlmServer) -> String {
    let body: Value = serde_json::from_str(&server.requests()[0].raw_body).unwrap();
    let msg = body["messages"].as_array().unwrap().last().unwrap().clone();
    let text = msg["content"][0]["text"].as_str().unwrap().to_string();
    text
}

#[tokio::test]
async fn piped_stdin_implies_print_mode_and_comes_first_in_every_mode() {
    for (mode, expect_stdout) in [
        (None, "the answer\n"),
        (Some("--stream"), "the answer\n"),
        (Some("--json"), ""),
    ] {
        let env = TestEnv::new();
        let server = LlmServer::start().await.unwrap();
        server.push(Script::anthropic_text("the answer"));
        let mut args = vec!["--no-ext", "--no-session"];
        args.extend(mode);
        args.push("summarize this");
        let r = zut_llm(&env, &server, &args, Some("# README\nline two\n")).await;
        assert_eq!(r.code, 0, "{mode:?}: {r:?}");
        let text = last_user_text(&server);
        assert!(
            text.starts_with("# README\nline two\nsummarize this"),
            "{mode:?}: {text:?}"
        );
        if mode == Some("--json") {
            let events = json_lines(&r.stdout);
            assert!(events.iter().any(|e| e["type"] == "done"), "{events:?}");
        } else {
            assert_eq!(r.stdout, expect_stdout, "{mode:?}");
        }
    }
}

#[tokio::test]
async fn binary_or_non_utf8_piped_stdin_is_a_clear_error() {
    for (bytes, what) in [
        (&b"PNG\x00\x01rest"[..], "binary (a NUL byte at offset 3)"),
        (
            &b"caf\xe9 au lait"[..],
            "not UTF-8 text (invalid byte at offset 3)",
        ),
    ] {
        let env = TestEnv::new();
        let server = LlmServer::start().await.unwrap();
        server.push(Script::anthropic_text("never"));
        let mut cmd = llm_cmd(&env, &server, &["--no-ext", "read this"]);
        cmd.stdin(Stdio::piped());
        let bytes = bytes.to_vec();
        let out = tokio::task::spawn_blocking(move || {
            use std::io::Write;
            let mut child = cmd.spawn().unwrap();
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(&bytes).unwrap();
            drop(stdin);
            child.wait_with_output().unwrap()
        })
        .await
        .unwrap();
        let r = Run::from(out);
        assert_eq!(r.code, 1, "{r:?}");
        assert!(r.stderr.contains(what), "{what}: {r:?}");
        assert!(server.requests().is_empty(), "no request was sent");
    }
}

#[tokio::test]
async fn ten_megabytes_of_piped_stdin_are_accepted() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("read it all"));
    let big = "0123456789abcdef\n".repeat(10 * 1024 * 1024 / 17);
    let r = zut_llm(
        &env,
        &server,
        &["--no-ext", "--no-session", "-p", "count"],
        Some(&big),
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout, "read it all\n");
    let text = last_user_text(&server);
    assert!(
        text.len() > 10_000_000 && text.ends_with("\ncount"),
        "{}",
        text.len()
    );
}

#[tokio::test]
async fn json_mode_emits_one_event_per_line_with_ext_events() {
    let env = TestEnv::new();
    // An extension that reacts to session_start with a note and a status.
    let dir = env.global_dir("chatty");
    zut_test_support::python_extension(
        &dir,
        "chatty",
        r#"import json, sys
def emit(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
emit({"type": "hello", "protocol_version": 2, "name": "chatty", "version": "1.0.0"})
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello_ack":
        emit({"type": "subscribe", "events": ["session_start"]})
        emit({"type": "ready"})
    elif msg["type"] == "event" and msg["event"] == "session_start":
        emit({"type": "notify", "level": "info", "message": "hi from chatty"})
        emit({"type": "status", "key": "k", "level": "success", "text": "ok"})
    elif msg["type"] == "shutdown":
        emit({"type": "shutdown_ack"})
        break
"#,
    );
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("json answer").delay_ms(300));
    let r = zut_llm(&env, &server, &["--json", "go"], None).await;
    assert_eq!(r.code, 0, "{r:?}");
    let events = json_lines(&r.stdout);
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    for t in [
        "user_message",
        "turn_start",
        "request_started",
        "text_delta",
        "assistant_message",
        "usage",
        "turn_end",
        "done",
    ] {
        assert!(types.contains(&t), "{t} missing: {types:?}");
    }
    let notify = events
        .iter()
        .find(|e| e["type"] == "ext_notify")
        .expect("ext_notify");
    assert_eq!(
        notify,
        &json!({"type":"ext_notify","extension":"chatty","level":"info","message":"hi from chatty"})
    );
    assert!(events
        .iter()
        .any(|e| e["type"] == "ext_status" && e["text"] == "ok"));
    assert_eq!(
        types.last(),
        Some(&"ext_chrome_clear"),
        "chrome cleared at shutdown: {types:?}"
    );
    assert!(!r.stdout.contains("[chatty]"));
}

#[tokio::test]
async fn print_mode_sends_notes_and_load_errors_to_stderr() {
    let env = TestEnv::new();
    let dir = env.global_dir("noisy");
    zut_test_support::python_extension(
        &dir,
        "noisy",
        r#"import json, sys
def emit(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
emit({"type": "hello", "protocol_version": 2, "name": "noisy", "version": "1.0.0"})
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello_ack":
        emit({"type": "notify", "level": "warn", "message": "careful"})
        emit({"type": "ready"})
    elif msg["type"] == "shutdown":
        emit({"type": "shutdown_ack"})
        break
"#,
    );
    write_manifest(&env.global_dir("broken"), &json!({"name": "broken"}));
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("fine").delay_ms(300));
    let r = zut_llm(&env, &server, &["-p", "go"], None).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout, "fine\n");
    assert!(r.stderr.contains("[noisy] warn: careful"), "{}", r.stderr);
    assert!(r.stderr.contains("extension load: "), "{}", r.stderr);
}

#[tokio::test]
async fn extension_slash_commands_in_print_mode() {
    let env = TestEnv::new();
    zut_test_support::install_rust_example("hello", &env.global_dir("hello"));
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("Hi there!"));
    // `prompt` action runs a turn.
    let r = zut_llm(&env, &server, &["-p", "/hello"], None).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout, "Hi there!\n");
    assert!(server.requests()[0]
        .raw_body
        .contains("Greet me in one short sentence."));
    // `display` action prints.
    let r = zut_llm(&env, &server, &["-p", "/cwd"], None).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout.trim(), env.project.to_string_lossy());
    // Unknown and built-in commands say so.
    let r = zut_llm(&env, &server, &["-p", "/nope"], None).await;
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("unknown command /nope"), "{}", r.stderr);
    let r = zut_llm(&env, &server, &["-p", "/help"], None).await;
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("interactive"), "{}", r.stderr);
    assert_eq!(server.requests().len(), 1);

    // Without any model configuration (no flag, no key in the environment
    // or auth.json), `display` still works; `prompt` and a plain prompt
    // fail with the provider's message.
    let bare = |args: &[&str]| {
        let mut cmd = zut_cmd(&env, args);
        for var in [
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "OPENROUTER_API_KEY",
            "GROQ_API_KEY",
            "DEEPSEEK_API_KEY",
            "ZUT_PROVIDER",
            "ZUT_MODEL",
        ] {
            cmd.env_remove(var);
        }
        Run::from(cmd.stdin(Stdio::null()).output().unwrap())
    };
    let r = bare(&["-p", "/cwd"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout.trim(), env.project.to_string_lossy());
    let r = bare(&["-p", "/hello"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("the command's prompt needs a model") && r.stderr.contains("key"),
        "{r:?}"
    );
    let r = bare(&["-p", "plain prompt"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stderr.contains("key"), "{r:?}");
    assert!(
        !r.stderr.contains("extension"),
        "fails before extensions start: {r:?}"
    );
}

#[tokio::test]
async fn insert_action_needs_the_interactive_mode() {
    let env = TestEnv::new();
    let dir = env.global_dir("ins");
    zut_test_support::python_extension(
        &dir,
        "ins",
        r#"import json, sys
def emit(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
emit({"type": "hello", "protocol_version": 2, "name": "ins", "version": "1.0.0"})
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello_ack":
        emit({"type": "register_command", "name": "ins", "description": "insert"})
        emit({"type": "ready"})
    elif msg["type"] == "command_invoked":
        emit({"type": "command_response", "id": msg["id"], "action": "insert", "insert": "text"})
    elif msg["type"] == "shutdown":
        emit({"type": "shutdown_ack"})
        break
"#,
    );
    let server = LlmServer::start().await.unwrap();
    let r = zut_llm(&env, &server, &["-p", "/ins"], None).await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("needs the interactive mode"),
        "{}",
        r.stderr
    );
}

#[tokio::test]
async fn provider_failure_is_a_clear_error_and_exit_1() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    for _ in 0..10 {
        server.push(Script::status(401).message("invalid x-api-key"));
    }
    let r = zut_llm(&env, &server, &["--no-ext", "-p", "hi"], None).await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stderr.contains("401"), "{}", r.stderr);
    assert!(r.stderr.contains("invalid x-api-key"), "{}", r.stderr);
    assert!(!r.stderr.contains("sk-cli-secret"));
    assert_eq!(r.stdout, "");
}

#[tokio::test]
async fn no_prompt_and_bad_flags_fail_clearly() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let r = zut_llm(&env, &server, &["-p"], None).await;
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("no prompt"), "{}", r.stderr);
    let r = zut_llm(
        &env,
        &server,
        &["-p", "x", "--tools", "read,teleport"],
        None,
    )
    .await;
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("teleport"), "{}", r.stderr);
    let r = zut_llm(&env, &server, &["-p", "x", "--reasoning", "extreme"], None).await;
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains(
            "--reasoning \"extreme\": expected off, minimum, low, medium, high, xhigh or max"
        ),
        "{}",
        r.stderr
    );
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn every_reasoning_level_is_accepted_and_sent() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    // Anthropic thinking budgets: minimum 1024, xhigh 32768, max the same
    // as xhigh (the Anthropic wire's top level), `maximum` = xhigh.
    for (level, budget) in [
        ("minimum", 1_024),
        ("xhigh", 32_768),
        ("max", 32_768),
        ("maximum", 32_768),
    ] {
        server.push(Script::anthropic_text("ok"));
        let r = zut_llm(
            &env,
            &server,
            &["--no-ext", "-p", "x", "--reasoning", level],
            None,
        )
        .await;
        assert_eq!(r.code, 0, "{level}: {r:?}");
        let req = server.requests().pop().unwrap();
        assert_eq!(
            req.body["thinking"]["budget_tokens"], budget,
            "{level}: {}",
            req.raw_body
        );
    }
}

#[tokio::test]
async fn system_prompt_is_assembled_from_home_agents_files_and_flags() {
    let env = TestEnv::new();
    std::fs::write(env.home.join("AGENTS.md"), "GLOBAL-RULES").unwrap();
    std::fs::write(env.home.join("SYSTEM.md"), "CUSTOM-IDENTITY").unwrap();
    let sub = env.project.join("pkg");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(env.project.join("AGENTS.md"), "PROJECT-RULES").unwrap();
    std::fs::write(sub.join("AGENTS.md"), "PKG-RULES").unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("a"));
    server.push(Script::anthropic_text("b"));
    server.push(Script::anthropic_text("c"));
    let args = [
        "--no-ext",
        "--cwd",
        "pkg",
        "--append-system-prompt",
        "EXTRA-ONE",
        "--append-system-prompt",
        "EXTRA-TWO",
        "-p",
        "x",
    ];
    let r = zut_llm(&env, &server, &args, None).await;
    assert_eq!(r.code, 0, "{r:?}");
    let r = zut_llm(
        &env,
        &server,
        &[&["--no-context-files"][..], &args].concat(),
        None,
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    let r = zut_llm(
        &env,
        &server,
        &["--no-ext", "--system-prompt", "FLAG-IDENTITY", "-p", "x"],
        None,
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    let systems: Vec<String> = server
        .requests()
        .iter()
        .map(|q| q.body["system"].to_string())
        .collect();
    let s = &systems[0];
    let at = |needle: &str| s.find(needle).unwrap_or_else(|| panic!("{needle} in {s}"));
    assert!(at("CUSTOM-IDENTITY") < at("GLOBAL-RULES"));
    assert!(
        at("GLOBAL-RULES") < at("PROJECT-RULES"),
        "global, then root→cwd"
    );
    assert!(at("PROJECT-RULES") < at("PKG-RULES"));
    assert!(at("PKG-RULES") < at("EXTRA-ONE"));
    assert!(at("EXTRA-ONE") < at("EXTRA-TWO"));
    // --no-context-files drops AGENTS.md but keeps the rest.
    assert!(!systems[1].contains("RULES"), "{}", systems[1]);
    assert!(systems[1].contains("CUSTOM-IDENTITY") && systems[1].contains("EXTRA-TWO"));
    // --system-prompt replaces the base prompt ($ZUT_HOME/SYSTEM.md).
    assert!(systems[2].contains("FLAG-IDENTITY"));
    assert!(!systems[2].contains("CUSTOM-IDENTITY"));
}

#[tokio::test]
async fn h14_interception_runs_in_print_and_json_modes() {
    let env = TestEnv::new();
    zut_test_support::install_rust_example("guard", &env.global_dir("guard"));
    let server = LlmServer::start().await.unwrap();
    for _ in 0..2 {
        server.push(Script::anthropic_tool_call(
            "t1",
            "bash",
            r#"{"command":"rm -rf /","timeout":5}"#,
        ));
        server.push(Script::anthropic_text("gave up"));
    }
    let r = zut_llm(&env, &server, &["--json", "clean"], None).await;
    assert_eq!(r.code, 0, "{r:?}");
    let events = json_lines(&r.stdout);
    let result = events
        .iter()
        .find(|e| e["type"] == "tool_result")
        .expect("tool_result event");
    assert_eq!(result["is_error"], true);
    assert!(
        result["content"].to_string().contains("refused"),
        "{result}"
    );
    assert!(!events.iter().any(|e| e["type"] == "tool_execution_started"));
    let r = zut_llm(&env, &server, &["-p", "clean"], None).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout, "gave up\n");
    let reqs = server.requests();
    assert!(
        reqs[3].raw_body.contains("refused"),
        "the model saw the reason"
    );
}

#[tokio::test]
async fn ctrl_c_aborts_a_streaming_request_and_a_running_bash_command() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    // First prompt: the stream hangs after two frames; second: bash sleeps.
    server.push(Script::anthropic_text("partial answer that never ends").hang_after(3));
    server.push(Script::anthropic_tool_call(
        "t1",
        "bash",
        r#"{"command":"sleep 300","timeout":600}"#,
    ));
    for (expected_requests, wait_for_sleep) in [(1usize, false), (2, true)] {
        let child = llm_cmd(&env, &server, &["--no-ext", "--json", "go"])
            .spawn()
            .unwrap();
        let pid = child.id() as i32;
        // Wait until the request is in flight (and bash has started).
        let mut sleep_pid = None;
        for _ in 0..200 {
            let in_flight = server.requests().len() >= expected_requests;
            sleep_pid = sleep_pid.or_else(|| sleep_child(pid));
            if in_flight && (!wait_for_sleep || sleep_pid.is_some()) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        // SAFETY: plain kill(2) on our own child.
        unsafe { libc::kill(pid, libc::SIGINT) };
        let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
            .await
            .unwrap();
        let r = Run::from(out);
        assert_eq!(r.code, 130, "{r:?}");
        let events = json_lines(&r.stdout);
        let ends: Vec<&Value> = events.iter().filter(|e| e["type"] == "turn_end").collect();
        if wait_for_sleep {
            let result = events.iter().find(|e| e["type"] == "tool_result").unwrap();
            assert_eq!(result["is_error"], true, "{result}");
        } else {
            assert_eq!(ends.last().unwrap()["stop"], "aborted", "{events:?}");
        }
        if let Some(sleep) = sleep_pid {
            let gone = || {
                std::fs::read_to_string(format!("/proc/{sleep}/stat"))
                    .map(|s| {
                        s.rsplit_once(')')
                            .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
                    })
                    .unwrap_or(true)
            };
            for _ in 0..100 {
                if gone() {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            assert!(gone(), "bash's process group was killed");
        } else {
            assert!(!wait_for_sleep, "the sleep never started");
        }
    }
}

/// The pid of a `sleep 300` descended from `pid`, if one runs.
fn sleep_child(pid: i32) -> Option<i32> {
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|p| {
        let stat = std::fs::read_to_string(p.path().join("stat")).unwrap_or_default();
        let cmdline = std::fs::read(p.path().join("cmdline")).unwrap_or_default();
        let is_sleep = cmdline.starts_with(b"sleep\x00300");
        (is_sleep && descends_from(&stat, pid))
            .then(|| p.file_name().to_str()?.parse().ok())
            .flatten()
    })
}

fn descends_from(stat: &str, ancestor: i32) -> bool {
    let mut stat = stat.to_string();
    for _ in 0..16 {
        // Fields after the ")" of the command: state, ppid, pgrp, ...
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r.to_string()) else {
            return false;
        };
        let ppid: i32 = rest
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        if ppid == ancestor {
            return true;
        }
        if ppid <= 1 {
            return false;
        }
        stat = std::fs::read_to_string(format!("/proc/{ppid}/stat")).unwrap_or_default();
    }
    false
}

#[tokio::test]
async fn submit_and_panels_are_ignored_with_a_note_in_print_mode() {
    let env = TestEnv::new();
    zut_test_support::python_extension(
        &env.global_dir("pushy"),
        "pushy",
        r#"import json, sys
def emit(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
emit({"type": "hello", "protocol_version": 2, "name": "pushy", "version": "1.0.0"})
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello_ack":
        emit({"type": "subscribe", "events": ["session_start"]})
        emit({"type": "ready"})
    elif msg["type"] == "event":
        emit({"type": "submit", "text": "run me"})
        emit({"type": "open_panel", "panel": {"id": "gate", "title": "Approve?", "lines": ["x"]}})
    elif msg["type"] == "shutdown":
        emit({"type": "shutdown_ack"})
        break
"#,
    );
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("answer").delay_ms(300));
    let r = zut_llm(&env, &server, &["-p", "go"], None).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout, "answer\n");
    assert!(
        r.stderr
            .contains("[pushy] submit ignored: submitting a prompt needs the interactive mode"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("[pushy] open_panel ignored: panels need the interactive mode"),
        "{}",
        r.stderr
    );
    assert_eq!(
        server.requests().len(),
        1,
        "the submitted text is not a prompt"
    );
}
