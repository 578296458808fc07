//! Writing: every row type round trips through a real file, resume never
//! rewrites what is there, locking, torn rows, empty sessions (K9).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::json;
use zut_session::{
    read, Block, Closed, NewSession, Role, SessionError, SessionMessage, SessionWriter, Usage,
};

fn new_session(dir: &Path) -> SessionWriter {
    SessionWriter::create(
        dir,
        NewSession {
            cwd: "/home/u/proj".into(),
            provider: "anthropic".into(),
            model: "m".into(),
            version: "0.1.0".into(),
            title: "first prompt".into(),
        },
    )
    .unwrap()
}

fn usage(n: u64) -> Usage {
    Usage {
        input_tokens: n,
        output_tokens: n / 2,
        ..Usage::default()
    }
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

#[test]
fn every_row_type_round_trips_through_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = new_session(dir.path());
    let path = w.path().to_path_buf();
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    // <YYYYMMDD-HHMMSS>-<id8>.jsonl
    assert_eq!(name.len(), "20261204-062511-12345678.jsonl".len(), "{name}");
    assert!(name.ends_with(&format!("-{}.jsonl", &w.meta().id[..8])));
    let user = SessionMessage::new(Role::User, vec![Block::text("hello")]);
    let call = SessionMessage::new(
        Role::Assistant,
        vec![Block::ToolCall {
            id: "c1".into(),
            name: "todo".into(),
            arguments: json!({"a":1}),
            thought_signature: String::new(),
        }],
    );
    let mut result = SessionMessage::new(
        Role::Tool,
        vec![Block::ToolResult {
            call_id: "c1".into(),
            content: vec![Block::text("ok")],
            is_error: false,
            timing: None,
        }],
    );
    result.added_tool_names = vec!["later".into()];
    w.append_message(&user).unwrap();
    w.append_message(&call).unwrap();
    w.append_state("todo", r#"{"items":[1]}"#).unwrap();
    w.append_message(&result).unwrap();
    w.append_usage(&usage(10), &usage(10)).unwrap();
    // An identical usage row right after is not written again.
    w.append_usage(&usage(10), &usage(10)).unwrap();
    w.rename("\"Title: Renamed\"", false).unwrap();
    assert_eq!(w.close().unwrap(), Closed::Kept);

    let s = read(&path).unwrap();
    assert_eq!(s.messages, vec![user.clone(), call, result]);
    assert_eq!(s.states["todo"].get(), r#"{"items":[1]}"#);
    assert_eq!(s.usage.len(), 1);
    assert_eq!(s.usage[0].cumulative, usage(10));
    assert_eq!(s.title, "Renamed");
    assert_eq!(s.meta.title, "first prompt");
    assert_eq!(s.activated_tools(), vec!["later".to_string()]);

    // Resume and compact: the old rows stay byte for byte.
    let before = std::fs::read(&path).unwrap();
    let (mut w, snap) = SessionWriter::open(&path).unwrap();
    assert_eq!(snap.messages.len(), 3);
    let mut summary = SessionMessage::new(
        Role::User,
        vec![Block::text("## Context Summary (compacted)\n\nx")],
    );
    summary.meta = Some([("compaction".to_string(), "true".to_string())].into());
    w.append_compaction(vec![summary.clone(), user], Some(usage(5)), Some(usage(15)))
        .unwrap();
    w.append_state("todo", "null").unwrap();
    drop(w);
    let after = std::fs::read(&path).unwrap();
    assert_eq!(&after[..before.len()], &before[..]);
    let s = read(&path).unwrap();
    assert_eq!(s.messages.len(), 2);
    assert_eq!(s.messages[0], summary);
    assert!(s.states.is_empty());
    assert_eq!(s.cumulative(), usage(15));
    assert_eq!(s.compactions, 1);
}

#[test]
fn a_go_file_resumes_and_keeps_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("go.jsonl");
    std::fs::copy(fixture("go_basic.jsonl"), &path).unwrap();
    let before = std::fs::read(&path).unwrap();
    let (mut w, snap) = SessionWriter::open(&path).unwrap();
    assert_eq!(snap.messages.len(), 7);
    w.append_message(&SessionMessage::new(Role::User, vec![Block::text("more")]))
        .unwrap();
    assert_eq!(w.close().unwrap(), Closed::Kept);
    let after = std::fs::read(&path).unwrap();
    assert_eq!(&after[..before.len()], &before[..]);
    assert_eq!(read(&path).unwrap().messages.len(), 8);
}

#[test]
fn two_writers_never_share_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = new_session(dir.path());
    w.append_message(&SessionMessage::new(Role::User, vec![Block::text("a")]))
        .unwrap();
    let path = w.path().to_path_buf();
    match SessionWriter::open(&path) {
        Err(e @ SessionError::Busy { .. }) => {
            let text = e.to_string();
            assert!(text.contains("in use by another zut process"), "{text}");
        }
        other => panic!("expected Busy, got {other:?}"),
    }
    assert!(zut_session::is_locked(&path));
    drop(w);
    assert!(!zut_session::is_locked(&path));
    let (_w, snap) = SessionWriter::open(&path).unwrap();
    assert_eq!(snap.messages.len(), 1);
}

