//! The key map: every binding in one table, used both to decode key
//! presses and to print `/help` (so the help is always true).

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// What a key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Submit the prompt (or run the selected command).
    Submit,
    /// Insert a newline.
    Newline,
    /// Delete the character before the cursor.
    Backspace,
    /// Delete the character under the cursor.
    Delete,
    /// Cursor left.
    Left,
    /// Cursor right.
    Right,
    /// Start of line.
    Home,
    /// End of line.
    End,
    /// Previous word.
    WordLeft,
    /// Next word.
    WordRight,
    /// Delete the previous word.
    DeleteWordLeft,
    /// Delete the next word.
    DeleteWordRight,
    /// Delete to the start of the line.
    KillLeft,
    /// Delete to the end of the line.
    KillRight,
    /// Line up / previous history entry / popup up.
    Up,
    /// Line down / next history entry / popup down.
    Down,
    /// Complete the selected command.
    Complete,
    /// Cancel the running turn, close the popup, clear notes.
    Cancel,
    /// Clear the input; twice within two seconds: quit.
    Interrupt,
    /// Quit on an empty input (else delete forward).
    Eof,
    /// Expand the last collapsed tool output.
    ExpandTool,
    /// Print the last reasoning in full.
    ShowThinking,
    /// Suspend zut (resume with `fg`).
    Suspend,
    /// Repaint the screen.
    Redraw,
    /// Switch to the model of a quick-model slot (Ctrl+1..9; the digit is
    /// in the key).
    QuickModel,
}

const C: KeyModifiers = KeyModifiers::CONTROL;
const A: KeyModifiers = KeyModifiers::ALT;
const S: KeyModifiers = KeyModifiers::SHIFT;
const N: KeyModifiers = KeyModifiers::NONE;

/// (key, modifiers, action, label for `/help`).
const BINDINGS: &[(KeyCode, KeyModifiers, Action, &str)] = &[
    (KeyCode::Enter, N, Action::Submit, "Enter"),
    (KeyCode::Enter, S, Action::Newline, "Shift+Enter"),
    (KeyCode::Enter, A, Action::Newline, "Alt+Enter"),
    (KeyCode::Char('j'), C, Action::Newline, "Ctrl+J"),
    (KeyCode::Backspace, N, Action::Backspace, "Backspace"),
    (KeyCode::Char('h'), C, Action::Backspace, "Ctrl+H"),
    (KeyCode::Delete, N, Action::Delete, "Delete"),
    (KeyCode::Left, N, Action::Left, "Left"),
    (KeyCode::Char('b'), C, Action::Left, "Ctrl+B"),
    (KeyCode::Right, N, Action::Right, "Right"),
    (KeyCode::Char('f'), C, Action::Right, "Ctrl+F"),
    (KeyCode::Home, N, Action::Home, "Home"),
    (KeyCode::Char('a'), C, Action::Home, "Ctrl+A"),
    (KeyCode::End, N, Action::End, "End"),
    (KeyCode::Char('e'), C, Action::End, "Ctrl+E"),
    (KeyCode::Left, A, Action::WordLeft, "Alt+Left"),
    (KeyCode::Left, C, Action::WordLeft, "Ctrl+Left"),
    (KeyCode::Char('b'), A, Action::WordLeft, "Alt+B"),
    (KeyCode::Right, A, Action::WordRight, "Alt+Right"),
    (KeyCode::Right, C, Action::WordRight, "Ctrl+Right"),
    (KeyCode::Char('f'), A, Action::WordRight, "Alt+F"),
    (KeyCode::Char('w'), C, Action::DeleteWordLeft, "Ctrl+W"),
    (
        KeyCode::Backspace,
        A,
        Action::DeleteWordLeft,
        "Alt+Backspace",
    ),
    (KeyCode::Char('d'), A, Action::DeleteWordRight, "Alt+D"),
    (KeyCode::Char('u'), C, Action::KillLeft, "Ctrl+U"),
    (KeyCode::Char('k'), C, Action::KillRight, "Ctrl+K"),
    (KeyCode::Up, N, Action::Up, "Up"),
    (KeyCode::Char('p'), C, Action::Up, "Ctrl+P"),
    (KeyCode::Down, N, Action::Down, "Down"),
    (KeyCode::Char('n'), C, Action::Down, "Ctrl+N"),
    (KeyCode::Tab, N, Action::Complete, "Tab"),
    (KeyCode::Esc, N, Action::Cancel, "Esc"),
    (KeyCode::Char('c'), C, Action::Interrupt, "Ctrl+C"),
    (KeyCode::Char('d'), C, Action::Eof, "Ctrl+D"),
    (KeyCode::Char('o'), C, Action::ExpandTool, "Ctrl+O"),
    (KeyCode::Char('t'), C, Action::ShowThinking, "Ctrl+T"),
    (KeyCode::Char('z'), C, Action::Suspend, "Ctrl+Z"),
    (KeyCode::Char('l'), C, Action::Redraw, "Ctrl+L"),
    (KeyCode::Char('1'), C, Action::QuickModel, "Ctrl+1…9"),
];

