//! The host's interface to whatever shows things to the user.
//!
//! One-way UI frames from extensions are forwarded as [`UiEvent`]s on a
//! bounded channel that the embedder (TUI, print/JSON/RPC mode, doctor)
//! drains. A full channel makes the sending extension's reader wait, which
//! in turn fills that extension's stdout pipe: a flooding extension is
//! slowed down, never buffered without bound, and nothing it sent is dropped.

use zut_protocol::PanelContent;

/// Capacity of the UI channel created by [`ui_channel`].
pub const UI_CHANNEL_CAPACITY: usize = 1024;

/// A UI frame from extension `extension`.
#[derive(Debug, Clone, PartialEq)]
pub struct UiEvent {
    /// Manifest name of the extension that sent it.
    pub extension: String,
    /// What to show.
    pub kind: UiKind,
}

/// The UI frames, checked by the host before they are forwarded: `submit`
/// and `submit_slash` texts are trimmed (empty submits and slash texts not
/// starting with `/` are dropped), a blank status `key` or widget `id`
/// drops the frame, a whitespace-only status `text` becomes empty (which
/// removes the item), and only `bell` alerts are forwarded. Widget
/// positions are **not** rewritten: see [`UiKind::Widget`].
#[derive(Debug, Clone, PartialEq)]
pub enum UiKind {
    /// One-shot note (`notify`); `message` may span lines.
    Notify {
        /// `info`, `success`, `warn`, `error` or anything (rendered as info).
        level: String,
        /// Note text.
        message: String,
    },
    /// Persistent status item; empty `text` removes it.
    Status {
        /// Item key.
        key: String,
        /// Colour level.
        level: String,
        /// Item text.
        text: String,
    },
    /// Persistent widget.
    Widget {
        /// Widget id.
        id: String,
        /// Position exactly as the extension sent it (may be empty,
        /// `above_input`, `right_bar` or anything else), because RPC passes
        /// it through raw. Renderers must place every widget with
        /// [`widget_placement`], which resolves all of them to
        /// `above_input` (protocol §6.10).
        position: String,
        /// Header.
        title: String,
        /// Body lines.
        lines: Vec<String>,
    },
    /// Removes a widget.
    WidgetClear {
        /// Widget id.
        id: String,
    },
    /// Host-owned alert (`kind` is `bell`; other kinds are not forwarded).
    Alert {
        /// Alert kind.
        kind: String,
        /// Metadata, never printed.
        reason: String,
    },
    /// Removes this extension's notes.
    ClearNotes,
    /// A user prompt to submit (interactive only), trimmed and non-empty.
    Submit {
        /// Prompt text.
        text: String,
    },
    /// A slash command to run as if typed (interactive only), starts with `/`.
    SubmitSlash {
        /// Command line.
        text: String,
    },
    /// Opens (or replaces) the panel slot with this extension's panel.
    OpenPanel(PanelContent),
    /// Redraw of an open panel; applies only if the extension owns the
    /// open panel with this id.
    PanelRender {
        /// Panel id.
        panel_id: String,
        /// New title (empty keeps the old one).
        title: String,
        /// New lines.
        lines: Vec<String>,
        /// New footer.
        footer: String,
    },
    /// The extension closed its panel.
    PanelClose {
        /// Panel id.
        panel_id: String,
    },
    /// The extension is gone: discard all its notes, statuses, widgets and
    /// its open panel.
    ChromeClear,
}

/// Where a widget with `position` goes: always `above_input`. Empty,
/// unknown and `right_bar` positions resolve to the same placement
/// (protocol §6.10, conformance I6).
pub fn widget_placement(position: &str) -> &'static str {
    let _ = position;
    "above_input"
}

/// Sending half handed to the host.
pub type UiSender = tokio::sync::mpsc::Sender<UiEvent>;
/// Receiving half kept by the embedder.
pub type UiReceiver = tokio::sync::mpsc::Receiver<UiEvent>;

/// A bounded UI channel of [`UI_CHANNEL_CAPACITY`] events.
pub fn ui_channel() -> (UiSender, UiReceiver) {
    tokio::sync::mpsc::channel(UI_CHANNEL_CAPACITY)
}
