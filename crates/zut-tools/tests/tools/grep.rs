//! `grep`: ignore rules, globs, bounds, errors.

use serde_json::json;
use tokio_util::sync::CancellationToken;
use zut_tools::limits::{GREP_MAX_BYTES, GREP_MAX_LINE_CHARS};
use zut_tools::ToolContext;

use crate::common::*;

/// A small tree (not a git repository) with ignore files, hidden entries
/// and a binary file.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files: &[(&str, &[u8])] = &[
        (".gitignore", b"ignored/\n*.log\n"),
        (".ignore", b"secret.txt\n"),
        ("a.txt", b"hello world\nfoo\n"),
        ("b.rs", b"fn hello() {}\n"),
        ("sub/c.txt", b"Hello again\nhello there\n"),
        ("sub/deeper/e.rs", b"// hello from deep\n"),
        ("sub/d.log", b"hello log\n"),
        ("ignored/e.txt", b"hello ignored\n"),
        ("secret.txt", b"hello secret\n"),
        (".hidden/f.txt", b"hello hidden\n"),
        (".dot.txt", b"hello dot\n"),
        ("bin.dat", b"hello\0binary\n"),
    ];
    for (path, content) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    dir
}

#[tokio::test]
async fn respects_ignore_files_hidden_and_binary() {
    let dir = tree();
    let out = call("grep", json!({"pattern": "hello"}), dir.path()).await;
    assert_eq!(
        ok_text(&out),
        "a.txt:1:hello world\n\
         b.rs:1:fn hello() {}\n\
         sub/c.txt:2:hello there\n\
         sub/deeper/e.rs:1:// hello from deep"
    );
}

#[tokio::test]
async fn hidden_option_includes_dotfiles_but_not_ignored_ones() {
    let dir = tree();
    let out = call(
        "grep",
        json!({"pattern": "hello (dot|hidden|ignored|log)", "hidden": true}),
        dir.path(),
    )
    .await;
    assert_eq!(
        ok_text(&out),
        ".dot.txt:1:hello dot\n.hidden/f.txt:1:hello hidden"
    );
}

#[tokio::test]
async fn case_insensitive_and_literal() {
    let dir = tree();
    let out = call(
        "grep",
        json!({"pattern": "HELLO AGAIN", "ignore_case": true}),
        dir.path(),
    )
    .await;
    assert_eq!(ok_text(&out), "sub/c.txt:1:Hello again");
    let out = call(
        "grep",
        json!({"pattern": "hello() {", "literal": true}),
        dir.path(),
    )
    .await;
    assert_eq!(ok_text(&out), "b.rs:1:fn hello() {}");
}

#[tokio::test]
async fn glob_filters_by_name_or_relative_path() {
    let dir = tree();
    let out = call(
        "grep",
        json!({"pattern": "hello", "glob": "*.rs"}),
        dir.path(),
    )
    .await;
    assert_eq!(
        ok_text(&out),
        "b.rs:1:fn hello() {}\nsub/deeper/e.rs:1:// hello from deep"
    );
    let out = call(
        "grep",
        json!({"pattern": "hello", "glob": "sub/*.{txt,rs}"}),
        dir.path(),
    )
    .await;
    assert_eq!(ok_text(&out), "sub/c.txt:2:hello there");
    let out = call(
        "grep",
        json!({"pattern": "hello", "glob": "[z"}),
        dir.path(),
    )
    .await;
    assert!(err_text(&out).starts_with("Invalid glob `[z`"));
}

#[tokio::test]
async fn path_narrows_the_search_and_shapes_the_output() {
    let dir = tree();
    let out = call(
        "grep",
        json!({"pattern": "hello", "path": "sub/"}),
        dir.path(),
    )
    .await;
    assert_eq!(
        ok_text(&out),
        "sub/c.txt:2:hello there\nsub/deeper/e.rs:1:// hello from deep"
    );
    // A named file is searched even though .gitignore excludes it.
    let out = call(
        "grep",
        json!({"pattern": "hello", "path": "sub/d.log"}),
        dir.path(),
    )
    .await;
    assert_eq!(ok_text(&out), "sub/d.log:1:hello log");
    // Absolute paths print absolute.
    let abs = dir.path().join("sub").join("deeper");
    let out = call(
        "grep",
        json!({"pattern": "deep", "path": abs.to_str().unwrap()}),
        dir.path(),
    )
    .await;
    assert_eq!(
        ok_text(&out),
        format!("{}/e.rs:1:// hello from deep", abs.display())
    );
}

#[tokio::test]
async fn ignore_rules_apply_in_git_repositories_too() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::write(dir.path().join(".git/config"), "needle in git config\n").unwrap();
    std::fs::write(dir.path().join(".gitignore"), "build/\n").unwrap();
    std::fs::create_dir(dir.path().join("build")).unwrap();
    std::fs::write(dir.path().join("build/out.txt"), "needle\n").unwrap();
    std::fs::write(dir.path().join("src.txt"), "needle\n").unwrap();
    let out = call(
        "grep",
        json!({"pattern": "needle", "hidden": true}),
        dir.path(),
    )
    .await;
    assert_eq!(ok_text(&out), "src.txt:1:needle");
}

