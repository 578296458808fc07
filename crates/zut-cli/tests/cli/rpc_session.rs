//! Opt-in persistence in RPC mode (`zut rpc --session PATH`, `-c`,
//! `-r <id>`) through real `zut rpc` processes against the local LLM
//! server: rows written as in print mode, resumed transcripts seen by
//! `get_messages` and sent to the model, `clear` and compaction, and no
//! file at all by default (the Go original never persists in RPC).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::rpc_support;

use std::path::{Path, PathBuf};

use common::*;
use rpc_support::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};

fn sessions_dir(env: &TestEnv) -> PathBuf {
    let project = env.project.canonicalize().unwrap();
    zut_session::sessions_dir(&env.home, &project.display().to_string())
}

fn rows(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `(role, first text)` of every `message` row.
fn message_rows(path: &Path) -> Vec<(String, String)> {
    rows(path)
        .iter()
        .filter(|r| r["type"] == "message")
        .map(|r| {
            let m = &r["message"];
            (
                m["role"].as_str().unwrap().to_string(),
                m["content"][0]["text"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// `(role, first text)` of `get_messages`.
fn messages(rpc: &mut Rpc) -> Vec<(String, String)> {
    let r = rpc.request(json!({"id":"gm","type":"get_messages"}));
    r["data"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_string(),
                m["content"][0]["text"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn prompt(rpc: &mut Rpc, text: &str) {
    rpc.send(json!({"id":"p","type":"prompt","message":text}));
    rpc.until(is_done);
}

fn pair(role: &str, text: &str) -> (String, String) {
    (role.to_string(), text.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_session_file_unless_asked() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("answer"));
    let mut rpc = Rpc::start(&env, &server, &[], &[]);
    prompt(&mut rpc, "q");
    assert_eq!(rpc.finish().0, 0);
    assert!(
        zut_session::list_files(&sessions_dir(&env)).is_empty(),
        "RPC mode wrote a session without being asked"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_path_writes_rows_and_resumes_them() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("first answer"));
    server.push(Script::anthropic_text("second answer"));
    server.push(Script::anthropic_text("third answer"));
    let file = root(&env).join("conv.jsonl");
    let arg = file.display().to_string();
    // An extension that records the session events it gets.
    let marks = root(&env).join("marks");
    std::fs::create_dir_all(&marks).unwrap();
    let ext = py_ext(
        &env,
        "recorder",
        r#"send({"type":"subscribe","events":["session_start","session_opened"]})"#,
        r#"if t == "event":
    with open(os.path.join(os.environ["MARK_DIR"], "events.jsonl"), "a") as f:
        f.write(json.dumps(m) + "\n")"#,
    );
    let e = ext_arg(&ext);
    let envs = [("MARK_DIR", marks.to_str().unwrap())];

    let mut rpc = Rpc::start(&env, &server, &["--session", &arg, "--ext", &e], &envs);
    prompt(&mut rpc, "one");
    prompt(&mut rpc, "two");
    assert_eq!(rpc.finish().0, 0);
    let written = vec![
        pair("user", "one"),
        pair("assistant", "first answer"),
        pair("user", "two"),
        pair("assistant", "second answer"),
    ];
    assert_eq!(message_rows(&file), written);
    let kinds: Vec<String> = rows(&file)
        .iter()
        .map(|r| r["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kinds[0], "meta");
    assert_eq!(kinds.iter().filter(|k| *k == "usage").count(), 2);
    // Untitled when opened, titled by the first prompt as print mode does.
    assert_eq!(kinds[1], "meta");
    assert_eq!(zut_session::read(&file).unwrap().title, "one");
    // session_start, then session_opened, both naming the file.
    let events: Vec<Value> = std::fs::read_to_string(marks.join("events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names: Vec<&str> = events
        .iter()
        .map(|v| v["event"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["session_start", "session_opened"]);
    let path = events[1]["session"]["path"].as_str().unwrap();
    assert_eq!(Path::new(path), file.as_path());

    // The same file again: the conversation is back, and goes on.
    let mut rpc = Rpc::start(&env, &server, &["--session", &arg], &[]);
    assert_eq!(messages(&mut rpc), written);
    let r = rpc.request(json!({"id":"s","type":"get_state"}));
    assert_eq!(r["data"]["message_count"], 4);
    prompt(&mut rpc, "three");
    assert_eq!(rpc.finish().0, 0);
    let sent = &server.requests()[2].body["messages"];
    assert_eq!(sent.as_array().unwrap().len(), 5, "{sent}");
    assert_eq!(sent[0]["content"][0]["text"], "one");
    assert_eq!(message_rows(&file).len(), 6);
    assert_eq!(zut_session::read(&file).unwrap().title, "one");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn continue_resumes_the_latest_session_and_clear_keeps_the_file() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    for answer in ["a1", "a2", "a3", "a4"] {
        server.push(Script::anthropic_text(answer));
    }
    // `-c` without any session starts one in the sessions directory.
    let mut rpc = Rpc::start(&env, &server, &["-c"], &[]);
    prompt(&mut rpc, "q1");
    assert_eq!(rpc.finish().0, 0);
    let files = zut_session::list_files(&sessions_dir(&env));
    assert_eq!(files.len(), 1, "{files:?}");

    let mut rpc = Rpc::start(&env, &server, &["-c"], &[]);
    assert_eq!(
        messages(&mut rpc),
        [pair("user", "q1"), pair("assistant", "a1")]
    );
    // `clear` empties the conversation in memory, as the Go original's
    // /clear does; the file keeps every row and later ones follow.
    let r = rpc.request(json!({"id":"c","type":"clear"}));
    assert_eq!(r["success"], true);
    assert!(messages(&mut rpc).is_empty());
    prompt(&mut rpc, "q2");
    assert_eq!(
        messages(&mut rpc),
        [pair("user", "q2"), pair("assistant", "a2")]
    );
    let sent = &server.requests()[1].body["messages"];
    assert_eq!(sent.as_array().unwrap().len(), 1, "cleared: {sent}");
    assert_eq!(rpc.finish().0, 0);
    assert_eq!(zut_session::list_files(&sessions_dir(&env)), files);
    assert_eq!(
        message_rows(&files[0]),
        [
            pair("user", "q1"),
            pair("assistant", "a1"),
            pair("user", "q2"),
            pair("assistant", "a2")
        ]
    );
    // So resuming brings back the whole file.
    let mut rpc = Rpc::start(&env, &server, &["-c"], &[]);
    assert_eq!(messages(&mut rpc).len(), 4);
    assert_eq!(rpc.finish().0, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compaction_is_persisted_and_resumed() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("long answer"));
    server.push(Script::anthropic_text("the summary"));
    let file = root(&env).join("compacted.jsonl");
    let arg = file.display().to_string();
    let mut rpc = Rpc::start(&env, &server, &["--session", &arg], &[]);
    prompt(&mut rpc, "question");
    rpc.send(json!({"id":"c","type":"compact"}));
    rpc.until(|v| v["type"] == "compact_done");
    let compacted = messages(&mut rpc);
    assert!(
        compacted.iter().any(|(_, t)| t.contains("the summary")),
        "{compacted:?}"
    );
    assert_eq!(rpc.finish().0, 0);
    assert_eq!(
        rows(&file)
            .iter()
            .filter(|r| r["type"] == "compaction")
            .count(),
        1
    );
    let mut rpc = Rpc::start(&env, &server, &["--session", &arg], &[]);
    assert_eq!(messages(&mut rpc), compacted);
    assert_eq!(rpc.finish().0, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_flag_errors_and_a_file_in_use() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let file = root(&env).join("busy.jsonl");
    let arg = file.display().to_string();
    // Two session flags at once.
    let rpc = Rpc::start(&env, &server, &["--session", &arg, "-c"], &[]);
    let (code, rest, stderr) = rpc.finish();
    assert_eq!((code, rest.len()), (1, 0));
    assert!(stderr.contains("cannot be used together"), "{stderr}");
    // A file another zut writes: refused before anything starts.
    let mut first = Rpc::start(&env, &server, &["--session", &arg], &[]);
    let r = first.request(json!({"id":"p","type":"ping"}));
    assert_eq!(r["success"], true);
    let second = Rpc::start(&env, &server, &["--session", &arg], &[]);
    let (code, rest, stderr) = second.finish();
    assert_eq!((code, rest.len()), (1, 0), "{stderr}");
    assert!(stderr.starts_with("zut: "), "{stderr}");
    // Nothing was written: the new file goes at exit.
    assert_eq!(first.finish().0, 0);
    assert!(!file.exists());
    // A wrong token: nothing asked, no file left either.
    let mut rpc = Rpc::start(
        &env,
        &server,
        &["--session", &arg],
        &[("ZUTCORE_RPC_TOKEN", "t0k")],
    );
    rpc.send(json!({"id":"h","type":"hello","token":"nope"}));
    assert_eq!(rpc.finish().0, 1);
    assert!(!file.exists());
}

/// `{"type":"hello","capabilities":["sessions"]}` and its granted list.
fn opt_in_sessions(rpc: &mut Rpc) {
    let r = rpc.request(json!({"id":"h","type":"hello","capabilities":["sessions"]}));
    assert_eq!(r["data"]["capabilities"], json!(["sessions"]), "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opt_in_session_commands_move_the_conversation_over_pipes() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    for word in ["first answer", "second answer", "third answer"] {
        server.push(Script::anthropic_text(word));
    }
    let mut rpc = Rpc::start(&env, &server, &["-c"], &[]);
    // Without opting in, the Go protocol: unknown command.
    let r = rpc.request(json!({"id":"n0","type":"new_session"}));
    assert_eq!(r["success"], false);
    assert_eq!(r["error"], "unknown command");
    opt_in_sessions(&mut rpc);
    prompt(&mut rpc, "one");
    let first = rpc.request(json!({"id":"l","type":"list_sessions"}));
    let sessions = first["data"]["sessions"].as_array().unwrap().clone();
    assert_eq!(sessions.len(), 1, "{first}");
    let first_path = sessions[0]["path"].as_str().unwrap().to_string();
    let first_id = sessions[0]["id"].as_str().unwrap().to_string();

    // new_session: an empty conversation in another file.
    let r = rpc.request(json!({"id":"n","type":"new_session"}));
    assert_eq!(r["success"], true, "{r}");
    let second_path = r["data"]["path"].as_str().unwrap().to_string();
    assert_ne!(second_path, first_path);
    assert_eq!(r["data"]["message_count"], 0);
    prompt(&mut rpc, "two");
    assert_eq!(
        messages(&mut rpc),
        vec![pair("user", "two"), pair("assistant", "second answer")]
    );

    // switch_session by id (prefix): the first conversation is back.
    let prefix = &first_id[..8];
    let r = rpc.request(json!({"id":"s","type":"switch_session","session_id":prefix}));
    assert_eq!(r["success"], true, "{r}");
    assert_eq!(r["data"]["path"], first_path.as_str());
    assert_eq!(
        messages(&mut rpc),
        vec![pair("user", "one"), pair("assistant", "first answer")]
    );

    // fork_session at the first message, then rename the branch.
    let r = rpc.request(json!({"id":"f","type":"fork_session","at":1}));
    assert_eq!(r["success"], true, "{r}");
    let branch = PathBuf::from(r["data"]["path"].as_str().unwrap());
    assert_eq!(zut_session::read(&branch).unwrap().meta.parent, first_id);
    let r = rpc.request(json!({"id":"r","type":"rename_session","title":"A branch"}));
    assert_eq!(r["data"]["title"], "A branch", "{r}");
    assert_eq!(zut_session::read(&branch).unwrap().title, "A branch");

    // A corrupt file chosen for resume: an error response, the process
    // stays up and the conversation is unchanged.
    let junk = sessions_dir(&env).join("broken.jsonl");
    std::fs::write(&junk, "{\"type\":\"meta\"\nnot json at all\n").unwrap();
    let r =
        rpc.request(json!({"id":"bad","type":"switch_session","path":junk.display().to_string()}));
    assert_eq!(r["success"], false, "{r}");
    assert!(r["error"].as_str().unwrap().contains("broken.jsonl"), "{r}");
    let r = rpc.request(json!({"id":"missing","type":"switch_session","session_id":"zzzzzz"}));
    assert_eq!(r["success"], false, "{r}");
    prompt(&mut rpc, "three");
    assert_eq!(
        messages(&mut rpc),
        vec![
            pair("user", "one"),
            pair("user", "three"),
            pair("assistant", "third answer")
        ]
    );
    assert_eq!(rpc.finish().0, 0);
}
