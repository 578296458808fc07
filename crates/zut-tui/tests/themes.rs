//! Themes: discovery of user and extension `theme.json` files, `/theme`
//! listing and switching (saved to config.json), bad files reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Color;
use zut_tui::app::App;
use zut_tui::history::History;
use zut_tui::theme::{ColorDepth, Theme};
use zut_tui::{themes, Status};

fn app() -> App {
    App::new(
        Theme::new(ColorDepth::TrueColor),
        (100, 20),
        Status::default(),
        History::default(),
    )
}

fn run(a: &mut App, text: &str) {
    a.editor.insert(text);
    a.key(
        &KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
        Instant::now(),
    );
}

#[test]
fn theme_command_lists_switches_saves_and_reports_bad_values() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("themes");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("Nord.JSON"),
        r##"{"name": "Nord", "accent": "#88c0d0", "colors": {"dark": {"error": "crimson"}}}"##,
    )
    .unwrap();
    std::fs::write(user.join("broken.json"), "{ not json").unwrap();
    let ext = dir.path().join("ext");
    std::fs::create_dir_all(ext.join("themes")).unwrap();
    std::fs::write(
        ext.join("theme.json"),
        r#"{"name": "Solar", "description": "warm", "accent": 136}"#,
    )
    .unwrap();
    std::fs::write(
        ext.join("themes/theme.json"),
        r#"{"accent": {"mode": "ansi", "index": 92}}"#,
    )
    .unwrap();
    let config = dir.path().join("config.json");
    std::fs::write(&config, r#"{"terminal_alerts_enabled": false}"#).unwrap();

    let mut a = app();
    themes::start(&mut a, "", Some(&user), Some(config.clone()));
    assert_eq!(a.themes.current, "auto");
    themes::extension_themes(
        &mut a,
        Some(&user),
        &[
            ("solar".into(), ext.join("theme.json")),
            ("solar".into(), ext.join("themes/theme.json")),
        ],
    );
    let values: Vec<&str> = a.themes.choices.iter().map(|c| c.value.as_str()).collect();
    // Built-ins, the user theme by stem (the invalid file skipped), then
    // both files of the extension by absolute path.
    assert_eq!(values[..5], ["auto", "dark", "light", "inherited", "Nord"]);
    assert_eq!(values.len(), 7, "{values:?}");
    let solar = &a.themes.choices[5];
    assert_eq!(solar.label, "Solar");
    assert_eq!(solar.description, "from extension solar — warm");
    let nord = &a.themes.choices[4];
    assert!(
        nord.description.contains("colors.dark.error"),
        "{}",
        nord.description
    );

    // `/theme` opens the picker (the one in use marked), Esc closes it.
    run(&mut a, "/theme");
    let p = a.picker.as_ref().unwrap();
    assert!(p.items[0].current && p.items[0].value == "auto");
    assert!(p.items[5].detail.contains("from extension solar"));
    a.key(
        &KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE),
        Instant::now(),
    );
    assert!(a.picker.is_none());

    run(&mut a, "/theme Nord");
    assert_eq!(a.theme.accent.fg, Some(Color::Rgb(0x88, 0xc0, 0xd0)));
    assert!(a.notes.iter().any(|n| n.text.contains("colors.dark.error")));
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    assert_eq!(saved["theme"], "Nord");
    assert_eq!(saved["terminal_alerts_enabled"], false);

    let path = ext.join("theme.json").display().to_string();
    run(&mut a, &format!("/theme {path}"));
    assert_eq!(a.theme.accent.fg, Some(Color::Indexed(136)));

    run(&mut a, "/theme nope");
    assert!(a
        .notes
        .iter()
        .any(|n| n.text.contains("unknown theme \"nope\"")));
    assert_eq!(a.themes.current, path);

    // A configured theme that no longer exists falls back to auto, saying so.
    let mut b = app();
    themes::start(&mut b, "gone", Some(&user), None);
    assert!(b
        .notes
        .iter()
        .any(|n| n.text.contains("not found; using auto")));
    // `inherited` paints no colour.
    run(&mut b, "/theme terminal");
    assert_eq!(b.theme.accent.fg, None);
    assert_eq!(b.themes.current, "inherited");
}