#[tokio::test]
async fn no_matches_is_not_an_error() {
    let dir = tree();
    let out = call("grep", json!({"pattern": "zebra"}), dir.path()).await;
    let text = ok_text(&out);
    assert!(
        text.starts_with("No matches for `zebra` in the working directory ("),
        "{text}"
    );
    assert!(
        text.contains("files searched; 1 binary file was skipped; hidden files"),
        "{text}"
    );
}

#[tokio::test]
async fn binary_named_file_says_so() {
    let dir = tree();
    let out = call(
        "grep",
        json!({"pattern": "hello", "path": "bin.dat"}),
        dir.path(),
    )
    .await;
    let text = ok_text(&out);
    assert!(text.starts_with("No matches"), "{text}");
    assert!(text.contains("bin.dat is a binary file"), "{text}");
}

#[tokio::test]
async fn invalid_patterns_name_the_problem() {
    let dir = tree();
    let text = err_text(&call("grep", json!({"pattern": "fn (hello"}), dir.path()).await);
    assert!(text.starts_with("Invalid regex `fn (hello`:"), "{text}");
    assert!(text.contains("unclosed group"), "{text}");
    assert!(text.contains("literal: true"), "{text}");
    let text = err_text(&call("grep", json!({"pattern": "a\nb"}), dir.path()).await);
    assert!(text.starts_with("Invalid regex"), "{text}");
}

#[tokio::test]
async fn missing_path_is_an_error() {
    let dir = tree();
    let text = err_text(&call("grep", json!({"pattern": "x", "path": "nope"}), dir.path()).await);
    assert_eq!(text, "Cannot search nope: no such file or directory.");
}

#[tokio::test]
async fn max_results_bounds_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (1..=30).map(|i| format!("match {i}\n")).collect();
    std::fs::write(dir.path().join("m.txt"), &body).unwrap();
    std::fs::write(dir.path().join("n.txt"), "match n\n").unwrap();
    let out = call(
        "grep",
        json!({"pattern": "match", "max_results": 5}),
        dir.path(),
    )
    .await;
    let text = ok_text(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..5],
        [
            "m.txt:1:match 1",
            "m.txt:2:match 2",
            "m.txt:3:match 3",
            "m.txt:4:match 4",
            "m.txt:5:match 5"
        ]
    );
    assert_eq!(lines[5], "");
    assert!(
        lines[6].starts_with("[Showing the first 5 matches; there are more."),
        "{text}"
    );
    assert!(lines[6].contains("raise `max_results`"), "{text}");
    // Exactly at the limit: no notice.
    let out = call(
        "grep",
        json!({"pattern": "match", "max_results": 31}),
        dir.path(),
    )
    .await;
    let text = ok_text(&out);
    assert_eq!(text.lines().count(), 31);
    assert!(text.ends_with("n.txt:1:match n"));
    // The limit crosses files.
    let out = call(
        "grep",
        json!({"pattern": "match", "max_results": 30}),
        dir.path(),
    )
    .await;
    assert!(ok_text(&out).contains("[Showing the first 30 matches"));
    for bad in [json!(0), json!(2001), json!(1.5), json!("5")] {
        let out = call(
            "grep",
            json!({"pattern": "match", "max_results": bad}),
            dir.path(),
        )
        .await;
        assert!(err_text(&out).starts_with("Invalid arguments for `grep`"));
    }
}

#[tokio::test]
async fn long_lines_and_total_bytes_are_capped() {
    let dir = tempfile::tempdir().unwrap();
    let line = format!("needle {}\n", "x".repeat(GREP_MAX_LINE_CHARS * 2));
    std::fs::write(dir.path().join("wide.txt"), line.repeat(1000)).unwrap();
    let out = call(
        "grep",
        json!({"pattern": "needle", "max_results": 2000}),
        dir.path(),
    )
    .await;
    let text = ok_text(&out);
    assert!(text.len() <= GREP_MAX_BYTES + 500, "{}", text.len());
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("wide.txt:1:needle xxx"), "{first}");
    assert!(
        first.ends_with(&format!(
            "… [line cut: {} characters in total]",
            line.len() - 1
        )),
        "{first}"
    );
    assert!(
        text.contains("[Output limit of 50 KiB reached after"),
        "{}",
        &text[text.len() - 300..]
    );
}

#[tokio::test]
async fn cancelled_search_is_an_error() {
    let dir = tree();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let ctx = ToolContext::new(dir.path()).with_cancel(cancel);
    let out = call_ctx("grep", json!({"pattern": "hello"}), &ctx).await;
    assert!(err_text(&out).contains("Search cancelled"));
}
