//! Handling one decoded frame from a running extension.

use std::sync::Arc;

use serde_json::{json, Value};
use zut_protocol::{
    decode_ext_frame, is_interceptable, DecodeError, ExtFrame, RegisterCommand, RegisterTool,
};

use crate::diagnostics::{Readiness, Registration, SlotState};
use crate::extension::{Extension, Reply};
use crate::registry::{Claim, CommandInfo, ToolDef};
use crate::shared::Shared;
use crate::ui::UiKind;

pub(crate) async fn handle_frame(shared: &Arc<Shared>, ext: &Arc<Extension>, line: &[u8]) {
    let frame = match decode_ext_frame(line) {
        Ok(frame) => frame,
        Err(err) => {
            bad_frame(ext, &err);
            return;
        }
    };
    let name = ext.name.as_str();
    match frame {
        ExtFrame::Hello(_) => ext.warn("unexpected hello after the handshake; ignored"),
        ExtFrame::RegisterCommand(rc) => register_command(shared, ext, rc),
        ExtFrame::RegisterTool(rt) => register_tool(shared, ext, rt),
        ExtFrame::Subscribe(sub) => {
            let mut st = ext.state();
            for e in sub.events {
                if !st.events.contains(&e) {
                    st.events.push(e);
                }
            }
            for e in sub.intercept {
                if is_interceptable(&e) && !st.intercepts.contains(&e) {
                    st.intercepts.push(e);
                }
            }
        }
        ExtFrame::Ready => {
            ext.settle(Readiness::Ready);
            crate::events::replay_on_ready(shared, ext);
        }
        ExtFrame::CommandResponse(r) => ext.deliver(&r.id.clone(), Reply::Command(r)),
        ExtFrame::ToolResult(r) => {
            let raw_len = if r.details.is_some() && shared.config.persist_state {
                raw_details_len(line)
            } else {
                None
            };
            ext.deliver(&r.id.clone(), Reply::Tool(r, raw_len))
        }
        ExtFrame::EventInterceptResponse(r) => ext.deliver(&r.id.clone(), Reply::Intercept(r)),
        ExtFrame::ShutdownAck | ExtFrame::Unknown => {}
        ui_frame => {
            if let Some(kind) = ui_kind(ext, ui_frame) {
                shared.ui(name, kind).await
            }
        }
    }
}

/// The UI request a UI frame makes, or `None` when the frame asks for
/// nothing (an empty id, a non-`bell` alert, an empty prompt, ...) or is
/// not a UI frame.
fn ui_kind(ext: &Extension, frame: ExtFrame) -> Option<UiKind> {
    Some(match frame {
        ExtFrame::Notify(n) => UiKind::Notify {
            level: n.level,
            message: n.message,
        },
        ExtFrame::Status(s) if !s.key.trim().is_empty() => {
            let text = if s.text.trim().is_empty() {
                String::new()
            } else {
                s.text
            };
            UiKind::Status {
                key: s.key,
                level: s.level,
                text,
            }
        }
        ExtFrame::Widget(w) if !w.id.trim().is_empty() => UiKind::Widget {
            id: w.id,
            position: w.position,
            title: w.title,
            lines: w.lines,
        },
        ExtFrame::WidgetClear(w) if !w.id.trim().is_empty() => UiKind::WidgetClear { id: w.id },
        ExtFrame::Alert(a) if a.kind == "bell" => UiKind::Alert {
            kind: a.kind,
            reason: a.reason,
        },
        ExtFrame::ClearNotes(_) => UiKind::ClearNotes,
        ExtFrame::Submit(s) if !s.text.trim().is_empty() => UiKind::Submit {
            text: s.text.trim().to_string(),
        },
        ExtFrame::SubmitSlash(s) => {
            let text = s.text.trim();
            if !text.starts_with('/') {
                ext.log_warning(&format!(
                    "submit_slash refused (not a slash command): {:?}",
                    s.text
                ));
                return None;
            }
            UiKind::SubmitSlash {
                text: text.to_string(),
            }
        }
        ExtFrame::OpenPanel(p) => {
            ext.panel_drawn(&p.panel.id);
            UiKind::OpenPanel(p.panel)
        }
        ExtFrame::PanelRender(p) => {
            ext.panel_drawn(&p.panel_id);
            UiKind::PanelRender {
                panel_id: p.panel_id,
                title: p.title,
                lines: p.lines,
                footer: p.footer,
            }
        }
        ExtFrame::PanelClose(p) => {
            ext.pacer.forget(&p.panel_id);
            UiKind::PanelClose {
                panel_id: p.panel_id,
            }
        }
        _ => return None,
    })
}

