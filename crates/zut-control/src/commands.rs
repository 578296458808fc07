//! What a slash command did, and the commands a front end can offer.

use zut_protocol::PanelContent;

use crate::JobHandle;

/// What a command did.
#[derive(Debug)]
pub enum CommandOutcome {
    /// A job was queued: a `prompt` action, `/compact`, `/reload-ext`.
    Queued(JobHandle),
    /// `display`: the text was also pushed as `ext_display`.
    Display {
        /// Owner.
        extension: String,
        /// Text.
        text: String,
    },
    /// `insert`: the text was also pushed as `ext_insert`.
    Insert {
        /// Owner.
        extension: String,
        /// Text.
        text: String,
    },
    /// `open_panel`: the panel was also pushed as a UI `open_panel` frame.
    OpenPanel {
        /// Owner.
        extension: String,
        /// The panel.
        panel: PanelContent,
    },
    /// A built-in that changed a setting, with a short confirmation.
    Done(String),
    /// `noop`.
    Noop,
}

/// One command a front end can offer its user (opt-in RPC `get_commands`): a
/// built-in of `zut_agent::commands::headless`, an extension's command or a
/// skill (`skill:<name>`, one entry per name and alias).
// Its schema keeps the name RPC clients know.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[schemars(rename = "CommandEntryData")]
pub struct CommandEntry {
    /// The name without its slash (`compact`, `todo`, `skill:review`).
    pub name: String,
    /// What it does, one line.
    pub description: String,
    /// What its argument is, when it takes one (`model id`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// `zut` for built-ins, `skill` for skills, else the extension's name.
    pub source: String,
}