/// What the help says each action does, in help order.
const DESCRIPTIONS: &[(Action, &str)] = &[
    (
        Action::Submit,
        "send the prompt (queued while a turn runs); run the selected command",
    ),
    (Action::Newline, "new line in the prompt"),
    (
        Action::Cancel,
        "dismiss notes; else close the popup; else stop the turn; twice when idle: session tree",
    ),
    (Action::Interrupt, "clear the input; twice within 2 s: quit"),
    (Action::Eof, "quit when the input is empty"),
    (
        Action::Up,
        "previous line / history entry (edge of input) / pull back a queued prompt (empty input)",
    ),
    (Action::Down, "next line / history entry"),
    (Action::Complete, "complete the selected slash command"),
    (Action::ExpandTool, "show the last tool output in full"),
    (
        Action::ShowThinking,
        "show the model's last reasoning in full",
    ),
    (Action::Home, "start of line"),
    (Action::End, "end of line"),
    (Action::Left, "character left"),
    (Action::Right, "character right"),
    (Action::WordLeft, "word left"),
    (Action::WordRight, "word right"),
    (Action::Backspace, "delete character before the cursor"),
    (Action::Delete, "delete character under the cursor"),
    (Action::DeleteWordLeft, "delete word before the cursor"),
    (Action::DeleteWordRight, "delete word after the cursor"),
    (Action::KillLeft, "delete to the start of the line"),
    (Action::KillRight, "delete to the end of the line"),
    (Action::Suspend, "suspend zut (resume with fg)"),
    (Action::Redraw, "repaint the screen"),
    (
        Action::QuickModel,
        "switch to the model of that slot (config.json quick_model_shortcuts)",
    ),
];

/// The action of a key press (`None` for text input and unbound keys).
pub fn action(key: &KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let mods = key.modifiers & (C | A | S);
    let code = match key.code {
        // Shift+letter arrives as an upper-case char with SHIFT.
        KeyCode::Char(c) if mods.contains(C) || mods.contains(A) => {
            KeyCode::Char(c.to_ascii_lowercase())
        }
        other => other,
    };
    let mods_no_shift = if matches!(code, KeyCode::Char(_)) {
        mods - S
    } else {
        mods
    };
    if quick_model_slot(key).is_some() {
        return Some(Action::QuickModel);
    }
    BINDINGS
        .iter()
        .find(|(k, m, _, _)| *k == code && *m == mods_no_shift)
        .map(|(_, _, a, _)| *a)
}

/// The slot (1 to 9) of a Ctrl+digit press (terminals that report it:
/// those speaking the kitty keyboard protocol).
pub fn quick_model_slot(key: &KeyEvent) -> Option<u8> {
    match key.code {
        KeyCode::Char(c @ '1'..='9') if key.modifiers.contains(C) && !key.modifiers.contains(A) => {
            Some(c as u8 - b'0')
        }
        _ => None,
    }
}

/// The text a key press types, if any.
pub fn typed_char(key: &KeyEvent) -> Option<char> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    match key.code {
        KeyCode::Char(c) if !key.modifiers.intersects(C | A) => Some(c),
        _ => None,
    }
}

/// `/help`'s key section: one row per action with all its keys.
pub fn help_rows() -> Vec<(String, &'static str)> {
    DESCRIPTIONS
        .iter()
        .map(|(action, desc)| {
            let keys: Vec<&str> = BINDINGS
                .iter()
                .filter(|(_, _, a, _)| a == action)
                .map(|(_, _, _, l)| *l)
                .collect();
            (keys.join(", "), *desc)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_and_documents_every_binding() {
        let k = |code, m| KeyEvent::new(code, m);
        assert_eq!(
            action(&k(KeyCode::Char('w'), C)),
            Some(Action::DeleteWordLeft)
        );
        assert_eq!(
            action(&k(KeyCode::Char('W'), C | S)),
            Some(Action::DeleteWordLeft)
        );
        assert_eq!(action(&k(KeyCode::Enter, A)), Some(Action::Newline));
        assert_eq!(action(&k(KeyCode::Char('x'), N)), None);
        assert_eq!(typed_char(&k(KeyCode::Char('X'), S)), Some('X'));
        for (_, _, a, _) in BINDINGS {
            assert!(
                DESCRIPTIONS.iter().any(|(d, _)| d == a),
                "{a:?} undocumented"
            );
        }
    }
}
