//! The code-intelligence seam: `lsp` without a manager, and the
//! diagnostics a manager returns appended after `write`/`edit` (real
//! files; the manager here only records what it was asked).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use zut_tools::{run_builtin, CodeIntel, IntelFuture, ToolContext, ToolOutput};

#[derive(Debug, Default)]
struct Recorder {
    asked: Mutex<Vec<PathBuf>>,
}

impl CodeIntel for Recorder {
    fn run_tool<'a>(
        &'a self,
        args: &'a Value,
        _ctx: &'a ToolContext,
    ) -> IntelFuture<'a, ToolOutput> {
        Box::pin(async move { ToolOutput::text(format!("lsp {}", args["action"])) })
    }

    fn after_mutation<'a>(
        &'a self,
        paths: &'a [PathBuf],
        _ctx: &'a ToolContext,
    ) -> IntelFuture<'a, Option<String>> {
        Box::pin(async move {
            self.asked.lock().unwrap().extend(paths.iter().cloned());
            Some("Diagnostics: 1 error\n- ERROR: a.txt:1:1 boom".to_string())
        })
    }
}

#[tokio::test]
async fn lsp_needs_a_manager() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_builtin(
        "lsp",
        &json!({"action": "status"}),
        &ToolContext::new(dir.path()),
    )
    .await;
    assert!(out.is_error);
    assert_eq!(out.text_content(), "lsp manager is unavailable");
    let out = run_builtin("lsp", &json!({"path": "x"}), &ToolContext::new(dir.path())).await;
    assert!(out.is_error, "action is required by the schema");
}

#[tokio::test]
async fn write_and_edit_get_the_changed_files_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let rec = Arc::new(Recorder::default());
    let ctx = ToolContext::new(dir.path()).with_lsp(rec.clone());
    let out = run_builtin("write", &json!({"path": "a.txt", "content": "x\n"}), &ctx).await;
    assert_eq!(
        out.text_content(),
        "Created a.txt: wrote 2 bytes (1 lines).\n\nDiagnostics: 1 error\n- ERROR: a.txt:1:1 boom\n"
    );
    let out = run_builtin(
        "edit",
        &json!({"path": "a.txt", "edits": [{"oldText": "x", "newText": "y"}]}),
        &ctx,
    )
    .await;
    assert!(
        out.text_content().ends_with("- ERROR: a.txt:1:1 boom\n"),
        "{out:?}"
    );
    // A failed edit asks nothing.
    let out = run_builtin(
        "edit",
        &json!({"path": "a.txt", "edits": [{"oldText": "zzz", "newText": "y"}]}),
        &ctx,
    )
    .await;
    assert!(out.is_error);
    assert_eq!(
        *rec.asked.lock().unwrap(),
        vec![dir.path().join("a.txt"), dir.path().join("a.txt")]
    );
    let out = run_builtin("lsp", &json!({"action": "status"}), &ctx).await;
    assert_eq!(out.text_content(), "lsp \"status\"");
}
