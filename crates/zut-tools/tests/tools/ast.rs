//! `ast` through the tool: output format, rewrite diff, errors.

use serde_json::json;

use crate::common::*;

#[tokio::test]
async fn search_lists_path_line_and_source() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::create_dir_all(p.join("src")).unwrap();
    std::fs::write(
        p.join("src/a.py"),
        "def f(x):\n    return helper(x,\n                  1)\n\nhelper(2, 3)\n",
    )
    .unwrap();
    let text = ok_text(&call("ast", json!({"pattern": "helper($A, $B)", "path": "."}), p).await);
    assert_eq!(
        text,
        "src/a.py:2: return helper(x,\n                  1)\nsrc/a.py:5: helper(2, 3)"
    );
    let text = ok_text(
        &call(
            "ast",
            json!({"pattern": "nothing_like_this($A)", "path": "src"}),
            p,
        )
        .await,
    );
    assert!(
        text.starts_with("No structural matches.\nTip: the pattern must be valid code"),
        "{text}"
    );
}

#[tokio::test]
async fn rewrite_returns_a_diff_and_writes() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("m.go"), "package m\n\nfunc a() { oldFn(1, 2) }\n").unwrap();
    let out = call(
        "ast",
        json!({"pattern": "oldFn($$$A)", "rewrite": "newFn($$$A)", "language": "go", "path": "m.go"}),
        p,
    )
    .await;
    let text = ok_text(&out);
    assert!(
        text.starts_with("Rewrote 1 match in 1 file.\n\n--- m.go\n+++ m.go\n"),
        "{text}"
    );
    assert!(
        text.contains("-func a() { oldFn(1, 2) }\n+func a() { newFn(1, 2) }"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(p.join("m.go")).unwrap(),
        "package m\n\nfunc a() { newFn(1, 2) }\n"
    );
    let out = call(
        "ast",
        json!({"pattern": "newFn($$$A)", "rewrite": "newFn($$$A)", "path": "."}),
        p,
    )
    .await;
    assert_eq!(
        ok_text(&out),
        "Structural matches found, but the rewrite produced no changes."
    );
}

#[tokio::test]
async fn errors_are_clear() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("a.rs"), "fn main() {}\n").unwrap();
    let text = err_text(
        &call(
            "ast",
            json!({"pattern": "fn (", "language": "rust", "path": "."}),
            p,
        )
        .await,
    );
    assert!(
        text.starts_with("ast: the pattern does not parse as rust"),
        "{text}"
    );
    let text = err_text(&call("ast", json!({"pattern": " ", "path": "."}), p).await);
    assert_eq!(text, "ast: pattern and path are required");
    let text = err_text(&call("ast", json!({"pattern": "x", "path": "missing"}), p).await);
    assert!(
        text.starts_with("ast: ") && text.contains("no such file"),
        "{text}"
    );
}

#[tokio::test]
async fn grep_suggests_ast_for_code_shaped_regexes() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("a.go"), "func main() { fmt.Errorf(\"x\") }\n").unwrap();
    let text = ok_text(&call("grep", json!({"pattern": "fmt\\.Errorf\\("}), p).await);
    assert!(
        text.contains("Tip: for code structure, try `ast` with pattern \"fmt.Errorf($$$ARGS)\""),
        "{text}"
    );
    let text = ok_text(&call("grep", json!({"pattern": "^func "}), p).await);
    assert!(
        text.contains("Tip: for code structure, try `ast`"),
        "{text}"
    );
    let text = ok_text(&call("grep", json!({"pattern": "main"}), p).await);
    assert!(!text.contains("Tip:"), "{text}");
}
