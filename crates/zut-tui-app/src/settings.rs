//! The TUI writes the settings it changes into `$ZUT_HOME/config.json`, as
//! the Go original does: a model switch (`/model`, the `/settings` model
//! row, Ctrl+1…9) saves `provider` and `model`, a reasoning change
//! (`/reasoning`, `/settings`) saves `reasoning`, so the next run starts
//! with them. The other keys of the file are kept
//! ([`zut_tui::config_write`]). A session resumed with its own model
//! writes nothing.

use std::path::Path;

use serde_json::Value;
use zut_tui::CommandOutcome;

/// After `/name` succeeded: saves what it changed and says so in the
/// status line (a save that failed is said there too; the change stays
/// for this run).
pub fn saved(
    ctrl: &zut_agent::Controller,
    home: &Path,
    name: &str,
    outcome: CommandOutcome,
) -> CommandOutcome {
    let CommandOutcome::Status(text) = outcome else {
        return outcome;
    };
    let st = ctrl.state();
    let changes: Vec<(&str, Value)> = match name {
        "model" => vec![
            ("provider", Value::String(st.provider.clone())),
            ("model", Value::String(st.model.clone())),
        ],
        "reasoning" => {
            let level = if st.reasoning.is_empty() {
                "off".to_string()
            } else {
                st.reasoning.clone()
            };
            vec![("reasoning", Value::String(level))]
        }
        _ => return CommandOutcome::Status(text),
    };
    let path = zut_config::ConfigFile::path_in(home);
    match zut_tui::config_write::set(&path, &changes) {
        Ok(()) => CommandOutcome::Status(format!("{text} · saved")),
        Err(e) => CommandOutcome::Error(format!("{text}, for this run only: not saved: {e}")),
    }
}
