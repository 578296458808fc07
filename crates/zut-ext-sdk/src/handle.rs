//! The cloneable handle for one-way frames and panel callbacks.

use std::fmt::Display;
use std::sync::{Arc, OnceLock};

use zut_protocol::{
    Alert, ClearNotes, ExtFrame, Notify, OpenPanel, PanelClose, PanelContent, PanelKey,
    PanelRender, Status, Submit, SubmitSlash, Widget, WidgetClear,
};

use crate::error::SdkError;
use crate::host_info::HostInfo;
use crate::panels::PanelRouter;
use crate::sink::FrameSink;

/// State shared by the extension, its handles and the runtime.
pub(crate) struct Shared {
    pub(crate) name: String,
    pub(crate) sink: FrameSink,
    pub(crate) host: OnceLock<Arc<HostInfo>>,
    pub(crate) panels: PanelRouter,
}

/// Level of a [`Handle::notify`] note.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    /// Neutral information (muted).
    Info,
    /// Something went well (green).
    Success,
    /// A warning.
    Warn,
    /// An error.
    Error,
}

impl Level {
    /// The wire spelling (`info`, `success`, `warn`, `error`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Info => "info",
            Self::Success => "success",
            Self::Warn => "warn",
            Self::Error => "error",
        }
    }
}

/// Kind of a host-owned [`Handle::alert`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AlertKind {
    /// One terminal bell, subject to the user's alert setting.
    Bell,
}

impl AlertKind {
    /// The wire spelling (`bell`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Bell => "bell",
        }
    }
}

/// Placement of a [`Handle::set_widget`] widget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum WidgetPosition {
    /// In the persistent chrome above the editor (the only placement).
    #[default]
    AboveInput,
}

impl WidgetPosition {
    /// The wire spelling (`above_input`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AboveInput => "above_input",
        }
    }
}

/// A cheap, cloneable handle to the running extension.
///
/// Usable from any thread or handler to push one-way frames (notes,
/// status, widgets, alerts, panels, prompts) and to register panel
/// callbacks. Every sender writes one complete frame atomically and
/// returns [`SdkError::NotConnected`] before [`crate::Extension::run`]
/// has sent `hello` or after it returned.
#[derive(Clone)]
pub struct Handle {
    pub(crate) shared: Arc<Shared>,
}

impl Handle {
    pub(crate) fn new(name: String) -> Self {
        Self {
            shared: Arc::new(Shared {
                name,
                sink: FrameSink::default(),
                host: OnceLock::new(),
                panels: PanelRouter::default(),
            }),
        }
    }

    /// The extension name sent in `hello`.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// The host metadata from `hello_ack`, once the handshake is done.
    pub fn host_info(&self) -> Option<HostInfo> {
        self.shared.host.get().map(|host| HostInfo::clone(host))
    }

    /// Writes `[<name>] <message>` to stderr, which zut captures in
    /// `$ZUT_HOME/logs/ext-<name>.log`. Never print to stdout yourself:
    /// stdout carries protocol frames only.
    pub fn log(&self, message: impl Display) {
        eprintln!("[{}] {message}", self.shared.name);
    }

    /// Pushes a one-shot note below the transcript.
    pub fn notify(&self, level: Level, message: impl Into<String>) -> Result<(), SdkError> {
        self.send(ExtFrame::Notify(Notify {
            level: level.as_str().into(),
            message: message.into(),
        }))
    }

    /// Sets or replaces the persistent status item `key`. Like the Go SDK,
    /// no `level` is sent. Empty text clears the item.
    pub fn set_status(
        &self,
        key: impl Into<String>,
        text: impl Into<String>,
    ) -> Result<(), SdkError> {
        self.send(ExtFrame::Status(Status {
            key: key.into(),
            level: String::new(),
            text: text.into(),
        }))
    }

    /// Removes the status item `key`.
    pub fn clear_status(&self, key: impl Into<String>) -> Result<(), SdkError> {
        self.set_status(key, "")
    }

    /// Sets or replaces the persistent widget `id`.
    pub fn set_widget<I, S>(
        &self,
        id: impl Into<String>,
        position: WidgetPosition,
        title: impl Into<String>,
        lines: I,
    ) -> Result<(), SdkError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.send(ExtFrame::Widget(Widget {
            id: id.into(),
            position: position.as_str().into(),
            title: title.into(),
            lines: lines.into_iter().map(Into::into).collect(),
        }))
    }

    /// Removes the widget `id`.
    pub fn clear_widget(&self, id: impl Into<String>) -> Result<(), SdkError> {
        self.send(ExtFrame::WidgetClear(WidgetClear { id: id.into() }))
    }

    /// Asks the host for an alert; `reason` is metadata, never printed.
    pub fn alert(&self, kind: AlertKind, reason: impl Into<String>) -> Result<(), SdkError> {
        self.send(ExtFrame::Alert(Alert {
            kind: kind.as_str().into(),
            reason: reason.into(),
        }))
    }

    /// Submits `text` as a user prompt (queued if a turn is running).
    pub fn submit(&self, text: impl Into<String>) -> Result<(), SdkError> {
        self.send(ExtFrame::Submit(Submit { text: text.into() }))
    }

    /// Runs a slash command as if the user typed it (text must start
    /// with `/`).
    pub fn submit_slash(&self, text: impl Into<String>) -> Result<(), SdkError> {
        self.send(ExtFrame::SubmitSlash(SubmitSlash { text: text.into() }))
    }

    /// Removes every note this extension pushed.
    pub fn clear_notes(&self) -> Result<(), SdkError> {
        self.send(ExtFrame::ClearNotes(ClearNotes {}))
    }

    /// Opens `panel` at any time (for example from inside a tool handler).
    pub fn open_panel(&self, panel: PanelContent) -> Result<(), SdkError> {
        self.send(ExtFrame::OpenPanel(OpenPanel { panel }))
    }

    /// Redraws the open panel `panel.id` with the given title, lines and
    /// footer (an empty title keeps the previous one).
    pub fn render_panel(&self, panel: PanelContent) -> Result<(), SdkError> {
        self.send(ExtFrame::PanelRender(PanelRender {
            panel_id: panel.id,
            title: panel.title,
            lines: panel.lines,
            footer: panel.footer,
        }))
    }

    /// Closes the panel `panel_id`.
    pub fn close_panel(&self, panel_id: impl Into<String>) -> Result<(), SdkError> {
        self.send(ExtFrame::PanelClose(PanelClose {
            panel_id: panel_id.into(),
        }))
    }

    /// Calls `callback` for every key pressed while panel `panel_id` is
    /// focused. Callbacks of one panel run in order on that panel's own
    /// thread. Replaces any earlier key callback for the id.
    pub fn on_panel_key(
        &self,
        panel_id: impl Into<String>,
        callback: impl Fn(&PanelKey) + Send + Sync + 'static,
    ) {
        self.shared
            .panels
            .set_key(panel_id.into(), Arc::new(callback));
    }

    /// Calls `callback` when the user closes panel `panel_id` (Esc or
    /// Ctrl+C). Replaces any earlier close callback for the id.
    pub fn on_panel_close(
        &self,
        panel_id: impl Into<String>,
        callback: impl Fn() + Send + Sync + 'static,
    ) {
        self.shared
            .panels
            .set_close(panel_id.into(), Arc::new(callback));
    }

    /// Writes one frame.
    pub(crate) fn send(&self, frame: ExtFrame) -> Result<(), SdkError> {
        self.shared.sink.send(&frame)
    }
}

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handle")
            .field("name", &self.shared.name)
            .finish_non_exhaustive()
    }
}
