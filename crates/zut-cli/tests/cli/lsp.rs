//! The `lsp` tool and the diagnostics attached after edits, end to end:
//! the real `zut --json` binary against the local LLM server with
//! scripted tool calls, and real language servers (rust-analyzer,
//! pyright or pylsp, typescript-language-server) on small fixture
//! projects. A missing server skips its test with a message, unless `CI`
//! is set (then it fails): `.ci/run` installs them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;

use common::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};

/// Whether `program` is on `PATH`; else skip (or fail under CI).
fn have(program: &str) -> bool {
    let found = std::env::var_os("PATH").is_some_and(|p| {
        std::env::split_paths(&p).any(|d| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(d.join(program))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    });
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{program} is not installed but CI is set (.ci/run installs it)"
        );
        eprintln!("skipping: {program} is not installed");
    }
    found
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Runs one `zut --json` prompt whose model calls `calls` in order (one
/// tool call per step), then answers "done". Returns each tool result's
/// `(is_error, text)`.
async fn run_calls(env: &TestEnv, calls: &[(&str, Value)]) -> Vec<(bool, String)> {
    let server = LlmServer::start().await.unwrap();
    for (i, (name, args)) in calls.iter().enumerate() {
        server.push(Script::anthropic_tool_call(
            format!("t{i}"),
            *name,
            args.to_string(),
        ));
    }
    server.push(Script::anthropic_text("done"));
    let cmd = llm_cmd(env, &server.url(), &["--no-ext", "--json", "go"]);
    let r = output_blocking(cmd).await;
    assert_eq!(r.code, 0, "{r:?}");
    let results: Vec<(bool, String)> = r
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "tool_result")
        .map(|e| {
            let text = e["content"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|c| c["text"].as_str())
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .unwrap_or_default();
            (e["is_error"] == true, text)
        })
        .collect();
    assert_eq!(results.len(), calls.len(), "{}", r.stdout);
    results
}

fn ok(r: &(bool, String)) -> &str {
    assert!(!r.0, "tool failed: {}", r.1);
    &r.1
}

#[tokio::test]
async fn rust_analyzer_definition_references_rename_and_diagnostics_after_edit() {
    if !have("rust-analyzer") {
        return;
    }
    // The rustup proxy exists without the component: it must run.
    let runs = std::process::Command::new("rust-analyzer")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !runs {
        assert!(
            std::env::var_os("CI").is_none(),
            "rust-analyzer does not run"
        );
        eprintln!("skipping: rust-analyzer does not run (rustup component add rust-analyzer)");
        return;
    }
    let env = TestEnv::new();
    let p = &env.project;
    write(
        p,
        "Cargo.toml",
        "[package]\nname = \"fx\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
    );
    write(
        p,
        "src/lib.rs",
        "pub fn greet(name: &str) -> String {\n    format!(\"hello {name}\")\n}\n\npub fn twice() -> String {\n    greet(\"a\") + &greet(\"b\")\n}\n",
    );
    let r = run_calls(
        &env,
        &[
            ("lsp", json!({"action": "diagnostics", "path": "src/lib.rs", "timeout_ms": 120000})),
            ("lsp", json!({"action": "definition", "path": "src/lib.rs", "line": 6, "column": 5, "timeout_ms": 60000})),
            ("lsp", json!({"action": "references", "path": "src/lib.rs", "line": 1, "column": 8, "timeout_ms": 60000})),
            ("lsp", json!({"action": "rename", "path": "src/lib.rs", "line": 1, "column": 8, "new_name": "salute", "timeout_ms": 60000})),
            ("edit", json!({"path": "src/lib.rs", "edits": [{"oldText": "salute(\"a\")", "newText": "salute(\"a\", 2)"}]})),
            ("lsp", json!({"action": "status", "path": "src/lib.rs"})),
        ],
    )
    .await;
    // rust-analyzer offers pull diagnostics: they were asked for.
    let status: Value = serde_json::from_str(ok(&r[5])).unwrap();
    assert_eq!(status[0]["id"], "rust-analyzer", "{status}");
    assert_eq!(status[0]["pull_diagnostics"], true, "{status}");
    ok(&r[0]);
    assert!(
        ok(&r[1]).contains("src/lib.rs:1:8: pub fn greet(name: &str) -> String {"),
        "{}",
        r[1].1
    );
    let refs = ok(&r[2]);
    assert!(refs.contains("3 location(s)"), "{refs}");
    assert!(refs.contains("src/lib.rs:6:5"), "{refs}");
    let rename = ok(&r[3]);
    assert!(
        rename.contains("+pub fn salute(name: &str) -> String {"),
        "{rename}"
    );
    assert!(
        rename.contains("Applied 1 workspace edit(s) from rust-analyzer."),
        "{rename}"
    );
    assert!(
        rename.contains("+    salute(\"a\") + &salute(\"b\")"),
        "{rename}"
    );
    let lib = std::fs::read_to_string(p.join("src/lib.rs")).unwrap();
    assert!(lib.contains("salute(\"a\", 2) + &salute(\"b\")"), "{lib}");
    let edit = ok(&r[4]);
    assert!(edit.contains("Diagnostics: 1 error"), "{edit}");
    assert!(edit.contains("- ERROR: src/lib.rs:6:"), "{edit}");
}

