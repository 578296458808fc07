//! `/settings`' quick-model slots (config.json `quick_model_shortcuts`,
//! Ctrl+1…9): a row per slot; Enter opens the model picker for that slot,
//! whose pick is written to config.json (not switched to), other keys and
//! slots kept. Insta snapshots of the live area on `TestBackend`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{app, live as screen};
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{json, Value};
use zut_tui::app::{App, Effect};
use zut_tui::pickers::{slots, Picker, PickerItem, PickerKind};

fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.key(&KeyEvent::new(code, KeyModifiers::NONE), Instant::now())
}

fn typ(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

/// The `/model` picker as the conversation sends it.
fn model_picker() -> Picker {
    let items = vec![
        PickerItem::new("anthropic/test-model", "anthropic/test-model")
            .detail("in use")
            .current(true),
        PickerItem::new("anthropic/claude-haiku-4-5", "anthropic/claude-haiku-4-5")
            .detail("200k  $1.00/$5.00  reasoning"),
        PickerItem::new("openai/gpt-5-mini", "openai/gpt-5-mini").detail("400k  $0.25/$2.00"),
    ];
    Picker::new(PickerKind::Model, "model", items)
}

fn config(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_slot_row_assigns_a_model_in_config_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    std::fs::write(
        &path,
        r#"{"theme": "dark", "quick_model_shortcuts": [null, {"provider": "openai", "model": "gpt-5-mini", "reasoning": "low"}]}"#,
    )
    .unwrap();
    let mut a = app(80, 24);
    a.themes.config_path = Some(path.clone());
    typ(&mut a, "/settings");
    assert!(key(&mut a, KeyCode::Enter).is_empty());
    insta::assert_snapshot!(screen(&mut a));

    // Ctrl+2 (assigned): the model picker comes as that slot's.
    for _ in 0..4 {
        key(&mut a, KeyCode::Down);
    }
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::OpenPicker(PickerKind::Model)]
    );
    let p = slots::arrived(&mut a, model_picker());
    assert_eq!(p.title, "model for Ctrl+2");
    assert_eq!(p.items[0].value, "-");
    assert_eq!(
        p.selected_item().unwrap().value,
        "openai/gpt-5-mini",
        "the slot's model"
    );
    a.picker = Some(p);
    insta::assert_snapshot!(screen(&mut a));
    typ(&mut a, "haiku");
    // A pick is saved, not switched to; the slot keeps its reasoning.
    assert!(key(&mut a, KeyCode::Enter).is_empty());
    let v = config(&path);
    assert_eq!(v["theme"], "dark");
    assert_eq!(
        v["quick_model_shortcuts"],
        json!([null, {"provider": "anthropic", "model": "claude-haiku-4-5", "reasoning": "low"}])
    );
    let p = a.picker.as_ref().unwrap();
    assert_eq!(p.kind, PickerKind::Settings);
    assert_eq!(p.selected_item().unwrap().value, "slot:2");
    assert!(screen(&mut a).contains("anthropic/claude-haiku-4-5"));

    // Emptied with the first row.
    key(&mut a, KeyCode::Enter);
    a.picker = Some(slots::arrived(&mut a, model_picker()));
    key(&mut a, KeyCode::Home);
    key(&mut a, KeyCode::Enter);
    assert!(config(&path).get("quick_model_shortcuts").is_none());

    // `/model` itself still switches, even after a slot row asked.
    key(&mut a, KeyCode::Esc);
    a.pending_slot = Some(3);
    typ(&mut a, "/model");
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::OpenPicker(PickerKind::Model)]
    );
    a.picker = Some(slots::arrived(&mut a, model_picker()));
    typ(&mut a, "gpt");
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::Command {
            name: "model".into(),
            args: "openai/gpt-5-mini".into()
        }]
    );
}

#[test]
fn a_broken_config_json_is_not_overwritten_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    let mut a = app(80, 24);
    a.themes.config_path = Some(path.clone());
    typ(&mut a, "/settings");
    key(&mut a, KeyCode::Enter);
    key(&mut a, KeyCode::Down);
    key(&mut a, KeyCode::Down);
    key(&mut a, KeyCode::Down);
    key(&mut a, KeyCode::Enter);
    a.picker = Some(slots::arrived(&mut a, model_picker()));
    std::fs::write(&path, "{\"theme\": ").unwrap();
    typ(&mut a, "haiku");
    key(&mut a, KeyCode::Enter);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"theme\": ");
    let notes: Vec<&str> = a.notes.iter().map(|n| n.text.as_str()).collect();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("Ctrl+1 not saved: ") && n.contains("not valid JSON")),
        "{notes:?}"
    );
    // Once the settings picker closes, the error is on screen.
    key(&mut a, KeyCode::Esc);
    let s = screen(&mut a);
    assert!(s.contains("Ctrl+1 not saved"), "{s}");
}
