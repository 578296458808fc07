//! Pickers (`/sessions`, `/fork`, the session tree, `/model`,
//! `/reasoning`, `/settings`) as insta snapshots of the live area on
//! ratatui's `TestBackend`, and what their keys do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{app, live as screen};
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use zut_tui::app::{App, Effect};
use zut_tui::pickers::{Picker, PickerItem, PickerKind};

fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.key(&KeyEvent::new(code, KeyModifiers::NONE), Instant::now())
}

fn typ(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

fn submit(app: &mut App, text: &str) -> Vec<Effect> {
    typ(app, text);
    key(app, KeyCode::Enter)
}

fn sessions() -> Picker {
    Picker::new(
        PickerKind::Sessions,
        "sessions · this directory",
        vec![
            PickerItem::new("just now", "")
                .detail("   3 msgs  Greet Ada")
                .current(true),
            PickerItem::new("4 min ago", "/s/b.jsonl").detail("   5 msgs  Plan the work"),
            PickerItem::new("2 days ago", "/s/c.jsonl").detail("  12 msgs  Fix the parser"),
        ],
    )
}

#[test]
fn sessions_command_asks_the_conversation_then_shows_the_picker() {
    let mut a = app(80, 20);
    assert_eq!(
        submit(&mut a, "/sessions"),
        [Effect::OpenPicker(PickerKind::Sessions)]
    );
    a.picker = Some(sessions());
    insta::assert_snapshot!(screen(&mut a));
    // The current session cannot be picked; the next one can.
    assert!(key(&mut a, KeyCode::Enter).is_empty());
    key(&mut a, KeyCode::Down);
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::Pick {
            kind: PickerKind::Sessions,
            value: "/s/b.jsonl".into()
        }]
    );
    assert!(a.picker.is_none());
}

#[test]
fn typing_filters_and_esc_clears_then_closes() {
    let mut a = app(80, 20);
    a.picker = Some(sessions());
    typ(&mut a, "parser");
    insta::assert_snapshot!(screen(&mut a));
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::Pick {
            kind: PickerKind::Sessions,
            value: "/s/c.jsonl".into()
        }]
    );
    a.picker = Some(sessions());
    typ(&mut a, "zzz");
    assert!(screen(&mut a).contains("no match"));
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.picker.as_ref().unwrap().query, "");
    key(&mut a, KeyCode::Esc);
    assert!(a.picker.is_none());
    // The editor got none of the keys typed into the picker.
    assert_eq!(a.editor.text(), "");
}

#[test]
fn fork_picker_selects_the_last_message() {
    let mut a = app(80, 16);
    assert_eq!(
        submit(&mut a, "/fork"),
        [Effect::OpenPicker(PickerKind::Fork)]
    );
    let items = vec![
        PickerItem::new("#1", "edit:0").detail("Greet Ada with a compliment."),
        PickerItem::new("#2", "edit:2").detail("Now in French."),
    ];
    a.picker = Some(Picker::new(PickerKind::Fork, "fork from a message", items).select(1));
    insta::assert_snapshot!(screen(&mut a));
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::Pick {
            kind: PickerKind::Fork,
            value: "edit:2".into()
        }]
    );
}

#[test]
fn double_esc_opens_the_tree_and_long_trees_scroll() {
    let mut a = app(80, 16);
    let t0 = Instant::now();
    let esc = KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE);
    assert!(a.key(&esc, t0).is_empty());
    // Too slow: not a double Esc.
    assert!(a.key(&esc, t0 + Duration::from_secs(1)).is_empty());
    assert_eq!(
        a.key(&esc, t0 + Duration::from_millis(1200)),
        [Effect::OpenPicker(PickerKind::Tree)]
    );
    let mut items = vec![PickerItem::new("end of this branch", "")
        .detail("[current]")
        .current(true)];
    for i in (0..20).rev() {
        items.push(PickerItem::new(
            format!("{}: message {i}", if i % 2 == 0 { "you" } else { "zut" }),
            format!("keep:{i}"),
        ));
    }
    items.push(PickerItem::new("⎇ parent (forked from)", "file:/s/p.jsonl").detail("4 msgs  Plan"));
    a.picker = Some(Picker::new(PickerKind::Tree, "session tree", items));
    key(&mut a, KeyCode::PageDown);
    key(&mut a, KeyCode::Down);
    insta::assert_snapshot!(screen(&mut a));
    key(&mut a, KeyCode::End);
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::Pick {
            kind: PickerKind::Tree,
            value: "file:/s/p.jsonl".into()
        }]
    );
}

#[test]
fn session_pickers_wait_for_the_running_turn() {
    let mut a = app(80, 16);
    assert_eq!(submit(&mut a, "hello"), [Effect::Prompt("hello".into())]);
    assert!(submit(&mut a, "/sessions").is_empty());
    assert!(a
        .notes
        .iter()
        .any(|n| n.text.contains("waits for the running turn")));
    // The model picker does not.
    assert_eq!(
        submit(&mut a, "/model"),
        [Effect::OpenPicker(PickerKind::Model)]
    );
}

#[test]
fn model_picker_switches_through_the_model_command() {
    let mut a = app(80, 16);
    let items = vec![
        PickerItem::new("test-model", "test-model")
            .detail("anthropic")
            .current(true),
        PickerItem::new("claude-haiku-4-5", "claude-haiku-4-5")
            .detail("anthropic  200k context  reasoning"),
    ];
    a.picker = Some(Picker::new(PickerKind::Model, "model", items));
    insta::assert_snapshot!(screen(&mut a));
    typ(&mut a, "haiku");
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::Command {
            name: "model".into(),
            args: "claude-haiku-4-5".into()
        }]
    );
    // `/model <id>` still switches directly.
    assert_eq!(
        submit(&mut a, "/model x"),
        [Effect::Command {
            name: "model".into(),
            args: "x".into()
        }]
    );
}

#[test]
fn settings_toggle_alerts_and_open_reasoning() {
    let mut a = app(80, 16);
    assert!(submit(&mut a, "/settings").is_empty());
    insta::assert_snapshot!(screen(&mut a));
    key(&mut a, KeyCode::End);
    assert!(key(&mut a, KeyCode::Enter).is_empty());
    assert!(!a.alerts_enabled);
    assert!(screen(&mut a).contains("off (this run)"));
    key(&mut a, KeyCode::Up);
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.picker.as_ref().unwrap().kind, PickerKind::Reasoning);
    typ(&mut a, "high");
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::Command {
            name: "reasoning".into(),
            args: "high".into()
        }]
    );
}

#[test]
fn a_picker_on_a_small_terminal_stays_inside_it() {
    let mut a = app(30, 8);
    a.picker = Some(sessions());
    let s = screen(&mut a);
    insta::assert_snapshot!(s);
    // A paste goes into the filter, sanitized.
    a.paste("Plan\u{1b}[31m");
    assert_eq!(a.picker.as_ref().unwrap().visible().len(), 1);
}
