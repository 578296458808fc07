//! Sessions in print/stream/JSON mode, end to end: the real binary, a real
//! local LLM server, real extension processes, real session files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};

fn llm_cmd(env: &TestEnv, server: &LlmServer, args: &[&str]) -> std::process::Command {
    common::llm_cmd(env, &server.url(), args)
}

async fn zut_llm(env: &TestEnv, server: &LlmServer, args: &[&str]) -> Run {
    output_blocking(llm_cmd(env, server, args)).await
}

/// The sessions directory of the env's project.
fn sessions_dir(env: &TestEnv) -> PathBuf {
    zut_session::sessions_dir(&env.home, &env.project.display().to_string())
}

fn session_files(env: &TestEnv) -> Vec<PathBuf> {
    zut_session::list_files(&sessions_dir(env))
}

fn rows(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A global extension `name` with a tool `remember` returning
/// `details: {"count": n}` (or `pad` bytes of padding), subscribed to the
/// session events and intercepting `turn_start` to give the model the state
/// it received in `session_opened`. Every frame it gets is appended to
/// `<dir>/frames.jsonl`.
fn keeper(env: &TestEnv, name: &str) -> PathBuf {
    let dir = env.global_dir(name);
    let body = format!(
        r#"import json, sys, os
LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "frames.jsonl")
def emit(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
def log(o):
    with open(LOG, "a") as f:
        f.write(json.dumps(o) + "\n")
state = None
emit({{"type": "hello", "protocol_version": 2, "name": "{name}", "version": "1.0.0"}})
for line in sys.stdin:
    msg = json.loads(line)
    t = msg.get("type")
    log(msg)
    if t == "hello_ack":
        emit({{"type": "register_tool", "name": "{name}_remember", "description": "remember n",
              "schema": {{"type": "object", "properties": {{"n": {{"type": "integer"}}, "pad": {{"type": "integer"}}}}}}}})
        emit({{"type": "subscribe", "events": ["session_start", "session_opened"], "intercept": ["turn_start"]}})
        emit({{"type": "ready"}})
    elif t == "event" and msg.get("event") == "session_opened":
        state = msg.get("state")
    elif t == "event_intercept":
        emit({{"type": "event_intercept_response", "id": msg["id"], "context": "{name} state=" + json.dumps(state, sort_keys=True)}})
    elif t == "tool_call":
        args = msg.get("args") or {{}}
        details = {{"count": args.get("n", 0)}}
        if args.get("pad"):
            details["pad"] = "x" * args["pad"]
        emit({{"type": "tool_result", "id": msg["id"], "content": [{{"type": "text", "text": "remembered"}}], "details": details}})
    elif t == "shutdown":
        emit({{"type": "shutdown_ack"}})
        break
"#
    );
    zut_test_support::python_extension(&dir, name, &body);
    dir
}

fn frames(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("frames.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn session_events(dir: &Path) -> Vec<Value> {
    frames(dir)
        .into_iter()
        .filter(|f| {
            f["type"] == "event"
                && f["event"]
                    .as_str()
                    .is_some_and(|e| e.starts_with("session_"))
        })
        .collect()
}

/// The issue's end-to-end case: a `zut -p` turn whose extension tool
/// returns `details`, then `zut -p -c` in a new process where the extension
/// receives its state in `session_opened` and its `turn_start` context
/// (built from that state) reaches the model's request. Also K1 and G6.
#[tokio::test]
async fn details_persist_and_come_back_in_session_opened_on_continue() {
    let env = TestEnv::new();
    let dir = keeper(&env, "keeper");
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "t1",
        "keeper_remember",
        r#"{"n":7}"#,
    ));
    server.push(Script::anthropic_text("I will remember 7."));
    let r = zut_llm(&env, &server, &["-p", "remember seven"]).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout, "I will remember 7.\n");

    let files = session_files(&env);
    assert_eq!(files.len(), 1, "one session written by default");
    let file = &files[0];
    let rows1 = rows(file);
    let kinds: Vec<&str> = rows1.iter().map(|r| r["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "meta",
            "message",
            "message",
            "usage",
            "extension_state",
            "message",
            "message",
            "usage"
        ]
    );
    let meta = &rows1[0]["meta"];
    assert_eq!(meta["cwd"], env.project.display().to_string());
    assert_eq!(meta["provider"], "anthropic");
    assert_eq!(meta["model"], "test-model");
    assert_eq!(meta["title"], "remember seven");
    assert_eq!(
        rows1[4],
        json!({"type":"extension_state","extension":"keeper","state":{"count":7}})
    );
    assert_eq!(rows1[5]["message"]["role"], "tool");
    // K1: the model never sees details.
    assert!(!server.requests()[1].raw_body.contains("\"count\""));
    // G6: session_start then session_opened, with the file's meta id.
    let ev = session_events(&dir);
    assert_eq!(ev.len(), 2, "{ev:?}");
    assert_eq!(ev[0]["event"], "session_start");
    assert_eq!(ev[1]["event"], "session_opened");
    assert_eq!(ev[1]["session"]["id"], meta["id"]);
    assert_eq!(ev[1]["session"]["path"], file.display().to_string());
    assert!(ev[1].get("state").is_none(), "no state yet");
    let hello_ack = frames(&dir)
        .into_iter()
        .find(|f| f["type"] == "hello_ack")
        .unwrap();
    // protocol.md §5.2: no session in hello_ack at start-up (extensions
    // start before the session is announced).
    assert!(hello_ack.get("session").is_none(), "{hello_ack}");

    std::fs::remove_file(dir.join("frames.jsonl")).unwrap();
    let before = std::fs::read(file).unwrap();
    server.push(Script::anthropic_text("You asked me to remember 7."));
    let r = zut_llm(&env, &server, &["-p", "-c", "what do you remember?"]).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(session_files(&env), files, "continued, no new file");
    let ev = session_events(&dir);
    assert_eq!(ev[0]["event"], "session_start");
    assert_eq!(ev[0]["state"], json!({"count":7}));
    assert_eq!(ev[1]["event"], "session_opened");
    assert_eq!(ev[1]["state"], json!({"count":7}));
    assert_eq!(ev[1]["session"]["id"], meta["id"]);
    let req = &server.requests()[2];
    assert!(
        req.raw_body.contains(r#"keeper state={\"count\": 7}"#),
        "{}",
        req.raw_body
    );
    // The resumed transcript went to the model too.
    assert!(req.raw_body.contains("remember seven"));
    assert!(req.raw_body.contains("I will remember 7."));
    // Append-only: the first run's bytes are untouched.
    let after = std::fs::read(file).unwrap();
    assert_eq!(&after[..before.len()], &before[..]);
    assert_eq!(rows(file).len(), rows1.len() + 3);
}

