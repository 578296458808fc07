//! Every visible state of the TUI as an insta snapshot: the rows sent to
//! the scrollback, then the live area drawn on ratatui's `TestBackend`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::app;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::json;
use zut_tui::app::{App, Effect};
use zut_tui::{view, CommandInfo};
use zut_types::JsonBlock;
use zut_types::{AgentEvent, UsageCounts, UsageEvent};

/// Scrollback rows since the last call, then the live area.
fn screen(app: &mut App) -> String {
    let (w, h) = app.size;
    let rows: Vec<String> = app
        .transcript
        .take_rows()
        .iter()
        .map(|l| l.to_string().trim_end().to_string())
        .collect();
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| {
        let area = f.area();
        view::render(app, area, f.buffer_mut());
    })
    .unwrap();
    format!(
        "--- scrollback ---\n{}\n--- live ---\n{}",
        rows.join("\n"),
        term.backend()
    )
}

fn key(app: &mut App, code: KeyCode, mods: KeyModifiers) -> Vec<Effect> {
    app.key(&KeyEvent::new(code, mods), Instant::now())
}

fn typ(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c), KeyModifiers::NONE);
    }
}

fn text(t: &str) -> Vec<JsonBlock> {
    vec![JsonBlock::Text { text: t.into() }]
}

#[test]
fn start_screen() {
    let mut a = app(60, 12);
    insta::assert_snapshot!(screen(&mut a));
}

#[test]
fn typing_multi_line() {
    let mut a = app(60, 12);
    typ(&mut a, "first line");
    key(&mut a, KeyCode::Enter, KeyModifiers::ALT);
    typ(&mut a, "second");
    insta::assert_snapshot!(screen(&mut a));
}

