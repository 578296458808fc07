//! Keys inside a picker.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::Picker;

/// Rows PgUp/PgDn move.
const PAGE: usize = 10;

/// What a key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Still open.
    Stay,
    /// Closed without a pick.
    Close,
    /// This row's value was picked.
    Pick(String),
}

/// Applies `key` to `p`.
pub fn handle(p: &mut Picker, key: &KeyEvent) -> Outcome {
    if key.kind == KeyEventKind::Release {
        return Outcome::Stay;
    }
    let n = p.visible().len();
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let last = n.saturating_sub(1);
    match key.code {
        KeyCode::Esc => {
            if p.query.is_empty() {
                return Outcome::Close;
            }
            p.query.clear();
            p.selected = 0;
        }
        KeyCode::Char('c') | KeyCode::Char('d') if ctrl => return Outcome::Close,
        KeyCode::Enter => {
            return match p.selected_item() {
                Some(it) if !it.value.is_empty() => Outcome::Pick(it.value.clone()),
                _ => Outcome::Stay,
            }
        }
        KeyCode::Up => {
            p.selected = if p.selected == 0 {
                last
            } else {
                p.selected - 1
            }
        }
        KeyCode::Char('p') if ctrl => {
            p.selected = if p.selected == 0 {
                last
            } else {
                p.selected - 1
            }
        }
        KeyCode::Down => {
            p.selected = if p.selected >= last {
                0
            } else {
                p.selected + 1
            }
        }
        KeyCode::Char('n') if ctrl => {
            p.selected = if p.selected >= last {
                0
            } else {
                p.selected + 1
            }
        }
        KeyCode::PageUp => p.selected = p.selected.saturating_sub(PAGE),
        KeyCode::PageDown => p.selected = (p.selected + PAGE).min(last),
        KeyCode::Home => p.selected = 0,
        KeyCode::End => p.selected = last,
        KeyCode::Backspace => {
            p.query.pop();
            p.selected = 0;
        }
        KeyCode::Char('u') if ctrl => {
            p.query.clear();
            p.selected = 0;
        }
        KeyCode::Char(c) if !ctrl && !key.modifiers.contains(KeyModifiers::ALT) => {
            p.query.push(c);
            p.selected = 0;
        }
        _ => {}
    }
    Outcome::Stay
}