/// G9 and `--session <path>` on a Go-written file: each extension gets only
/// its own state.
#[tokio::test]
async fn each_extension_gets_only_its_own_state() {
    let env = TestEnv::new();
    let a = keeper(&env, "alpha");
    let b = keeper(&env, "beta");
    let file = env.project.join("go-written.jsonl");
    std::fs::write(
        &file,
        [
            r#"{"type":"meta","meta":{"id":"11111111-2222-4333-8444-555555555555","cwd":"/elsewhere","model":"m","provider":"openai","started":"2026-08-20T07:00:00Z","version":"0.9.1","parent":"00000000-0000-4000-8000-000000000000","fork_point":1}}"#,
            r#"{"type":"message","message":{"role":"developer","content":[{"text":"Current time: then"}],"time":"2026-08-20T09:00:00+02:00","meta":{"internal_context":"true"}}}"#,
            r#"{"type":"message","message":{"role":"user","content":[{"text":"earlier question"}],"time":"2026-08-20T09:00:00+02:00"}}"#,
            r#"{"type":"extension_state","extension":"alpha","state":{"a":1}}"#,
            r#"{"type":"extension_state","extension":"beta","state":{"b":2}}"#,
            r#"{"type":"message","message":{"role":"assistant","content":[{"text":"earlier answer"}],"time":"2026-08-20T09:00:01+02:00"}}"#,
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("ok"));
    let r = zut_llm(
        &env,
        &server,
        &["--json", "--session", "go-written.jsonl", "next"],
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    let ea = session_events(&a);
    let eb = session_events(&b);
    assert_eq!(ea[1]["state"], json!({"a":1}));
    assert_eq!(eb[1]["state"], json!({"b":2}));
    assert!(!serde_json::to_string(&ea).unwrap().contains("\"b\":2"));
    assert_eq!(
        ea[1]["session"]["parent_id"],
        "00000000-0000-4000-8000-000000000000"
    );
    assert_eq!(ea[1]["session"]["fork_point"], 1);
    assert_eq!(ea[1]["session"]["cwd"], "/elsewhere");
    let body = &server.requests()[0].raw_body;
    assert!(body.contains("earlier question") && body.contains("earlier answer"));
    assert!(
        !body.contains("Current time: then"),
        "stale hidden context dropped"
    );
    // State never shows in JSON output.
    assert!(!r.stdout.contains("\"a\":1"));
}

/// K3: details over 256 KiB → the model gets the error, no row; with
/// `--no-session` details are ignored and the result is unchanged, and no
/// file is written (session events carry no session).
#[tokio::test]
async fn oversized_details_become_an_error_only_with_a_session() {
    let env = TestEnv::new();
    let dir = keeper(&env, "keeper");
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "t1",
        "keeper_remember",
        r#"{"n":1,"pad":300000}"#,
    ));
    server.push(Script::anthropic_text("done"));
    let r = zut_llm(&env, &server, &["-p", "big"]).await;
    assert_eq!(r.code, 0, "{r:?}");
    let body = &server.requests()[1].raw_body;
    assert!(
        body.contains("tool result state could not be persisted"),
        "{body}"
    );
    let file = &session_files(&env)[0];
    assert!(!rows(file).iter().any(|r| r["type"] == "extension_state"));

    std::fs::remove_file(dir.join("frames.jsonl")).unwrap();
    server.push(Script::anthropic_tool_call(
        "t2",
        "keeper_remember",
        r#"{"n":1,"pad":300000}"#,
    ));
    server.push(Script::anthropic_text("done"));
    let r = zut_llm(&env, &server, &["-p", "--no-session", "big"]).await;
    assert_eq!(r.code, 0, "{r:?}");
    let body = &server.requests()[3].raw_body;
    assert!(!body.contains("could not be persisted"));
    assert!(body.contains("remembered"));
    assert_eq!(session_files(&env).len(), 1, "--no-session writes nothing");
    let ev = session_events(&dir);
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0]["event"], "session_start");
    assert!(ev[0].get("session").is_none());
}

