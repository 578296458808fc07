//! The newer protocol paths against the fake server
//! (`fixtures/fake_lsp.py`), real processes and files: pull diagnostics
//! registered after start (and `unchanged` reports), and a server's
//! `workspace/applyEdit` requests — applied while a code action's command
//! runs, refused outside the workspace, declined when nobody asked.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};
use zut_lsp::{LspManager, Options};
use zut_tools::{run_builtin, ToolContext};

fn fake_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fake_lsp.py")
}

fn python() -> Option<&'static str> {
    ["python3", "python"].into_iter().find(|p| {
        std::process::Command::new(p)
            .arg("-c")
            .arg("pass")
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// `<tmp>/ws` with `lsp.json` naming the fake server in `mode` and a
/// `main.fk`; `<tmp>/outside.fk` next to it.
fn workspace(mode: &str) -> Option<(tempfile::TempDir, PathBuf, ToolContext, LspManager)> {
    let Some(py) = python() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 is required in CI"
        );
        eprintln!("skipping: no python3");
        return None;
    };
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let cfg = json!({"servers": {"fake": {
        "command": [py, fake_script().to_str().unwrap(), mode],
        "fileTypes": ["fk"]
    }}});
    std::fs::write(ws.join("lsp.json"), cfg.to_string()).unwrap();
    std::fs::write(ws.join("main.fk"), "let abc = 1\nERR here\n").unwrap();
    std::fs::write(dir.path().join("outside.fk"), "untouched\n").unwrap();
    let opts = Options {
        start_timeout: Duration::from_secs(5),
        ..Options::default()
    };
    let mgr = LspManager::new(&ws, None, opts);
    let ctx = ToolContext::new(&ws).with_lsp(mgr.handle());
    Some((dir, ws, ctx, mgr))
}

async fn lsp(ctx: &ToolContext, args: Value) -> (bool, String) {
    let out = run_builtin("lsp", &args, ctx).await;
    (out.is_error, out.text_content())
}

