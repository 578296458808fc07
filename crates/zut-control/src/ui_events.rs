//! The `ext_*` [`AgentEvent`]s of extension UI frames.

use zut_ext_host::{UiEvent, UiKind};
use zut_types::event::AgentEvent;

/// Builds the `ext_*` [`AgentEvent`]s of extension UI frames (a trait, as
/// the event type lives in `zut-types`; bring it into scope to call
/// `AgentEvent::from_ui(&frame)`).
pub trait UiEvents: Sized {
    /// The `ext_*` event for any extension UI frame, including the opt-in
    /// ones the Go protocol has no place for (`ext_panel_open`,
    /// `ext_panel_render`, `ext_panel_close`, `ext_submit`).
    fn from_ui_extended(ev: &UiEvent) -> Option<Self>;
    /// The Go RPC vocabulary's `ext_*` event for a frame (`None` for the
    /// frames it has no event for).
    fn from_ui(ev: &UiEvent) -> Option<Self>;
}

impl UiEvents for AgentEvent {
    /// The `ext_*` event for any extension UI frame, including the opt-in
    /// ones the Go protocol has no place for (`ext_panel_open`,
    /// `ext_panel_render`, `ext_panel_close`, `ext_submit`).
    fn from_ui_extended(ev: &UiEvent) -> Option<Self> {
        let extension = ev.extension.clone();
        Some(match &ev.kind {
            UiKind::Submit { text } | UiKind::SubmitSlash { text } => Self::ExtSubmit {
                extension,
                text: text.clone(),
            },
            UiKind::OpenPanel(panel) => Self::ExtPanelOpen {
                extension,
                panel: panel.clone(),
            },
            UiKind::PanelRender {
                panel_id,
                title,
                lines,
                footer,
            } => Self::ExtPanelRender {
                extension,
                panel_id: panel_id.clone(),
                title: title.clone(),
                lines: lines.clone(),
                footer: footer.clone(),
            },
            UiKind::PanelClose { panel_id } => Self::ExtPanelClose {
                extension,
                panel_id: panel_id.clone(),
            },
            _ => return Self::from_ui(ev),
        })
    }

    /// The `ext_*` event for an extension UI frame, or `None` for frames
    /// with no JSON/RPC representation (submit, panels, insert).
    fn from_ui(ev: &UiEvent) -> Option<Self> {
        let extension = ev.extension.clone();
        Some(match &ev.kind {
            UiKind::Notify { level, message } => Self::ExtNotify {
                extension,
                level: level.clone(),
                message: message.clone(),
            },
            UiKind::ClearNotes => Self::ExtClearNotes { extension },
            UiKind::Alert { kind, reason } => Self::ExtAlert {
                extension,
                kind: kind.clone(),
                reason: reason.clone(),
            },
            UiKind::Status { key, level, text } => Self::ExtStatus {
                extension,
                key: key.clone(),
                level: level.clone(),
                text: text.clone(),
            },
            UiKind::Widget {
                id,
                position,
                title,
                lines,
            } => Self::ExtWidget {
                extension,
                id: id.clone(),
                position: position.clone(),
                title: title.clone(),
                lines: lines.clone(),
            },
            UiKind::WidgetClear { id } => Self::ExtWidgetClear {
                extension,
                id: id.clone(),
            },
            UiKind::ChromeClear => Self::ExtChromeClear { extension },
            UiKind::Submit { .. }
            | UiKind::SubmitSlash { .. }
            | UiKind::OpenPanel(_)
            | UiKind::PanelRender { .. }
            | UiKind::PanelClose { .. } => return None,
        })
    }
}