/// K2: details null removes the state.
#[tokio::test]
async fn null_details_clear_the_state() {
    let env = TestEnv::new();
    let file = env.project.join("s.jsonl");
    std::fs::write(
        &file,
        r#"{"type":"meta","meta":{"id":"abc","cwd":"/p","model":"m","provider":"p","started":"2026-08-20T07:00:00Z","version":"1"}}
{"type":"extension_state","extension":"keeper","state":{"count":3}}
{"type":"extension_state","extension":"keeper","state":null}
"#,
    )
    .unwrap();
    let dir = keeper(&env, "keeper");
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("ok"));
    let r = zut_llm(&env, &server, &["-p", "--session", "s.jsonl", "hi"]).await;
    assert_eq!(r.code, 0, "{r:?}");
    let ev = session_events(&dir);
    assert!(ev[1].get("state").is_none(), "{ev:?}");
    assert!(server.requests()[0].raw_body.contains("keeper state=null"));
}

/// K6 through the CLI: a broken file fails naming file and line, before the
/// model is called and without touching the file.
#[tokio::test]
async fn a_broken_session_file_fails_before_the_model_is_called() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let cases = [
        (
            "unknown.jsonl",
            "{\"type\":\"meta\",\"meta\":{\"id\":\"a\"}}\n{\"type\":\"bogus\"}\n",
            "line 2: unknown row type",
        ),
        (
            "blank.jsonl",
            "{\"type\":\"meta\",\"meta\":{\"id\":\"a\"}}\n\n",
            "line 2: blank row",
        ),
        (
            "nometa.jsonl",
            "{\"type\":\"rename\",\"title\":\"x\"}\n",
            "line 1: the first row must be \"meta\"",
        ),
        (
            "torn.jsonl",
            "{\"type\":\"meta\",\"meta\":{\"id\":\"a\"}}\n{\"type\":\"mess",
            "line 2: invalid JSON",
        ),
    ];
    for (name, text, needle) in cases {
        let path = env.project.join(name);
        std::fs::write(&path, text).unwrap();
        let r = zut_llm(&env, &server, &["-p", "--session", name, "hi"]).await;
        assert_eq!(r.code, 1, "{r:?}");
        assert!(
            r.stderr.contains(name) && r.stderr.contains(needle),
            "{}",
            r.stderr
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }
    assert_eq!(server.request_count(), 0);
}

/// A sessions directory that cannot be created: exit 1 before the model is
/// called, with the reason.
#[tokio::test]
async fn an_unwritable_sessions_directory_fails_first() {
    let env = TestEnv::new();
    std::fs::write(env.home.join("sessions"), "a file, not a directory").unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("never"));
    let r = zut_llm(&env, &server, &["-p", "hi"]).await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("creating the sessions directory"),
        "{}",
        r.stderr
    );
    assert_eq!(server.request_count(), 0);
}

/// A full disk while writing (simulated with a file-size limit): the run
/// fails clearly and no half-written row stays.
#[tokio::test]
async fn a_failed_write_leaves_no_half_row() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("long answer ".repeat(200)));
    let zut = std::path::Path::new(env!("CARGO_BIN_EXE_zut"));
    let url = server.url();
    let script = format!(
        "trap '' XFSZ; ulimit -f 2; exec '{}' --provider anthropic --base-url {url} --api-key k --model m -p hi",
        zut.display()
    );
    let mut cmd = std::process::Command::new("sh");
    cmd.args(["-c", &script])
        .env("ZUT_HOME", &env.home)
        .current_dir(&env.project)
        .stdin(Stdio::null());
    let r: Run = tokio::task::spawn_blocking(move || cmd.output().unwrap().into())
        .await
        .unwrap();
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stderr.contains("writing a message row"), "{}", r.stderr);
    let file = &session_files(&env)[0];
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.ends_with('\n'));
    for line in text.lines() {
        serde_json::from_str::<Value>(line).unwrap();
    }
    zut_session::read(file).unwrap();
}

