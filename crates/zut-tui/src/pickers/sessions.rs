//! Keys of the sessions picker beyond the common ones: Tab switches the
//! scope (this directory ⇄ every directory), Ctrl+R renames the selected
//! session (typed into the picker, Enter saves, Esc cancels), Enter on the
//! open session changes nothing (the picker stays). A filter that starts
//! with `/` is a full-text search of the conversations, run on Enter.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::PickerKind;
use crate::app::{App, Effect};

/// Longest title typed.
const MAX_TITLE: usize = 200;

/// Handles `key` when the sessions picker is open and the key is one of
/// its own; `None` lets the common picker keys have it.
pub(super) fn key(app: &mut App, key: &KeyEvent) -> Option<Vec<Effect>> {
    let p = app.picker.as_mut()?;
    if !matches!(p.kind, PickerKind::Sessions | PickerKind::AllSessions)
        || key.kind == KeyEventKind::Release
    {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    if let Some(title) = p.rename.as_mut() {
        match key.code {
            KeyCode::Enter => {
                let title = title.trim().to_string();
                p.rename = None;
                let path = p.selected_item().map(|i| i.value.clone());
                return Some(match path.filter(|p| !p.is_empty() && !title.is_empty()) {
                    Some(path) => vec![Effect::RenameSession { path, title }],
                    None => Vec::new(),
                });
            }
            KeyCode::Esc => p.rename = None,
            KeyCode::Char('c') if ctrl => p.rename = None,
            KeyCode::Char('u') if ctrl => title.clear(),
            KeyCode::Backspace => {
                title.pop();
            }
            KeyCode::Char(c) if !ctrl && !alt && title.chars().count() < MAX_TITLE => {
                title.push(c);
            }
            _ => {}
        }
        return Some(Vec::new());
    }
    match key.code {
        KeyCode::Enter if p.query.starts_with('/') => {
            let query = p.query[1..].trim().to_string();
            if query.is_empty() {
                return Some(Vec::new());
            }
            Some(vec![Effect::SearchSessions {
                all: p.kind == PickerKind::AllSessions,
                query,
            }])
        }
        KeyCode::Tab => {
            let other = if p.kind == PickerKind::Sessions {
                PickerKind::AllSessions
            } else {
                PickerKind::Sessions
            };
            Some(vec![Effect::OpenPicker(other)])
        }
        KeyCode::Char('r') if ctrl => {
            if p.selected_item().is_some() {
                p.rename = Some(String::new());
            }
            Some(Vec::new())
        }
        KeyCode::Enter if p.selected_item().is_some_and(|i| i.current) => {
            app.push_status(
                "info",
                "this session is the one open",
                std::time::Instant::now(),
            );
            Some(Vec::new())
        }
        _ => None,
    }
}

/// A paste while renaming goes into the title.
pub(super) fn paste(p: &mut super::Picker, text: &str) -> bool {
    let Some(title) = p.rename.as_mut() else {
        return false;
    };
    let room = MAX_TITLE.saturating_sub(title.chars().count());
    title.extend(crate::sanitize::clean_line(text).chars().take(room));
    true
}
