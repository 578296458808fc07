//! `/skills`, the `/theme` picker (previewed while moving), the sessions
//! picker's scope and rename, `/new`, `/yolo` and the status bar while the
//! confirmation dialog has the keys: insta snapshots of the live area on
//! ratatui's `TestBackend`, and what the keys do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::live as screen;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use zut_tui::app::{App, Effect};
use zut_tui::history::History;
use zut_tui::pickers::{Picker, PickerItem, PickerKind};
use zut_tui::status::Totals;
use zut_tui::theme::{ColorDepth, Theme};
use zut_tui::{themes, Status};
use zut_types::AgentEvent;

fn app_with(depth: ColorDepth, w: u16, h: u16) -> App {
    let status = Status {
        provider: "anthropic".into(),
        model: "test-model".into(),
        cwd: "~/project".into(),
        ..Default::default()
    };
    App::new(Theme::new(depth), (w, h), status, History::default())
}

fn app(w: u16, h: u16) -> App {
    app_with(ColorDepth::None, w, h)
}

fn key_mod(app: &mut App, code: KeyCode, m: KeyModifiers) -> Vec<Effect> {
    app.key(&KeyEvent::new(code, m), Instant::now())
}

fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    key_mod(app, code, KeyModifiers::NONE)
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

#[test]
fn skills_picker_lists_source_and_path_and_enter_inserts_the_command() {
    let mut a = app(100, 16);
    assert_eq!(
        submit(&mut a, "/skills"),
        [Effect::OpenPicker(PickerKind::Skills)]
    );
    let items = vec![
        PickerItem::new("go-patterns", "go-patterns")
            .detail("Idiomatic Go  (project · ~/project/.zut/skills/go-patterns/SKILL.md)"),
        PickerItem::new("release", "release")
            .detail("Cut a release  (global · ~/.zut/skills/release/SKILL.md)"),
    ];
    a.picker = Some(Picker::new(PickerKind::Skills, "skills", items));
    insta::assert_snapshot!(screen(&mut a));
    key(&mut a, KeyCode::Down);
    assert!(key(&mut a, KeyCode::Enter).is_empty());
    assert!(a.picker.is_none());
    // The command is in the editor, ready for the request; no popup.
    assert_eq!(a.editor.text(), "/skill:release ");
    assert!(a.popup().is_none());
    assert_eq!(
        submit(&mut a, "tag v1"),
        [Effect::Command {
            name: "skill:release".into(),
            args: "tag v1".into()
        }]
    );
}

#[test]
fn theme_picker_previews_while_moving_esc_restores_enter_saves() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("themes");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("nord.json"),
        r##"{"name": "Nord", "accent": "#88c0d0"}"##,
    )
    .unwrap();
    let config = dir.path().join("config.json");
    let mut a = app_with(ColorDepth::TrueColor, 100, 18);
    themes::start(&mut a, "dark", Some(&user), Some(config.clone()));
    let dark_accent = a.theme.accent;
    assert!(submit(&mut a, "/theme").is_empty());
    let p = a.picker.as_ref().unwrap();
    assert_eq!(p.kind, PickerKind::Theme);
    assert_eq!(p.selected_item().unwrap().value, "dark");
    insta::assert_snapshot!(screen(&mut a));
    // Moving previews: nord's accent, nothing saved.
    key(&mut a, KeyCode::End);
    assert_eq!(
        a.theme.accent.fg,
        Some(ratatui::style::Color::Rgb(0x88, 0xc0, 0xd0))
    );
    assert_eq!(a.themes.current, "dark");
    assert!(!config.exists());
    // Esc goes back to the theme in use.
    key(&mut a, KeyCode::Esc);
    assert!(a.picker.is_none());
    assert_eq!(a.theme.accent, dark_accent);
    // Filtering previews the match; Enter switches and saves.
    assert!(submit(&mut a, "/theme").is_empty());
    typ(&mut a, "nord");
    assert_eq!(
        a.theme.accent.fg,
        Some(ratatui::style::Color::Rgb(0x88, 0xc0, 0xd0))
    );
    assert_eq!(key(&mut a, KeyCode::Enter), [Effect::Redraw]);
    assert!(a.picker.is_none());
    assert_eq!(a.themes.current, "nord");
    let saved = std::fs::read_to_string(&config).unwrap();
    assert!(saved.contains("\"nord\""), "{saved}");
    // `/theme <name>` still switches directly.
    submit(&mut a, "/theme dark");
    assert_eq!(a.theme.accent, dark_accent);
}

fn sessions(kind: PickerKind) -> Picker {
    Picker::new(
        kind,
        if kind == PickerKind::Sessions {
            "sessions · this directory"
        } else {
            "sessions · all directories"
        },
        vec![
            PickerItem::new("just now", "/s/a.jsonl")
                .detail("   3 msgs  Greet Ada")
                .current(true),
            PickerItem::new("4 min ago", "/s/b.jsonl").detail("   5 msgs  Plan the work"),
        ],
    )
}