/// Two zut processes on one session: the second is refused and says why;
/// the first one's rows are never interleaved.
#[tokio::test]
async fn a_session_in_use_is_refused() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("slow answer").delay_ms(1500));
    let mut first = llm_cmd(&env, &server, &["-p", "--session", "shared.jsonl", "one"])
        .spawn()
        .unwrap();
    for _ in 0..200 {
        if server.request_count() > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(server.request_count(), 1);
    server.push(Script::anthropic_text("never"));
    let r = zut_llm(&env, &server, &["-p", "--session", "shared.jsonl", "two"]).await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("in use by another zut process"),
        "{}",
        r.stderr
    );
    let status = tokio::task::spawn_blocking(move || first.wait().unwrap())
        .await
        .unwrap();
    assert!(status.success());
    let s = zut_session::read(&env.project.join("shared.jsonl")).unwrap();
    assert_eq!(s.messages.len(), 2);
    assert_eq!(server.request_count(), 1);
}

/// `-r` without an id lists the candidates; `-r <prefix>` resumes;
/// conflicting session flags are refused.
#[tokio::test]
async fn resume_by_id_and_listing_without_one() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("first"));
    let r = zut_llm(&env, &server, &["-p", "the very first prompt"]).await;
    assert_eq!(r.code, 0, "{r:?}");
    let file = session_files(&env)[0].clone();
    let id = zut_session::read(&file).unwrap().meta.id;

    let r = zut_llm(&env, &server, &["-p", "-r", "--", "x"]).await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("needs the interactive picker"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(&id) && r.stderr.contains("the very first prompt"),
        "{}",
        r.stderr
    );

    server.push(Script::anthropic_text("second"));
    let r = zut_llm(&env, &server, &["-p", "-r", &id[..6], "again"]).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(zut_session::read(&file).unwrap().messages.len(), 4);

    let r = zut_llm(&env, &server, &["-p", "-c", "--no-session", "x"]).await;
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("cannot be used together"), "{}", r.stderr);
    assert_eq!(server.request_count(), 2);
}

/// `/compact` in print mode on a continued session, `--json` emitting
/// `compact_done`, and the next `-c` request carrying the summary only.
#[tokio::test]
async fn slash_compact_in_print_and_json_modes() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    for (q, a) in [
        ("first topic", "first reply"),
        ("second topic", "second reply"),
        ("third topic", "third reply"),
    ] {
        server.push(Script::anthropic_text(a));
        let r = zut_llm(&env, &server, &["-p", "-c", q]).await;
        assert_eq!(r.code, 0, "{r:?}");
    }
    assert_eq!(session_files(&env).len(), 1);
    server.push(Script::anthropic_text("THE SUMMARY"));
    let r = zut_llm(&env, &server, &["-p", "-c", "/compact keep file names"]).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout, "THE SUMMARY\n");
    let summary_req = server.requests()[3].raw_body.clone();
    assert!(summary_req.contains("first topic") && summary_req.contains("keep file names"));
    let file = &session_files(&env)[0];
    let snap = zut_session::read(file).unwrap();
    assert_eq!(snap.compactions, 1);

    server.push(Script::anthropic_text("JSON SUMMARY"));
    let r = zut_llm(&env, &server, &["--json", "-c", "/compact"]).await;
    assert_eq!(r.code, 0, "{r:?}");
    let last: Value = serde_json::from_str(r.stdout.lines().last().unwrap()).unwrap();
    assert_eq!(
        last,
        json!({"type":"compact_done","summary":"JSON SUMMARY"})
    );
    assert!(!r.stdout.contains("\"done\""));

    server.push(Script::anthropic_text("ok"));
    let r = zut_llm(&env, &server, &["-p", "-c", "go on"]).await;
    assert_eq!(r.code, 0, "{r:?}");
    let next = server.requests()[5].raw_body.clone();
    assert!(next.contains("JSON SUMMARY"));
    assert!(!next.contains("first topic"), "compacted messages are gone");

    // A new session has nothing to compact: a clear error, no file left.
    let r = zut_llm(&env, &server, &["-p", "/compact"]).await;
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("nothing to compact"), "{}", r.stderr);
    assert_eq!(session_files(&env).len(), 1);
    let r = zut_llm(&env, &server, &["-p", "--auto-compact", "2", "hi"]).await;
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("--auto-compact"), "{}", r.stderr);
}
