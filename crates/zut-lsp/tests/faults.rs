//! Fault tests with small fake language servers written in Python
//! (`fixtures/fake_lsp.py`): a missing server, one that crashes at start,
//! hangs on `initialize`, floods diagnostics, sends malformed JSON-RPC, or
//! dies after starting (restart with backoff). Real processes, real files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;
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

/// A workspace with `lsp.json` naming the fake server in `mode` for `.fk`
/// files, and a `main.fk`.
fn workspace(mode: &str) -> Option<(tempfile::TempDir, ToolContext, LspManager)> {
    let Some(py) = python() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 is required in CI"
        );
        eprintln!("skipping: no python3");
        return None;
    };
    let dir = tempfile::tempdir().unwrap();
    let cfg = json!({"servers": {"fake": {
        "command": [py, fake_script().to_str().unwrap(), mode],
        "fileTypes": ["fk"]
    }}});
    std::fs::write(dir.path().join("lsp.json"), cfg.to_string()).unwrap();
    std::fs::write(dir.path().join("main.fk"), "let abc = 1\nERR here\n").unwrap();
    let opts = Options {
        start_timeout: Duration::from_secs(5),
        ..Options::default()
    };
    let mgr = LspManager::new(dir.path(), None, opts);
    let ctx = ToolContext::new(dir.path()).with_lsp(mgr.handle());
    Some((dir, ctx, mgr))
}

async fn lsp(ctx: &ToolContext, args: serde_json::Value) -> (bool, String) {
    let out = run_builtin("lsp", &args, ctx).await;
    (out.is_error, out.text_content())
}

#[tokio::test]
async fn working_fake_server_reports_and_navigates() {
    let Some((_d, ctx, mgr)) = workspace("ok") else {
        return;
    };
    let (err, text) = lsp(&ctx, json!({"action": "diagnostics", "path": "main.fk"})).await;
    assert!(!err, "{text}");
    assert_eq!(
        text,
        "Diagnostics: 1 error\n- ERROR: main.fk:2:1 [E1] fake error here"
    );
    let (err, text) = lsp(
        &ctx,
        json!({"action": "definition", "path": "main.fk", "line": 1, "column": 5}),
    )
    .await;
    assert!(!err, "{text}");
    assert!(text.contains("main.fk:1:5: let abc = 1"), "{text}");
    mgr.shutdown().await;
}

#[tokio::test]
async fn missing_server_names_it_and_how_to_install() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = json!({"servers": {"ghost": {"command": "zut-no-such-server-xyz", "fileTypes": ["fk"], "install": "pip install ghost-lsp"}}});
    std::fs::write(dir.path().join("lsp.json"), cfg.to_string()).unwrap();
    std::fs::write(dir.path().join("a.fk"), "x\n").unwrap();
    let mgr = LspManager::new(dir.path(), None, Options::default());
    let ctx = ToolContext::new(dir.path()).with_lsp(mgr.handle());
    let (err, text) = lsp(
        &ctx,
        json!({"action": "definition", "path": "a.fk", "line": 1, "column": 1}),
    )
    .await;
    assert!(err);
    assert!(
        text.contains(
            "language server ghost is not installed: command \"zut-no-such-server-xyz\" not found"
        ),
        "{text}"
    );
    assert!(
        text.contains("Install it with: pip install ghost-lsp"),
        "{text}"
    );
    // A built-in's hint: rust-analyzer for a Cargo project when not on PATH.
    std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname='x'\n").unwrap();
    std::fs::write(dir.path().join("lib.rs"), "fn main() {}\n").unwrap();
    let cfg = json!({"rust-analyzer": {"command": "zut-missing-rust-analyzer"}});
    std::fs::write(dir.path().join("lsp.json"), cfg.to_string()).unwrap();
    let (_, _) = lsp(&ctx, json!({"action": "reload"})).await;
    let (err, text) = lsp(
        &ctx,
        json!({"action": "hover", "path": "lib.rs", "line": 1, "column": 4}),
    )
    .await;
    assert!(err);
    assert!(
        text.contains("rustup component add rust-analyzer"),
        "{text}"
    );
}

#[tokio::test]
async fn crash_at_start_is_reported_with_its_stderr() {
    let Some((_d, ctx, _mgr)) = workspace("crash") else {
        return;
    };
    let (err, text) = lsp(
        &ctx,
        json!({"action": "definition", "path": "main.fk", "line": 1, "column": 1}),
    )
    .await;
    assert!(err, "{text}");
    assert!(text.contains("fake"), "{text}");
    assert!(text.contains("cannot load the project model"), "{text}");
    // The next call is refused until the backoff passes, saying so.
    let (err, text) = lsp(
        &ctx,
        json!({"action": "definition", "path": "main.fk", "line": 1, "column": 1}),
    )
    .await;
    assert!(err);
    assert!(text.contains("next restart attempt in"), "{text}");
}

