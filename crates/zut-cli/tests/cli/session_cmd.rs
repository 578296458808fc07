//! `zut session list|show|fork|export` against real files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

fn sessions_dir(env: &TestEnv) -> PathBuf {
    zut_session::sessions_dir(&env.home, &env.project.display().to_string())
}

const ID: &str = "5e55a0a0-1111-4222-8333-444444444444";

/// A Go-style session: two turns, a tool call, state changes between them.
fn go_session(env: &TestEnv) -> PathBuf {
    let dir = sessions_dir(env);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("20260820-070000-5e55a0a0.jsonl");
    let cwd = env.project.display().to_string();
    let rows = [
        format!(r#"{{"type":"meta","meta":{{"id":"{ID}","cwd":"{cwd}","model":"m","provider":"anthropic","started":"2026-08-20T07:00:00Z","version":"0.9.1"}}}}"#),
        r#"{"type":"message","message":{"role":"user","content":[{"text":"Fix the `parser`"}],"time":"2026-08-20T09:00:00Z"}}"#.to_string(),
        r#"{"type":"message","message":{"role":"assistant","content":[{"summary":"think"},{"text":"Reading it."},{"id":"c1","name":"read","arguments":{"path":"src/parser.rs"}}],"time":"2026-08-20T09:00:01Z"}}"#.to_string(),
        r#"{"type":"extension_state","extension":"notes","state":{"v":1}}"#.to_string(),
        r#"{"type":"message","message":{"role":"tool","content":[{"call_id":"c1","content":[{"text":"fn parse() {}\n```inner```"}],"is_error":false}],"time":"2026-08-20T09:00:02Z"}}"#.to_string(),
        r#"{"type":"message","message":{"role":"assistant","content":[{"text":"Fixed."}],"time":"2026-08-20T09:00:03Z"}}"#.to_string(),
        r#"{"type":"extension_state","extension":"notes","state":{"v":2}}"#.to_string(),
        r#"{"type":"message","message":{"role":"user","content":[{"text":"thanks"}],"time":"2026-08-20T09:01:00Z"}}"#.to_string(),
    ];
    std::fs::write(&path, rows.join("\n") + "\n").unwrap();
    path
}

#[test]
fn list_shows_newest_first_with_titles_and_counts() {
    let env = TestEnv::new();
    let go = go_session(&env);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let dir = sessions_dir(&env);
    let newer = dir.join("20260821-070000-77777777.jsonl");
    std::fs::write(
        &newer,
        r#"{"type":"meta","meta":{"id":"77777777-0000-4000-8000-000000000000","cwd":"x","model":"m","provider":"p","started":"2026-08-21T07:00:00Z","version":"1","title":"Newer one"}}
{"type":"message","message":{"role":"user","content":[{"text":"hi"}],"time":"2026-08-21T07:00:00Z"}}
"#,
    )
    .unwrap();
    let r = zut(&env, &["session", "list"]);
    assert_eq!(r.code, 0, "{r:?}");
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", r.stdout);
    assert!(lines[0].starts_with("77777777-0000") && lines[0].contains("Newer one"));
    assert!(lines[1].starts_with(ID), "{}", lines[1]);
    assert!(lines[1].contains("2026-08-20 07:00") && lines[1].contains("5 msgs"));
    assert!(lines[1].contains("Fix the `parser`"));
    let r = zut(&env, &["session", "list", "--json"]);
    let first: Value = serde_json::from_str(r.stdout.lines().nth(1).unwrap()).unwrap();
    assert_eq!(first["id"], ID);
    assert_eq!(first["messages"], 5);
    assert_eq!(first["path"], go.display().to_string());
    // Another project has none.
    let other = tempfile::tempdir().unwrap();
    let r = zut(
        &env,
        &["session", "list", "--cwd", other.path().to_str().unwrap()],
    );
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, "");
    assert!(r.stderr.contains("no sessions"));
}