/// What the fake server saw (`fake/stats`).
async fn stats(ctx: &ToolContext) -> Value {
    let (err, text) = lsp(
        ctx,
        json!({"action": "request", "method": "fake/stats", "server": "fake"}),
    )
    .await;
    assert!(!err, "{text}");
    let body = text.strip_prefix("fake:\n").unwrap_or(&text);
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[tokio::test]
async fn a_server_that_registers_pull_diagnostics_is_asked() {
    let Some((_d, ws, ctx, mgr)) = workspace("pull") else {
        return;
    };
    let want = "Diagnostics: 1 error\n- ERROR: main.fk:2:1 [P1] pulled error here";
    let (err, text) = lsp(&ctx, json!({"action": "diagnostics", "path": "main.fk"})).await;
    assert!(!err, "{text}");
    assert_eq!(text, want);
    // Asked again: the server says `unchanged`, the same items stand.
    let (err, text) = lsp(&ctx, json!({"action": "diagnostics", "path": "main.fk"})).await;
    assert!(!err, "{text}");
    assert_eq!(text, want);
    let seen = stats(&ctx).await;
    assert_eq!(seen["pulls"], 2, "{seen}");
    assert_eq!(seen["unchanged"], 1, "{seen}");
    assert_eq!(seen["identifiers"], json!(["fake", "fake"]), "{seen}");
    // Fixed on disk: the next pull is a full, empty report.
    std::fs::write(ws.join("main.fk"), "let abc = 1\n").unwrap();
    let (err, text) = lsp(&ctx, json!({"action": "diagnostics", "path": "main.fk"})).await;
    assert!(!err, "{text}");
    assert_eq!(text, "No diagnostics.");
    let (_, status) = lsp(&ctx, json!({"action": "status", "path": "main.fk"})).await;
    assert!(status.contains("\"pull_diagnostics\": true"), "{status}");
    mgr.shutdown().await;
}

#[tokio::test]
async fn server_edits_are_applied_only_for_a_command_zut_runs() {
    let Some((dir, ws, ctx, mgr)) = workspace("edits") else {
        return;
    };
    let main = ws.join("main.fk");
    // Opening the file makes the server send an edit nobody asked for.
    let (err, text) = lsp(&ctx, json!({"action": "diagnostics", "path": "main.fk"})).await;
    assert!(!err, "{text}");
    let mut declined = Value::Null;
    for _ in 0..100 {
        let seen = stats(&ctx).await;
        if let Some(answer) = seen["replies"]
            .as_object()
            .and_then(|r| r.iter().find(|(k, _)| k.starts_with('u')))
        {
            declined = answer.1.clone();
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(declined["applied"], false, "{declined}");
    assert!(
        declined["failureReason"]
            .as_str()
            .is_some_and(|r| r.contains("only while its lsp tool runs")),
        "{declined}"
    );
    assert_eq!(
        std::fs::read_to_string(&main).unwrap(),
        "let abc = 1\nERR here\n"
    );

    // A code action that is a command: its edit arrives as
    // workspace/applyEdit and is written.
    let (err, text) = lsp(
        &ctx,
        json!({"action": "code_actions", "path": "main.fk", "line": 2, "column": 1, "apply": true}),
    )
    .await;
    assert!(!err, "{text}");
    assert!(
        text.contains("Applying \"Fix through a command\" from fake."),
        "{text}"
    );
    assert!(text.contains("+OK  here"), "{text}");
    assert!(
        text.contains("Applied 1 workspace edit(s) from fake."),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(&main).unwrap(),
        "let abc = 1\nOK  here\n"
    );

    // The same path refuses a file outside the workspace: nothing written,
    // the server told why, the call an error.
    let (err, text) = lsp(
        &ctx,
        json!({"action": "code_actions", "path": "main.fk", "line": 1, "column": 1,
               "apply": true, "query": "escape"}),
    )
    .await;
    assert!(err, "{text}");
    assert!(text.contains("outside the workspace"), "{text}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("outside.fk")).unwrap(),
        "untouched\n"
    );
    let seen = stats(&ctx).await;
    let refused = seen["replies"]
        .as_object()
        .and_then(|r| {
            r.values().find(|v| {
                v["applied"] == false
                    && v["failureReason"]
                        .as_str()
                        .is_some_and(|f| f.contains("outside"))
            })
        })
        .cloned();
    assert!(refused.is_some(), "{seen}");
    mgr.shutdown().await;
}

/// `--no-yolo`: the confirmation shows what a rename would write, and
/// what an applied code action would do, before anything is written.
#[tokio::test]
async fn previews_show_a_rename_diff_and_a_command_without_writing() {
    let Some((_d, ws, ctx, mgr)) = workspace("edits") else {
        return;
    };
    let main = ws.join("main.fk");
    let rename =
        json!({"action": "rename", "path": "main.fk", "line": 1, "column": 5, "new_name": "xyz"});
    let shown = zut_tools::preview_builtin("lsp", &rename, &ctx)
        .await
        .unwrap();
    assert!(
        shown.contains("-let abc = 1") && shown.contains("+let xyz = 1"),
        "{shown}"
    );
    let fix =
        json!({"action": "code_actions", "path": "main.fk", "line": 2, "column": 1, "apply": true});
    let shown = zut_tools::preview_builtin("lsp", &fix, &ctx).await.unwrap();
    assert!(shown.contains("runs fake's command fake.fix"), "{shown}");
    // Nothing written by either; reading calls have no preview.
    assert_eq!(
        std::fs::read_to_string(&main).unwrap(),
        "let abc = 1\nERR here\n"
    );
    let look = json!({"action": "definition", "path": "main.fk", "line": 1, "column": 5});
    assert_eq!(zut_tools::preview_builtin("lsp", &look, &ctx).await, None);
    let listed = json!({"action": "code_actions", "path": "main.fk", "line": 2, "column": 1});
    assert_eq!(zut_tools::preview_builtin("lsp", &listed, &ctx).await, None);
    mgr.shutdown().await;
}
