//! Branching (K4, K5) and listing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use zut_session::{fork, list, read, resolve, Block, ForkOptions, Role, Row};

const META: &str = r#"{"type":"meta","meta":{"id":"parent-0000-4000-8000-000000000000","cwd":"/p","model":"m","provider":"anthropic","started":"2026-08-23T07:00:00Z","version":"1","goal":{"objective":"x","status":"active"}}}"#;

fn msg(role: &str, text: &str) -> String {
    format!(
        r#"{{"type":"message","message":{{"role":"{role}","content":[{{"text":"{text}"}}],"time":"2026-08-23T09:00:00Z"}}}}"#
    )
}

fn state(ext: &str, v: u32) -> String {
    format!(r#"{{"type":"extension_state","extension":"{ext}","state":{{"v":{v}}}}}"#)
}

fn write(dir: &Path, name: &str, rows: &[String]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, rows.join("\n") + "\n").unwrap();
    p
}

fn opts(dir: &Path) -> ForkOptions {
    ForkOptions {
        dir: dir.to_path_buf(),
        version: "0.1.0".into(),
        ..ForkOptions::default()
    }
}

fn state_v(path: &Path, ext: &str) -> Option<String> {
    read(path)
        .unwrap()
        .states
        .get(ext)
        .map(|s| s.get().to_string())
}

