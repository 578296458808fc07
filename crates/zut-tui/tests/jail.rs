//! `/jail` and `/unjail` in the TUI: the commands are the conversation's
//! (the controller flips the session's jail switch); the TUI lists them,
//! sends them, shows `⛓ jailed` in the status bar while tools are jailed
//! and the jail's line in `/info`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Instant;

use common::{app, live};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use zut_tui::app::{App, Effect};

fn typ(a: &mut App, text: &str) {
    for c in text.chars() {
        a.key(
            &KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE),
            Instant::now(),
        );
    }
}

fn enter(a: &mut App) -> Vec<Effect> {
    a.key(
        &KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
        Instant::now(),
    )
}

#[test]
fn jail_and_unjail_are_listed_and_sent_to_the_conversation() {
    let mut a = app(70, 14);
    typ(&mut a, "/jai");
    let popup = live(&mut a);
    assert!(popup.contains("/jail"), "{popup}");
    assert!(popup.contains("confine tools"), "{popup}");
    let fx = enter(&mut a);
    assert_eq!(
        fx,
        vec![Effect::Command {
            name: "jail".into(),
            args: String::new()
        }]
    );
    typ(&mut a, "/unjail");
    assert_eq!(
        enter(&mut a),
        vec![Effect::Command {
            name: "unjail".into(),
            args: String::new()
        }]
    );
}

#[test]
fn the_status_bar_shows_the_jail_and_info_names_it() {
    let mut a = app(80, 8);
    let before = live(&mut a);
    assert!(!before.contains("jailed"), "{before}");
    a.status.jail = Some(
        "jailed to /home/u/project (reads: all but secrets; writes: /home/u/project, /tmp; network: none; landlock ABI 7)"
            .into(),
    );
    insta::assert_snapshot!(live(&mut a));
    typ(&mut a, "/info");
    enter(&mut a);
    let info: Vec<String> = a
        .transcript
        .take_rows()
        .iter()
        .map(|l| l.to_string())
        .collect();
    let info = info.join("\n");
    assert!(
        info.contains("jail: jailed to /home/u/project (reads: all but secrets"),
        "{info}"
    );
    // Unjailed: gone from the status bar, `/info` says how to jail.
    a.status.jail = None;
    let after = live(&mut a);
    assert!(!after.contains("jailed"), "{after}");
    typ(&mut a, "/info");
    enter(&mut a);
    let info: Vec<String> = a
        .transcript
        .take_rows()
        .iter()
        .map(|l| l.to_string())
        .collect();
    assert!(
        info.join("\n").contains("jail: off (/jail confines tools)"),
        "{info:?}"
    );
}
