//! The todo list, its cursor and its file (`<data_dir>/todos.json`).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// One todo.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    pub text: String,
    #[serde(default)]
    pub done: bool,
}

/// What is saved to disk and returned as tool `details`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TodoState {
    /// Bumped on every change.
    #[serde(default)]
    pub version: u64,
    #[serde(default)]
    pub items: Vec<Item>,
}

/// The list plus where it lives on disk.
#[derive(Debug, Default)]
pub struct Store {
    pub state: TodoState,
    path: Option<PathBuf>,
}

impl Store {
    /// Loads `<data_dir>/todos.json` (a missing file is an empty list).
    pub fn open(data_dir: &str) -> Result<Self, String> {
        if data_dir.is_empty() {
            return Ok(Self::default());
        }
        let path = PathBuf::from(data_dir).join("todos.json");
        let state = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| format!("{} is not a todo list: {e}", path.display()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => TodoState::default(),
            Err(e) => return Err(format!("read {}: {e}", path.display())),
        };
        Ok(Self {
            state,
            path: Some(path),
        })
    }

    /// Writes the list atomically (temporary file, then rename).
    pub fn save(&self) -> Result<(), String> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let json = serde_json::to_vec_pretty(&self.state).map_err(|e| e.to_string())?;
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, json).map_err(|e| format!("write {}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, path).map_err(|e| format!("rename {}: {e}", path.display()))
    }

    /// Adds an item; returns its 1-based number.
    pub fn add(&mut self, text: &str) -> usize {
        self.state.items.push(Item {
            text: text.trim().to_string(),
            done: false,
        });
        self.state.version += 1;
        self.state.items.len()
    }

    /// Flips item `index` (0-based). Returns false if out of range.
    pub fn toggle(&mut self, index: usize) -> bool {
        let Some(item) = self.state.items.get_mut(index) else {
            return false;
        };
        item.done = !item.done;
        self.state.version += 1;
        true
    }

    /// Marks item `index` (0-based) done. Returns false if out of range.
    pub fn complete(&mut self, index: usize) -> bool {
        let Some(item) = self.state.items.get_mut(index) else {
            return false;
        };
        item.done = true;
        self.state.version += 1;
        true
    }

    /// Deletes item `index` (0-based). Returns false if out of range.
    pub fn delete(&mut self, index: usize) -> bool {
        if index >= self.state.items.len() {
            return false;
        }
        self.state.items.remove(index);
        self.state.version += 1;
        true
    }

    /// `"2/4 done"`, or `None` for an empty list.
    pub fn summary(&self) -> Option<String> {
        let items = &self.state.items;
        if items.is_empty() {
            return None;
        }
        let done = items.iter().filter(|i| i.done).count();
        Some(format!("{done}/{} done", items.len()))
    }

    /// One numbered line per item, for the model.
    pub fn listing(&self) -> String {
        if self.state.items.is_empty() {
            return "The todo list is empty.".to_string();
        }
        self.state
            .items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let mark = if item.done { "x" } else { " " };
                format!("{}. [{mark}] {}", i + 1, item.text)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_bump_the_version_and_survive_a_reload() {
        let dir = std::env::temp_dir().join(format!("todo-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data_dir = dir.to_str().unwrap();
        let mut store = Store::open(data_dir).unwrap();
        assert_eq!(store.summary(), None);
        store.add(" ship panel api ");
        store.add("persist state");
        assert!(store.toggle(1));
        assert!(!store.toggle(5));
        assert_eq!(store.state.version, 3);
        assert_eq!(store.summary().as_deref(), Some("1/2 done"));
        store.save().unwrap();
        let reloaded = Store::open(data_dir).unwrap();
        assert_eq!(reloaded.state, store.state);
        assert_eq!(
            reloaded.listing(),
            "1. [ ] ship panel api\n2. [x] persist state"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