#[test]
fn show_prints_the_effective_transcript() {
    let env = TestEnv::new();
    go_session(&env);
    let r = zut(&env, &["session", "show", "5e55"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains(&format!("session {ID}")));
    assert!(r.stdout.contains("[2] assistant\n(reasoning) think\nReading it.\n-> read {\"path\":\"src/parser.rs\"} (c1)"), "{}", r.stdout);
    assert!(r.stdout.contains("[3] tool\n<- c1: fn parse() {}"));
    let r = zut(&env, &["session", "show", "--json", ID]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["messages"].as_array().unwrap().len(), 5);
    assert_eq!(v["messages"][2]["role"], "tool");
    assert!(!r.stdout.contains("\"v\":1"), "state never shown");
    let r = zut(&env, &["session", "show", "nope"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("no session with id nope"), "{}", r.stderr);
}

#[test]
fn show_names_the_bad_line_and_leaves_the_file() {
    let env = TestEnv::new();
    let path = env.project.join("bad.jsonl");
    let text = "{\"type\":\"meta\",\"meta\":{\"id\":\"x\"}}\n{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":[]}}\n";
    std::fs::write(&path, text).unwrap();
    let r = zut(&env, &["session", "show", "bad.jsonl"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("bad.jsonl: line 2: message has empty \"content\""),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

fn fork_at(env: &TestEnv, at: &str) -> PathBuf {
    let r = zut(env, &["session", "fork", ID, "--at", at]);
    assert_eq!(r.code, 0, "{r:?}");
    PathBuf::from(r.stdout.trim())
}

fn state_of(path: &Path) -> Option<String> {
    zut_session::read(path)
        .unwrap()
        .states
        .get("notes")
        .map(|s| s.get().to_string())
}

/// Fork at several points with state (K4/K5 through the command).
#[test]
fn fork_at_several_points_carries_the_state_of_that_point() {
    let env = TestEnv::new();
    let parent = go_session(&env);
    let before = std::fs::read(&parent).unwrap();
    let f0 = fork_at(&env, "0");
    assert_eq!(zut_session::read(&f0).unwrap().messages.len(), 0);
    assert_eq!(state_of(&f0), None);
    let f1 = fork_at(&env, "1");
    assert_eq!(state_of(&f1), None);
    let r = zut(&env, &["session", "fork", ID, "--at", "2"]);
    let f2 = PathBuf::from(r.stdout.trim());
    assert!(
        r.stderr.contains("fork point moved from 2 to 3"),
        "{}",
        r.stderr
    );
    let s2 = zut_session::read(&f2).unwrap();
    assert_eq!(s2.messages.len(), 3);
    assert_eq!(s2.meta.parent, ID);
    assert_eq!(s2.meta.fork_point, 3);
    assert_eq!(state_of(&f2).as_deref(), Some(r#"{"v":1}"#));
    let f4 = fork_at(&env, "4");
    assert_eq!(state_of(&f4).as_deref(), Some(r#"{"v":2}"#));
    let whole = PathBuf::from(zut(&env, &["session", "fork", ID]).stdout.trim());
    assert_eq!(zut_session::read(&whole).unwrap().messages.len(), 5);
    assert_eq!(whole.parent(), parent.parent());
    let r = zut(&env, &["session", "fork", ID, "--at", "9"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("past the end"), "{}", r.stderr);
    assert_eq!(std::fs::read(&parent).unwrap(), before, "parent untouched");
    // Branches are listed, marked as branches.
    let r = zut(&env, &["session", "list"]);
    assert_eq!(r.stdout.lines().count(), 6);
    assert!(r.stdout.contains("(branch)"));
}

#[test]
fn export_writes_markdown() {
    let env = TestEnv::new();
    go_session(&env);
    let r = zut(&env, &["session", "export", ID]);
    assert_eq!(r.code, 0, "{r:?}");
    let md = r.stdout;
    assert!(
        md.starts_with("# Fix the `parser`\n\n- Session: `5e55a0a0"),
        "{md}"
    );
    assert!(md.contains("## User\n\nFix the `parser`"));
    assert!(
        md.contains(
            "**Tool call** `read` (`c1`)\n\n```json\n{\n  \"path\": \"src/parser.rs\"\n}\n```"
        ),
        "{md}"
    );
    // A result holding ``` gets a longer fence.
    assert!(
        md.contains("````\nfn parse() {}\n```inner```\n````"),
        "{md}"
    );
    assert!(md.contains("<details><summary>Reasoning</summary>"));
    let out = env.project.join("s.md");
    let r = zut(
        &env,
        &["session", "export", "5e55a0a0", "-o", out.to_str().unwrap()],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap().trim_end(),
        md.trim_end()
    );
}

#[test]
fn help_and_usage_errors() {
    let env = TestEnv::new();
    let r = zut(&env, &["session", "--help"]);
    assert_eq!(r.code, 0);
    for cmd in ["list", "show", "fork", "export"] {
        assert!(r.stdout.contains(cmd), "{}", r.stdout);
    }
    let r = zut(&env, &["session", "frobnicate"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("frobnicate"), "{}", r.stderr);
    let r = zut(&env, &["session", "fork"]);
    assert_eq!(r.code, 1);
}
