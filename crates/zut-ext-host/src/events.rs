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
    // The memory stays locked while sending, so a replay on `ready` on
    // another thread cannot interleave: each extension gets each session
    // event once, in order (live here or replayed there, never both).
    let mut mem = shared.session();
    mem.last_event = Some(name.to_string());
    mem.seq += 1;
    let seq = mem.seq;
    if session.is_some() {
        mem.session = session.clone();
    }
    for ext in shared.extensions() {
        if !ext.is_alive() {
            continue;
        }
        let send = {
            let mut st = ext.state();
            let wants = st.events.iter().any(|e| e == name) && st.session_seq < seq;
            if wants {
                st.session_seq = seq;
            }
            wants
        };
        if send {
            send_session_event(
                &ext,
                name,
                session.clone(),
                mem.states.get(&ext.name).cloned(),
            );
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
    let mem = shared.session();
    let Some(name) = mem.last_event.clone() else {
        return;
    };
    {
        let mut st = ext.state();
        let wants = st
            .events
            .iter()
            .any(|e| *e == name || e.starts_with("session_"));
        // Not twice, and not when it already got this event live.
        if !wants || st.replayed_session_event || st.session_seq >= mem.seq {
            return;
        }
        st.replayed_session_event = true;
        st.session_seq = mem.seq;
    }
    send_session_event(
        ext,
        &name,
        mem.session.clone(),
        mem.states.get(&ext.name).cloned(),
    );
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
