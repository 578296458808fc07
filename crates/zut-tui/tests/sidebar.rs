//! The widget sidebar on wide terminals, the Ctrl+B fallback above the
//! editor and the narrow-terminal fallback, as insta snapshots of the live
//! area on ratatui's `TestBackend`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::live;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use zut_tui::app::App;
use zut_tui::history::History;
use zut_tui::theme::{ColorDepth, Theme};
use zut_tui::{view, wrap, Status};
use zut_types::AgentEvent;

fn app(w: u16, h: u16) -> App {
    let status = Status {
        provider: "fake".into(),
        model: "gpt-5".into(),
        cwd: "~/project".into(),
        ..Default::default()
    };
    App::new(
        Theme::new(ColorDepth::None),
        (w, h),
        status,
        History::default(),
    )
}

fn ctrl_b(app: &mut App) {
    app.key(
        &KeyEvent::new(KeyCode::Char('b'), KeyModifiers::CONTROL),
        Instant::now(),
    );
}

fn phases(position: &str) -> AgentEvent {
    AgentEvent::ExtWidget {
        extension: "tasked-phases".into(),
        id: "plan".into(),
        position: position.into(),
        title: "p 0/3 | t 1/5".into(),
        lines: vec![
            "[>] Scaffold  1/2".into(),
            " [x] create repo".into(),
            " [>] write go.mod".into(),
            String::new(),
            "[ ] Implement  0/2".into(),
            " [ ] agent loop".into(),
            " [ ] tests".into(),
        ],
    }
}

#[test]
fn right_bar_widget_in_the_sidebar_then_above_the_editor_after_ctrl_b() {
    let mut a = app(100, 16);
    a.agent(&phases("right_bar"));
    a.agent(&AgentEvent::ExtStatus {
        extension: "tasked-phases".into(),
        key: "progress".into(),
        level: "info".into(),
        text: "p 0/3 | t 1/5".into(),
    });
    a.editor.insert("Plan the work");
    let side = live(&mut a);
    // The live area never writes past the last column (the Go original's
    // sidebar wiped the first column of the next row).
    let l = view::compose(&mut a, Instant::now());
    for r in &l.rows {
        assert!(wrap::line_width(r) <= 100, "{r}");
    }
    // The editor's cursor stays in the chat column, after the text.
    let (cx, _) = l.cursor.unwrap();
    assert_eq!(cx, 15);
    ctrl_b(&mut a);
    assert!(a.sidebar_hidden);
    assert_eq!(a.editor.text(), "Plan the work", "Ctrl+B took the key");
    let above = live(&mut a);
    ctrl_b(&mut a);
    let back = live(&mut a);
    assert_eq!(back, side);
    insta::assert_snapshot!(format!("{side}\n=== ctrl+b ===\n{above}"));
}

#[test]
fn narrow_terminals_and_above_input_widgets_stay_above_the_editor() {
    let mut a = app(70, 14);
    a.agent(&phases("right_bar"));
    let narrow = live(&mut a);
    assert!(!narrow.contains('│'), "{narrow}");
    assert!(narrow.contains("[tasked-phases] p 0/3 | t 1/5"));
    let mut b = app(120, 14);
    b.agent(&phases("above_input"));
    let wide = live(&mut b);
    assert!(!wide.contains('│'), "{wide}");
    insta::assert_snapshot!(format!("{narrow}\n=== above_input at 120 ===\n{wide}"));
}

#[test]
fn ctrl_b_without_widgets_moves_the_cursor_and_the_sidebar_is_bounded() {
    let mut a = app(100, 12);
    a.editor.insert("ab");
    ctrl_b(&mut a);
    assert!(!a.sidebar_hidden);
    assert_eq!(
        a.editor.cursor(),
        1,
        "Ctrl+B is cursor-left without widgets"
    );
    // 10,000 lines in the sidebar: cut to the screen, last row says so.
    a.agent(&AgentEvent::ExtWidget {
        extension: "flood".into(),
        id: "w".into(),
        position: "right_bar".into(),
        title: "big".into(),
        lines: (0..10_000).map(|i| format!("line {i}")).collect(),
    });
    let s = live(&mut a);
    assert!(s.contains("more rows"), "{s}");
    let l = view::compose(&mut a, Instant::now());
    assert!(l.rows.len() <= 12);
    // The owner exits: the sidebar goes, the chat gets its width back.
    a.agent(&AgentEvent::ExtChromeClear {
        extension: "flood".into(),
    });
    assert!(!live(&mut a).contains('│'));
}

#[test]
fn load_error_at_start_keeps_its_lines_and_a_summary_row_until_clear() {
    let mut a = app(90, 12);
    let msg = "Extension broken failed to start.\n\n  exec: \"./does-not-exist\" (declared language: \"go\")\n  error: fork/exec /home/u/.zut/extensions/broken/does-not-exist: no such file or directory\n  extension directory: /home/u/.zut/extensions/broken\n  stderr log: /home/u/.zut/logs/ext-broken.log";
    zut_tui::load_errors::show(&mut a, &[msg.to_string()]);
    let scrollback: Vec<String> = a
        .transcript
        .take_rows()
        .iter()
        .map(|r| r.to_string())
        .collect();
    let screen = live(&mut a);
    insta::assert_snapshot!(format!("{}\n=== live ===\n{screen}", scrollback.join("\n")));
    // A reload without errors takes the summary away.
    zut_tui::load_errors::show(&mut a, &[]);
    assert!(!live(&mut a).contains("failed to load"));
    zut_tui::load_errors::show(&mut a, &[msg.to_string()]);
    a.editor.insert("/clear");
    a.key(
        &KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
        Instant::now(),
    );
    assert!(!live(&mut a).contains("failed to load"));
}
