//! `read`: numbered text, windows, images, binary refusal.

use base64::Engine as _;
use serde_json::json;
use zut_tools::limits::{READ_MAX_BYTES, READ_MAX_LINE_CHARS};
use zut_tools::ToolContent;

use crate::common::*;

#[tokio::test]
async fn numbers_lines_relative_to_cwd() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "alpha\nbeta\r\ngamma").unwrap();
    let out = call("read", json!({"path": "f.txt"}), dir.path()).await;
    assert_eq!(
        ok_text(&out),
        "     1\talpha\n     2\tbeta\n     3\tgamma\n"
    );
    // Absolute paths work too.
    let abs = dir.path().join("f.txt");
    let out = call("read", json!({"path": abs.to_str().unwrap()}), dir.path()).await;
    assert!(ok_text(&out).starts_with("     1\talpha\n"));
}

#[tokio::test]
async fn offset_and_limit_select_a_window() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    std::fs::write(dir.path().join("f.txt"), body).unwrap();
    let out = call(
        "read",
        json!({"path": "f.txt", "offset": 3, "limit": 2}),
        dir.path(),
    )
    .await;
    assert_eq!(
        ok_text(&out),
        "     3\tline 3\n     4\tline 4\n\n[Showing lines 3-4 of 10. Use offset=5 to continue.]\n"
    );
    let out = call("read", json!({"path": "f.txt", "offset": 9}), dir.path()).await;
    assert_eq!(ok_text(&out), "     9\tline 9\n    10\tline 10\n");
    let out = call("read", json!({"path": "f.txt", "offset": 20}), dir.path()).await;
    assert_eq!(
        err_text(&out),
        "offset 20 is past the end of f.txt, which has 10 lines."
    );
}

#[tokio::test]
async fn output_is_capped_with_a_continuation_hint() {
    let dir = tempfile::tempdir().unwrap();
    let line = "y".repeat(99);
    let body: String = (0..2000).map(|_| format!("{line}\n")).collect();
    std::fs::write(dir.path().join("big.txt"), body).unwrap();
    let out = call("read", json!({"path": "big.txt"}), dir.path()).await;
    let text = ok_text(&out);
    assert!(text.len() <= READ_MAX_BYTES + 200, "{}", text.len());
    assert!(text.contains("of 2000 (output limit of 50 KiB reached). Use offset="));
}

#[tokio::test]
async fn long_lines_are_cut() {
    let dir = tempfile::tempdir().unwrap();
    let long = "z".repeat(READ_MAX_LINE_CHARS + 500);
    std::fs::write(dir.path().join("f.txt"), &long).unwrap();
    let text = ok_text(&call("read", json!({"path": "f.txt"}), dir.path()).await);
    assert!(text.contains(&format!("… [line cut: {} bytes in total]", long.len())));
    assert!(text.len() < READ_MAX_LINE_CHARS + 100);
}

#[tokio::test]
async fn missing_file_is_an_error_with_similar_names() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("config.toml"), "x").unwrap();
    let out = call("read", json!({"path": "config.yaml"}), dir.path()).await;
    let text = err_text(&out);
    assert!(text.starts_with("File not found: config.yaml"), "{text}");
    assert!(
        text.contains("Similar names in that directory: config.toml."),
        "{text}"
    );
}

#[tokio::test]
async fn directories_and_empty_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("empty"), "").unwrap();
    let out = call("read", json!({"path": "sub"}), dir.path()).await;
    assert!(err_text(&out).contains("is a directory"));
    let out = call("read", json!({"path": "empty"}), dir.path()).await;
    assert_eq!(ok_text(&out), "empty is empty (0 bytes).");
}

#[tokio::test]
async fn images_come_back_as_image_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend_from_slice(&[0, 0, 0, 13, b'I', b'H', b'D', b'R', 1, 2, 3, 0xff]);
    std::fs::write(dir.path().join("pic.png"), &png).unwrap();
    let out = call("read", json!({"path": "pic.png"}), dir.path()).await;
    assert!(!out.is_error);
    let image = out
        .content
        .iter()
        .find_map(|c| match c {
            ToolContent::Image { mime_type, data } => Some((mime_type.clone(), data.clone())),
            ToolContent::Text(_) => None,
        })
        .expect("an image block");
    assert_eq!(image.0, "image/png");
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(image.1)
        .unwrap();
    assert_eq!(decoded, png);
}

#[tokio::test]
async fn binary_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("blob.bin"), b"ELF\0\x01\x02\x03text").unwrap();
    std::fs::write(dir.path().join("latin1.txt"), b"caf\xe9 au lait\n").unwrap();
    let text = err_text(&call("read", json!({"path": "blob.bin"}), dir.path()).await);
    assert!(
        text.contains("looks like a binary file (it contains NUL bytes)"),
        "{text}"
    );
    let text = err_text(&call("read", json!({"path": "latin1.txt"}), dir.path()).await);
    assert!(text.contains("not valid UTF-8"), "{text}");
}

#[tokio::test]
async fn bad_arguments_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "a\n").unwrap();
    for args in [
        json!({}),
        json!({"path": ""}),
        json!({"path": "f.txt", "offset": 0}),
        json!({"path": "f.txt", "limit": -1}),
        json!({"path": "f.txt", "extra": true}),
    ] {
        let text = err_text(&call("read", args.clone(), dir.path()).await);
        assert!(
            text.starts_with("Invalid arguments for `read`"),
            "{args}: {text}"
        );
    }
}
