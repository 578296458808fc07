//! The `lsp` tool under the jail: paths outside the readable scopes are
//! refused with the rule named, and a workspace edit (rename) that would
//! write outside the writable scopes is refused whole, nothing written.
//! Real fake server process (`fixtures/fake_lsp.py`), real files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use zut_lsp::{LspManager, Options};
use zut_sandbox::{JailSpec, Network, Policy, Prepared};
use zut_tools::{run_builtin, ToolContext};

fn python() -> Option<&'static str> {
    ["python3", "python"].into_iter().find(|p| {
        std::process::Command::new(p)
            .args(["-c", "pass"])
            .status()
            .is_ok_and(|s| s.success())
    })
}

async fn lsp(ctx: &ToolContext, args: serde_json::Value) -> (bool, String) {
    let out = run_builtin("lsp", &args, ctx).await;
    (out.is_error, out.text_content())
}

#[tokio::test]
async fn jailed_lsp_refuses_secret_paths_and_edits_outside_the_writable_scopes() {
    let Some(py) = python() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 is required in CI"
        );
        eprintln!("skipping: no python3");
        return;
    };
    // Outside /tmp: the jail makes /tmp writable.
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(&base).unwrap();
    let dir = tempfile::Builder::new()
        .prefix("lsp-jail-")
        .tempdir_in(&base)
        .unwrap();
    let root = dir.path().canonicalize().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fake_lsp.py");
    let cfg = json!({"servers": {"fake": {
        "command": [py, script.to_str().unwrap(), "ok"],
        "fileTypes": ["fk"]
    }}});
    std::fs::write(root.join("lsp.json"), cfg.to_string()).unwrap();
    // The jail's session directory is `inner`; the root is readable only,
    // `vault` is secret.
    for d in ["inner", "vault"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    std::fs::write(root.join("outer.fk"), "let abc = 1\n").unwrap();
    std::fs::write(root.join("inner/main.fk"), "let abc = 1\n").unwrap();
    std::fs::write(root.join("vault/key.fk"), "let secret = 1\nERR\n").unwrap();
    let spec = JailSpec {
        cwd: root.join("inner"),
        home: None,
        zut_home: None,
        extra_secrets: vec![root.join("vault")],
        extra_writable: Vec::new(),
        network: Network::None,
    };
    let jail = Arc::new(Prepared::new(Policy::jail(&spec)).unwrap());
    let opts = Options {
        start_timeout: Duration::from_secs(5),
        ..Options::default()
    };
    let mgr = LspManager::new(&root, None, opts);
    let ctx = ToolContext::new(&root)
        .with_lsp(mgr.handle())
        .with_jail(Some(jail));

    // A secret file: refused before any server sees it.
    let (err, text) = lsp(
        &ctx,
        json!({"action": "diagnostics", "path": "vault/key.fk"}),
    )
    .await;
    assert!(err, "{text}");
    assert!(
        text.contains("denied by the jail (secret location"),
        "{text}"
    );
    let (err, text) = lsp(&ctx, json!({"action": "diagnostics", "path": "vault/*.fk"})).await;
    assert!(err && text.contains("secret location"), "{text}");
    assert!(!text.contains("let secret"), "{text}");
    let (err, text) = lsp(
        &ctx,
        json!({"action": "hover", "path": "vault/key.fk", "line": 1, "column": 5}),
    )
    .await;
    assert!(err && text.contains("secret location"), "{text}");

    // Readable but not writable: navigation works, a rename is refused
    // whole and the file is untouched.
    let (err, text) = lsp(
        &ctx,
        json!({"action": "definition", "path": "outer.fk", "line": 1, "column": 5}),
    )
    .await;
    assert!(!err, "{text}");
    let (err, text) = lsp(
        &ctx,
        json!({"action": "rename", "path": "outer.fk", "line": 1, "column": 5, "new_name": "xyz"}),
    )
    .await;
    assert!(err, "{text}");
    assert!(
        text.contains("denied by the jail (writable:") && text.contains("nothing was written"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("outer.fk")).unwrap(),
        "let abc = 1\n"
    );

    // Inside the session directory the rename is applied.
    let (err, text) = lsp(
        &ctx,
        json!({"action": "rename", "path": "inner/main.fk", "line": 1, "column": 5, "new_name": "xyz"}),
    )
    .await;
    assert!(!err, "{text}");
    assert_eq!(
        std::fs::read_to_string(root.join("inner/main.fk")).unwrap(),
        "let xyz = 1\n"
    );
    mgr.shutdown().await;
}