#[tokio::test]
async fn hang_on_initialize_is_bounded() {
    let Some((_d, ctx, _mgr)) = workspace("hang") else {
        return;
    };
    let (err, text) = lsp(
        &ctx,
        json!({"action": "definition", "path": "main.fk", "line": 1, "column": 1, "timeout_ms": 800}),
    )
    .await;
    assert!(err, "{text}");
    assert!(
        text.contains("fake is still starting (no answer to initialize yet)"),
        "{text}"
    );
}

#[tokio::test]
async fn start_timeout_kills_a_hung_server() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let cfg = json!({"servers": {"fake": {"command": [py, fake_script().to_str().unwrap(), "hang"], "fileTypes": ["fk"]}}});
    std::fs::write(dir.path().join("lsp.json"), cfg.to_string()).unwrap();
    std::fs::write(dir.path().join("m.fk"), "x\n").unwrap();
    let opts = Options {
        start_timeout: Duration::from_millis(500),
        ..Options::default()
    };
    let mgr = LspManager::new(dir.path(), None, opts);
    let ctx = ToolContext::new(dir.path()).with_lsp(mgr.handle());
    let (err, text) = lsp(
        &ctx,
        json!({"action": "definition", "path": "m.fk", "line": 1, "column": 1}),
    )
    .await;
    assert!(err);
    assert!(
        text.contains("fake did not answer initialize within 500 ms"),
        "{text}"
    );
}

#[tokio::test]
async fn flooding_server_is_bounded() {
    let Some((_d, ctx, mgr)) = workspace("flood") else {
        return;
    };
    let (err, text) = lsp(
        &ctx,
        json!({"action": "diagnostics", "path": "main.fk", "max": 5}),
    )
    .await;
    assert!(!err, "{text}");
    // 1 000 kept for the file (1 error + 999 infos), five lines shown.
    assert!(text.starts_with("Diagnostics: 1 error, 999 info"), "{text}");
    assert!(text.contains("... truncated;"), "{text}");
    assert!(text.lines().count() <= 8, "{text}");
    let running = mgr.running();
    assert_eq!(running.len(), 1);
    // Other files: capped at MAX_DIAGNOSTIC_FILES.
    assert!(running[0].diagnostics(None).len() <= 1000 + zut_lsp::client::MAX_DIAGNOSTIC_FILES);
    assert!(running[0].dropped_files() > 0);
    mgr.shutdown().await;
}

#[tokio::test]
async fn malformed_messages_are_skipped_and_the_server_still_works() {
    let Some((_d, ctx, mgr)) = workspace("malformed") else {
        return;
    };
    let (err, text) = lsp(&ctx, json!({"action": "diagnostics", "path": "main.fk"})).await;
    assert!(!err, "{text}");
    assert!(text.contains("fake error here"), "{text}");
    let (err, text) = lsp(
        &ctx,
        json!({"action": "definition", "path": "main.fk", "line": 1, "column": 5}),
    )
    .await;
    assert!(!err, "{text}");
    assert!(text.contains("main.fk:1:5"), "{text}");
    assert!(mgr.running()[0].malformed_count() >= 4);
    mgr.shutdown().await;
}

#[tokio::test]
async fn broken_framing_ends_the_connection_with_a_clear_error() {
    let Some((_d, ctx, _mgr)) = workspace("badframe") else {
        return;
    };
    let (err, text) = lsp(
        &ctx,
        json!({"action": "definition", "path": "main.fk", "line": 1, "column": 1}),
    )
    .await;
    assert!(err, "{text}");
    assert!(text.contains("malformed JSON-RPC framing"), "{text}");
}

#[tokio::test]
async fn crashed_server_is_restarted() {
    let Some((_d, ctx, _mgr)) = workspace("die-after-init") else {
        return;
    };
    let (err, text) = lsp(
        &ctx,
        json!({"action": "definition", "path": "main.fk", "line": 1, "column": 1}),
    )
    .await;
    assert!(err, "{text}");
    assert!(text.contains("fake stopped"), "{text}");
    // First crash: restarted at once (a new process, which dies again).
    let (err, text) = lsp(
        &ctx,
        json!({"action": "definition", "path": "main.fk", "line": 1, "column": 1}),
    )
    .await;
    assert!(err, "{text}");
    assert!(text.contains("fake stopped"), "{text}");
    // Second crash: backoff.
    let (err, text) = lsp(
        &ctx,
        json!({"action": "definition", "path": "main.fk", "line": 1, "column": 1}),
    )
    .await;
    assert!(err);
    assert!(text.contains("next restart attempt in 1 s"), "{text}");
}