/// Definition, references, rename and diagnostics after an edit on a
/// small Python project, served by `server` (`lsp_json`: the project's
/// lsp.json, to pick it).
async fn python_project(server: &str, lsp_json: Option<&str>) {
    let env = TestEnv::new();
    let p = &env.project;
    write(
        p,
        "pyproject.toml",
        "[project]\nname = \"fx\"\nversion = \"0.1.0\"\n",
    );
    write(p, "pkg.py", "def add(a, b):\n    return a + b\n");
    write(p, "main.py", "from pkg import add\n\nprint(add(1, 2))\n");
    if let Some(cfg) = lsp_json {
        write(p, "lsp.json", cfg);
    }
    let r = run_calls(
        &env,
        &[
            ("lsp", json!({"action": "status", "path": "main.py"})),
            ("lsp", json!({"action": "diagnostics", "path": "main.py", "timeout_ms": 60000})),
            ("lsp", json!({"action": "definition", "path": "main.py", "line": 3, "column": 7})),
            ("lsp", json!({"action": "references", "path": "pkg.py", "line": 1, "column": 5})),
            ("lsp", json!({"action": "rename", "path": "pkg.py", "line": 1, "column": 5, "new_name": "plus"})),
            ("edit", json!({"path": "main.py", "edits": [{"oldText": "print(", "newText": "print(undefined_name, "}]})),
            ("lsp", json!({"action": "status", "path": "main.py"})),
        ],
    )
    .await;
    // pyright registers pull diagnostics after start; pylsp publishes.
    let status: Value = serde_json::from_str(ok(&r[6])).unwrap();
    let row = status
        .as_array()
        .and_then(|rows| rows.iter().find(|row| row["id"] == server))
        .unwrap_or_else(|| panic!("{status}"));
    assert_eq!(
        row["pull_diagnostics"],
        server == "pyright-langserver",
        "{status}"
    );
    assert!(
        ok(&r[0]).contains(&format!("\"id\": \"{server}\"")),
        "{}",
        r[0].1
    );
    assert_eq!(ok(&r[1]), "No diagnostics.", "{server}");
    assert!(
        ok(&r[2]).contains("pkg.py:1:5: def add(a, b):"),
        "{}",
        r[2].1
    );
    let refs = ok(&r[3]);
    assert!(refs.contains("main.py:3:7"), "{refs}");
    assert!(refs.contains("main.py:1:17"), "{refs}");
    let rename = ok(&r[4]);
    assert!(rename.contains("+def plus(a, b):"), "{rename}");
    assert!(rename.contains("+from pkg import plus"), "{rename}");
    assert!(rename.contains("+print(plus(1, 2))"), "{rename}");
    let edit = ok(&r[5]);
    assert!(edit.contains("- ERROR: main.py:3:7"), "{server}: {edit}");
    assert!(edit.contains("undefined_name"), "{edit}");
    assert_eq!(
        std::fs::read_to_string(p.join("main.py")).unwrap(),
        "from pkg import plus\n\nprint(undefined_name, plus(1, 2))\n"
    );
}

