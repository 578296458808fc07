//! Strict reading: files written by the Go original (hand-built from
//! sessions-themes-skills.md §1.2), round trips, repair, state rules, and
//! every bad input (K6, torn rows).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use zut_session::{read, Block, Role, Row, SessionError, ABORTED_RESULT};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

#[test]
fn go_file_with_developer_rows_usage_and_rename_reads() {
    let s = read(&fixture("go_basic.jsonl")).unwrap();
    // The last meta row wins (model switch + goal).
    assert_eq!(s.meta.model, "gpt-5");
    assert_eq!(s.meta.provider, "openai");
    assert_eq!(s.meta.timezone, "Europe/Paris");
    assert_eq!(s.meta.extra["goal"]["objective"], "ship");
    assert_eq!(s.title, "Todo review");
    assert_eq!(s.messages.len(), 7);
    assert!(s.messages[0].is_internal_context());
    assert_eq!(s.messages[1].first_text(), Some("list todos"));
    assert!(matches!(
        &s.messages[2].content[0],
        Block::Reasoning { summary, encrypted_content, .. }
            if summary == "The user wants the todo list." && encrypted_content == "sig-abc"
    ));
    assert!(matches!(
        &s.messages[2].content[2],
        Block::ToolCall { id, name, arguments, .. }
            if id == "call_1" && name == "todos" && arguments == &json!({"filter":"open"})
    ));
    assert_eq!(s.messages[3].role, Role::Tool);
    assert!(
        matches!(&s.messages[5].content[1], Block::Image { mime_type, .. } if mime_type == "image/png")
    );
    assert_eq!(s.usage.len(), 2);
    assert_eq!(s.usage[0].message_count, 4);
    assert_eq!(s.usage[1].message_count, 5);
    assert_eq!(s.cumulative().input_tokens, 30);
    assert_eq!(s.cumulative().cache_read_tokens, 3);
    assert_eq!(s.states["todo-panel"].get(), r#"{"version":1,"items":[]}"#);
    assert_eq!(s.compactions, 0);
    assert_eq!(s.rows, 13);
}

/// Every row of every Go fixture parses and serialises back to the same
/// JSON (no field is lost), so a file resumed by zut and resumed again by
/// the Go original carries everything.
#[test]
fn every_go_row_round_trips_to_the_same_json() {
    for name in [
        "go_basic.jsonl",
        "go_compacted.jsonl",
        "go_deferred.jsonl",
        "go_orphans.jsonl",
    ] {
        let text = std::fs::read_to_string(fixture(name)).unwrap();
        for (i, line) in text.lines().enumerate() {
            let row =
                Row::parse(line.as_bytes()).unwrap_or_else(|e| panic!("{name}:{}: {e}", i + 1));
            let out = row.to_line();
            assert_eq!(out.last(), Some(&b'\n'));
            let a: Value = serde_json::from_str(line).unwrap();
            let b: Value = serde_json::from_slice(&out).unwrap();
            assert_eq!(a, b, "{name}:{}", i + 1);
        }
    }
}

#[test]
fn compaction_replaces_the_transcript_and_keeps_state() {
    let s = read(&fixture("go_compacted.jsonl")).unwrap();
    assert_eq!(s.compactions, 1);
    let texts: Vec<&str> = s.messages.iter().filter_map(|m| m.first_text()).collect();
    assert_eq!(texts.len(), 4);
    assert!(texts[0].starts_with("## Context Summary (compacted)"));
    assert_eq!(
        &texts[1..],
        ["first answer", "second question", "second answer"]
    );
    assert_eq!(s.messages[0].meta_value("compaction"), Some("true"));
    // Compaction rows do not affect extension state; the later row wins.
    assert_eq!(s.states["notes"].get(), r#"{"v":2}"#);
    assert_eq!(s.activated_tools(), vec!["web_search".to_string()]);
    assert_eq!(s.cumulative().input_tokens, 210);
}

/// K7: a tool-result message carrying only `added_tool_names` survives.
#[test]
fn activation_only_tool_message_survives_repair() {
    let s = read(&fixture("go_deferred.jsonl")).unwrap();
    assert_eq!(s.messages.len(), 5);
    assert_eq!(
        s.messages[3].added_tool_names,
        vec!["web_fetch".to_string()]
    );
    assert_eq!(
        s.activated_tools(),
        vec!["web_fetch".to_string(), "web_search".to_string()]
    );
}

#[test]
fn orphaned_calls_and_results_are_repaired() {
    let s = read(&fixture("go_orphans.jsonl")).unwrap();
    let m = &s.messages;
    // user, assistant(c1,c2), tool(c1, c2 synthetic), assistant(c3),
    // tool(c3 synthetic), user. The stray tool row (c9) is dropped.
    assert_eq!(m.len(), 6, "{m:#?}");
    let results: Vec<(String, bool, String)> = m[2]
        .content
        .iter()
        .map(|b| match b {
            Block::ToolResult {
                call_id,
                is_error,
                content,
                ..
            } => (
                call_id.clone(),
                *is_error,
                match &content[0] {
                    Block::Text { text, .. } => text.clone(),
                    _ => String::new(),
                },
            ),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        results,
        vec![
            ("c1".into(), false, "A".into()),
            ("c2".into(), true, ABORTED_RESULT.into())
        ]
    );
    assert_eq!(m[4].role, Role::Tool);
    assert!(
        matches!(&m[4].content[0], Block::ToolResult { call_id, is_error: true, .. } if call_id == "c3")
    );
    assert_eq!(m[5].first_text(), Some("killed mid-tool; go on"));
}

fn line_error(name: &str) -> (usize, String) {
    match read(&fixture(name)) {
        Err(SessionError::Line { line, reason, path }) => {
            assert!(path.ends_with(name));
            (line, reason)
        }
        other => panic!("{name}: expected a line error, got {other:?}"),
    }
}

/// K6 and the other malformed files: the error names the file and line,
/// and reading never changes the file.
#[test]
fn bad_files_fail_naming_the_line() {
    let cases = [
        (
            "bad_unknown_type.jsonl",
            3,
            "unknown row type \"checkpoint\"",
        ),
        ("bad_blank_line.jsonl", 2, "blank row"),
        ("bad_no_meta.jsonl", 1, "the first row must be \"meta\""),
        ("bad_invalid_json.jsonl", 3, "invalid JSON"),
        ("bad_torn.jsonl", 3, "torn last row"),
        ("bad_role.jsonl", 2, "robot"),
        ("bad_block.jsonl", 2, "content block of unknown kind"),
    ];
    for (name, line, needle) in cases {
        let before = std::fs::read(fixture(name)).unwrap();
        let (got_line, reason) = line_error(name);
        assert_eq!(got_line, line, "{name}: {reason}");
        assert!(reason.contains(needle), "{name}: {reason}");
        let err = read(&fixture(name)).unwrap_err().to_string();
        assert!(
            err.contains(name) && err.contains(&format!("line {line}")),
            "{err}"
        );
        assert_eq!(std::fs::read(fixture(name)).unwrap(), before);
    }
    let err = read(&fixture("bad_empty.jsonl")).unwrap_err().to_string();
    assert!(err.contains("empty file"), "{err}");
}

#[test]
fn state_rows_follow_the_read_rules() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let big = format!("\"{}\"", "x".repeat(256 * 1024));
    let lines = [
        r#"{"type":"meta","meta":{"id":"s1","cwd":"/p","model":"m","provider":"p","started":"2026-08-23T07:00:00Z","version":"1"}}"#.to_string(),
        r#"{"type":"extension_state","extension":"a","state":{"v":1}}"#.to_string(),
        r#"{"type":"extension_state","extension":"b","state":{"v":1}}"#.to_string(),
        r#"{"type":"extension_state","extension":"","state":{"v":9}}"#.to_string(),
        format!(r#"{{"type":"extension_state","extension":"a","state":{big}}}"#),
        r#"{"type":"extension_state","extension":"b","state":null}"#.to_string(),
        r#"{"type":"extension_state","extension":"c","state":[1]}"#.to_string(),
        r#"{"type":"extension_state","extension":"c"}"#.to_string(),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let s = read(&path).unwrap();
    let names: Vec<&String> = s.states.keys().collect();
    // Over 256 KiB and empty names are ignored; null and absent remove.
    assert_eq!(names, vec!["a"]);
    assert_eq!(s.states["a"].get(), r#"{"v":1}"#);
}

/// Message rows are checked when read even though a later compaction means
/// they are never built: strictness does not depend on what survives.
#[test]
fn messages_before_a_compaction_are_checked_as_strictly() {
    let dir = tempfile::tempdir().unwrap();
    let meta = r#"{"type":"meta","meta":{"id":"s1","cwd":"/p","model":"m","provider":"p","started":"2026-08-23T07:00:00Z","version":"1"}}"#;
    let compaction = r#"{"type":"compaction","messages":[]}"#;
    let bad_messages = [
        (
            r#"{"type":"message","message":{"role":"user","content":[{"text":5}],"time":"t"}}"#,
            "invalid type",
        ),
        (
            r#"{"type":"message","message":{"role":"user","content":[{"what":"x"}],"time":"t"}}"#,
            "unknown kind",
        ),
        (
            r#"{"type":"message","message":{"role":"robot","content":[{"text":"x"}],"time":"t"}}"#,
            "robot",
        ),
        (
            r#"{"type":"message","message":{"role":"user","content":[],"time":"t"}}"#,
            "empty \"content\"",
        ),
        (
            r#"{"type":"message","message":{"role":"user","content":[{"text":"x"}],"meta":{"k":1}}}"#,
            "invalid type",
        ),
        (
            r#"{"type":"message","message":{"role":"tool","content":[{"call_id":"c","content":[]}]}}"#,
            "empty \"content\"",
        ),
        (
            r#"{"type":"message","message":{"role":"assistant","content":[{"id":"c"}]}}"#,
            "needs both",
        ),
        (
            r#"{"type":"message","message":{"role":"user","content":[{"text":"x"}]},"#,
            "invalid JSON",
        ),
        (r#"{"type":"message"}"#, "no \"message\""),
    ];
    for (row, needle) in bad_messages {
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, format!("{meta}\n{row}\n{compaction}\n")).unwrap();
        match read(&path) {
            Err(SessionError::Line { line, reason, .. }) => {
                assert_eq!(line, 2, "{row}: {reason}");
                assert!(reason.contains(needle), "{row}: {reason}");
            }
            other => panic!("{row}: expected a line error, got {other:?}"),
        }
    }
    // The same rows in another key order go through the full parser.
    let path = dir.path().join("t.jsonl");
    std::fs::write(
        &path,
        format!("{meta}\n{{\"message\":{{\"role\":\"user\",\"content\":[{{\"text\":\"x\"}}]}},\"type\":\"message\"}}\n"),
    )
    .unwrap();
    assert_eq!(read(&path).unwrap().messages.len(), 1);
}
