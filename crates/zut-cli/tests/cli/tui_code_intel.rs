//! Code-intelligence results in the interactive TUI end to end (the real
//! binary in tmux, the local LLM server, a real language-server process:
//! zut-lsp's fake server fixture): the diagnostics attached after a
//! `write` are a list under the tool box, and an `lsp` definition is a
//! `path:line:col` row; an `ast` rewrite is a per-file diff like `edit`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;

use common::tmux::*;
use common::*;
use serde_json::json;
use zut_llm_server::{LlmServer, Script};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diagnostics_after_a_write_and_lsp_locations_in_the_tui() {
    if !have_tmux() {
        return;
    }
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: no python3");
        return;
    }
    let env = TestEnv::new();
    let p = &env.project;
    let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("../zut-lsp/tests/fixtures/fake_lsp.py");
    let cfg = json!({"servers": {"fake": {
        "command": ["python3", fake.to_str().unwrap(), "ok"],
        "fileTypes": ["fk"]
    }}});
    std::fs::create_dir_all(p.join(".zut")).unwrap();
    std::fs::write(p.join(".zut/lsp.json"), cfg.to_string()).unwrap();
    std::fs::write(p.join("main.fk"), "let abc = 1\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "t1",
        "write",
        json!({"path": "main.fk", "content": "let abc = 1\nERR\n"}).to_string(),
    ));
    server.push(Script::anthropic_tool_call(
        "t2",
        "lsp",
        json!({"action": "definition", "path": "main.fk", "line": 1, "column": 5}).to_string(),
    ));
    // An ast rewrite (the embedded engine, no server needed).
    std::fs::write(p.join("lib.rs"), "fn f() {\n    old(1);\n}\n").unwrap();
    server.push(Script::anthropic_tool_call(
        "t3",
        "ast",
        json!({"pattern": "old($A)", "rewrite": "new($A)", "path": "lib.rs", "language": "rust"})
            .to_string(),
    ));
    server.push(Script::anthropic_text("Checked."));
    let t = Tmux::start(&env, &server, &["--no-ext"], 100, 40);
    started(&t);
    t.typ("write it");
    t.keys(&["Enter"]);
    let s = t.wait_for("Checked.", 30);
    // The write box, then the list under it (not inside the frame).
    let lines: Vec<&str> = s.lines().collect();
    let done = lines
        .iter()
        .position(|l| l.contains("└─ done"))
        .unwrap_or_else(|| panic!("no finished box:\n{s}"));
    assert!(
        lines[done + 1]
            .trim_start()
            .starts_with("diagnostics: 1 error"),
        "{s}"
    );
    assert!(
        lines[done + 2]
            .trim_start()
            .starts_with("✗ main.fk:2:1  fake error here [E1]"),
        "{s}"
    );
    // The definition: the location first on its row, the source after.
    assert!(s.contains("┌─ lsp definition main.fk:1:5"), "{s}");
    assert!(s.contains("│   main.fk:1:5  let abc = 1"), "{s}");
    // The rewrite: a file row, then the hunk numbered with the file's lines.
    assert!(s.contains("┌─ ast old($A) → new($A) in lib.rs"), "{s}");
    assert!(s.contains("│ lib.rs "), "{s}");
    assert!(s.contains("│ -    2     old(1);"), "{s}");
    assert!(s.contains("│ +    2     new(1);"), "{s}");
    assert_eq!(
        std::fs::read_to_string(p.join("lib.rs")).unwrap(),
        "fn f() {\n    new(1);\n}\n"
    );
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}
