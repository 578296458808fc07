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

#[test]
fn a_themed_user_bubble_spinner_and_code_block_through_the_app() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("themes");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("bubbly.json"),
        r##"{"user_bubble_fg": "#ffffff", "user_bubble_bg": "#303040", "spinner": "#ff8800",
            "spinner_frames": ["<", ">"], "syntax": {"keyword": "#ff0000 bold"}}"##,
    )
    .unwrap();
    let mut a = app();
    themes::start(&mut a, "bubbly", Some(&user), None);
    assert_eq!(a.themes.current, "bubbly");
    // The user's message: the text cells carry the bubble, the `▌` bar and
    // the cells after the text do not (no background bleeding past it).
    a.agent(&zut_types::AgentEvent::UserMessage {
        content: vec![zut_types::JsonBlock::Text {
            text: "hello there".into(),
        }],
        time: String::new(),
    });
    let rows = a.transcript.take_rows();
    let line = rows
        .iter()
        .find(|l| l.spans.iter().any(|s| s.content.contains("hello there")))
        .expect("the user's row");
    for span in &line.spans {
        if span.content.contains("hello there") {
            assert_eq!(span.style.bg, Some(Color::Rgb(0x30, 0x30, 0x40)));
            assert_eq!(span.style.fg, Some(Color::Rgb(0xff, 0xff, 0xff)));
            assert_eq!(span.content.trim_end(), span.content, "no padded bubble");
        } else {
            assert_eq!(span.style.bg, None, "{:?}", span.content);
        }
    }
    // The spinner: the theme's frames and colour in the status row.
    a.status.busy_since = Some(Instant::now());
    let status = a.status.rows(100, &a.theme, Instant::now());
    let spinner = status
        .iter()
        .flat_map(|l| l.spans.iter())
        .find(|s| s.content.contains("working"))
        .expect("the spinner span");
    assert!(spinner.content.starts_with('<') || spinner.content.starts_with('>'));
    assert_eq!(spinner.style.fg, Some(Color::Rgb(0xff, 0x88, 0x00)));
    // A code block: the theme's keyword colour.
    let mut h = zut_tui::highlight::CodeHighlighter::new("python", &a.theme);
    let spans = h.line("if x: pass", &a.theme);
    let kw = spans.iter().find(|s| s.content.trim() == "if").unwrap();
    assert_eq!(kw.style.fg, Some(Color::Rgb(0xff, 0, 0)));
}
