//! Code-intelligence results in the transcript (issue 21): diagnostics
//! attached after an edit as a compact coloured list under the tool box,
//! `ast` rewrites and `lsp` renames as per-file diffs numbered like
//! `edit`, `lsp` locations as `path:line:col` (copyable: never cut, the
//! path in the accent colour). The texts are the tools' own (zut-lsp's
//! `summarize`, the unified diffs of zut-ast and zut-lsp).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::app;
use ratatui::style::Modifier;
use ratatui::text::Line;
use serde_json::{json, Value};
use zut_tui::app::App;
use zut_tui::theme::{ColorDepth, Theme};
use zut_tui::tool_view::ToolCell;
use zut_types::{AgentEvent, JsonBlock};

fn call(a: &mut App, name: &str, args: Value, is_error: bool, result: &str) -> String {
    a.agent(&AgentEvent::ToolCall {
        id: name.into(),
        name: name.into(),
        args,
    });
    a.agent(&AgentEvent::ToolResult {
        id: name.into(),
        is_error,
        content: vec![JsonBlock::Text {
            text: result.into(),
        }],
    });
    a.transcript
        .take_rows()
        .iter()
        .map(|l| l.to_string().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

const EDIT_WITH_DIAGNOSTICS: &str = "Edited src/lib.rs (1 replacement).\n\n--- src/lib.rs\n+++ src/lib.rs\n@@ -4,3 +4,3 @@\n pub fn answer() -> u32 {\n-    42\n+    \"forty-two\"\n }\n\n\nDiagnostics: 1 error, 2 warnings\n- ERROR: src/lib.rs:5:5 [E0308] mismatched types: expected `u32`, found `&str`, and this message is long enough to wrap under itself\n- WARNING: src/lib.rs:9:9 [unused_variables] unused variable: `x`\n- WARNING: repeated 3 occurrences in src/main.rs (lines: 2, 3, 4) [dead_code] function is never used (examples: src/main.rs)\n(1 previously reported diagnostics unchanged)";

#[test]
fn diagnostics_after_an_edit_are_a_list_under_the_box() {
    let mut a = app(72, 12);
    let rows = call(
        &mut a,
        "edit",
        json!({"path": "src/lib.rs", "edits": []}),
        false,
        EDIT_WITH_DIAGNOSTICS,
    );
    // The diff stops before the diagnostics (they are not diff lines).
    assert!(!rows.contains("     9 Diagnostics"), "{rows}");
    insta::assert_snapshot!(rows);
}

/// The style of the first span containing `needle` in `rows`.
fn style_of(rows: &[Line<'static>], needle: &str) -> ratatui::style::Style {
    rows.iter()
        .flat_map(|l| l.spans.iter())
        .find(|s| s.content.contains(needle))
        .unwrap_or_else(|| panic!("no span with {needle:?}"))
        .style
}

#[test]
fn diagnostics_are_coloured_by_severity_and_locations_stand_out() {
    let theme = Theme::new(ColorDepth::Ansi16);
    let mut cell = ToolCell::new("e".into(), "edit".into());
    cell.args = json!({"path": "src/lib.rs"});
    cell.finish(false, EDIT_WITH_DIAGNOSTICS);
    let rows = cell.rows(72, &theme, false);
    assert_eq!(style_of(&rows, "diagnostics: 1 error"), theme.error);
    assert_eq!(style_of(&rows, "✗"), theme.error);
    assert_eq!(style_of(&rows, "⚠"), theme.warn);
    let loc = style_of(&rows, "src/lib.rs:5:5");
    assert_eq!(loc.fg, theme.accent.fg);
    assert!(loc.add_modifier.contains(Modifier::UNDERLINED));
    assert_eq!(style_of(&rows, "[E0308]"), theme.dim);
    assert_eq!(style_of(&rows, "previously reported"), theme.dim);
    // Only warnings: the header is yellow.
    let mut w = ToolCell::new("w".into(), "write".into());
    w.args = json!({"path": "a.py", "content": "x = 1\n"});
    w.finish(
        false,
        "Wrote a.py (6 bytes).\n\nDiagnostics: 1 warning\n- WARNING: a.py:1:1 unused",
    );
    let rows = w.rows(60, &theme, false);
    assert_eq!(style_of(&rows, "diagnostics: 1 warning"), theme.warn);
    // A failed call shows its text as it is, in red.
    let mut f = ToolCell::new("f".into(), "edit".into());
    f.finish(true, "Diagnostics: not a list\n- ERROR: x:1:1 y");
    let rows = f.rows(60, &theme, false);
    assert!(!rows.iter().any(|l| l.to_string().contains("diagnostics:")));
}

#[test]
fn ast_rewrites_and_lsp_renames_are_file_diffs() {
    let mut a = app(72, 12);
    let ast = call(
        &mut a,
        "ast",
        json!({"pattern": "old($$$A)", "rewrite": "new($$$A)", "path": "src"}),
        false,
        "Rewrote 2 matches in 2 files.\n\n--- src/a.rs\n+++ src/a.rs\n@@ -10,3 +10,3 @@\n fn f() {\n-    old(1);\n+    new(1);\n }\n--- src/b.rs\n+++ src/b.rs\n@@ -1,1 +1,1 @@\n-old(2)\n+new(2)\n",
    );
    let rename = call(
        &mut a,
        "lsp",
        json!({"action": "rename", "path": "src/a.rs", "line": 3, "column": 4, "new_name": "total"}),
        false,
        "rust-analyzer:\n  src/a.rs: 2 edit(s)\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -2,3 +2,3 @@\n fn main() {\n-    let sum = 1;\n+    let total = 1;\n }\n\nApplied 1 workspace edit(s) from rust-analyzer.\n\nDiagnostics: 1 error\n- ERROR: src/a.rs:4:20 [E0425] cannot find value `sum` in this scope",
    );
    insta::assert_snapshot!(format!("{ast}\n=== rename ===\n{rename}"));
}

#[test]
fn lsp_locations_are_copyable_paths() {
    let mut a = app(72, 14);
    let refs = call(
        &mut a,
        "lsp",
        json!({"action": "references", "path": "src/lib.rs", "line": 4, "column": 8}),
        false,
        "rust-analyzer:\n  3 location(s)\n  src/lib.rs:4:8: pub fn answer() -> u32 {\n  src/main.rs:2:20: println!(\"{}\", lib::answer());\n  tests/it.rs:5:13: assert_eq!(answer(), 42);",
    );
    let diags = call(
        &mut a,
        "lsp",
        json!({"action": "diagnostics", "path": "*"}),
        false,
        "Diagnostics: 1 error, 1 hint\n- ERROR: src/lib.rs:5:5 [E0308] mismatched types\n- HINT: src/lib.rs:1:1 consider importing",
    );
    insta::assert_snapshot!(format!("{refs}\n=== diagnostics action ===\n{diags}"));
    let theme = Theme::new(ColorDepth::Ansi16);
    let mut cell = ToolCell::new("l".into(), "lsp".into());
    cell.finish(false, "rust-analyzer:\n  src/main.rs:2:20: println!()");
    let rows = cell.rows(72, &theme, false);
    let loc = style_of(&rows, "src/main.rs:2:20");
    assert_eq!(loc.fg, theme.accent.fg);
    assert_eq!(style_of(&rows, "println!()"), theme.dim);
    // The location is one span, never cut.
    assert!(rows
        .iter()
        .flat_map(|l| l.spans.iter())
        .any(|s| s.content == "src/main.rs:2:20"));
}
