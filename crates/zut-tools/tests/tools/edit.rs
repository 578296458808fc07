//! `edit`: exact unique substitutions, clear errors, unified diffs.

use serde_json::json;

use crate::common::*;

fn setup(content: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), content).unwrap();
    dir
}

fn file(dir: &tempfile::TempDir) -> String {
    std::fs::read_to_string(dir.path().join("f.txt")).unwrap()
}

#[tokio::test]
async fn replaces_and_returns_a_unified_diff() {
    let dir = setup("fn main() {\n    println!(\"hi\");\n}\n");
    let out = call(
        "edit",
        json!({"path": "f.txt", "edits": [{"oldText": "println!(\"hi\")", "newText": "println!(\"bye\")"}]}),
        dir.path(),
    )
    .await;
    let text = ok_text(&out);
    assert!(text.starts_with("Edited f.txt (1 replacement)."), "{text}");
    assert!(text.contains("--- f.txt\n+++ f.txt\n"), "{text}");
    assert!(text.contains("@@ -1,3 +1,3 @@"), "{text}");
    assert!(
        text.contains("-    println!(\"hi\");\n+    println!(\"bye\");\n"),
        "{text}"
    );
    assert_eq!(file(&dir), "fn main() {\n    println!(\"bye\");\n}\n");
}

#[tokio::test]
async fn several_edits_apply_together() {
    let dir = setup("a\nb\nc\nd\n");
    let out = call(
        "edit",
        json!({"path": "f.txt", "edits": [
            {"oldText": "d\n", "newText": ""},
            {"oldText": "a\n", "newText": "A\n"}
        ]}),
        dir.path(),
    )
    .await;
    assert!(ok_text(&out).starts_with("Edited f.txt (2 replacements)."));
    assert_eq!(file(&dir), "A\nb\nc\n");
}

#[tokio::test]
async fn missing_old_text_is_a_clear_error_and_changes_nothing() {
    let dir = setup("alpha\nbeta\n");
    let out = call(
        "edit",
        json!({"path": "f.txt", "edits": [{"oldText": "gamma", "newText": "x"}]}),
        dir.path(),
    )
    .await;
    let text = err_text(&out);
    assert!(
        text.starts_with("oldText was not found in f.txt."),
        "{text}"
    );
    assert!(text.contains("read it again"), "{text}");
    assert_eq!(file(&dir), "alpha\nbeta\n");
}

#[tokio::test]
async fn whitespace_and_line_number_mistakes_get_hints() {
    let dir = setup("fn f() {\n    let x = 1;\n}\n");
    let out = call(
        "edit",
        json!({"path": "f.txt", "edits": [{"oldText": "\tlet x = 1;", "newText": "let x = 2;"}]}),
        dir.path(),
    )
    .await;
    assert!(err_text(&out).contains("leading/trailing whitespace is ignored, at line(s) 2"));
    let out = call(
        "edit",
        json!({"path": "f.txt", "edits": [{"oldText": "     2\t    let x = 1;", "newText": "y"}]}),
        dir.path(),
    )
    .await;
    assert!(err_text(&out).contains("line-number prefixes"));
}

#[tokio::test]
async fn ambiguous_old_text_is_refused_with_its_lines() {
    let dir = setup("x = 1\ny = 2\nx = 1\n");
    let out = call(
        "edit",
        json!({"path": "f.txt", "edits": [{"oldText": "x = 1", "newText": "x = 3"}]}),
        dir.path(),
    )
    .await;
    let text = err_text(&out);
    assert!(
        text.starts_with(
            "oldText matches 2 times in f.txt (at lines 1, 3); it must match exactly once."
        ),
        "{text}"
    );
    assert_eq!(file(&dir), "x = 1\ny = 2\nx = 1\n");
}

#[tokio::test]
async fn one_failing_edit_cancels_all() {
    let dir = setup("a\nb\n");
    let out = call(
        "edit",
        json!({"path": "f.txt", "edits": [
            {"oldText": "a", "newText": "A"},
            {"oldText": "zzz", "newText": "Z"}
        ]}),
        dir.path(),
    )
    .await;
    assert!(err_text(&out).starts_with("edit 2: oldText was not found"));
    assert_eq!(file(&dir), "a\nb\n");
}

#[tokio::test]
async fn overlapping_and_no_op_edits_are_refused() {
    let dir = setup("abcdef\n");
    let out = call(
        "edit",
        json!({"path": "f.txt", "edits": [
            {"oldText": "abcd", "newText": "1"},
            {"oldText": "cdef", "newText": "2"}
        ]}),
        dir.path(),
    )
    .await;
    assert!(err_text(&out).contains("overlap"));
    let out = call(
        "edit",
        json!({"path": "f.txt", "edits": [{"oldText": "abc", "newText": "abc"}]}),
        dir.path(),
    )
    .await;
    assert!(err_text(&out).contains("identical"));
    assert_eq!(file(&dir), "abcdef\n");
}

#[tokio::test]
async fn crlf_line_endings_are_preserved() {
    let dir = setup("one\r\ntwo\r\nthree\r\n");
    let out = call(
        "edit",
        json!({"path": "f.txt", "edits": [{"oldText": "one\ntwo", "newText": "1\n2"}]}),
        dir.path(),
    )
    .await;
    ok_text(&out);
    assert_eq!(file(&dir), "1\r\n2\r\nthree\r\n");
}

#[tokio::test]
async fn missing_and_binary_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("b.bin"), b"\0\x01abc").unwrap();
    let out = call(
        "edit",
        json!({"path": "nope.txt", "edits": [{"oldText": "a", "newText": "b"}]}),
        dir.path(),
    )
    .await;
    assert_eq!(
        err_text(&out),
        "Cannot edit nope.txt: file not found. Use `write` to create a new file."
    );
    let out = call(
        "edit",
        json!({"path": "b.bin", "edits": [{"oldText": "abc", "newText": "x"}]}),
        dir.path(),
    )
    .await;
    assert!(err_text(&out).contains("not UTF-8 text"));
}

#[tokio::test]
async fn bad_arguments_are_rejected() {
    let dir = setup("a\n");
    for args in [
        json!({"path": "f.txt"}),
        json!({"path": "f.txt", "edits": []}),
        json!({"path": "f.txt", "edits": [{"oldText": "", "newText": "x"}]}),
        json!({"path": "f.txt", "edits": [{"old_text": "a", "new_text": "x"}]}),
    ] {
        let text = err_text(&call("edit", args.clone(), dir.path()).await);
        assert!(
            text.starts_with("Invalid arguments for `edit`"),
            "{args}: {text}"
        );
    }
    assert_eq!(file(&dir), "a\n");
}
