//! One request line → the request, or the error response it gets
//! (rpc.md §2–§3). Pure: no I/O and no state beyond [`Context`], so the
//! fuzz target (`fuzz/fuzz_targets/rpc_line.rs`) runs it on any bytes.

use serde_json::Value;

use super::wire::{Request, Response};

/// What the connection allows so far.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context {
    /// Authenticated (or no token needed).
    pub authed: bool,
    /// Opted in to `commands` (`command`, `reload_ext`).
    pub commands: bool,
    /// Opted in to `ext_ui` (`panel_key`, `panel_close`).
    pub ext_ui: bool,
    /// Opted in to `sessions` (`list_sessions`, `new_session`,
    /// `switch_session`, `fork_session`, `rename_session`).
    pub sessions: bool,
    /// Opted in to `mcp_elicitation` (`elicitation_response`).
    pub elicitation: bool,
}

/// A request read from a line.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// Its `id` (absent when missing or empty).
    pub id: Option<String>,
    /// Its `type`.
    pub kind: String,
    /// The request.
    pub request: Request,
}

/// The result of [`parse`].
#[derive(Debug, Clone)]
pub enum Line {
    /// A blank line: skipped.
    Blank,
    /// A request to act on.
    Request(Parsed),
    /// Not acted on: this error response is written.
    Refused(Response),
}

/// Reads one input line (without its LF). Invalid UTF-8 is replaced,
/// surrounding whitespace trimmed.
pub fn parse(line: &[u8], cx: Context) -> Line {
    let text = String::from_utf8_lossy(line);
    let text = text.trim();
    if text.is_empty() {
        return Line::Blank;
    }
    let value: Value = match serde_json::from_str(text) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => {
            return Line::Refused(Response::err(
                None,
                "",
                "malformed json: expected an object",
            ))
        }
        Err(e) => return Line::Refused(Response::err(None, "", format!("malformed json: {e}"))),
    };
    let id = match value.get("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.is_empty() => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            return Line::Refused(Response::err(
                None,
                "",
                format!("malformed json: id must be a string, got {other}"),
            ))
        }
    };
    let kind = value
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if !cx.authed && kind != "hello" {
        return Line::Refused(Response::err(
            id,
            &kind,
            "auth required: send hello with token first",
        ));
    }
    // A client that did not opt in sees exactly the Go protocol.
    let allowed = match kind.as_str() {
        "command" | "reload_ext" | "get_commands" => cx.commands,
        "panel_key" | "panel_close" => cx.ext_ui,
        "elicitation_response" => cx.elicitation,
        "list_sessions" | "new_session" | "switch_session" | "fork_session" | "rename_session" => {
            cx.sessions
        }
        _ => true,
    };
    match serde_json::from_value::<Request>(value) {
        Ok(request) if allowed => Line::Request(Parsed { id, kind, request }),
        Err(e) if allowed && is_known(&kind) => Line::Refused(Response::err(
            id,
            &kind,
            format!("invalid {kind} request: {e}"),
        )),
        _ => Line::Refused(Response::err(id, &kind, "unknown command")),
    }
}

fn is_known(kind: &str) -> bool {
    matches!(
        kind,
        "hello"
            | "prompt"
            | "abort"
            | "compact"
            | "get_state"
            | "get_messages"
            | "clear"
            | "set_model"
            | "set_reasoning"
            | "get_models"
            | "ping"
            | "command"
            | "panel_key"
            | "panel_close"
            | "reload_ext"
            | "get_commands"
            | "list_sessions"
            | "new_session"
            | "switch_session"
            | "fork_session"
            | "rename_session"
            | "elicitation_response"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open() -> Context {
        Context {
            authed: true,
            ..Context::default()
        }
    }

    fn refused(line: &str, cx: Context) -> String {
        match parse(line.as_bytes(), cx) {
            Line::Refused(r) => String::from_utf8(r.to_line()).unwrap_or_default(),
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn requests_and_refusals() {
        assert!(matches!(parse(b"  \t", open()), Line::Blank));
        match parse(br#"{"id":"","type":"ping"}"#, open()) {
            Line::Request(p) => assert_eq!(
                p,
                Parsed {
                    id: None,
                    kind: "ping".into(),
                    request: Request::Ping
                }
            ),
            other => panic!("{other:?}"),
        }
        assert!(refused("[1]", open()).contains("expected an object"));
        assert!(refused(r#"{"id":3,"type":"ping"}"#, open()).contains("id must be a string"));
        assert!(refused(r#"{"type":"ping"}"#, Context::default()).contains("auth required"));
        assert!(refused(r#"{"id":"1","type":"get_commands"}"#, open()).contains("unknown command"));
        assert!(refused(r#"{"id":"1","type":"reload_ext"}"#, open()).contains("unknown command"));
        let cx = Context {
            commands: true,
            ..open()
        };
        assert!(matches!(
            parse(br#"{"type":"reload_ext"}"#, cx),
            Line::Request(_)
        ));
        assert!(refused(r#"{"type":"set_model"}"#, open()).contains("invalid set_model request"));
    }
}
