//! `/skill:<name>` in the TUI: aliases with a slash reach the conversation
//! as commands, and skills are listed in the slash popup.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use zut_tui::app::{App, Effect};
use zut_tui::history::History;
use zut_tui::theme::{ColorDepth, Theme};
use zut_tui::{view, CommandInfo, Status};

fn app() -> App {
    let status = Status {
        provider: "anthropic".into(),
        model: "test-model".into(),
        cwd: "~/project".into(),
        ..Default::default()
    };
    let mut a = App::new(
        Theme::new(ColorDepth::None),
        (70, 14),
        status,
        History::default(),
    );
    let skill = |name: &str, d: &str| CommandInfo {
        name: format!("skill:{name}"),
        description: d.into(),
        extension: Some("skill".into()),
    };
    a.set_extension_commands(vec![
        skill("gopher", "Go patterns"),
        skill("backend/gopher", "Go patterns"),
        skill("reviewer", "(no description)"),
    ]);
    a
}

fn key(a: &mut App, code: KeyCode) -> Vec<Effect> {
    a.key(&KeyEvent::new(code, KeyModifiers::NONE), Instant::now())
}

fn typ(a: &mut App, text: &str) {
    for c in text.chars() {
        key(a, KeyCode::Char(c));
    }
}

fn screen(a: &mut App) -> String {
    let (w, h) = a.size;
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| {
        let area = f.area();
        view::render(a, area, f.buffer_mut());
    })
    .unwrap();
    format!("{}", term.backend())
}

#[test]
fn an_alias_with_a_slash_is_a_command_not_a_prompt() {
    let mut a = app();
    typ(&mut a, "/skill:backend/gopher fix the handler");
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::Command {
            name: "skill:backend/gopher".into(),
            args: "fix the handler".into()
        }]
    );
    // A path is still a prompt.
    typ(&mut a, "/usr/bin/env is odd");
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::Prompt("/usr/bin/env is odd".into())]
    );
}

#[test]
fn skills_are_listed_in_the_popup_and_tab_completes_an_alias() {
    let mut a = app();
    typ(&mut a, "/skill:");
    insta::assert_snapshot!(screen(&mut a));
    typ(&mut a, "backend/");
    assert!(screen(&mut a).contains("/skill:backend/gopher"));
    key(&mut a, KeyCode::Tab);
    assert_eq!(a.editor.text(), "/skill:backend/gopher ");
}
