//! `write`: creates files and parent directories, overwrites.

use serde_json::json;

use crate::common::*;

#[tokio::test]
async fn creates_parent_directories() {
    let dir = tempfile::tempdir().unwrap();
    let out = call(
        "write",
        json!({"path": "a/b/c.txt", "content": "one\ntwo\n"}),
        dir.path(),
    )
    .await;
    assert_eq!(ok_text(&out), "Created a/b/c.txt: wrote 8 bytes (2 lines).");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a/b/c.txt")).unwrap(),
        "one\ntwo\n"
    );
}

#[tokio::test]
async fn overwrites_existing_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "old content that is longer").unwrap();
    let out = call(
        "write",
        json!({"path": "f.txt", "content": "new"}),
        dir.path(),
    )
    .await;
    assert!(ok_text(&out).starts_with("Overwrote f.txt"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "new"
    );
}

#[tokio::test]
async fn empty_content_creates_an_empty_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = call("write", json!({"path": "empty", "content": ""}), dir.path()).await;
    ok_text(&out);
    assert_eq!(std::fs::read(dir.path().join("empty")).unwrap(), b"");
}

#[tokio::test]
async fn errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("file"), "x").unwrap();
    let text = err_text(&call("write", json!({"path": "sub", "content": "x"}), dir.path()).await);
    assert!(text.contains("it is a directory"), "{text}");
    // A parent that is a file.
    let text = err_text(
        &call(
            "write",
            json!({"path": "file/inner.txt", "content": "x"}),
            dir.path(),
        )
        .await,
    );
    assert!(
        text.starts_with("Cannot create the parent directory of file/inner.txt"),
        "{text}"
    );
    let text = err_text(&call("write", json!({"path": "x.txt"}), dir.path()).await);
    assert!(text.starts_with("Invalid arguments for `write`"), "{text}");
    assert!(text.contains("content"), "{text}");
    assert!(!dir.path().join("x.txt").exists());
}
