//! One-way lifecycle events and session-state memory (protocol §10).

use std::sync::Arc;

use serde_json::Value;
use zut_protocol::{encode_line, Event, HostFrame, SessionInfo};

use crate::extension::Extension;
use crate::shared::Shared;

/// Sends `event` to every live subscriber, in load order. Never blocks:
/// each extension's ordered outbox absorbs it (bounded, drop-oldest).
/// A `tool_args` of JSON `null` (the model sent no arguments) is omitted
/// from the frame, like every other empty optional field.
pub(crate) fn emit(shared: &Shared, event: &Event) {
    let mut bytes: Option<Vec<u8>> = None;
    for ext in shared.extensions() {
        if ext.is_alive() && ext.subscribed(&event.event) {
            let line = bytes
                .get_or_insert_with(|| {
                    let mut event = event.clone();
                    if event.tool_args.as_ref().is_some_and(Value::is_null) {
                        event.tool_args = None;
                    }
                    encode_line(&HostFrame::Event(event))
                })
                .clone();
            ext.send_one_way(line);
        }
    }
}

/// Sends a session event, each subscriber receiving only its own state,
/// and remembers it for replay to extensions that become ready later.
pub(crate) fn emit_session_event(shared: &Shared, name: &str, session: Option<SessionInfo>) {
    let states = {
        let mut mem = shared.session();
        mem.last_event = Some(name.to_string());
        if session.is_some() {
            mem.session = session.clone();
        }
        mem.states.clone()
    };
    for ext in shared.extensions() {
        if ext.is_alive() && ext.subscribed(name) {
            send_session_event(&ext, name, session.clone(), states.get(&ext.name).cloned());
        }
    }
}

fn send_session_event(
    ext: &Extension,
    name: &str,
    session: Option<SessionInfo>,
    state: Option<Value>,
) {
    let event = Event {
        event: name.to_string(),
        session,
        state,
        ..Event::default()
    };
    ext.send_one_way(encode_line(&HostFrame::Event(event)));
}

/// On `ready`: replays the remembered session event once per process, to
/// extensions subscribed to it or to any `session_*` event.
pub(crate) fn replay_on_ready(shared: &Shared, ext: &Arc<Extension>) {
    let (name, session, state) = {
        let mem = shared.session();
        let Some(name) = mem.last_event.clone() else {
            return;
        };
        (
            name,
            mem.session.clone(),
            mem.states.get(&ext.name).cloned(),
        )
    };
    {
        let mut st = ext.state();
        let wants = st
            .events
            .iter()
            .any(|e| *e == name || e.starts_with("session_"));
        if !wants || st.replayed_session_event {
            return;
        }
        st.replayed_session_event = true;
    }
    send_session_event(ext, &name, session, state);
}

/// Updates the in-memory state snapshot of `extension`; `null` clears it.
pub(crate) fn record_state(shared: &Shared, extension: &str, details: Value) {
    let mut mem = shared.session();
    if details.is_null() {
        mem.states.remove(extension);
    } else {
        mem.states.insert(extension.to_string(), details);
    }
}