#[tokio::test]
async fn edits_get_new_diagnostics_only_once() {
    let Some((dir, ctx, mgr)) = workspace("ok") else {
        return;
    };
    let out = run_builtin(
        "write",
        &json!({"path": "new.fk", "content": "ERR one\nWARN two\n"}),
        &ctx,
    )
    .await;
    let text = out.text_content();
    assert!(!out.is_error, "{text}");
    assert!(
        text.contains("Diagnostics: 1 error, 1 warning\n- ERROR: new.fk:1:1 [E1] fake error here\n- WARNING: new.fk:2:1 fake warning"),
        "{text}"
    );
    // The same problems again: not repeated; a count line says so.
    let out = run_builtin(
        "edit",
        &json!({"path": "new.fk", "edits": [{"oldText": "one", "newText": "uno"}]}),
        &ctx,
    )
    .await;
    let text = out.text_content();
    assert!(!text.contains("Diagnostics:"), "{text}");
    // Rename applies through the safe path and returns a diff.
    let (err, text) = lsp(
        &ctx,
        json!({"action": "rename", "path": "main.fk", "line": 1, "column": 5, "new_name": "xyz"}),
    )
    .await;
    assert!(!err, "{text}");
    assert!(text.contains("-let abc = 1\n+let xyz = 1"), "{text}");
    assert!(
        text.contains("Applied 1 workspace edit(s) from fake."),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("main.fk")).unwrap(),
        "let xyz = 1\nERR here\n"
    );
    mgr.shutdown().await;
}

#[tokio::test]
async fn cli_linters_run_with_the_servers() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    // A linter printing ruff-style JSON for lines containing BAD.
    let lint = r#"
import json, sys
out = []
for f in sys.argv[1:]:
    for i, line in enumerate(open(f).read().split("\n")):
        if "BAD" in line:
            out.append({"code": "X1", "message": "bad word in %d chars" % len(line), "filename": f,
                        "location": {"row": i + 1, "column": line.index("BAD") + 1}})
print(json.dumps(out))
"#;
    let cfg = json!({
        "fake": {"command": [py, fake_script().to_str().unwrap(), "ok"], "fileTypes": ["fk"]},
        "mylint": {"kind": "cli", "command": [py, "-c", lint], "parser": "ruff-json", "fileTypes": ["fk"]},
        "ghostlint": {"kind": "cli", "command": "zut-no-such-linter", "parser": "generic", "fileTypes": ["zz"]}
    });
    std::fs::write(dir.path().join("lsp.json"), cfg.to_string()).unwrap();
    std::fs::write(dir.path().join("a.fk"), "ok\n  BAD\nERR\n").unwrap();
    std::fs::write(dir.path().join("b.zz"), "x\n").unwrap();
    let mgr = LspManager::new(dir.path(), None, Options::default());
    let ctx = ToolContext::new(dir.path()).with_lsp(mgr.handle());
    let (err, text) = lsp(&ctx, json!({"action": "diagnostics", "path": "a.fk"})).await;
    assert!(!err, "{text}");
    assert_eq!(
        text,
        "Diagnostics: 1 error, 1 warning\n- ERROR: a.fk:3:1 [E1] fake error here\n- WARNING: a.fk:2:3 [X1] bad word in 5 chars"
    );
    let (_, text) = lsp(
        &ctx,
        json!({"action": "diagnostics", "path": "a.fk", "run_cli": false}),
    )
    .await;
    assert!(!text.contains("bad word"), "{text}");
    // After an edit the linter's new finding is attached too.
    let out = run_builtin(
        "write",
        &json!({"path": "a.fk", "content": "ok\n  BAD\nERR\nBAD again\n"}),
        &ctx,
    )
    .await;
    let text = out.text_content();
    assert!(
        text.contains("Diagnostics: 1 warning\n- WARNING: a.fk:4:1 [X1] bad word in 9 chars"),
        "{text}"
    );
    assert!(
        text.contains("(2 previously reported diagnostics unchanged)"),
        "{text}"
    );
    // A linter named in lsp.json but missing is reported.
    let (err, text) = lsp(&ctx, json!({"action": "diagnostics", "path": "b.zz"})).await;
    assert!(err, "{text}");
    assert!(text.contains("linter ghostlint is not installed"), "{text}");
    mgr.shutdown().await;
}
