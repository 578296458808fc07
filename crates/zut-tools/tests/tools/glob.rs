//! `glob` on real trees: pattern forms, .gitignore, hidden, symlinks,
//! bounds and unreadable directories.

use std::path::Path;

use serde_json::json;

use crate::common::*;

fn touch(dir: &Path, rel: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, "x").unwrap();
}

fn lines(text: &str) -> Vec<&str> {
    text.lines().take_while(|l| !l.is_empty()).collect()
}

#[tokio::test]
async fn patterns_match_names_or_relative_paths_sorted() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    for f in [
        "b.rs",
        "a.rs",
        "src/lib.rs",
        "src/deep/x.rs",
        "src/deep/y.ts",
        "c.txt",
    ] {
        touch(p, f);
    }
    let text = ok_text(&call("glob", json!({"pattern": "*.rs"}), p).await);
    assert_eq!(
        lines(&text),
        ["a.rs", "b.rs", "src/deep/x.rs", "src/lib.rs"]
    );
    let text = ok_text(&call("glob", json!({"pattern": "src/*.rs"}), p).await);
    assert_eq!(lines(&text), ["src/lib.rs"]);
    let text = ok_text(&call("glob", json!({"pattern": "**/*.rs", "path": "src"}), p).await);
    assert_eq!(lines(&text), ["src/deep/x.rs", "src/lib.rs"]);
    let text = ok_text(&call("glob", json!({"pattern": "src/**/?.{rs,ts}"}), p).await);
    assert_eq!(lines(&text), ["src/deep/x.rs", "src/deep/y.ts"]);
    let text = ok_text(&call("glob", json!({"pattern": "[ab].rs"}), p).await);
    assert_eq!(lines(&text), ["a.rs", "b.rs"]);
    let text = ok_text(&call("glob", json!({"pattern": "*.nothing"}), p).await);
    assert!(text.starts_with("No files matched the pattern."), "{text}");
}

#[tokio::test]
async fn gitignore_nested_and_hidden() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    touch(p, "keep.rs");
    touch(p, "target/out.rs");
    touch(p, "sub/gen.rs");
    touch(p, "sub/real.rs");
    touch(p, ".hidden/h.rs");
    touch(p, ".dot.rs");
    touch(p, ".git/objects/x.rs");
    std::fs::write(p.join(".gitignore"), "target/\n").unwrap();
    std::fs::write(p.join("sub/.gitignore"), "gen.rs\n").unwrap();
    let text = ok_text(&call("glob", json!({"pattern": "**/*.rs"}), p).await);
    assert_eq!(lines(&text), ["keep.rs", "sub/real.rs"]);
    let text = ok_text(&call("glob", json!({"pattern": "**/*.rs", "hidden": true}), p).await);
    assert_eq!(
        lines(&text),
        [".dot.rs", ".hidden/h.rs", "keep.rs", "sub/real.rs"]
    );
}

#[tokio::test]
async fn symlink_loops_are_not_followed_and_file_links_match() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    touch(p, "a/real.rs");
    std::os::unix::fs::symlink("..", p.join("a/loop")).unwrap();
    std::os::unix::fs::symlink(p.join("a"), p.join("dirlink")).unwrap();
    std::os::unix::fs::symlink("real.rs", p.join("a/filelink.rs")).unwrap();
    std::os::unix::fs::symlink("missing.rs", p.join("a/dangling.rs")).unwrap();
    let text = ok_text(&call("glob", json!({"pattern": "**/*"}), p).await);
    assert_eq!(lines(&text), ["a/filelink.rs", "a/real.rs"]);
}

#[tokio::test]
async fn large_trees_are_bounded_with_a_note() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    for i in 0..700 {
        touch(p, &format!("d{}/f{i:04}.txt", i % 7));
    }
    let text = ok_text(&call("glob", json!({"pattern": "*.txt"}), p).await);
    assert_eq!(lines(&text).len(), 500);
    assert!(
        text.ends_with("(Truncated: showing first 500 matches)"),
        "{text}"
    );
    let mut sorted = lines(&text);
    sorted.sort();
    assert_eq!(sorted, lines(&text));
    // Depth: 30 levels, only 24 entered.
    let mut deep = String::new();
    for i in 0..30 {
        deep.push_str(&format!("l{i}/"));
    }
    touch(p, &format!("{deep}deep.md"));
    touch(p, "l0/shallow.md");
    let text = ok_text(&call("glob", json!({"pattern": "**/*.md"}), p).await);
    assert_eq!(lines(&text), ["l0/shallow.md"]);
    assert!(text.contains("levels deep were not entered"), "{text}");
}

#[tokio::test]
async fn unreadable_directories_are_skipped_with_a_note() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    touch(p, "open/a.rs");
    touch(p, "locked/b.rs");
    std::fs::set_permissions(p.join("locked"), std::fs::Permissions::from_mode(0o000)).unwrap();
    let readable = std::fs::read_dir(p.join("locked")).is_ok(); // root ignores modes
    let out = call("glob", json!({"pattern": "*.rs"}), p).await;
    std::fs::set_permissions(p.join("locked"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let text = ok_text(&out);
    if readable {
        eprintln!("running as root: permissions are not enforced, skipping the note check");
        return;
    }
    assert_eq!(lines(&text), ["open/a.rs"]);
    assert!(
        text.contains("could not be read") && text.contains("locked"),
        "{text}"
    );
}

#[tokio::test]
async fn bad_arguments() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    touch(p, "f.txt");
    let text = err_text(&call("glob", json!({"pattern": "  "}), p).await);
    assert_eq!(text, "glob: pattern is required");
    let text = err_text(&call("glob", json!({"pattern": "[ab"}), p).await);
    assert!(text.starts_with("glob: invalid pattern \"[ab\""), "{text}");
    let text = err_text(&call("glob", json!({"pattern": "*", "path": "f.txt"}), p).await);
    assert_eq!(text, "glob: f.txt is not a directory");
    let text = err_text(&call("glob", json!({"pattern": "*", "path": "nope"}), p).await);
    assert!(text.contains("no such file or directory"), "{text}");
    let text = err_text(&call("glob", json!({"pattern": "*", "bogus": 1}), p).await);
    assert!(text.contains("bogus"), "{text}");
    let big = "x".repeat(5000);
    let text = err_text(&call("glob", json!({ "pattern": big }), p).await);
    assert_eq!(text, "glob: invalid arguments");
}