#[test]
fn a_slash_filter_searches_the_conversations_on_enter() {
    let mut a = app(90, 16);
    a.picker = Some(sessions(PickerKind::AllSessions));
    typ(&mut a, "/flux capacitor ");
    // The rows stay while the search is typed (it is not a row filter).
    assert_eq!(a.picker.as_ref().unwrap().visible().len(), 2);
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::SearchSessions {
            all: true,
            query: "flux capacitor".into()
        }]
    );
    // A bare `/` searches nothing; without `/` typing still filters rows.
    a.picker = Some(sessions(PickerKind::Sessions));
    typ(&mut a, "/");
    assert!(key(&mut a, KeyCode::Enter).is_empty());
    key(&mut a, KeyCode::Backspace);
    typ(&mut a, "plan");
    assert_eq!(a.picker.as_ref().unwrap().visible(), [1]);
}

#[test]
fn sessions_picker_switches_scope_with_tab_and_renames_with_ctrl_r() {
    let mut a = app(90, 16);
    a.picker = Some(sessions(PickerKind::Sessions));
    assert_eq!(
        key(&mut a, KeyCode::Tab),
        [Effect::OpenPicker(PickerKind::AllSessions)]
    );
    a.picker = Some(sessions(PickerKind::AllSessions));
    assert_eq!(
        key(&mut a, KeyCode::Tab),
        [Effect::OpenPicker(PickerKind::Sessions)]
    );
    // Enter on the open session keeps the picker and says so.
    assert!(key(&mut a, KeyCode::Enter).is_empty());
    assert!(a.picker.is_some());
    a.notes.clear();
    key(&mut a, KeyCode::Down);
    assert!(key_mod(&mut a, KeyCode::Char('r'), KeyModifiers::CONTROL).is_empty());
    typ(&mut a, "Plan v2");
    a.paste(" (draft)\u{1b}[31m");
    insta::assert_snapshot!(screen(&mut a));
    // Typing went to the title, not the filter.
    assert_eq!(a.picker.as_ref().unwrap().query, "");
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::RenameSession {
            path: "/s/b.jsonl".into(),
            title: "Plan v2 (draft)".into()
        }]
    );
    // Esc leaves renaming without closing the picker; an empty title
    // renames nothing.
    key_mod(&mut a, KeyCode::Char('r'), KeyModifiers::CONTROL);
    key(&mut a, KeyCode::Esc);
    assert!(a.picker.as_ref().unwrap().rename.is_none());
    assert!(a.picker.is_some());
    key_mod(&mut a, KeyCode::Char('r'), KeyModifiers::CONTROL);
    assert!(key(&mut a, KeyCode::Enter).is_empty());
    // Resuming still works.
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::Pick {
            kind: PickerKind::AllSessions,
            value: "/s/b.jsonl".into()
        }]
    );
}

#[test]
fn new_and_yolo_are_commands_listed_in_the_popup() {
    let mut a = app(90, 24);
    typ(&mut a, "/yo");
    let m = a.popup().unwrap();
    assert_eq!(a.commands[m[0]].name, "yolo");
    insta::assert_snapshot!(screen(&mut a));
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::Command {
            name: "yolo".into(),
            args: String::new()
        }]
    );
    assert_eq!(
        submit(&mut a, "/yolo off"),
        [Effect::Command {
            name: "yolo".into(),
            args: "off".into()
        }]
    );
    assert_eq!(
        submit(&mut a, "/new"),
        [Effect::Command {
            name: "new".into(),
            args: String::new()
        }]
    );
}

#[test]
fn status_counters_restart_from_a_session_totals() {
    let mut s = Status::default();
    let u = zut_types::UsageEvent {
        this: zut_types::UsageCounts {
            input: 1200,
            output: 34,
            cache_read: 800,
            cost_usd: 0.5,
            cost_known: true,
            ..Default::default()
        },
        cumulative: Default::default(),
    };
    s.usage(&u);
    assert_eq!((s.tokens_in, s.tokens_out, s.cache_read), (1200, 34, 800));
    assert_eq!(s.cost, Some(0.5));
    let row: String = s
        .rows(
            200,
            &zut_tui::theme::Theme::new(zut_tui::theme::ColorDepth::None),
            std::time::Instant::now(),
        )
        .iter()
        .flat_map(|l| l.spans.iter().map(|sp| sp.content.to_string()))
        .collect();
    // The cost and the cache-hit rate: 800 of 2000 prompt tokens.
    assert!(row.contains("$0.50"), "{row}");
    assert!(row.contains("cache 800 40%"), "{row}");
    assert!(zut_tui::status::cost_line(&s).contains("$0.50"));
    s.set_totals(&Totals::default());
    assert_eq!((s.tokens_in, s.tokens_out, s.cache_read), (0, 0, 0));
    assert_eq!(s.cost, None);
    assert_eq!(s.context_used, 0);
    s.set_totals(&Totals {
        tokens_in: 10,
        tokens_out: 5,
        cache_read: 0,
        cost: Some(0.25),
    });
    assert_eq!((s.tokens_in, s.tokens_out, s.cost), (10, 5, Some(0.25)));
}

#[test]
fn status_says_what_keys_do_while_the_dialog_asks() {
    let mut a = app(100, 22);
    assert_eq!(submit(&mut a, "go"), [Effect::Prompt("go".into())]);
    assert!(screen(&mut a).contains("(esc to stop)"));
    a.agent(&AgentEvent::ToolApprovalRequested {
        request_id: 1,
        id: "c1".into(),
        name: "bash".into(),
        args: serde_json::json!({"command": "ls"}),
        preview: "ls".into(),
        detail: None,
    });
    let s = screen(&mut a);
    assert!(!s.contains("esc to stop"), "{s}");
    insta::assert_snapshot!(s);
}
