//! The interactive panel: cursor, add mode, key handling and rendering.

use zut_ext_sdk::{panel, PanelContent, PanelKey};

use crate::store::Store;

/// The panel id used on the wire.
pub const PANEL_ID: &str = "todos-main";

const FOOTER: &str = "↑/↓ move · x toggle · d delete · a add · esc close";
const DRAFT_FOOTER: &str = "type the todo · enter save · backspace erase · esc close";

/// Panel-only state (the list itself lives in the store).
#[derive(Debug, Default)]
pub struct View {
    pub cursor: usize,
    /// `Some` while typing a new todo.
    pub draft: Option<String>,
    pub open: bool,
}

/// What a key did.
#[derive(Debug, PartialEq, Eq)]
pub enum Effect {
    /// Only the view changed: redraw.
    Redraw,
    /// The list changed: save, update the status, redraw.
    Changed,
    /// Nothing to do.
    Nothing,
}

impl View {
    /// Applies one key to the view and the store.
    pub fn key(&mut self, key: &PanelKey, store: &mut Store) -> Effect {
        let len = store.state.items.len();
        if let Some(draft) = self.draft.as_mut() {
            return match key.key.as_str() {
                "rune" => {
                    draft.push_str(&key.text);
                    Effect::Redraw
                }
                "backspace" => {
                    draft.pop();
                    Effect::Redraw
                }
                "enter" => {
                    let text = self.draft.take().unwrap_or_default();
                    if text.trim().is_empty() {
                        return Effect::Redraw;
                    }
                    self.cursor = store.add(&text) - 1;
                    Effect::Changed
                }
                _ => Effect::Nothing,
            };
        }
        match (key.key.as_str(), key.text.as_str()) {
            ("up", _) | ("rune", "k") => {
                self.cursor = self.cursor.saturating_sub(1);
                Effect::Redraw
            }
            ("down", _) | ("rune", "j") => {
                self.cursor = (self.cursor + 1).min(len.saturating_sub(1));
                Effect::Redraw
            }
            ("home", _) => {
                self.cursor = 0;
                Effect::Redraw
            }
            ("end", _) => {
                self.cursor = len.saturating_sub(1);
                Effect::Redraw
            }
            ("rune", "x") | ("rune", " ") | ("enter", _) => {
                if store.toggle(self.cursor) {
                    Effect::Changed
                } else {
                    Effect::Nothing
                }
            }
            ("rune", "d") | ("delete", _) => {
                if !store.delete(self.cursor) {
                    return Effect::Nothing;
                }
                self.cursor = self.cursor.min(store.state.items.len().saturating_sub(1));
                Effect::Changed
            }
            ("rune", "a") => {
                self.draft = Some(String::new());
                Effect::Redraw
            }
            _ => Effect::Nothing,
        }
    }

    /// The panel's current content.
    pub fn render(&self, store: &Store) -> PanelContent {
        let mut lines: Vec<String> = store
            .state
            .items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let pointer = if i == self.cursor && self.draft.is_none() {
                    "▸ "
                } else {
                    "  "
                };
                let mark = if item.done { "✓" } else { "□" };
                format!("{pointer}{mark} {}", item.text)
            })
            .collect();
        if lines.is_empty() && self.draft.is_none() {
            lines.push("  (nothing to do: press a to add a todo)".to_string());
        }
        if let Some(draft) = &self.draft {
            lines.push(format!("▸ + {draft}▏"));
        }
        let title = match store.summary() {
            Some(summary) => format!("Todos ({summary})"),
            None => "Todos".to_string(),
        };
        let footer = if self.draft.is_some() {
            DRAFT_FOOTER
        } else {
            FOOTER
        };
        panel(PANEL_ID, title, lines, footer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str, text: &str) -> PanelKey {
        PanelKey {
            panel_id: PANEL_ID.into(),
            key: name.into(),
            text: text.into(),
        }
    }

    #[test]
    fn navigate_toggle_add_and_delete() {
        let mut store = Store::default();
        store.add("one");
        store.add("two");
        let mut view = View::default();
        assert_eq!(view.key(&key("down", ""), &mut store), Effect::Redraw);
        assert_eq!(view.key(&key("down", ""), &mut store), Effect::Redraw);
        assert_eq!(view.cursor, 1);
        assert_eq!(view.key(&key("rune", "x"), &mut store), Effect::Changed);
        assert_eq!(
            view.render(&store).lines,
            ["  □ one", "▸ ✓ two"].map(String::from)
        );
        view.key(&key("rune", "a"), &mut store);
        for c in ["t", "e", "a", "x"] {
            view.key(&key("rune", c), &mut store);
        }
        view.key(&key("backspace", ""), &mut store);
        assert_eq!(view.key(&key("enter", ""), &mut store), Effect::Changed);
        assert_eq!(store.state.items[2].text, "tea");
        assert_eq!(view.cursor, 2);
        assert_eq!(view.key(&key("rune", "d"), &mut store), Effect::Changed);
        assert_eq!(view.cursor, 1);
        assert_eq!(view.render(&store).title, "Todos (1/2 done)");
    }
}
