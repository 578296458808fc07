//! `/login`: pick a provider (rows from the conversation side: every
//! provider and where its key comes from), then type or paste its key,
//! drawn as `•`; Enter hands `provider\nkey` to the conversation, which
//! checks it with the provider's model list and saves it only when the
//! provider accepts it. `/login <provider>` goes straight to the key.
//! Esc (or Ctrl+C) drops what was typed.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::{Picker, PickerKind};
use crate::app::{App, Effect};

/// Longest key accepted (real keys are well under 1 KiB; a JWT-like
/// token may be a few KiB).
const MAX_KEY: usize = 8192;

/// The hint while the key is typed.
const KEY_HINT: &str = "paste or type the key (hidden) · enter check and save · esc";

/// `/login <provider>`: the key entry at once. `None` for a bare `/login`
/// (the provider picker opens).
pub(super) fn command(app: &mut App, args: &str) -> Option<Vec<Effect>> {
    let provider = args.trim();
    if provider.is_empty() {
        return None;
    }
    app.picker = Some(key_entry(provider));
    Some(Vec::new())
}

/// The key entry for `provider`.
pub fn key_entry(provider: &str) -> Picker {
    let mut p = Picker::new(PickerKind::Login, &format!("login: {provider}"), Vec::new())
        .empty_text("the key is checked with the provider's model list before it is saved");
    p.hint = KEY_HINT.into();
    p.origin = provider.to_string();
    p.secret = Some(String::new());
    p
}

/// Keys of the `/login` picker; `None` lets the common picker keys have it.
pub(super) fn key(app: &mut App, key: &KeyEvent) -> Option<Vec<Effect>> {
    let p = app.picker.as_mut()?;
    if p.kind != PickerKind::Login || key.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    let Some(secret) = p.secret.as_mut() else {
        // Choosing the provider: Enter opens the key entry.
        if key.code == KeyCode::Enter {
            if let Some(provider) = p.selected_item().map(|i| i.value.clone()) {
                if !provider.is_empty() {
                    app.picker = Some(key_entry(&provider));
                }
            }
            return Some(Vec::new());
        }
        return None;
    };
    match key.code {
        KeyCode::Enter => {
            let typed = secret.trim().to_string();
            if typed.is_empty() {
                return Some(Vec::new());
            }
            let value = format!("{}\n{typed}", p.origin);
            app.picker = None;
            app.push_note("info", "checking the key…");
            return Some(vec![Effect::Pick {
                kind: PickerKind::Login,
                value,
            }]);
        }
        KeyCode::Esc => app.picker = None,
        KeyCode::Char('c') | KeyCode::Char('d') if ctrl => app.picker = None,
        KeyCode::Char('u') if ctrl => secret.clear(),
        KeyCode::Backspace => {
            secret.pop();
        }
        KeyCode::Char(c) if !ctrl && !alt && secret.len() < MAX_KEY => secret.push(c),
        _ => {}
    }
    Some(Vec::new())
}

/// A paste into the key entry (whitespace dropped: keys have none).
pub(super) fn paste(p: &mut Picker, text: &str) -> bool {
    let Some(secret) = p.secret.as_mut() else {
        return false;
    };
    let room = MAX_KEY.saturating_sub(secret.len());
    secret.extend(
        text.chars()
            .filter(|c| !c.is_whitespace() && !c.is_control())
            .take(room),
    );
    true
}

/// What the key line shows: one `•` per character, at most 40.
pub fn masked(secret: &str) -> String {
    let n = secret.chars().count();
    if n > 40 {
        format!("{}… ({n} characters)", "•".repeat(40))
    } else {
        "•".repeat(n)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crossterm::event::KeyEvent;

    fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
        super::super::key(app, &KeyEvent::new(code, KeyModifiers::NONE))
    }

    fn screen(p: &Picker) -> String {
        let theme = crate::theme::Theme::new(crate::theme::ColorDepth::None);
        super::super::plain(p, 72, 12, &theme)
    }

    #[test]
    fn login_dialog_picks_a_provider_masks_the_key_and_hands_it_over() {
        let mut app = App::new(
            crate::theme::Theme::new(crate::theme::ColorDepth::None),
            (80, 24),
            crate::status::Status::default(),
            crate::history::History::load(None),
        );
        app.picker = Some(Picker::new(
            PickerKind::Login,
            "login",
            vec![
                super::super::PickerItem::new("anthropic", "anthropic")
                    .detail("env ANTHROPIC_API_KEY"),
                super::super::PickerItem::new("openrouter", "openrouter").detail("none"),
                super::super::PickerItem::new("my-company", "my-company").detail("auth.json"),
            ],
        ));
        insta::assert_snapshot!("login_providers", screen(app.picker.as_ref().unwrap()));
        for c in "router".chars() {
            press(&mut app, KeyCode::Char(c));
        }
        assert!(press(&mut app, KeyCode::Enter).is_empty());
        let p = app.picker.as_ref().unwrap();
        assert_eq!(p.origin, "openrouter");
        for c in "sk-or-v1-SECRET".chars() {
            press(&mut app, KeyCode::Char(c));
        }
        super::super::paste(&mut app, " 42\n");
        let shown = screen(app.picker.as_ref().unwrap());
        assert!(!shown.contains("SECRET"), "{shown}");
        insta::assert_snapshot!("login_key_entry", shown);
        let effects = press(&mut app, KeyCode::Enter);
        assert!(app.picker.is_none());
        assert!(matches!(
            effects.as_slice(),
            [Effect::Pick { kind: PickerKind::Login, value }] if value == "openrouter\nsk-or-v1-SECRET42"
        ));
        // Esc drops what was typed.
        app.picker = Some(key_entry("openai"));
        press(&mut app, KeyCode::Char('x'));
        assert!(press(&mut app, KeyCode::Esc).is_empty());
        assert!(app.picker.is_none());
    }
}

#[cfg(test)]
mod quick_model_tests {
    use super::*;
    use crossterm::event::KeyEvent;

    #[test]
    fn ctrl_digit_switches_to_that_slot_when_idle() {
        let mut app = App::new(
            crate::theme::Theme::new(crate::theme::ColorDepth::None),
            (80, 24),
            crate::status::Status::default(),
            crate::history::History::load(None),
        );
        let ctrl3 = KeyEvent::new(KeyCode::Char('3'), KeyModifiers::CONTROL);
        let effects = app.key(&ctrl3, std::time::Instant::now());
        assert!(matches!(
            effects.as_slice(),
            [Effect::Command { name, args }] if name == "model" && args == "slot:3"
        ));
        assert!(app.editor.is_empty());
        // A plain digit is typed; a running turn defers the shortcut.
        app.key(
            &KeyEvent::new(KeyCode::Char('3'), KeyModifiers::NONE),
            std::time::Instant::now(),
        );
        assert!(!app.editor.is_empty());
        app.busy = true;
        assert!(app.key(&ctrl3, std::time::Instant::now()).is_empty());
    }
}