#[tokio::test]
async fn pyright_definition_references_rename_and_diagnostics_after_edit() {
    if have("pyright-langserver") {
        python_project("pyright-langserver", None).await;
    }
}

#[tokio::test]
async fn pylsp_definition_references_rename_and_diagnostics_after_edit() {
    // pyright disabled: pylsp, its built-in stand-in, serves.
    if have("pylsp") {
        let cfg = r#"{"servers": {"pyright-langserver": {"disabled": true}}}"#;
        python_project("pylsp", Some(cfg)).await;
    }
}

#[tokio::test]
async fn typescript_definition_references_rename_and_diagnostics_after_edit() {
    if !have("typescript-language-server") {
        return;
    }
    let env = TestEnv::new();
    let p = &env.project;
    write(
        p,
        "package.json",
        "{\"name\": \"fx\", \"version\": \"1.0.0\"}\n",
    );
    write(p, "tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"target\": \"es2020\", \"module\": \"commonjs\"}}\n");
    write(
        p,
        "a.ts",
        "export function greet(name: string): string {\n  return \"hi \" + name;\n}\n",
    );
    write(
        p,
        "b.ts",
        "import { greet } from \"./a\";\n\nconsole.log(greet(\"x\"));\n",
    );
    let r = run_calls(
        &env,
        &[
            ("lsp", json!({"action": "diagnostics", "path": "b.ts", "timeout_ms": 60000})),
            ("lsp", json!({"action": "definition", "path": "b.ts", "line": 3, "column": 13})),
            ("lsp", json!({"action": "references", "path": "a.ts", "line": 1, "column": 17})),
            ("lsp", json!({"action": "rename", "path": "a.ts", "line": 1, "column": 17, "new_name": "welcome"})),
            ("edit", json!({"path": "b.ts", "edits": [{"oldText": "console.log(", "newText": "const n: number = \"s\";\nconsole.log(n, "}]})),
            ("write", json!({"path": "c.ts", "content": "console.log(welcome(\"y\"));\n"})),
            ("lsp", json!({"action": "code_actions", "path": "c.ts", "line": 1, "column": 13})),
            ("lsp", json!({"action": "code_actions", "path": "c.ts", "line": 1, "column": 13, "apply": true})),
        ],
    )
    .await;
    assert_eq!(ok(&r[0]), "No diagnostics.");
    assert!(
        ok(&r[1]).contains("a.ts:1:17: export function greet(name: string): string {"),
        "{}",
        r[1].1
    );
    let refs = ok(&r[2]);
    assert!(refs.contains("b.ts:3:13"), "{refs}");
    let rename = ok(&r[3]);
    assert!(
        rename.contains("+export function welcome(name: string): string {"),
        "{rename}"
    );
    assert!(std::fs::read_to_string(p.join("b.ts"))
        .unwrap()
        .contains("welcome(\"x\")"));
    let edit = ok(&r[4]);
    assert!(edit.contains("- ERROR: b.ts:3:7 [2322]"), "{edit}");
    // A missing import: the diagnostic comes back as the code action's
    // context, so the quick fix is offered, then applied.
    assert!(
        ok(&r[5]).contains("- ERROR: c.ts:1:13 [2304]"),
        "{}",
        r[5].1
    );
    let listed = ok(&r[6]);
    assert!(listed.contains("(quickfix) [edit"), "{listed}");
    assert!(listed.contains("welcome"), "{listed}");
    let applied = ok(&r[7]);
    assert!(
        applied.contains("Applied 1 workspace edit(s) from typescript-language-server."),
        "{applied}"
    );
    let c = std::fs::read_to_string(p.join("c.ts")).unwrap();
    assert!(c.contains("import { welcome } from \"./a\";"), "{c}");
}

