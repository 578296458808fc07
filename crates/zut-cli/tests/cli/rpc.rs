//! `zut rpc` end to end: the real binary fed over pipes, against the local
//! LLM server, with real extension processes (Python scripts and the Rust
//! SDK examples). Conformance group M, every command and event of rpc.md,
//! the opt-in additions, and the bad-input/fault cases of issue 9.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::rpc_support;

use std::time::Duration;

use common::*;
use rpc_support::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn m4_prompt_started_events_one_done_and_fifo() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::anthropic_text("first answer")
            .delta_bytes(4)
            .delay_ms(100),
    );
    server.push(Script::anthropic_text("second"));
    let mut rpc = Rpc::start(&env, &server, &[], &[]);
    rpc.send(json!({"id":"1","type":"prompt","message":"one"}));
    rpc.send(json!({"type":"prompt","message":"two"}));
    let first = rpc.until(is_done);
    assert_eq!(
        first[0],
        json!({"type":"response","id":"1","command":"prompt","success":true,"data":{"started":true}})
    );
    let t = types(&first);
    for needed in [
        "user_message",
        "turn_start",
        "request_started",
        "cache_diagnostics",
        "assistant_start",
        "text_delta",
        "assistant_message",
        "usage",
        "turn_end",
    ] {
        assert!(t.contains(&needed.to_string()), "{needed} missing in {t:?}");
    }
    assert_eq!(t.iter().filter(|s| *s == "done").count(), 1);
    // The second prompt's response (no id: none echoed) comes only now.
    let second = rpc.until(is_done);
    assert_eq!(
        second[0],
        json!({"type":"response","command":"prompt","success":true,"data":{"started":true}})
    );
    let texts: String = second
        .iter()
        .filter(|v| v["type"] == "text_delta")
        .map(|v| v["delta"].as_str().unwrap())
        .collect();
    assert_eq!(texts, "second");
    let (code, rest, _) = rpc.finish();
    assert_eq!(code, 0);
    assert!(rest.is_empty(), "{rest:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn m3_malformed_json_unknown_command_and_bad_requests() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let mut rpc = Rpc::start(&env, &server, &[], &[]);
    rpc.send_raw("{not json");
    let r = rpc.next();
    assert_eq!(r["command"], "");
    assert_eq!(r["success"], false);
    assert!(r.get("id").is_none());
    assert!(r["error"].as_str().unwrap().starts_with("malformed json"));
    rpc.send_raw("   ");
    let r = rpc.request(json!({"id":"u","type":"frobnicate"}));
    assert_eq!(r["command"], "frobnicate");
    assert_eq!(r["error"], "unknown command");
    // Opt-in commands are unknown for a client that did not opt in.
    let r = rpc.request(json!({"id":"c","type":"command","name":"x"}));
    assert_eq!(r["error"], "unknown command");
    let r = rpc.request(json!({"id":"p","type":"prompt"}));
    assert_eq!(r["success"], false);
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("invalid prompt request"),
        "{r}"
    );
    // Invalid base64 images fail the request and nothing runs.
    let r = rpc.request(json!({"id":"i","type":"prompt","message":"look",
        "images":[{"mime_type":"image/png","data":"!!!not base64"}]}));
    assert_eq!(r["success"], false);
    assert!(
        r["error"].as_str().unwrap().contains("invalid base64"),
        "{r}"
    );
    assert_eq!(server.request_count(), 0);
    let r = rpc.request(json!({"id":"2","type":"ping"}));
    assert_eq!(r["data"], json!({"pong":true}));
    let (code, rest, _) = rpc.finish();
    assert_eq!((code, rest.len()), (0, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn line_over_16_mib_is_refused_and_reading_goes_on() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let mut rpc = Rpc::start(&env, &server, &[], &[]);
    let big = format!(
        r#"{{"id":"big","type":"prompt","message":"{}"}}"#,
        "x".repeat(17 * 1024 * 1024)
    );
    rpc.send_raw(&big);
    let r = rpc.next();
    assert_eq!(r["success"], false);
    assert!(
        r["error"].as_str().unwrap().contains("line too long"),
        "{r}"
    );
    let r = rpc.request(json!({"id":"2","type":"ping"}));
    assert_eq!(r["success"], true);
    assert_eq!(server.request_count(), 0);
    assert_eq!(rpc.finish().0, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_models_messages_clear_and_settings() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("hi there"));
    let mut rpc = Rpc::start(&env, &server, &["--reasoning", "high"], &[]);
    let r = rpc.request(json!({"id":"h","type":"hello"}));
    assert_eq!(r["data"]["protocol_version"], 1);
    assert_eq!(r["data"]["provider"], "anthropic");
    assert_eq!(r["data"]["model"], "test-model");
    assert!(r["data"].get("capabilities").is_none());
    let r = rpc.request(json!({"id":"s","type":"get_state"}));
    let d = &r["data"];
    assert_eq!(d["reasoning"], "high");
    assert_eq!(d["busy"], false);
    assert_eq!(d["message_count"], 0);
    assert_eq!(
        d["cwd"],
        env.project.canonicalize().unwrap().display().to_string()
    );
    assert_eq!(d["usage"]["reasoning"], Value::Null);
    assert_eq!(d["usage"]["cost_usd"], 0.0);
    rpc.send(json!({"id":"1","type":"prompt","message":"hello"}));
    rpc.until(is_done);
    let r = rpc.request(json!({"id":"m","type":"get_messages"}));
    let msgs = r["data"]["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 2);
    assert_eq!(msgs[0]["role"], "user");
    assert_eq!(msgs[0]["content"][0], json!({"type":"text","text":"hello"}));
    assert_eq!(msgs[1]["role"], "assistant");
    assert!(msgs[1]["time"].as_str().unwrap().ends_with('Z'));
    let r = rpc.request(json!({"id":"s2","type":"get_state"}));
    assert_eq!(r["data"]["message_count"], 2);
    assert_eq!(r["data"]["usage"]["input"], 10);
    // M1
    let r = rpc.request(json!({"id":"r1","type":"set_reasoning","reasoning":"max"}));
    assert_eq!(r["data"], json!({"reasoning":"max"}));
    let r = rpc.request(json!({"id":"r2","type":"set_reasoning","reasoning":"extreme"}));
    assert_eq!(r["success"], false);
    assert_eq!(
        r["error"],
        "reasoning must be off|minimum|low|medium|high|xhigh|max"
    );
    let r = rpc.request(json!({"id":"r3","type":"get_state"}));
    assert_eq!(r["data"]["reasoning"], "max");
    let r = rpc.request(json!({"id":"r4","type":"set_reasoning","reasoning":"off"}));
    assert_eq!(r["data"]["reasoning"], "");
    // Models.
    let r = rpc.request(json!({"id":"gm","type":"get_models"}));
    let models = r["data"]["models"].as_array().unwrap();
    assert!(models.iter().any(|m| m["id"] == "test-model"));
    let m = models
        .iter()
        .find(|m| m["id"] == "claude-sonnet-4-5")
        .unwrap();
    assert_eq!(m["provider"], "anthropic");
    assert_eq!(m["context_window"], 200_000);
    let r = rpc.request(json!({"id":"sm","type":"set_model","model":"claude-sonnet-4-5"}));
    assert_eq!(r["data"], json!({"model":"claude-sonnet-4-5"}));
    let r = rpc.request(json!({"id":"sm2","type":"set_model","model":"gpt-nope"}));
    assert_eq!(r["success"], false);
    assert!(
        r["error"].as_str().unwrap().contains("unknown model"),
        "{r}"
    );
    let r = rpc.request(json!({"id":"h2","type":"hello"}));
    assert_eq!(r["data"]["model"], "claude-sonnet-4-5");
    // Clear.
    let r = rpc.request(json!({"id":"c","type":"clear"}));
    assert_eq!(
        r,
        json!({"type":"response","id":"c","command":"clear","success":true})
    );
    let r = rpc.request(json!({"id":"s3","type":"get_state"}));
    assert_eq!(r["data"]["message_count"], 0);
    let r = rpc.request(json!({"id":"a","type":"abort"}));
    assert_eq!(r["success"], true, "abort when idle succeeds (M5)");
    assert_eq!(rpc.finish().0, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn m5_m9_abort_during_prompt_and_busy_state() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::anthropic_text("partial answer here")
            .delta_bytes(3)
            .hang_after(5),
    );
    let mut rpc = Rpc::start(&env, &server, &[], &[]);
    rpc.send(json!({"id":"1","type":"prompt","message":"go"}));
    rpc.until(|v| v["type"] == "text_delta");
    let r = rpc.request(json!({"id":"s","type":"get_state"}));
    assert_eq!(r["data"]["busy"], true);
    rpc.send(json!({"id":"a","type":"abort"}));
    let rest = rpc.until(is_done);
    let abort_resp = rest.iter().find(|v| v["id"] == "a").unwrap();
    assert_eq!(abort_resp["success"], true);
    let turn_end = rest.iter().find(|v| v["type"] == "turn_end").unwrap();
    assert_eq!(turn_end["stop"], "aborted");
    assert!(!types(&rest).contains(&"error".to_string()));
    let r = rpc.request(json!({"id":"s2","type":"get_state"}));
    assert_eq!(r["data"]["busy"], false);
    assert_eq!(rpc.finish().0, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn m6_compact_started_then_compact_done_without_done() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("an answer"));
    server.push(Script::anthropic_text("the summary"));
    let mut rpc = Rpc::start(&env, &server, &[], &[]);
    rpc.send(json!({"id":"1","type":"prompt","message":"q"}));
    rpc.until(is_done);
    rpc.send(json!({"id":"c","type":"compact"}));
    let lines = rpc.until(|v| v["type"] == "compact_done");
    assert_eq!(lines[0]["data"], json!({"started":true}));
    assert_eq!(lines.last().unwrap()["summary"], "the summary");
    assert!(!types(&lines).contains(&"done".to_string()));
    let r = rpc.request(json!({"id":"p","type":"ping"}));
    assert_eq!(r["success"], true);
    // A failing compaction: an error event, no done.
    let r = rpc.request(json!({"id":"cl","type":"clear"}));
    assert_eq!(r["success"], true);
    rpc.send(json!({"id":"c2","type":"compact"}));
    let lines = rpc.until(|v| v["type"] == "error");
    assert!(lines.last().unwrap()["message"]
        .as_str()
        .unwrap()
        .contains("nothing to compact"));
    let (code, rest, _) = rpc.finish();
    assert_eq!(code, 0);
    assert!(!types(&rest).contains(&"done".to_string()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn m7_eof_right_after_prompt_prints_the_whole_turn() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("complete reply").delay_ms(200));
    let mut rpc = Rpc::start(&env, &server, &[], &[]);
    rpc.send(json!({"id":"1","type":"prompt","message":"x"}));
    let (code, rest, _) = rpc.finish();
    assert_eq!(code, 0);
    let t = types(&rest);
    assert_eq!(t.first().map(String::as_str), Some("response"));
    assert_eq!(t.last().map(String::as_str), Some("done"));
    assert!(t.contains(&"assistant_message".to_string()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn m2_token_auth_holds_extension_events_until_hello() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let ext = py_ext(
        &env,
        "alerter",
        r#"send({"type":"alert","kind":"bell","reason":"question_ready"})"#,
        "",
    );
    let e = ext_arg(&ext);
    let mut rpc = Rpc::start(
        &env,
        &server,
        &["--ext", &e],
        &[("ZUTCORE_RPC_TOKEN", "s3cret")],
    );
    // Nothing is written before authentication except error responses.
    let r = rpc.request(json!({"id":"1","type":"ping"}));
    assert_eq!(r["success"], false);
    assert_eq!(r["command"], "ping");
    assert_eq!(r["error"], "auth required: send hello with token first");
    rpc.send(json!({"id":"h","type":"hello","token":"s3cret"}));
    let hello = rpc.next();
    assert_eq!(hello["id"], "h");
    assert_eq!(hello["success"], true);
    let alert = rpc.next();
    assert_eq!(
        alert,
        json!({"type":"ext_alert","extension":"alerter","kind":"bell","reason":"question_ready"})
    );
    let r = rpc.request(json!({"id":"2","type":"ping"}));
    assert_eq!(r["success"], true);
    assert_eq!(rpc.finish().0, 0);

    // A wrong token: `invalid token`, exit 1, nothing else on stdout.
    let mut rpc = Rpc::start(
        &env,
        &server,
        &["--ext", &e],
        &[("ZUTCORE_RPC_TOKEN", "s3cret")],
    );
    rpc.send(json!({"id":"h","type":"hello","token":"wrong"}));
    rpc.send(json!({"id":"2","type":"ping"}));
    let (code, rest, stderr) = rpc.finish();
    assert_eq!(code, 1);
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(rest[0]["error"], "invalid token");
    assert!(stderr.contains("zut: rpc: bad auth token"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn m8_extension_chrome_events_carry_the_manifest_name() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("ok"));
    let ext = py_ext(
        &env,
        "chrome",
        r#"send({"type":"subscribe","events":["turn_end"]})"#,
        r#"if t == "event" and m.get("event") == "turn_end":
    send({"type":"notify","level":"warn","message":"careful"})
    send({"type":"status","key":"k","text":"busy"})
    send({"type":"widget","id":"w","title":"W","lines":["a","b"]})
    send({"type":"widget_clear","id":"w"})
    send({"type":"clear_notes"})
    sys.exit(0)"#,
    );
    let e = ext_arg(&ext);
    let mut rpc = Rpc::start(&env, &server, &["--ext", &e], &[]);
    rpc.send(json!({"id":"1","type":"prompt","message":"x"}));
    let lines = rpc.until(|v| v["type"] == "ext_chrome_clear");
    let ext_lines: Vec<&Value> = lines
        .iter()
        .filter(|v| v["type"].as_str().unwrap().starts_with("ext_"))
        .collect();
    assert_eq!(
        ext_lines,
        vec![
            &json!({"type":"ext_notify","extension":"chrome","level":"warn","message":"careful"}),
            &json!({"type":"ext_status","extension":"chrome","key":"k","level":"","text":"busy"}),
            &json!({"type":"ext_widget","extension":"chrome","id":"w","position":"","title":"W","lines":["a","b"]}),
            &json!({"type":"ext_widget_clear","extension":"chrome","id":"w"}),
            &json!({"type":"ext_clear_notes","extension":"chrome"}),
            &json!({"type":"ext_chrome_clear","extension":"chrome"}),
        ]
    );
    assert_eq!(rpc.finish().0, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn m10_extension_tools_and_interceptors_and_a_responsive_loop() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "t1",
        "shout",
        r#"{"text":"hey"}"#,
    ));
    server.push(Script::anthropic_tool_call(
        "t2",
        "bash",
        r#"{"command":"echo no"}"#,
    ));
    server.push(Script::anthropic_text("done now"));
    let ext = py_ext(
        &env,
        "tooler",
        r#"send({"type":"register_tool","name":"shout","description":"upper","schema":{"type":"object","properties":{"text":{"type":"string"}}}})
send({"type":"subscribe","intercept":["tool_call","turn_start"]})"#,
        r#"if t == "tool_call":
    send({"type":"tool_result","id":m["id"],"content":[{"type":"text","text":m["args"]["text"].upper()}]})
elif t == "event_intercept" and m["event"] == "turn_start":
    time.sleep(1.0 if m.get("step") == 1 else 0)
    send({"type":"event_intercept_response","id":m["id"]})
elif t == "event_intercept" and m["event"] == "tool_call":
    if m["tool_name"] == "bash":
        send({"type":"event_intercept_response","id":m["id"],"block":True,"reason":"no shell"})
    else:
        send({"type":"event_intercept_response","id":m["id"]})"#,
    );
    let e = ext_arg(&ext);
    let mut rpc = Rpc::start(&env, &server, &["--ext", &e], &[]);
    rpc.send(json!({"id":"1","type":"prompt","message":"shout"}));
    rpc.until(|v| v["type"] == "turn_start");
    // The interceptor holds the turn; the loop still answers.
    let (before, r) = {
        rpc.send(json!({"id":"p","type":"ping"}));
        rpc.response("p")
    };
    assert_eq!(r["data"]["pong"], true);
    assert!(
        before.is_empty(),
        "ping answered before the turn went on: {before:?}"
    );
    let r = rpc.request(json!({"id":"s","type":"get_state"}));
    assert_eq!(r["data"]["busy"], true);
    let lines = rpc.until(is_done);
    let results: Vec<&Value> = lines
        .iter()
        .filter(|v| v["type"] == "tool_result")
        .collect();
    assert_eq!(results[0]["content"][0]["text"], "HEY");
    assert_eq!(results[0]["is_error"], false);
    assert_eq!(results[1]["is_error"], true);
    assert_eq!(results[1]["content"][0]["text"], "no shell");
    let started: Vec<&Value> = lines
        .iter()
        .filter(|v| v["type"] == "tool_execution_started")
        .collect();
    assert_eq!(started.len(), 1, "the blocked call never starts");
    assert_eq!(rpc.finish().0, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdin_closed_mid_turn_finishes_the_turn_and_shuts_extensions_down() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::anthropic_text("slow but whole")
            .delta_bytes(2)
            .event_delay_ms(20),
    );
    let ext = py_ext(&env, "watcher", "", "");
    let e = ext_arg(&ext);
    let marks = root(&env).join("marks");
    std::fs::create_dir_all(&marks).unwrap();
    let mut rpc = Rpc::start(
        &env,
        &server,
        &["--ext", &e],
        &[("MARK_DIR", marks.to_str().unwrap())],
    );
    rpc.send(json!({"id":"1","type":"prompt","message":"x"}));
    rpc.until(|v| v["type"] == "text_delta");
    let (code, rest, _) = rpc.finish();
    assert_eq!(code, 0);
    // The turn ends with done; the extension's ext_chrome_clear from the
    // final shutdown may follow (rpc.md §5.1).
    let t = types(&rest);
    let done = t.iter().position(|s| s == "done").unwrap();
    assert!(
        t[done + 1..].iter().all(|s| s == "ext_chrome_clear"),
        "{t:?}"
    );
    let text: String = rest
        .iter()
        .filter(|v| v["type"] == "assistant_message")
        .map(|v| v["content"][0]["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(text, "slow but whole");
    assert!(
        marks.join("watcher.shutdown").exists(),
        "extension got shutdown"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extension_dying_during_a_turn() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call("t1", "boom", "{}"));
    server.push(Script::anthropic_text("recovered"));
    let ext = py_ext(
        &env,
        "dier",
        r#"send({"type":"register_tool","name":"boom","description":"dies","schema":{"type":"object"}})"#,
        r#"if t == "tool_call":
    os._exit(3)"#,
    );
    let e = ext_arg(&ext);
    let mut rpc = Rpc::start(&env, &server, &["--ext", &e], &[]);
    rpc.send(json!({"id":"1","type":"prompt","message":"x"}));
    let lines = rpc.until(is_done);
    let result = lines.iter().find(|v| v["type"] == "tool_result").unwrap();
    assert_eq!(result["is_error"], true);
    assert!(types(&lines).contains(&"ext_chrome_clear".to_string()));
    let r = rpc.request(json!({"id":"p","type":"ping"}));
    assert_eq!(r["success"], true);
    assert_eq!(rpc.finish().0, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_reader_keeps_memory_bounded_and_abort_still_ends_the_turn() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    // 2 MB of text in 10-byte deltas, then the stream hangs.
    let text = "0123456789".repeat(200_000);
    let frames = 2_000_000 / 10 + 3;
    server.push(
        Script::anthropic_text(&text)
            .delta_bytes(10)
            .hang_after(frames),
    );
    let mut rpc = Rpc::start(&env, &server, &[], &[]);
    rpc.send(json!({"id":"1","type":"prompt","message":"x"}));
    rpc.until(|v| v["type"] == "text_delta");
    // Stop reading stdout while the reply streams: the pipe fills, zut's
    // writer blocks, and the backlog must not grow with the reply.
    rpc.pause_reading();
    std::thread::sleep(Duration::from_secs(2));
    let rss = rss_of(rpc.pid());
    // An abort sent while nobody reads still ends the turn.
    rpc.send(json!({"id":"a","type":"abort"}));
    std::thread::sleep(Duration::from_millis(300));
    let rss_after_abort = rss_of(rpc.pid());
    rpc.resume_reading();
    let lines = rpc.until(is_done);
    let abort = lines.iter().find(|v| v["id"] == "a").unwrap();
    assert_eq!(abort["success"], true);
    let turn_end = lines.iter().find(|v| v["type"] == "turn_end").unwrap();
    assert_eq!(turn_end["stop"], "aborted");
    let streamed: usize = lines
        .iter()
        .filter(|v| v["type"] == "text_delta")
        .map(|v| v["delta"].as_str().unwrap().len())
        .sum();
    assert!(streamed > 0, "text reached the client");
    for kib in [rss, rss_after_abort] {
        assert!(
            kib < 64 * 1024,
            "RSS {kib} KiB while 2 MB streamed to a client that did not read"
        );
    }
    let r = rpc.request(json!({"id":"p","type":"ping"}));
    assert_eq!(r["success"], true);
    assert_eq!(rpc.finish().0, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opt_in_commands_panels_keys_and_reload() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("answered"));
    let ext = py_ext(
        &env,
        "paneler",
        r#"send({"type":"register_command","name":"pick","description":"panel"})
send({"type":"register_command","name":"ask","description":"prompt"})
send({"type":"register_command","name":"show","description":"display"})
send({"type":"register_command","name":"ins","description":"insert"})
send({"type":"register_command","name":"bad","description":"errors"})"#,
        r#"if t == "command_invoked":
    n = m["name"]
    if n == "pick":
        send({"type":"command_response","id":m["id"],"action":"open_panel","open_panel":{"id":"p1","title":"Pick","lines":["a","b"],"footer":"keys"}})
    elif n == "ask":
        send({"type":"command_response","id":m["id"],"action":"prompt","prompt":"asked " + m.get("args","")})
    elif n == "show":
        send({"type":"command_response","id":m["id"],"action":"display","display":"shown"})
    elif n == "ins":
        send({"type":"command_response","id":m["id"],"action":"insert","insert":"typed"})
    else:
        send({"type":"command_response","id":m["id"],"action":"noop","error":"nope"})
elif t == "panel_key":
    send({"type":"panel_render","panel_id":m["panel_id"],"lines":["key " + m["key"] + " " + m.get("text","")]})
    if m["key"] == "enter":
        send({"type":"submit","text":"from panel"})
elif t == "panel_close":
    send({"type":"panel_close","panel_id":m["panel_id"]})"#,
    );
    let e = ext_arg(&ext);
    let mut rpc = Rpc::start(&env, &server, &["--ext", &e], &[]);
    let r =
        rpc.request(json!({"id":"h","type":"hello","capabilities":["commands","ext_ui","future"]}));
    assert_eq!(r["data"]["capabilities"], json!(["commands", "ext_ui"]));
    let r = rpc.request(json!({"id":"gc","type":"get_commands"}));
    let cmds = r["data"]["commands"].as_array().unwrap();
    let pick = cmds.iter().find(|c| c["name"] == "pick").unwrap();
    assert_eq!(
        pick,
        &json!({"name":"pick","description":"panel","source":"paneler"})
    );
    assert_eq!(cmds[0]["name"], "clear");
    assert!(cmds
        .iter()
        .any(|c| c["name"] == "model" && c["hint"] == "model id"));
    let (before, r) = {
        rpc.send(json!({"id":"c1","type":"command","name":"/pick"}));
        rpc.response("c1")
    };
    assert_eq!(
        r["data"],
        json!({"action":"open_panel","extension":"paneler"})
    );
    assert_eq!(
        before,
        vec![json!({"type":"ext_panel_open","extension":"paneler",
            "panel":{"id":"p1","title":"Pick","lines":["a","b"],"footer":"keys"}})]
    );
    let mut renders = Vec::new();
    for (i, (key, text)) in [("rune", "y"), ("down", ""), ("enter", "")]
        .iter()
        .enumerate()
    {
        let id = format!("k{i}");
        rpc.send(json!({"id":id,"type":"panel_key","extension":"paneler",
            "panel_id":"p1","key":key,"text":text}));
        let (before, r) = rpc.response(&id);
        assert_eq!(r["success"], true);
        renders.extend(before);
    }
    if !renders.iter().any(|v| v["type"] == "ext_submit") {
        renders.extend(rpc.until(|v| v["type"] == "ext_submit"));
    }
    let lines: Vec<&Value> = renders
        .iter()
        .filter(|v| v["type"] == "ext_panel_render")
        .map(|v| &v["lines"][0])
        .collect();
    assert_eq!(
        lines,
        vec!["key rune y", "key down ", "key enter "],
        "keys in order"
    );
    assert_eq!(renders.last().unwrap()["text"], "from panel");
    rpc.send(json!({"id":"pc","type":"panel_close","extension":"paneler","panel_id":"p1"}));
    let (mut closed, r) = rpc.response("pc");
    assert_eq!(r["success"], true);
    if !closed.iter().any(|v| v["type"] == "ext_panel_close") {
        closed.extend(rpc.until(|v| v["type"] == "ext_panel_close"));
    }
    closed.retain(|v| v["type"] == "ext_panel_close");
    assert_eq!(closed.last().unwrap()["panel_id"], "p1");
    // display / insert / error / unknown.
    let (before, r) = {
        rpc.send(json!({"id":"c2","type":"command","name":"show"}));
        rpc.response("c2")
    };
    assert_eq!(
        before,
        vec![json!({"type":"ext_display","extension":"paneler","text":"shown"})]
    );
    assert_eq!(r["data"]["text"], "shown");
    let (before, r) = {
        rpc.send(json!({"id":"c3","type":"command","name":"ins"}));
        rpc.response("c3")
    };
    assert_eq!(
        before,
        vec![json!({"type":"ext_insert","extension":"paneler","text":"typed"})]
    );
    assert_eq!(r["data"]["action"], "insert");
    let r = rpc.request(json!({"id":"c4","type":"command","name":"bad"}));
    assert_eq!(r["success"], false);
    assert!(r["error"].as_str().unwrap().contains("nope"));
    let r = rpc.request(json!({"id":"c5","type":"command","name":"missing"}));
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("unknown command /missing"),
        "{r}"
    );
    // A prompt action runs a turn like `prompt`.
    rpc.send(json!({"id":"c6","type":"command","name":"ask","args":"this"}));
    let lines = rpc.until(is_done);
    assert_eq!(lines[0]["id"], "c6");
    assert_eq!(lines[0]["data"], json!({"action":"prompt","started":true}));
    assert!(server
        .requests()
        .pop()
        .unwrap()
        .raw_body
        .contains("asked this"));
    // Reload.
    let (_, r) = {
        rpc.send(json!({"id":"rl","type":"reload_ext"}));
        rpc.response("rl")
    };
    assert_eq!(
        r["data"],
        json!({"stopped":1,"loaded":1,"ready":1,"errors":[]})
    );
    let r = rpc.request(json!({"id":"c7","type":"command","name":"show"}));
    assert_eq!(r["success"], true, "the reloaded extension answers");
    assert_eq!(rpc.finish().0, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_sdk_example_extension_in_rpc_mode() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let dir = zut_test_support::install_example("hello", &root(&env).join("exts/hello"));
    let e = ext_arg(&dir);
    server.push(Script::anthropic_tool_call(
        "t1",
        "greet",
        r#"{"name":"rpc"}"#,
    ));
    server.push(Script::anthropic_text("greeted"));
    let mut rpc = Rpc::start(&env, &server, &["--ext", &e], &[]);
    rpc.send(json!({"id":"1","type":"prompt","message":"greet"}));
    let lines = rpc.until(is_done);
    let result = lines.iter().find(|v| v["type"] == "tool_result").unwrap();
    assert_eq!(result["is_error"], false, "{result}");
    assert_eq!(result["content"][0]["text"], "Hello, rpc!");
    assert_eq!(rpc.finish().0, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_aborts_the_turn_stops_extensions_and_exits_0() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(
        Script::anthropic_text("never finished")
            .delta_bytes(2)
            .hang_after(4),
    );
    server.push(Script::anthropic_text("queued, never run"));
    let ext = py_ext(&env, "watcher", "", "");
    let e = ext_arg(&ext);
    let marks = root(&env).join("marks");
    std::fs::create_dir_all(&marks).unwrap();
    let mut rpc = Rpc::start(
        &env,
        &server,
        &["--ext", &e],
        &[("MARK_DIR", marks.to_str().unwrap())],
    );
    rpc.send(json!({"id":"1","type":"prompt","message":"x"}));
    rpc.send(json!({"id":"2","type":"prompt","message":"y"}));
    rpc.until(|v| v["type"] == "text_delta");
    rpc.signal(libc::SIGTERM);
    // stdin stays open: the signal alone ends the process.
    let (code, rest, stderr) = rpc.wait();
    assert_eq!(code, 0, "{stderr}");
    let turn_end = rest.iter().find(|v| v["type"] == "turn_end").unwrap();
    assert_eq!(turn_end["stop"], "aborted");
    assert!(types(&rest).contains(&"done".to_string()));
    assert!(!types(&rest).contains(&"error".to_string()), "{rest:?}");
    // The queued prompt never reached the model.
    assert_eq!(server.request_count(), 1);
    assert!(
        marks.join("watcher.shutdown").exists(),
        "extension got shutdown"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_signal_during_a_hung_shutdown_exits_at_once() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("unreached"));
    // An interceptor that never answers holds the turn (and with it the
    // graceful shutdown) for the protocol's 5 s.
    let ext = py_ext(
        &env,
        "hanger",
        r#"send({"type":"subscribe","intercept":["turn_start"]})"#,
        "",
    );
    let e = ext_arg(&ext);
    let mut rpc = Rpc::start(&env, &server, &["--ext", &e], &[]);
    rpc.send(json!({"id":"1","type":"prompt","message":"x"}));
    rpc.until(|v| v["type"] == "turn_start");
    rpc.signal(libc::SIGINT);
    rpc.wait_stderr("zut: rpc: stopping");
    rpc.signal(libc::SIGTERM);
    let (code, _, stderr) = rpc.wait();
    // 128 + SIGTERM: the forced exit (the graceful one is 0).
    assert_eq!(code, 143, "{stderr}");
    assert!(stderr.contains("second signal"), "{stderr}");
    assert_eq!(server.request_count(), 0);
}

/// MCP servers start in RPC mode as in `-p`: the model calls a tool of the
/// project's configured stdio server (the fake server of zut-mcp's tests,
/// a real Python process) and its result reaches the next request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_tools_work_in_rpc_mode() {
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 is required under CI"
        );
        return;
    }
    let env = TestEnv::new();
    let fake = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../zut-mcp/tests/fixtures/fake_server.py");
    std::fs::write(
        env.home.join("config.json"),
        json!({"mcpServers": {"fake": {"command": "python3",
            "args": [fake.display().to_string(), "normal"]}}})
        .to_string(),
    )
    .unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "call_1",
        "mcp__fake__echo",
        r#"{"text":"pong-4711"}"#,
    ));
    server.push(Script::anthropic_text("The server said pong."));
    let mut rpc = Rpc::start(&env, &server, &[], &[]);
    rpc.send(json!({"id":"1","type":"prompt","message":"ping the server"}));
    let lines = rpc.until(is_done);
    let end = lines
        .iter()
        .find(|v| v["type"] == "tool_execution_end" || v["type"] == "tool_result")
        .cloned()
        .unwrap_or_default();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2, "{lines:?}");
    let second: Value = serde_json::from_str(&reqs[1].raw_body).unwrap();
    let last = second["messages"].as_array().unwrap().last().unwrap();
    assert!(last.to_string().contains("pong-4711"), "{last} {end}");
    assert!(!last.to_string().contains("unknown tool"), "{last}");
    rpc.close();
}
