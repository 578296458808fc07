//! Controller stream → output lines: agent events as they are, extension
//! frames as `ext_*` events (the opt-in panel/submit events only for an
//! `ext_ui` client), and the delayed `{"started":true}` response of a
//! queued job exactly when it starts.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use zut_agent::{AgentEvent, ControllerEvent, EventStream, UiEvents};

use super::output::Out;
use super::wire::{data, CommandData, Response, StartedData};

/// A job's tag: the request's id and command.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Tag {
    /// Request id.
    pub id: Option<String>,
    /// Request type (`prompt`, `compact`, `command`, `reload_ext`).
    pub command: String,
    /// For `command`: the action to report.
    #[serde(default)]
    pub action: Option<String>,
}

impl Tag {
    /// Encodes the tag.
    pub fn encode(id: Option<String>, command: &str, action: Option<&str>) -> Option<String> {
        serde_json::to_string(&Tag {
            id,
            command: command.to_string(),
            action: action.map(str::to_string),
        })
        .ok()
    }
}

/// Forwards until the stream ends.
pub async fn run(
    mut stream: EventStream,
    out: Out,
    ext_ui: Arc<AtomicBool>,
    subagents: Arc<AtomicBool>,
) {
    let mut items = Vec::new();
    loop {
        let Some(permit) = out.permit().await else {
            return;
        };
        if !stream.next_batch(&mut items).await {
            return;
        }
        let mut bytes = Vec::new();
        let mut ext = Vec::new();
        let extended = ext_ui.load(Ordering::Relaxed);
        for item in items.drain(..) {
            match item {
                ControllerEvent::Agent(ev) => {
                    ev.write_json(&mut bytes);
                    bytes.push(b'\n');
                }
                ControllerEvent::Ui(ui) => {
                    let ev = if extended {
                        AgentEvent::from_ui_extended(&ui)
                    } else {
                        AgentEvent::from_ui(&ui)
                    };
                    if let Some(ev) = ev {
                        let mut line = Vec::new();
                        ev.write_json(&mut line);
                        // Before authentication only extension events can
                        // exist; once authed they keep their place in order.
                        if out.authed() {
                            bytes.extend_from_slice(&line);
                            bytes.push(b'\n');
                        } else {
                            ext.push(line);
                        }
                    }
                }
                ControllerEvent::JobStarted { tag: Some(tag), .. } => {
                    if let Ok(tag) = serde_json::from_str::<Tag>(&tag) {
                        bytes.extend_from_slice(&started(tag).to_line());
                        bytes.push(b'\n');
                    }
                }
                ControllerEvent::Note(line) => {
                    bytes.extend_from_slice(line.as_bytes());
                    bytes.push(b'\n');
                }
                ControllerEvent::ExtensionsReady { errors } => {
                    // stderr, as the Go original reports load errors.
                    for err in errors {
                        eprintln!("extension load: {err}");
                    }
                }
                // Opt-in (`subagents`): a child's progress, tagged.
                ControllerEvent::Subagent { id, event } => {
                    if subagents.load(Ordering::Relaxed) {
                        event.write_json_tagged(&id, &mut bytes);
                        bytes.push(b'\n');
                    }
                }
                ControllerEvent::JobStarted { tag: None, .. }
                | ControllerEvent::JobFinished { .. } => {}
            }
        }
        out.events(bytes, ext, permit);
    }
}

fn started(tag: Tag) -> Response {
    match tag.action {
        Some(action) => Response::ok(
            tag.id,
            &tag.command,
            data(&CommandData {
                action,
                started: Some(true),
                extension: None,
                text: None,
            }),
        ),
        None => Response::ok(tag.id, &tag.command, data(&StartedData { started: true })),
    }
}
