//! `/settings`' quick-model slots (config.json `quick_model_shortcuts`,
//! the Go original's Ctrl+1…9): a row per slot with its model; Enter on
//! one opens the `/model` picker to choose that slot's model (or empty
//! it), which is written to config.json rather than switched to.

use std::time::Instant;

use super::{settings_picker, Picker, PickerItem, PickerKind};
use crate::app::{App, Effect};

/// The value of the model picker's row that empties the slot.
const CLEAR: &str = "-";
/// Rows of the settings picker above the first slot.
const FIRST_ROW: usize = 3;

/// The settings rows of the 9 slots (none without a config file).
pub(super) fn rows(app: &App) -> Vec<PickerItem> {
    let Some(path) = &app.themes.config_path else {
        return Vec::new();
    };
    crate::config_write::quick_slots(path)
        .into_iter()
        .enumerate()
        .map(|(i, slot)| {
            let n = i + 1;
            PickerItem::new(format!("Ctrl+{n} model"), format!("slot:{n}"))
                .detail(slot.unwrap_or_else(|| "not assigned".into()))
        })
        .collect()
}

/// A slot row picked in `/settings`: asks for the model picker, which
/// [`arrived`] turns into this slot's.
pub(super) fn pick(app: &mut App, value: &str) -> Option<Vec<Effect>> {
    let n: u8 = value.strip_prefix("slot:")?.parse().ok()?;
    app.pending_slot = Some(n);
    Some(super::open(app, PickerKind::Model))
}

/// A picker from the conversation: the model picker asked for by a slot
/// row becomes that slot's (title, hint, a first row to empty it, the
/// slot's model marked).
pub fn arrived(app: &mut App, mut p: Picker) -> Picker {
    if p.kind == PickerKind::Model {
        if let Some(n) = app.pending_slot.take() {
            decorate(app, &mut p, n);
        }
    }
    p
}

/// New model rows for an open slot picker keep its decoration.
pub(super) fn redecorate(app: &App, open: &Picker, p: &mut Picker) {
    if let Some(n) = slot_of(open) {
        decorate(app, p, n);
    }
}

/// The slot an open model picker assigns, if it is a slot's.
pub(super) fn slot_of(p: &Picker) -> Option<u8> {
    if p.kind != PickerKind::Model {
        return None;
    }
    p.origin.strip_prefix("slot:")?.parse().ok()
}

fn decorate(app: &App, p: &mut Picker, n: u8) {
    let held = app
        .themes
        .config_path
        .as_ref()
        .and_then(|path| crate::config_write::quick_slots(path).remove(usize::from(n) - 1));
    for item in &mut p.items {
        item.current = held.as_deref() == Some(item.value.as_str());
    }
    p.items.insert(
        0,
        PickerItem::new("not assigned", CLEAR)
            .detail(format!("empty Ctrl+{n}"))
            .current(held.is_none()),
    );
    p.selected = p.items.iter().position(|i| i.current).unwrap_or(0);
    p.origin = format!("slot:{n}");
    p.title = format!("model for Ctrl+{n}");
    p.hint = format!("↑/↓ pick · enter assign to Ctrl+{n} (config.json) · type to filter · esc");
}

/// A model picked for slot `n` (`provider/id`, or [`CLEAR`]): written to
/// config.json; the settings picker comes back on that slot's row.
pub(super) fn assign(app: &mut App, n: u8, value: &str) -> Vec<Effect> {
    let target = if value == CLEAR {
        None
    } else {
        value.split_once('/')
    };
    let result = match (&app.themes.config_path, target, value == CLEAR) {
        (None, ..) => Err("no config.json (ZUT_HOME is not set)".to_string()),
        (Some(_), None, false) => Err(format!("{value:?} is not provider/model")),
        (Some(path), target, _) => {
            crate::config_write::set_quick_slot(path, usize::from(n), target)
        }
    };
    match result {
        Ok(()) => {
            let what = if value == CLEAR {
                format!("✓ Ctrl+{n} emptied (saved)")
            } else {
                format!("✓ Ctrl+{n}: {value} (saved)")
            };
            app.push_status("ok", what, Instant::now());
        }
        Err(e) => app.push_note("error", format!("Ctrl+{n} not saved: {e}")),
    }
    app.picker = Some(settings_picker(app).select(FIRST_ROW + usize::from(n) - 1));
    Vec::new()
}