/// Byte length of the `details` value of a `tool_result` line exactly as
/// the extension wrote it (whitespace and escapes included), or `None` if
/// it is absent or `null`. Only called for results that carry `details`.
pub(crate) fn raw_details_len(line: &[u8]) -> Option<usize> {
    #[derive(serde::Deserialize)]
    struct Details<'a> {
        #[serde(borrow, default)]
        details: Option<&'a serde_json::value::RawValue>,
    }
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    serde_json::from_slice::<Details<'_>>(line)
        .ok()?
        .details
        .map(|raw| raw.get().len())
}

fn bad_frame(ext: &Extension, err: &DecodeError) {
    let (diag, log) = match err {
        DecodeError::Malformed(d) => (
            format!("malformed json frame: {d}"),
            format!("malformed json from extension: {d}"),
        ),
        DecodeError::UnknownType(t) => (
            format!("unknown frame type {t:?}"),
            format!("unknown frame type {t:?}"),
        ),
    };
    ext.diagnose(diag);
    ext.log_warning(&log);
}

fn register_command(shared: &Shared, ext: &Extension, rc: RegisterCommand) {
    let name = rc.name;
    if name.trim().is_empty() || name.chars().any(char::is_whitespace) {
        ext.warn(format!(
            "command name {name:?} is invalid (empty or contains whitespace); ignored"
        ));
        return;
    }
    let info = CommandInfo {
        name: name.clone(),
        description: rc.description,
        extension: ext.name.clone(),
    };
    let claim = shared.registry().claim_command(ext.idx, info);
    let state = record_claim(shared, ext, &claim, &|n| format!("command /{n}"), &name);
    ext.state().commands.push(Registration { name, state });
}

fn register_tool(shared: &Shared, ext: &Extension, rt: RegisterTool) {
    let name = rt.name;
    if name.trim().is_empty() || name.chars().any(char::is_whitespace) {
        ext.warn(format!(
            "bad register_tool frame: tool name {name:?} is invalid (empty or contains whitespace)"
        ));
        return;
    }
    let schema = match rt.schema {
        None | Some(Value::Null) => json!({"type": "object", "properties": {}}),
        Some(s) if s.get("type").and_then(Value::as_str) == Some("object") => s,
        Some(_) => {
            ext.warn(format!(
                "bad register_tool frame: tool {name}: schema must be a JSON Schema object with \"type\":\"object\"; tool ignored"
            ));
            return;
        }
    };
    let late = ext.readiness().is_settled();
    let def = ToolDef {
        name: name.clone(),
        description: rt.description,
        schema,
        deferred: rt.deferred,
        extension: ext.name.clone(),
    };
    let claim = shared.registry().claim_tool(ext.idx, def, late);
    let state = record_claim(shared, ext, &claim, &|n| format!("tool {n}"), &name);
    if late && state == SlotState::Active {
        ext.warn(format!(
            "tool {name} registered after ready; it is offered to the model after the next registry rebuild (/reload-ext)"
        ));
    }
    ext.state().tools.push(Registration { name, state });
}

/// Turns a claim into diagnostics; returns this registration's state.
/// `what` names a registration (`command /x`, `tool x`); each diagnostic
/// names the losing registration as that extension spelled it.
fn record_claim(
    shared: &Shared,
    ext: &Extension,
    claim: &Claim,
    what: &dyn Fn(&str) -> String,
    name: &str,
) -> SlotState {
    let conflict = |n: &str| {
        format!(
            "{} conflicts with another extension registering the same name",
            what(n)
        )
    };
    match claim {
        Claim::Won => SlotState::Active,
        Claim::Lost => {
            ext.warn(conflict(name));
            SlotState::Shadowed
        }
        Claim::TookOver { loser, loser_name } => {
            if let Some(loser) = shared.extension(*loser) {
                loser.warn(conflict(loser_name));
            }
            SlotState::Active
        }
        Claim::Builtin => {
            ext.warn(format!(
                "{} is shadowed by a built-in or reserved name",
                what(name)
            ));
            SlotState::Shadowed
        }
    }
}

#[cfg(test)]
mod tests {
    use super::raw_details_len;

    #[test]
    fn raw_details_length_counts_the_bytes_as_written() {
        let line = br#"{"type":"tool_result","id":"1","details": { "a" : "\u0041" } }"#;
        assert_eq!(raw_details_len(line), Some(r#"{ "a" : "\u0041" }"#.len()));
        assert_eq!(
            raw_details_len(b"{\"type\":\"tool_result\",\"id\":\"1\",\"details\":[1]}\r"),
            Some(3)
        );
        assert_eq!(
            raw_details_len(br#"{"type":"tool_result","id":"1","details":null}"#),
            None
        );
        assert_eq!(raw_details_len(br#"{"type":"tool_result","id":"1"}"#), None);
    }
}
