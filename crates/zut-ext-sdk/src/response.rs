//! What a command handler tells the host to do.

use zut_protocol::{CommandResponse, PanelContent};

/// A command handler's answer, sent as `command_response`.
///
/// Build one with the helper constructors: [`Response::prompt`],
/// [`Response::insert`], [`Response::display`], [`Response::open_panel`],
/// [`Response::noop`] or [`Response::error`].
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Response {
    /// Submit the text as a fresh user message (the agent runs a turn).
    Prompt(String),
    /// Insert the text into the editor at the cursor, without submitting.
    Insert(String),
    /// Show the text as a one-shot note; no model call.
    Display(String),
    /// Open an extension-owned interactive panel.
    OpenPanel(PanelContent),
    /// Handled by the extension itself; the host changes nothing.
    #[default]
    Noop,
    /// Show the text as a red status line; no action is performed.
    Error(String),
}

impl Response {
    /// Submits `text` as a fresh user message.
    pub fn prompt(text: impl Into<String>) -> Self {
        Self::Prompt(text.into())
    }

    /// Inserts `text` into the editor without submitting it.
    pub fn insert(text: impl Into<String>) -> Self {
        Self::Insert(text.into())
    }

    /// Shows `text` as a one-shot note in the chat.
    pub fn display(text: impl Into<String>) -> Self {
        Self::Display(text.into())
    }

    /// Opens `panel` (keys then arrive through
    /// [`crate::Handle::on_panel_key`]).
    pub fn open_panel(panel: PanelContent) -> Self {
        Self::OpenPanel(panel)
    }

    /// Does nothing visible.
    pub fn noop() -> Self {
        Self::Noop
    }

    /// Reports an error to the user (`action:"noop"` plus `error`).
    pub fn error(message: impl Into<String>) -> Self {
        Self::Error(message.into())
    }

    /// The wire frame answering request `id`.
    pub(crate) fn into_frame(self, id: String) -> CommandResponse {
        let mut frame = CommandResponse {
            id,
            ..CommandResponse::default()
        };
        match self {
            Self::Prompt(text) => {
                frame.action = "prompt".into();
                frame.prompt = text;
            }
            Self::Insert(text) => {
                frame.action = "insert".into();
                frame.insert = text;
            }
            Self::Display(text) => {
                frame.action = "display".into();
                frame.display = text;
            }
            Self::OpenPanel(panel) => {
                frame.action = "open_panel".into();
                frame.open_panel = Some(panel);
            }
            Self::Noop => frame.action = "noop".into(),
            Self::Error(message) => {
                frame.action = "noop".into();
                frame.error = message;
            }
        }
        frame
    }
}