/// K4: `msg, state v1, msg, state v2` at 1 → v1, at 2 → v2;
/// `msg, msg, state v1, compaction(2)` at 1 → v1.
#[test]
fn state_at_the_fork_point() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let p = write(
        dir.path(),
        "p.jsonl",
        &[
            META.into(),
            msg("user", "a"),
            state("e", 1),
            msg("assistant", "b"),
            state("e", 2),
        ],
    );
    let f1 = fork(&p, 1, &opts(&out)).unwrap();
    assert_eq!(state_v(&f1.path, "e").as_deref(), Some(r#"{"v":1}"#));
    let f2 = fork(&p, 2, &opts(&out)).unwrap();
    assert_eq!(state_v(&f2.path, "e").as_deref(), Some(r#"{"v":2}"#));
    let f0 = fork(&p, 0, &opts(&out)).unwrap();
    assert_eq!(state_v(&f0.path, "e"), None);

    let compaction = r###"{"type":"compaction","messages":[{"role":"user","content":[{"text":"## Context Summary (compacted)\n\ns"}],"time":"2026-08-23T09:00:00Z","meta":{"compaction":"true"}},{"role":"assistant","content":[{"text":"b"}],"time":"2026-08-23T09:00:00Z"}]}"###;
    let p = write(
        dir.path(),
        "q.jsonl",
        &[
            META.into(),
            msg("user", "a"),
            msg("assistant", "b"),
            state("e", 1),
            compaction.into(),
        ],
    );
    let f = fork(&p, 1, &opts(&out)).unwrap();
    assert_eq!(state_v(&f.path, "e").as_deref(), Some(r#"{"v":1}"#));
    assert!(fork(&p, 3, &opts(&out))
        .unwrap_err()
        .to_string()
        .contains("past the end"));
}

/// K5: meta (new id, parent, fork_point), copied messages, state rows
/// sorted by extension, usage rows within the copy; a boundary on a
/// tool-call message is extended through its results.
#[test]
fn branch_file_shape() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let call = r#"{"type":"message","message":{"role":"assistant","content":[{"id":"c1","name":"t","arguments":{}}],"time":"2026-08-23T09:00:00Z"}}"#;
    let result = r#"{"type":"message","message":{"role":"tool","content":[{"call_id":"c1","content":[{"text":"r"}],"is_error":false}],"time":"2026-08-23T09:00:00Z"}}"#;
    let usage = |n: u32| {
        format!(
            r#"{{"type":"usage","usage":{{"input_tokens":{n},"output_tokens":1,"reasoning_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":0}},"cumulative":{{"input_tokens":{n},"output_tokens":1,"reasoning_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":0}}}}"#
        )
    };
    let p = write(
        dir.path(),
        "p.jsonl",
        &[
            META.into(),
            msg("user", "go"),
            state("zeta", 1),
            state("alpha", 1),
            call.into(),
            result.into(),
            usage(10),
            msg("assistant", "done"),
            usage(20),
            msg("user", "more"),
        ],
    );
    let parent = read(&p).unwrap();
    let f = fork(&p, 2, &opts(&out)).unwrap();
    assert_eq!(f.fork_point, 3, "extended through the tool results");
    let text = std::fs::read_to_string(&f.path).unwrap();
    let rows: Vec<Row> = text
        .lines()
        .map(|l| Row::parse(l.as_bytes()).unwrap())
        .collect();
    let kinds: Vec<&str> = rows.iter().map(Row::type_name).collect();
    assert_eq!(
        kinds,
        [
            "meta",
            "message",
            "message",
            "message",
            "extension_state",
            "extension_state",
            "usage"
        ]
    );
    let Row::Meta(meta) = &rows[0] else { panic!() };
    assert_ne!(meta.id, parent.meta.id);
    assert_eq!(meta.parent, parent.meta.id);
    assert_eq!(meta.fork_point, 3);
    assert!(
        !meta.extra.contains_key("goal"),
        "goal dropped on a partial copy"
    );
    let names: Vec<String> = rows[4..6]
        .iter()
        .map(|r| match r {
            Row::ExtensionState { extension, .. } => extension.clone(),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(names, ["alpha", "zeta"]);
    let child = read(&f.path).unwrap();
    assert_eq!(child.messages, parent.messages[..3].to_vec());
    assert_eq!(child.cumulative().input_tokens, 10);
    // A whole copy keeps the goal.
    let whole = fork(&p, parent.messages.len(), &opts(&out)).unwrap();
    assert!(read(&whole.path).unwrap().meta.extra.contains_key("goal"));
    // No temporary file is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn listing_newest_first_with_titles_and_ids() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let sdir = zut_session::sessions_dir(home, "/p");
    std::fs::create_dir_all(&sdir).unwrap();
    let m = |id: &str, extra: &str| {
        format!(
            r#"{{"type":"meta","meta":{{"id":"{id}","cwd":"/p","model":"m","provider":"p","started":"2026-08-23T07:00:00Z","version":"1"{extra}}}}}"#
        )
    };
    let a = write(
        &sdir,
        "20260823-070000-aaaaaaaa.jsonl",
        &[
            m("aaaaaaaa-1", ""),
            msg("user", "Fix the parser"),
            msg("assistant", "ok"),
        ],
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    let b = write(
        &sdir,
        "20260823-080000-bbbbbbbb.jsonl",
        &[
            m("bbbbbbbb-2", r#","title":"Meta title""#),
            msg("user", "x"),
            r#"{"type":"rename","title":"subject: Renamed"}"#.into(),
            "garbage".into(),
        ],
    );
    write(
        &sdir,
        "20260823-090000-cccccccc.jsonl",
        &[
            m("cccccccc-3", r#","hide_from_sessions":true"#),
            msg("user", "hidden"),
        ],
    );
    let l = list(&sdir, false);
    let ids: Vec<&str> = l.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["bbbbbbbb-2", "aaaaaaaa-1"]);
    assert_eq!(l[0].title, "Renamed");
    assert_eq!(l[1].title, "Fix the parser");
    assert_eq!(l[1].message_count, 2);
    assert_eq!(list(&sdir, true).len(), 3);
    assert_eq!(resolve(home, &sdir, "aaaa").unwrap(), a);
    assert_eq!(resolve(home, &sdir, "bbbbbbbb-2").unwrap(), b);
    assert!(resolve(home, &sdir, "dddd")
        .unwrap_err()
        .to_string()
        .contains("no session with id"));
    assert_eq!(
        resolve(home, Path::new("/nonexistent"), "aaaaaaaa").unwrap(),
        a
    );
    let _ = Block::text("");
    let _ = Role::User;
}
