//! The file-access seam: `read`, `write` and `edit` through a front end's
//! buffers (as `zut acp` does with an editor), falling back to the disk.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::json;
use zut_tools::{run_builtin, FileAccess, FileFuture, ToolContent, ToolContext};

/// Open editor buffers: reads of other files fail (the disk is used),
/// writes land in the buffers.
#[derive(Default)]
struct Buffers {
    open: Mutex<HashMap<PathBuf, String>>,
    reads: Mutex<Vec<PathBuf>>,
}

impl FileAccess for Buffers {
    fn read_text<'a>(&'a self, path: &'a Path) -> FileFuture<'a, String> {
        Box::pin(async move {
            self.reads.lock().unwrap().push(path.to_path_buf());
            self.open
                .lock()
                .unwrap()
                .get(path)
                .cloned()
                .ok_or_else(|| "not open".to_string())
        })
    }
    fn write_text<'a>(&'a self, path: &'a Path, content: &'a str) -> FileFuture<'a, ()> {
        Box::pin(async move {
            if path.ends_with("readonly.txt") {
                return Err("the editor refused".to_string());
            }
            self.open
                .lock()
                .unwrap()
                .insert(path.to_path_buf(), content.to_string());
            Ok(())
        })
    }
}

fn text(out: &zut_tools::ToolOutput) -> String {
    out.content
        .iter()
        .filter_map(|c| match c {
            ToolContent::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn tools_see_and_change_the_buffers_not_the_disk() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().canonicalize().unwrap();
    std::fs::write(cwd.join("a.txt"), "on disk\n").unwrap();
    std::fs::write(cwd.join("plain.txt"), "only on disk\n").unwrap();
    std::fs::write(cwd.join("pic.png"), b"\x89PNG\r\n\x1a\n0000").unwrap();
    let buffers = Arc::new(Buffers::default());
    buffers
        .open
        .lock()
        .unwrap()
        .insert(cwd.join("a.txt"), "unsaved edit\nsecond\n".into());
    buffers
        .open
        .lock()
        .unwrap()
        .insert(cwd.join("new.txt"), "never saved\n".into());
    let ctx = ToolContext::new(&cwd).with_files(buffers.clone());

    // read: the buffer, also for a file the disk does not have yet.
    let out = run_builtin("read", &json!({"path": "a.txt"}), &ctx).await;
    assert!(!out.is_error);
    assert!(text(&out).contains("unsaved edit"), "{}", text(&out));
    assert!(!text(&out).contains("on disk"));
    let out = run_builtin("read", &json!({"path": "new.txt"}), &ctx).await;
    assert!(text(&out).contains("never saved"), "{}", text(&out));
    // A file the front end cannot serve comes from the disk; images are
    // never asked for.
    let out = run_builtin("read", &json!({"path": "plain.txt"}), &ctx).await;
    assert!(text(&out).contains("only on disk"));
    let out = run_builtin("read", &json!({"path": "pic.png"}), &ctx).await;
    assert!(!buffers.reads.lock().unwrap().contains(&cwd.join("pic.png")));
    assert!(
        text(&out).contains("image") || out.is_error,
        "{}",
        text(&out)
    );

    // edit: applied to the buffer's text, written back to the buffer.
    let out = run_builtin(
        "edit",
        &json!({"path": "a.txt", "edits": [{"oldText": "second", "newText": "2nd"}]}),
        &ctx,
    )
    .await;
    assert!(!out.is_error, "{}", text(&out));
    assert!(text(&out).contains("+2nd"), "{}", text(&out));
    assert_eq!(
        buffers.open.lock().unwrap()[&cwd.join("a.txt")],
        "unsaved edit\n2nd\n"
    );
    assert_eq!(
        std::fs::read_to_string(cwd.join("a.txt")).unwrap(),
        "on disk\n"
    );
    // edit of a file the front end cannot read: on the disk.
    let out = run_builtin(
        "edit",
        &json!({"path": "plain.txt", "edits": [{"oldText": "only", "newText": "just"}]}),
        &ctx,
    )
    .await;
    assert!(!out.is_error, "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(cwd.join("plain.txt")).unwrap(),
        "just on disk\n"
    );

    // write: into the buffers; a refusal is the tool's error.
    let out = run_builtin("write", &json!({"path": "w.txt", "content": "hi\n"}), &ctx).await;
    assert!(!out.is_error, "{}", text(&out));
    assert_eq!(buffers.open.lock().unwrap()[&cwd.join("w.txt")], "hi\n");
    assert!(!cwd.join("w.txt").exists());
    let out = run_builtin(
        "write",
        &json!({"path": "readonly.txt", "content": "x"}),
        &ctx,
    )
    .await;
    assert!(out.is_error);
    assert!(text(&out).contains("the editor refused"), "{}", text(&out));
}
