//! Long sessions in the interactive TUI (issue 24), the real binary in
//! tmux against the local LLM server: a `!command`'s output reaches the
//! model with the next prompt, marked as the user's command, and is kept
//! in the session as the Go original keeps it (`meta.shell_escape`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};

use common::tmux::*;
use common::*;
use zut_llm_server::{LlmServer, Script};

/// Every session file under `$ZUT_HOME/sessions`.
fn session_files(home: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in std::fs::read_dir(home.join("sessions"))
        .into_iter()
        .flatten()
        .flatten()
    {
        for f in std::fs::read_dir(d.path()).into_iter().flatten().flatten() {
            if f.path().extension().is_some_and(|e| e == "jsonl") {
                out.push(f.path());
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bang_command_output_goes_to_the_model_with_the_next_prompt() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let t = Tmux::start(&env, &server, &["--no-ext"], 100, 30);
    started(&t);
    t.typ("!echo bang-marker-$((40+2)); exit 3");
    t.keys(&["Enter"]);
    let s = t.wait_for("with your next prompt", 10);
    assert!(s.contains("bang-marker-42"), "{s}");
    // Nothing was sent: the output waits for the next prompt.
    assert_eq!(server.request_count(), 0);

    server.push(Script::anthropic_text("It exited with 3."));
    t.typ("why did it fail?");
    t.keys(&["Enter"]);
    t.wait_for("It exited with 3.", 10);
    let body = &server.requests()[0].raw_body;
    let ctx = body
        .find("[The user ran this shell command in zut with `!`")
        .unwrap_or_else(|| panic!("no marked context: {body}"));
    let marker = body.find("bang-marker-42").unwrap();
    let exit = body.find("[exit 3]").unwrap();
    let prompt = body.find("why did it fail?").unwrap();
    assert!(ctx < marker && marker < exit && exit < prompt, "{body}");
    assert!(
        body.contains("$ echo bang-marker-$((40+2)); exit 3"),
        "{body}"
    );

    // The next request has it once, as history (not offered again).
    server.push(Script::anthropic_text("Second."));
    t.typ("and now?");
    t.keys(&["Enter"]);
    t.wait_for("Second.", 10);
    let body = &server.requests()[1].raw_body;
    assert_eq!(body.matches("bang-marker-42").count(), 1, "{body}");

    // The session keeps it as a user row marked `shell_escape`, between
    // nothing and the prompt it came with.
    let files = session_files(&env.home);
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let messages: Vec<&serde_json::Value> = rows
        .iter()
        .filter(|r| r["type"] == "message")
        .map(|r| &r["message"])
        .collect();
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(messages[0]["meta"]["shell_escape"], "true", "{text}");
    assert!(messages[0]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("bang-marker-42"));
    assert_eq!(messages[1]["role"], "user");
    assert!(messages[1]["meta"].is_null(), "{text}");
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
    drop(t);

    // Resumed: the output shows as the command's box again, not as a
    // prompt of the user's.
    let t = Tmux::start(&env, &server, &["--no-ext", "-c"], 100, 30);
    t.wait_for("resumed session \"why did it fail?\"", 10);
    let s = t.wait_for("Second.", 10);
    assert!(s.contains("bang-marker-42"), "{s}");
    assert_eq!(s.matches("$ echo bang-marker").count(), 1, "{s}");
    assert!(!s.contains("▌ [The user ran"), "{s}");
    assert!(s.contains("▌ why did it fail?"), "{s}");
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn btw_answers_from_the_context_and_is_not_kept() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("Noted the zebra."));
    let t = Tmux::start(&env, &server, &["--no-ext"], 100, 30);
    started(&t);
    t.typ("remember the word zebra-17");
    t.keys(&["Enter"]);
    t.wait_for("Noted the zebra.", 10);
    let files = session_files(&env.home);
    assert_eq!(files.len(), 1, "{files:?}");
    // Wait for the turn to be written out completely (usage row).
    assert!(wait_until(5, || std::fs::read_to_string(&files[0])
        .unwrap()
        .contains("Noted the zebra.")));
    let before = std::fs::read(&files[0]).unwrap();

    server.push(Script::anthropic_text("The word was **zebra-17**."));
    t.typ("/btw which word did I give?");
    t.keys(&["Enter"]);
    let s = t.wait_for("not added to the conversation)", 10);
    assert!(s.contains("btw › which word did I give?"), "{s}");
    assert!(s.contains("The word was zebra-17."), "{s}");
    // The side request carried the conversation, then the marked question.
    let body = &server.requests()[1].raw_body;
    let context = body.find("remember the word zebra-17").unwrap();
    let answer = body.find("Noted the zebra.").unwrap();
    let mark = body
        .find("[Side question (/btw)")
        .unwrap_or_else(|| panic!("{body}"));
    let question = body.find("which word did I give?").unwrap();
    assert!(
        context < answer && answer < mark && mark < question,
        "{body}"
    );
    // Same system prompt and tools as the conversation's own request.
    let first: serde_json::Value = serde_json::from_str(&server.requests()[0].raw_body).unwrap();
    let side: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(first["system"], side["system"]);
    assert_eq!(first["tools"], side["tools"]);
    // The session file did not change.
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(std::fs::read(&files[0]).unwrap(), before);

    // The next prompt does not carry the side question or its answer.
    server.push(Script::anthropic_text("Carrying on."));
    t.typ("carry on");
    t.keys(&["Enter"]);
    t.wait_for("Carrying on.", 10);
    let body = &server.requests()[2].raw_body;
    assert!(body.contains("remember the word zebra-17"), "{body}");
    assert!(!body.contains("which word did I give?"), "{body}");
    assert!(!body.contains("The word was"), "{body}");
    assert!(!body.contains("Side question"), "{body}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(!text.contains("which word did I give?"), "{text}");

    // Without a question: a usage line, no request.
    let n = server.request_count();
    t.typ("/btw");
    t.keys(&["Enter"]);
    t.wait_for("usage: /btw <question>", 5);
    assert_eq!(server.request_count(), n);
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn btw_failure_is_shown_and_the_conversation_goes_on() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::json(
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"side boom"}}"#,
    ));
    let t = Tmux::start(&env, &server, &["--no-ext"], 100, 30);
    started(&t);
    t.typ("/btw anything?");
    t.keys(&["Enter"]);
    let s = t.wait_for("btw failed:", 10);
    assert!(s.contains("side boom"), "{s}");
    server.push(Script::anthropic_text("Main answer."));
    t.typ("hello");
    t.keys(&["Enter"]);
    t.wait_for("Main answer.", 10);
    let body = &server.requests()[1].raw_body;
    assert!(!body.contains("anything?"), "{body}");
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}