/// A child started while the file was open holds the lock until it execs
/// (here: a `sleep 0` holding the descriptor as its stdin until it exits):
/// a lock released within the writer's short wait opens; one held longer
/// is Busy.
#[test]
fn a_lock_a_child_holds_for_a_moment_is_waited_for() {
    use std::os::fd::AsRawFd;
    let dir = tempfile::tempdir().unwrap();
    let mut w = new_session(dir.path());
    w.append_message(&SessionMessage::new(Role::User, vec![Block::text("a")]))
        .unwrap();
    let path = w.path().to_path_buf();
    drop(w);
    let hold = |secs: &str| {
        let f = std::fs::File::open(&path).unwrap();
        // SAFETY: flock on a descriptor this test owns.
        assert_eq!(
            unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
            0
        );
        std::process::Command::new("sleep")
            .arg(secs)
            .stdin(std::process::Stdio::from(f))
            .spawn()
            .unwrap()
    };
    let mut brief = hold("0");
    let (reopened, snap) =
        SessionWriter::open(&path).expect("a lock held for a moment is waited for");
    assert_eq!(snap.messages.len(), 1);
    brief.wait().unwrap();
    drop(reopened);
    let mut long = hold("5");
    assert!(matches!(
        SessionWriter::open(&path),
        Err(SessionError::Busy { .. })
    ));
    long.kill().unwrap();
    long.wait().unwrap();
}

#[test]
fn a_torn_last_row_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("torn.jsonl");
    std::fs::copy(fixture("bad_torn.jsonl"), &path).unwrap();
    let before = std::fs::read(&path).unwrap();
    let err = SessionWriter::open(&path).unwrap_err().to_string();
    assert!(
        err.contains("line 3") && err.contains("torn last row"),
        "{err}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn a_valid_last_row_without_newline_is_never_glued_onto() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nonl.jsonl");
    let text = std::fs::read_to_string(fixture("go_deferred.jsonl")).unwrap();
    let trimmed = text.trim_end().to_string();
    std::fs::write(&path, &trimmed).unwrap();
    let (mut w, _) = SessionWriter::open(&path).unwrap();
    w.append_message(&SessionMessage::new(Role::User, vec![Block::text("next")]))
        .unwrap();
    drop(w);
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(after.starts_with(&trimmed));
    assert_eq!(&after[trimmed.len()..trimmed.len() + 1], "\n");
    assert_eq!(read(&path).unwrap().messages.len(), 6);
}

#[test]
fn empty_sessions_are_removed_but_state_only_ones_stay() {
    let dir = tempfile::tempdir().unwrap();
    let w = new_session(dir.path());
    let path = w.path().to_path_buf();
    assert_eq!(w.close().unwrap(), Closed::Removed);
    assert!(!path.exists());
    // K9: extension state alone is content.
    let mut w = new_session(dir.path());
    let path = w.path().to_path_buf();
    w.append_state("ext", r#"{"v":1}"#).unwrap();
    assert_eq!(w.close().unwrap(), Closed::Kept);
    assert!(path.exists());
    // A resumed file is never removed, even when nothing was added.
    let (w, _) = SessionWriter::open(&path).unwrap();
    assert_eq!(w.close().unwrap(), Closed::Kept);
}

#[test]
fn state_write_checks() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = new_session(dir.path());
    let big = format!("\"{}\"", "x".repeat(256 * 1024));
    assert!(w
        .append_state("ext", &big)
        .unwrap_err()
        .to_string()
        .contains("262144-byte limit"));
    assert!(w.append_state(" ", "{}").is_err());
    assert!(w.append_state("ext", "{nope").is_err());
    assert!(!w.has_new_content());
}

#[test]
fn an_uncreatable_directory_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("sessions");
    std::fs::write(&blocker, "not a directory").unwrap();
    let err = SessionWriter::create(&blocker.join("abc"), NewSession::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("creating the sessions directory"), "{err}");
}

#[test]
fn meta_only_leftovers_are_pruned_unless_in_use() {
    let dir = tempfile::tempdir().unwrap();
    let leftover = new_session(dir.path());
    let leftover_path = leftover.path().to_path_buf();
    drop(leftover); // dropped without close(): a meta-only file stays
    let live = new_session(dir.path());
    std::thread::sleep(std::time::Duration::from_millis(5));
    let mut kept = new_session(dir.path());
    kept.append_message(&SessionMessage::new(Role::User, vec![Block::text("x")]))
        .unwrap();
    zut_session::prune_contentless(dir.path());
    assert!(!leftover_path.exists());
    assert!(
        live.path().exists(),
        "a session another process writes is kept"
    );
    assert!(kept.path().exists());
}
