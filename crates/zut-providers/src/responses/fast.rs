//! The fast path for the events that stream a reply: the five `*.delta`
//! events of the Responses API, e.g.
//! `{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","logprobs":[]}`.
//!
//! Keys may come in any order; only the keys those events carry are
//! accepted (anything else, a repeated key, a `null` or invalid JSON gives
//! `None`, and the event then goes through `serde_json`). What it accepts
//! decodes to the same values as the `serde_json` path.

use std::borrow::Cow;

use crate::scan::Cursor;

/// Which text a delta extends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DeltaKind {
    /// `response.output_text.delta`.
    Text,
    /// `response.refusal.delta`.
    Refusal,
    /// `response.reasoning_summary_text.delta`.
    Summary,
    /// `response.reasoning_text.delta` (raw reasoning of open-weight models).
    ReasoningText,
    /// `response.function_call_arguments.delta`.
    Arguments,
}

impl DeltaKind {
    /// The kind of an event type, if it is one of the delta events.
    pub(crate) fn of(kind: &str) -> Option<DeltaKind> {
        Some(match kind {
            "response.output_text.delta" => DeltaKind::Text,
            "response.refusal.delta" => DeltaKind::Refusal,
            "response.reasoning_summary_text.delta" => DeltaKind::Summary,
            "response.reasoning_text.delta" => DeltaKind::ReasoningText,
            "response.function_call_arguments.delta" => DeltaKind::Arguments,
            _ => return None,
        })
    }
}

/// A decoded delta event.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Delta<'a> {
    pub(crate) kind: DeltaKind,
    pub(crate) output_index: Option<usize>,
    pub(crate) delta: Cow<'a, str>,
}

/// A delta event decoded without `serde_json`, or `None`.
pub(crate) fn delta(data: &str) -> Option<Delta<'_>> {
    let mut c = Cursor::new(data);
    if !c.eat(b'{') {
        return None;
    }
    let mut kind: Option<DeltaKind> = None;
    let mut output_index = None;
    let mut delta = None;
    let mut seen = 0u16;
    loop {
        let key = c.key()?;
        let bit = match key {
            "type" => 1,
            "output_index" => 2,
            "delta" => 4,
            "item_id" => 8,
            "content_index" => 16,
            "summary_index" => 32,
            "sequence_number" => 64,
            "logprobs" => 128,
            "obfuscation" => 256,
            _ => return None,
        };
        if seen & bit != 0 {
            return None;
        }
        seen |= bit;
        match key {
            "type" => kind = Some(DeltaKind::of(&c.string()?)?),
            "output_index" => output_index = Some(c.usize()?),
            "delta" => delta = Some(c.string()?),
            "item_id" | "obfuscation" => {
                c.string()?;
            }
            "logprobs" => {
                if !(c.eat(b'[') && c.eat(b']')) {
                    return None;
                }
            }
            _ => {
                c.usize()?;
            }
        }
        if c.eat(b'}') {
            break;
        }
        if !c.eat(b',') {
            return None;
        }
    }
    if !c.at_end() {
        return None;
    }
    Some(Delta {
        kind: kind?,
        output_index,
        delta: delta?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_documented_shapes() {
        let d = delta(r#"{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi \u00e9","logprobs":[]}"#).unwrap();
        assert_eq!(d.kind, DeltaKind::Text);
        assert_eq!(d.output_index, Some(0));
        assert_eq!(d.delta, "Hi \u{e9}");
        let d = delta(r#"{ "delta" : "{\"a\"", "type":"response.function_call_arguments.delta", "output_index":2, "item_id":"fc_1" }"#).unwrap();
        assert_eq!((d.kind, d.output_index), (DeltaKind::Arguments, Some(2)));
        assert_eq!(d.delta, "{\"a\"");
    }

    #[test]
    fn refuses_what_it_does_not_fully_understand() {
        for data in [
            r#"{"type":"response.output_text.delta","delta":"a","extra":1}"#,
            r#"{"type":"response.output_text.delta","delta":"a","delta":"b"}"#,
            r#"{"type":"response.completed","delta":"a"}"#,
            r#"{"type":"response.output_text.delta","delta":null}"#,
            r#"{"type":"response.output_text.delta","delta":"a","logprobs":[1]}"#,
            r#"{"type":"response.output_text.delta","delta":"a"} x"#,
            r#"{"type":"response.output_text.delta","output_index":-1,"delta":"a"}"#,
            r#"{"type":"response.output_text.delta""#,
        ] {
            assert_eq!(delta(data), None, "{data}");
        }
    }
}