/// A jailed model can write `lsp.json` in its workspace: the servers and
/// CLI linters it names must run inside the jail, not with zut's
/// privileges. After `/unjail` they start again, unconfined.
#[tokio::test]
async fn servers_and_linters_run_inside_the_jail_and_restart_when_it_changes() {
    let status = zut_sandbox::status();
    if !status.enforced() {
        assert!(
            std::env::var_os("CI").is_none(),
            "the jail is not enforced here: {}",
            status.line()
        );
        eprintln!("skipping: {}", status.line());
        return;
    }
    let Some(py) = python() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 is required in CI"
        );
        return;
    };
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(&base).unwrap();
    let dir = tempfile::Builder::new()
        .prefix("lsp-jail-")
        .tempdir_in(&base)
        .unwrap();
    let root = dir.path().canonicalize().unwrap();
    let ws = root.join("ws");
    let outside = root.join("outside");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fake_lsp.py");
    let server_mark = outside.join("server.txt");
    let linter_mark = outside.join("linter.txt");
    let server = format!(
        "echo escaped > '{}' 2>/dev/null; exec '{py}' '{}' ok",
        server_mark.display(),
        script.display()
    );
    let lint = format!(
        "import json\ntry:\n    open({:?}, 'w').write('escaped')\nexcept OSError:\n    pass\nprint(json.dumps([]))\n",
        linter_mark.display().to_string()
    );
    let cfg = json!({
        "fake": {"command": ["sh", "-c", server], "fileTypes": ["fk"]},
        "mylint": {"kind": "cli", "command": [py, "-c", lint], "parser": "ruff-json", "fileTypes": ["fk"]}
    });
    std::fs::write(ws.join("lsp.json"), cfg.to_string()).unwrap();
    std::fs::write(ws.join("a.fk"), "ok\nERR\n").unwrap();
    let spec = JailSpec {
        cwd: ws.clone(),
        home: None,
        zut_home: None,
        extra_secrets: Vec::new(),
        extra_writable: Vec::new(),
        network: Network::None,
    };
    let jail = Arc::new(Prepared::new(Policy::jail(&spec)).unwrap());
    let mgr = LspManager::new(&ws, None, Options::default());
    let jailed = ToolContext::new(&ws)
        .with_lsp(mgr.handle())
        .with_jail(Some(jail));
    let (err, text) = lsp(&jailed, json!({"action": "diagnostics", "path": "a.fk"})).await;
    assert!(!err, "{text}");
    assert!(text.contains("a.fk:2:1 [E1] fake error here"), "{text}");
    assert!(
        !server_mark.exists(),
        "a language server named in lsp.json wrote outside the jail"
    );
    assert!(
        !linter_mark.exists(),
        "a CLI linter named in lsp.json wrote outside the jail"
    );
    // The running server was started jailed; after /unjail it is replaced.
    let unjailed = ToolContext::new(&ws).with_lsp(mgr.handle());
    let (err, text) = lsp(&unjailed, json!({"action": "diagnostics", "path": "a.fk"})).await;
    assert!(!err, "{text}");
    assert!(
        server_mark.exists() && linter_mark.exists(),
        "unjailed, the server and the linter run unconfined again"
    );
    mgr.shutdown().await;
}

/// A server's own `workspace/applyEdit` (sent while zut runs its command)
/// goes through the jail like a rename: a file outside the writable
/// scopes is refused with the rule named and left untouched.
#[tokio::test]
async fn jailed_server_edits_outside_the_writable_scopes_are_refused() {
    let Some(py) = python() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 is required in CI"
        );
        eprintln!("skipping: no python3");
        return;
    };
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(&base).unwrap();
    let dir = tempfile::Builder::new()
        .prefix("lsp-jail-")
        .tempdir_in(&base)
        .unwrap();
    let root = dir.path().canonicalize().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fake_lsp.py");
    let cfg = json!({"servers": {"fake": {
        "command": [py, script.to_str().unwrap(), "edits"],
        "fileTypes": ["fk"]
    }}});
    std::fs::write(root.join("lsp.json"), cfg.to_string()).unwrap();
    std::fs::create_dir_all(root.join("inner")).unwrap();
    std::fs::write(root.join("outer.fk"), "ERR here\n").unwrap();
    std::fs::write(root.join("inner/main.fk"), "ERR here\n").unwrap();
    let spec = JailSpec {
        cwd: root.join("inner"),
        home: None,
        zut_home: None,
        extra_secrets: Vec::new(),
        extra_writable: Vec::new(),
        network: Network::None,
    };
    let jail = Arc::new(Prepared::new(Policy::jail(&spec)).unwrap());
    let opts = Options {
        start_timeout: Duration::from_secs(5),
        ..Options::default()
    };
    let mgr = LspManager::new(&root, None, opts);
    let ctx = ToolContext::new(&root)
        .with_lsp(mgr.handle())
        .with_jail(Some(jail));
    let fix = |path: &str| json!({"action": "code_actions", "path": path, "line": 1, "column": 1, "apply": true});
    let (err, text) = lsp(&ctx, fix("outer.fk")).await;
    assert!(err, "{text}");
    assert!(
        text.contains("the server's edit (fix) was refused")
            && text.contains("denied by the jail (writable:"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("outer.fk")).unwrap(),
        "ERR here\n"
    );
    let (err, text) = lsp(&ctx, fix("inner/main.fk")).await;
    assert!(!err, "{text}");
    assert_eq!(
        std::fs::read_to_string(root.join("inner/main.fk")).unwrap(),
        "OK  here\n"
    );
    mgr.shutdown().await;
}