/// A code action that is a command (typescript-language-server's
/// refactorings): zut runs it with `workspace/executeCommand` and applies
/// the `workspace/applyEdit` the server sends meanwhile, through the same
/// checked write path as a rename, then reports the diff.
#[tokio::test]
async fn typescript_refactoring_command_edits_arrive_through_apply_edit() {
    if !have("typescript-language-server") {
        return;
    }
    let env = TestEnv::new();
    let p = &env.project;
    write(
        p,
        "package.json",
        "{\"name\": \"fx\", \"version\": \"1.0.0\"}\n",
    );
    write(
        p,
        "tsconfig.json",
        "{\"compilerOptions\": {\"strict\": true}}\n",
    );
    write(p, "a.ts", "export const inc = (x: number) => x + 1;\n");
    let r = run_calls(
        &env,
        &[
            ("lsp", json!({"action": "code_actions", "path": "a.ts", "line": 1, "column": 32, "timeout_ms": 60000})),
            ("lsp", json!({"action": "code_actions", "path": "a.ts", "line": 1, "column": 32, "apply": true, "query": "braces", "timeout_ms": 60000})),
        ],
    )
    .await;
    let listed = ok(&r[0]);
    assert!(listed.contains("[command]"), "{listed}");
    assert!(listed.to_lowercase().contains("braces"), "{listed}");
    let applied = ok(&r[1]);
    assert!(
        applied.contains("Applied 1 workspace edit(s) from typescript-language-server."),
        "{applied}"
    );
    assert!(applied.contains("+++ "), "a diff: {applied}");
    let a = std::fs::read_to_string(p.join("a.ts")).unwrap();
    assert!(a.contains("return x + 1;"), "{a}");
}

/// A CLI linter with `runOnStartup` (pyflakes, through the generic
/// `path:line:col: message` parser) runs over the workspace when zut
/// starts: what it found is not reported as new after an edit, and
/// `diagnostics` without a path lists it, also for files never opened.
#[tokio::test]
async fn a_linter_run_at_startup_is_the_baseline_of_edits() {
    // The interpreter that has pyflakes, by absolute path (command lookup
    // walks up to `/bin`, which may hold another python3).
    let python = std::process::Command::new("python3")
        .args(["-c", "import pyflakes, sys; print(sys.executable)"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let Some(python) = python else {
        assert!(
            std::env::var_os("CI").is_none(),
            "pyflakes is required in CI"
        );
        eprintln!("skipping: no pyflakes (pip install pyflakes)");
        return;
    };
    let env = TestEnv::new();
    let p = &env.project;
    // It leaves `.lint-done` behind, so the turn can wait for the startup
    // run before editing (an edit made while it runs is no baseline).
    let script = format!("{python} -m pyflakes \"$@\"; rc=$?; touch .lint-done; exit $rc");
    let cfg = json!({"linters": {"flakes": {
        "command": ["sh", "-c", script, "flakes"], "fileTypes": ["py"],
        "mode": "files", "runOnStartup": true}}});
    write(p, "lsp.json", &cfg.to_string());
    write(p, "old.py", "import os\n");
    write(p, "main.py", "import sys\n\nprint(1)\n");
    let r = run_calls(
        &env,
        &[
            ("bash", json!({"command": "while [ ! -e .lint-done ]; do sleep 0.05; done", "timeout": 60})),
            ("edit", json!({"path": "main.py", "edits": [{"oldText": "print(1)", "newText": "print(undefined_name)"}]})),
            ("lsp", json!({"action": "diagnostics"})),
            ("lsp", json!({"action": "status"})),
        ],
    )
    .await;
    let edit = ok(&r[1]);
    assert!(edit.contains("undefined name 'undefined_name'"), "{edit}");
    assert!(
        !edit.contains("'sys' imported but unused"),
        "known at startup: {edit}"
    );
    assert!(
        edit.contains("(1 previously reported diagnostics unchanged)"),
        "{edit}"
    );
    let all = ok(&r[2]);
    assert!(all.starts_with("Diagnostics: 3 warnings"), "{all}");
    assert!(
        all.contains("old.py:1:1"),
        "never opened, linted at startup: {all}"
    );
    let status: Value = serde_json::from_str(ok(&r[3])).unwrap();
    let row = status
        .as_array()
        .and_then(|rows| rows.iter().find(|row| row["id"] == "flakes"))
        .unwrap_or_else(|| panic!("{status}"));
    assert_eq!(row["startup"]["state"], "done", "{row}");
    assert_eq!(row["startup"]["findings"], 2, "{row}");
}

#[tokio::test]
async fn no_lsp_removes_the_tool_and_the_diagnostics() {
    let env = TestEnv::new();
    write(&env.project, "x.txt", "a\n");
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "t0",
        "lsp",
        r#"{"action":"status"}"#,
    ));
    server.push(Script::anthropic_text("done"));
    let cmd = llm_cmd(
        &env,
        &server.url(),
        &["--no-ext", "--no-lsp", "--json", "go"],
    );
    let r = output_blocking(cmd).await;
    assert_eq!(r.code, 0, "{r:?}");
    let req = &server.requests()[0];
    assert!(
        !req.raw_body.contains("\"name\":\"lsp\""),
        "lsp advertised under --no-lsp"
    );
    assert!(
        r.stdout.contains("unknown tool")
            || r.stdout.contains("not available")
            || r.stdout.contains("\"is_error\":true"),
        "{}",
        r.stdout
    );
    // `--tools lsp` advertises only lsp.
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("ok"));
    let cmd = llm_cmd(
        &env,
        &server.url(),
        &["--no-ext", "--tools", "lsp", "-p", "go"],
    );
    let r = output_blocking(cmd).await;
    assert_eq!(r.code, 0, "{r:?}");
    let body = &server.requests()[0].raw_body;
    assert!(body.contains("\"name\":\"lsp\""), "{body}");
    assert!(!body.contains("\"name\":\"read\""), "{body}");
}

