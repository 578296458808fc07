//! Extension surfaces (protocol.md §12) as insta snapshots of the live area
//! on ratatui's `TestBackend`, and their key and ownership rules.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{app, live};
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use zut_protocol::PanelContent;
use zut_tui::app::{App, Effect};
use zut_tui::history::History;
use zut_tui::theme::{ColorDepth, Theme};
use zut_tui::{view, Status};
use zut_types::AgentEvent;

fn key(app: &mut App, code: KeyCode, mods: KeyModifiers) -> Vec<Effect> {
    app.key(&KeyEvent::new(code, mods), Instant::now())
}

fn notify(ext: &str, level: &str, message: &str) -> AgentEvent {
    AgentEvent::ExtNotify {
        extension: ext.into(),
        level: level.into(),
        message: message.into(),
    }
}

#[test]
fn notes_by_level_owned_and_cleared_per_extension() {
    let mut a = app(60, 12);
    a.agent(&notify("hello", "info", "the daemon stirs"));
    a.agent(&notify("hello", "success", "two\nlines"));
    a.agent(&notify("guard", "warn", "careful \u{1b}]0;x\u{7}now"));
    a.agent(&notify("guard", "error", "blocked [hello] text"));
    let all = live(&mut a);
    a.agent(&AgentEvent::ExtClearNotes {
        extension: "hello".into(),
    });
    let after = live(&mut a);
    insta::assert_snapshot!(format!("{all}\n=== hello clear_notes ===\n{after}"));
    // Ownership is explicit: guard's note mentioning "[hello] " stays.
    assert!(after.contains("blocked [hello] text"));
    key(&mut a, KeyCode::Esc, KeyModifiers::NONE);
    assert!(a.notes.is_empty());
}

#[test]
fn seven_status_items_are_cut_to_six_rows() {
    let mut a = app(60, 14);
    for i in 0..7 {
        a.agent(&AgentEvent::ExtStatus {
            extension: if i % 2 == 0 { "b-ext" } else { "a-ext" }.into(),
            key: format!("k{i}"),
            level: ["info", "warn", "error", "success"][i % 4].into(),
            text: format!("status {i}\nsecond line"),
        });
    }
    insta::assert_snapshot!(live(&mut a));
    // Empty text removes an item.
    a.agent(&AgentEvent::ExtStatus {
        extension: "a-ext".into(),
        key: "k1".into(),
        level: "info".into(),
        text: " ".into(),
    });
    assert!(!live(&mut a).contains("status 1"));
}

#[test]
fn widgets_are_bounded_to_twelve_rows() {
    let mut a = app(60, 24);
    a.agent(&AgentEvent::ExtWidget {
        extension: "phases".into(),
        id: "plan".into(),
        position: "right_bar".into(),
        title: "p 0/3 | t 1/5".into(),
        lines: (0..12).map(|i| format!("[ ] task {i}")).collect(),
    });
    insta::assert_snapshot!(live(&mut a));
    a.agent(&AgentEvent::ExtWidgetClear {
        extension: "phases".into(),
        id: "plan".into(),
    });
    assert!(!live(&mut a).contains("task 0"));
    // 10,000 lines, some of 1 MB, are cut, never drawn whole.
    let huge = "y".repeat(1 << 20);
    let mut lines = vec![huge; 20];
    lines.extend((0..10_000).map(|i| format!("line {i}")));
    a.agent(&AgentEvent::ExtWidget {
        extension: "flood".into(),
        id: "w".into(),
        position: String::new(),
        title: "big".into(),
        lines,
    });
    let s = live(&mut a);
    assert!(s.contains("extension widgets truncated"), "{s}");
}