#[test]
fn streamed_answer_while_busy_with_a_queued_prompt() {
    let mut a = app(60, 16);
    typ(&mut a, "hello");
    let fx = key(&mut a, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(fx, vec![Effect::Prompt("hello".into())]);
    a.agent(&AgentEvent::UserMessage {
        content: text("hello"),
        time: String::new(),
    });
    a.agent(&AgentEvent::AssistantStart);
    for d in [
        "# Greet",
        "ing\n\nHello **there**, ",
        "this is stream",
        "ing",
    ] {
        a.agent(&AgentEvent::TextDelta { delta: d.into() });
    }
    typ(&mut a, "next question");
    assert!(key(&mut a, KeyCode::Enter, KeyModifiers::NONE).is_empty());
    a.status.busy_since = None; // no elapsed time in the snapshot
    a.status.activity = None;
    insta::assert_snapshot!(screen(&mut a));
}

#[test]
fn finished_answer_usage_and_the_next_queued_prompt_starts() {
    let mut a = app(60, 12);
    a.enqueue("one".into());
    a.enqueue("two".into());
    a.agent(&AgentEvent::AssistantStart);
    a.agent(&AgentEvent::TextDelta {
        delta: "Answer with `code`.".into(),
    });
    a.agent(&AgentEvent::Usage(UsageEvent {
        this: UsageCounts {
            input: 1200,
            output: 34,
            cache_read: 800,
            ..Default::default()
        },
        cumulative: UsageCounts::default(),
    }));
    a.agent(&AgentEvent::AssistantMessage {
        content: text("Answer with `code`."),
        time: String::new(),
    });
    assert!(a.agent(&AgentEvent::Done).is_empty());
    let fx = a.job_finished();
    assert_eq!(fx, vec![Effect::Prompt("two".into())]);
    a.status.busy_since = None;
    insta::assert_snapshot!(screen(&mut a));
}

#[test]
fn tool_call_running_then_collapsed() {
    let mut a = app(70, 24);
    a.enqueue("list".into());
    a.agent(&AgentEvent::ToolUseStart {
        id: "c1".into(),
        name: "bash".into(),
    });
    a.agent(&AgentEvent::ToolCall {
        id: "c1".into(),
        name: "bash".into(),
        args: json!({"command": "ls /", "timeout": 5}),
    });
    a.agent(&AgentEvent::ToolExecutionStarted {
        id: "c1".into(),
        name: "bash".into(),
    });
    a.agent(&AgentEvent::ToolProgress {
        id: "c1".into(),
        text: "bin\nboot\n\u{1b}[31mred\u{1b}[0m\tand\u{7}bell\n".into(),
    });
    a.status.busy_since = None;
    let running = screen(&mut a);
    let out: String = (1..=25).map(|i| format!("line {i}\n")).collect();
    a.agent(&AgentEvent::ToolResult {
        id: "c1".into(),
        is_error: false,
        content: text(&out),
    });
    let done = screen(&mut a);
    key(&mut a, KeyCode::Char('o'), KeyModifiers::CONTROL);
    let expanded = screen(&mut a);
    insta::assert_snapshot!(format!(
        "{running}\n=== done ===\n{done}\n=== ctrl+o ===\n{expanded}"
    ));
}

#[test]
fn edit_tool_diff_uses_file_line_numbers_and_errors_are_red_text() {
    let mut a = app(70, 10);
    a.agent(&AgentEvent::ToolCall {
        id: "e".into(),
        name: "edit".into(),
        args: json!({"path": "src/main.rs", "edits": []}),
    });
    a.agent(&AgentEvent::ToolResult {
        id: "e".into(),
        is_error: false,
        content: text("Edited src/main.rs (1 replacement).\n\n--- src/main.rs\n+++ src/main.rs\n@@ -41,3 +41,3 @@\n fn a() {\n-    old();\n+    new();\n }\n"),
    });
    a.agent(&AgentEvent::ToolCall {
        id: "r".into(),
        name: "read".into(),
        args: json!({"path": "missing.txt"}),
    });
    a.agent(&AgentEvent::ToolResult {
        id: "r".into(),
        is_error: true,
        content: text("Cannot read missing.txt: no such file"),
    });
    a.agent(&AgentEvent::TurnEnd {
        stop: "error",
        error: Some("provider failed mid-stream: connection reset".into()),
    });
    insta::assert_snapshot!(screen(&mut a));
}

/// Extension commands like the Go original's example extensions, and one
/// skill.
fn extension_commands() -> Vec<CommandInfo> {
    let ext = |name: &str, description: &str, extension: &str| CommandInfo {
        name: name.into(),
        description: description.into(),
        extension: Some(extension.into()),
    };
    vec![
        ext("hello", "say hello (optional name)", "hello-ext"),
        ext("note", "append text to the scratchpad", "notes"),
        ext("notes", "show the scratchpad", "notes"),
        ext("now", "show the current local time", "clock"),
        ext("todo", "open a persistent todo panel", "todo"),
        ext("skill:gopher", "Go patterns", "skill"),
    ]
}

#[test]
fn slash_popup_filters_with_extension_commands() {
    let mut a = app(70, 30);
    a.set_extension_commands(extension_commands());
    typ(&mut a, "/");
    let all = screen(&mut a);
    // Every section is in sight as soon as `/` is typed.
    for row in ["── extensions", "/hello", "── skills", "/skill:gopher"] {
        assert!(all.contains(row), "{row} missing:\n{all}");
    }
    typ(&mut a, "h");
    // /help, /theme and /orchestrator (built-ins) come first.
    for _ in 0..3 {
        key(&mut a, KeyCode::Down, KeyModifiers::NONE);
    }
    let filtered = screen(&mut a);
    insta::assert_snapshot!(format!("{all}\n=== /h, down ×3 ===\n{filtered}"));
    let fx = key(&mut a, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(
        fx,
        vec![Effect::Command {
            name: "hello".into(),
            args: String::new()
        }]
    );
}

#[test]
fn slash_popup_puts_the_section_with_the_best_match_first() {
    let mut a = app(70, 16);
    a.set_extension_commands(extension_commands());
    typ(&mut a, "/no");
    let shown = screen(&mut a);
    insta::assert_snapshot!(shown);
    // Tab completes the best match, at the top.
    key(&mut a, KeyCode::Tab, KeyModifiers::NONE);
    assert_eq!(a.editor.text(), "/note ");
}

#[test]
fn help_lists_commands_and_keys() {
    let mut a = app(80, 8);
    typ(&mut a, "/help");
    key(&mut a, KeyCode::Enter, KeyModifiers::NONE);
    insta::assert_snapshot!(screen(&mut a));
}

#[test]
fn notes_and_quit_confirmation() {
    let mut a = app(60, 12);
    a.agent(&AgentEvent::ExtNotify {
        extension: "guard".into(),
        level: "warn".into(),
        message: "careful \u{1b}[2Jnow".into(),
    });
    let fx = key(&mut a, KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(fx.is_empty());
    insta::assert_snapshot!(screen(&mut a));
    let fx = key(&mut a, KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(fx, vec![Effect::Quit]);
}

#[test]
fn terminal_of_20x5_says_too_small() {
    let mut a = app(20, 5);
    typ(&mut a, "still typing works");
    insta::assert_snapshot!(screen(&mut a));
}

#[test]
fn a_megabyte_reply_on_one_line_renders_in_bounded_rows() {
    let mut a = app(80, 24);
    a.agent(&AgentEvent::AssistantStart);
    let chunk = "abcdefghi ";
    let mut rows = 0;
    for _ in 0..100_000 {
        a.agent(&AgentEvent::TextDelta {
            delta: chunk.into(),
        });
        rows += a.transcript.take_rows().len();
    }
    let live = view::compose(&mut a, Instant::now());
    assert!(live.rows.len() <= 24);
    a.agent(&AgentEvent::Done);
    rows += a.transcript.take_rows().len();
    assert!(rows > 12_000, "{rows}");
}

#[test]
fn esc_aborts_a_running_turn_and_ctrl_d_quits_on_empty_input() {
    let mut a = app(60, 12);
    a.enqueue("long".into());
    assert_eq!(
        key(&mut a, KeyCode::Esc, KeyModifiers::NONE),
        vec![Effect::Abort]
    );
    typ(&mut a, "x");
    assert!(key(&mut a, KeyCode::Char('d'), KeyModifiers::CONTROL).is_empty());
    key(&mut a, KeyCode::Backspace, KeyModifiers::NONE);
    assert_eq!(
        key(&mut a, KeyCode::Char('d'), KeyModifiers::CONTROL),
        vec![Effect::Quit]
    );
}

#[test]
fn pasting_10_mb_keeps_the_editor_bounded() {
    let mut a = app(80, 24);
    let big = "0123456789abcdef\n".repeat(10 * 1024 * 1024 / 17);
    a.paste(&big);
    let live = view::compose(&mut a, Instant::now());
    assert!(live.rows.len() <= 24);
    assert_eq!(a.editor.text().len(), big.len());
}

#[test]
fn at_file_picker_lists_and_inserts_a_path() {
    let mut a = app(60, 14);
    typ(&mut a, "look at ");
    let fx = key(&mut a, KeyCode::Char('@'), KeyModifiers::NONE);
    assert_eq!(fx, vec![Effect::ListFiles, Effect::ListMentions]);
    a.files = Some(vec![
        "Cargo.toml".into(),
        "src/lib.rs".into(),
        "src/main.rs".into(),
        "tests/main_test.rs".into(),
    ]);
    typ(&mut a, "main");
    insta::assert_snapshot!(screen(&mut a));
    key(&mut a, KeyCode::Down, KeyModifiers::NONE);
    key(&mut a, KeyCode::Tab, KeyModifiers::NONE);
    assert_eq!(a.editor.text(), "look at tests/main_test.rs ");
    // A second @ does not list the files again (the MCP resources are
    // asked again: servers become ready).
    assert_eq!(
        key(&mut a, KeyCode::Char('@'), KeyModifiers::NONE),
        vec![Effect::ListMentions]
    );
    a.mentions = vec!["@docs:config://main".into()];
    typ(&mut a, "main");
    let shown = a.file_picker().unwrap().1;
    assert!(
        shown.contains(&"@docs:config://main".to_string()),
        "{shown:?}"
    );
    assert!(shown.contains(&"src/main.rs".to_string()), "{shown:?}");
}