/// Whether process `pid` is gone (or a zombie awaiting its parent).
fn gone(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(s) => s
            .rsplit_once(')')
            .is_some_and(|(_, r)| r.trim_start().starts_with('Z')),
    }
}

#[tokio::test]
async fn servers_stop_with_zut_and_lsp_json_is_honoured() {
    if !have("python3") {
        return;
    }
    let env = TestEnv::new();
    let p = &env.project;
    let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("../zut-lsp/tests/fixtures/fake_lsp.py");
    let pids = p.join("pids.txt");
    let cfg = json!({"servers": {"fake": {
        "command": ["python3", fake.to_str().unwrap(), "ok"],
        "fileTypes": ["fk"],
        "env": {"ZUT_FAKE_PID_FILE": pids.to_str().unwrap()}
    }}});
    write(p, ".zut/lsp.json", &cfg.to_string());
    write(p, "main.fk", "let abc = 1\n");
    let r = run_calls(
        &env,
        &[
            (
                "lsp",
                json!({"action": "definition", "path": "main.fk", "line": 1, "column": 5}),
            ),
            (
                "write",
                json!({"path": "main.fk", "content": "let abc = 1\nERR\n"}),
            ),
        ],
    )
    .await;
    assert!(ok(&r[0]).contains("main.fk:1:5: let abc = 1"), "{}", r[0].1);
    assert!(
        ok(&r[1]).contains("- ERROR: main.fk:2:1 [E1] fake error here"),
        "{}",
        r[1].1
    );
    let text = std::fs::read_to_string(&pids).unwrap();
    let pid = text.lines().next().unwrap().to_string();
    assert_eq!(text.lines().count(), 1, "one server, kept warm: {text}");
    // zut has exited: its server must not outlive it.
    let mut dead = false;
    for _ in 0..50 {
        if gone(&pid) {
            dead = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(dead, "language server {pid} outlived zut");
}