#[test]
fn panel_with_selection_footer_keys_in_order_and_close() {
    let mut a = app(60, 20);
    a.agent(&AgentEvent::ExtPanelOpen {
        extension: "todo".into(),
        panel: PanelContent {
            id: "todos".into(),
            title: "Todos".into(),
            lines: vec![
                "▸ write tests".into(),
                "  ✓ ship it".into(),
                "  \u{1b}[31mred\u{1b}[0m".into(),
            ],
            footer: "a add · d done · esc close".into(),
        },
    });
    let open = live(&mut a);
    insta::assert_snapshot!(open);
    let mut keys = Vec::new();
    for c in "write tests".chars() {
        keys.extend(key(&mut a, KeyCode::Char(c), KeyModifiers::NONE));
    }
    keys.extend(key(&mut a, KeyCode::Down, KeyModifiers::NONE));
    let typed: String = keys
        .iter()
        .filter_map(|e| match e {
            Effect::PanelKey { key, text, .. } if key == "rune" => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(typed, "write tests");
    assert!(matches!(keys.last(), Some(Effect::PanelKey { key, .. }) if key == "down"));
    assert!(
        a.editor.is_empty(),
        "keys went to the panel, not the editor"
    );
    // A render for another panel is ignored; for this one it applies.
    a.agent(&AgentEvent::ExtPanelRender {
        extension: "todo".into(),
        panel_id: "other".into(),
        title: String::new(),
        lines: vec!["nope".into()],
        footer: String::new(),
    });
    a.agent(&AgentEvent::ExtPanelRender {
        extension: "todo".into(),
        panel_id: "todos".into(),
        title: String::new(),
        lines: vec!["● write tests".into()],
        footer: String::new(),
    });
    let s = live(&mut a);
    assert!(
        s.contains("● write tests") && s.contains("Todos") && !s.contains("nope"),
        "{s}"
    );
    // Another extension's panel displaces it: the first owner hears of it.
    let fx = a.agent(&AgentEvent::ExtPanelOpen {
        extension: "gate".into(),
        panel: PanelContent {
            id: "g".into(),
            ..Default::default()
        },
    });
    assert_eq!(
        fx,
        vec![Effect::PanelClose {
            extension: "todo".into(),
            panel_id: "todos".into()
        }]
    );
    let fx = key(&mut a, KeyCode::Esc, KeyModifiers::NONE);
    assert_eq!(
        fx,
        vec![Effect::PanelClose {
            extension: "gate".into(),
            panel_id: "g".into()
        }]
    );
    assert!(a.chrome.panel.is_none());
}

#[test]
fn an_exiting_extension_takes_its_chrome_along() {
    let mut a = app(60, 16);
    for ext in ["gone", "stays"] {
        a.agent(&notify(ext, "info", &format!("note of {ext}")));
        a.agent(&AgentEvent::ExtStatus {
            extension: ext.into(),
            key: "s".into(),
            level: "info".into(),
            text: format!("status of {ext}"),
        });
        a.agent(&AgentEvent::ExtWidget {
            extension: ext.into(),
            id: "w".into(),
            position: String::new(),
            title: format!("widget of {ext}"),
            lines: vec![],
        });
    }
    a.agent(&AgentEvent::ExtChromeClear {
        extension: "gone".into(),
    });
    let s = live(&mut a);
    insta::assert_snapshot!(s);
    assert!(!s.contains("of gone") && s.contains("note of stays"));
}

#[test]
fn a_bell_is_due_only_when_alerts_are_enabled() {
    let mut a = app(60, 10);
    let bell = AgentEvent::ExtAlert {
        extension: "x".into(),
        kind: "bell".into(),
        reason: String::new(),
    };
    a.agent(&bell);
    assert!(a.bell_pending);
    a.bell_pending = false;
    a.agent(&AgentEvent::ExtAlert {
        extension: "x".into(),
        kind: "flash".into(),
        reason: String::new(),
    });
    assert!(!a.bell_pending);
    a.alerts_enabled = false;
    a.agent(&bell);
    assert!(!a.bell_pending);
}

#[test]
fn submit_and_insert_from_extensions() {
    let mut a = app(60, 10);
    let fx = a.agent(&AgentEvent::ExtSubmit {
        extension: "x".into(),
        text: "  run me  ".into(),
    });
    assert_eq!(fx, vec![Effect::Prompt("  run me  ".into())]);
    // Busy: queued behind the turn.
    assert!(a
        .agent(&AgentEvent::ExtSubmit {
            extension: "x".into(),
            text: "next".into(),
        })
        .is_empty());
    assert_eq!(a.queue.len(), 1);
    assert!(a
        .agent(&AgentEvent::ExtSubmit {
            extension: "x".into(),
            text: "   ".into(),
        })
        .is_empty());
    a.agent(&AgentEvent::ExtInsert {
        extension: "x".into(),
        text: "inserted".into(),
    });
    assert_eq!(a.editor.text(), "inserted");
}

#[test]
fn panel_lines_keep_safe_sgr_colours_only() {
    let mut a = App::new(
        Theme::new(ColorDepth::TrueColor),
        (60, 12),
        Status::default(),
        History::default(),
    );
    a.agent(&AgentEvent::ExtPanelOpen {
        extension: "todo".into(),
        panel: PanelContent {
            id: "todos".into(),
            title: "Todos".into(),
            lines: vec![
                "\u{1b}[2J\u{1b}[1;38;2;255;0;0mhot\u{1b}[0m plain\u{1b}]0;pwned\u{7}".into(),
                "\u{1b}[5;8;32mgreen\u{1b}[10A".into(),
            ],
            footer: String::new(),
        },
    });
    let live = view::compose(&mut a, Instant::now());
    let row = |needle: &str| {
        live.rows
            .iter()
            .find(|r| r.to_string().contains(needle))
            .cloned()
            .unwrap()
    };
    let hot = row("hot plain");
    let span = hot.spans.iter().find(|s| s.content == "hot").unwrap();
    assert_eq!(span.style.fg, Some(ratatui::style::Color::Rgb(255, 0, 0)));
    assert!(span
        .style
        .add_modifier
        .contains(ratatui::style::Modifier::BOLD));
    let green = row("green");
    let span = green.spans.iter().find(|s| s.content == "green").unwrap();
    // Blink and hidden are dropped, the colour kept.
    assert_eq!(span.style.fg, Some(ratatui::style::Color::Indexed(2)));
    assert!(span.style.add_modifier.is_empty());
    // Nothing of an escape reaches the rows.
    for r in &live.rows {
        assert!(!r.to_string().contains('\u{1b}'), "{r}");
        assert!(!r.to_string().contains("pwned"), "{r}");
    }
}
