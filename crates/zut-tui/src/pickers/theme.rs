//! `/theme` without a name: the themes in a picker. Moving previews the
//! selected theme at once (nothing saved); Enter switches and saves it as
//! `/theme <name>` does; Esc or Ctrl+C go back to the theme in use before.

use super::{Outcome, Picker, PickerItem, PickerKind};
use crate::app::App;

/// The themes, the one in use marked and selected.
pub(super) fn picker(app: &App) -> Picker {
    let cat = &app.themes;
    let current = cat.find(&cat.current).map(|c| c.value.clone());
    let items = cat
        .choices
        .iter()
        .map(|c| {
            let mut label = c.value.clone();
            if c.label != c.value {
                // Extension themes are stored by path: show the name.
                label = if c.path.is_some() && c.value.contains('/') {
                    c.label.clone()
                } else {
                    format!("{} ({})", c.value, c.label)
                };
            }
            PickerItem::new(label, c.value.clone())
                .detail(c.description.clone())
                .current(Some(&c.value) == current.as_ref())
        })
        .collect();
    let mut p = Picker::new(PickerKind::Theme, "theme", items);
    p.origin = current.unwrap_or_else(|| "auto".into());
    p
}

/// After a key in the theme picker: the selected theme is shown, or the
/// one in use before comes back when the picker closes unpicked.
pub(super) fn preview(app: &mut App, outcome: &Outcome) {
    let Some(p) = app.picker.as_ref().filter(|p| p.kind == PickerKind::Theme) else {
        return;
    };
    let value = match outcome {
        Outcome::Stay => match p.selected_item() {
            Some(it) => it.value.clone(),
            None => p.origin.clone(),
        },
        Outcome::Close => p.origin.clone(),
        // Enter applies and saves it (`/theme <name>`).
        Outcome::Pick(_) => return,
    };
    let (theme, _) = app.themes.theme(&value, app.theme.depth, app.themes.light);
    app.theme = theme;
}
