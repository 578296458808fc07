//! The agent's events ([`AgentEvent`], defined in `zut-types` so front
//! ends need not depend on this crate) and their construction from
//! extension UI frames ([`UiEvents`]) and provider usage ([`usage_counts`]).

use zut_ext_host::{UiEvent, UiKind};
pub use zut_types::event::*;

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

/// Counts of one provider usage report.
pub fn usage_counts(u: &zut_providers::Usage) -> UsageCounts {
    UsageCounts {
        input: u.input,
        output: u.output,
        reasoning: u.reasoning,
        cache_read: u.cache_read,
        cache_write: u.cache_write,
        cache_measured_prompt: u.input + u.cache_read + u.cache_write,
        cache_measured_read: u.cache_read,
        cost_usd: None,
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn shapes_match_rpc_table() {
        let e = AgentEvent::TurnEnd {
            stop: "error",
            error: Some("no".into()),
        };
        assert_eq!(
            e.to_json(),
            r#"{"type":"turn_end","stop":"error","error":"no"}"#
        );
        assert_eq!(AgentEvent::Done.to_json(), r#"{"type":"done"}"#);
        let delta = AgentEvent::TextDelta {
            delta: "h\u{e9}\"l\\lo\n\t\u{1}".into(),
        };
        let plain = AgentEvent::TextDelta {
            delta: "plain \u{e9}\u{1f600} /\u{7f}~".into(),
        };
        let empty = AgentEvent::TextDelta { delta: "".into() };
        for ev in [&e, &delta, &plain, &empty, &AgentEvent::Done] {
            let mut line = b"x".to_vec();
            ev.write_json(&mut line);
            assert_eq!(line, format!("x{}", ev.to_json()).into_bytes());
        }
        let u = AgentEvent::Usage(UsageEvent {
            this: UsageCounts::default(),
            cumulative: UsageCounts::default(),
        });
        let v: Value = serde_json::from_str(&u.to_json()).unwrap();
        assert_eq!(v["type"], "usage");
        assert_eq!(v["reasoning"], Value::Null);
        assert_eq!(v["cumulative"]["input"], 0);
        let w = AgentEvent::from_ui(&UiEvent {
            extension: "x".into(),
            kind: UiKind::Widget {
                id: "w".into(),
                position: "".into(),
                title: "".into(),
                lines: vec![],
            },
        })
        .unwrap();
        assert_eq!(
            w.to_json(),
            r#"{"type":"ext_widget","extension":"x","id":"w","position":"","title":"","lines":[]}"#
        );
    }
}
