//! Keys typed while a panel is open, as `panel_key` names (protocol.md
//! §7.2). Esc and Ctrl+C close the panel host-side instead.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// What a key does while a panel is open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PanelKey {
    /// Close the panel (`panel_close` to the owner).
    Close,
    /// Send this key name with this text (`rune` carries the character).
    Key(&'static str, String),
    /// Nothing (key releases).
    Ignore,
}

/// The panel meaning of `key`.
pub fn name(key: &KeyEvent) -> PanelKey {
    if key.kind == KeyEventKind::Release {
        return PanelKey::Ignore;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let k = |n: &'static str| PanelKey::Key(n, String::new());
    match key.code {
        KeyCode::Esc => PanelKey::Close,
        KeyCode::Char('c') if ctrl => PanelKey::Close,
        KeyCode::Up => k("up"),
        KeyCode::Down => k("down"),
        KeyCode::Left => k("left"),
        KeyCode::Right => k("right"),
        KeyCode::Enter => k("enter"),
        KeyCode::Tab => k("tab"),
        KeyCode::Backspace => k("backspace"),
        KeyCode::Delete => k("delete"),
        KeyCode::Home => k("home"),
        KeyCode::End => k("end"),
        KeyCode::PageUp => k("pageup"),
        KeyCode::PageDown => k("pagedown"),
        KeyCode::Char(c) if !ctrl && !key.modifiers.contains(KeyModifiers::ALT) => {
            PanelKey::Key("rune", c.to_string())
        }
        _ => k("unknown"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_protocol() {
        let k = |c, m| KeyEvent::new(c, m);
        assert_eq!(name(&k(KeyCode::Esc, KeyModifiers::NONE)), PanelKey::Close);
        assert_eq!(
            name(&k(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            PanelKey::Close
        );
        assert_eq!(
            name(&k(KeyCode::Char('é'), KeyModifiers::NONE)),
            PanelKey::Key("rune", "é".into())
        );
        assert_eq!(
            name(&k(KeyCode::PageDown, KeyModifiers::NONE)),
            PanelKey::Key("pagedown", String::new())
        );
        assert_eq!(
            name(&k(KeyCode::F(5), KeyModifiers::NONE)),
            PanelKey::Key("unknown", String::new())
        );
    }
}
