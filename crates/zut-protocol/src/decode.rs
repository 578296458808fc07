//! Decoding and encoding single frames.

use serde::Deserialize;

use crate::ext_frame::ExtFrame;
use crate::host_frame::HostFrame;

/// Why one line could not be turned into a frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// Not UTF-8, not a JSON object, missing `type`, or a known type with
    /// fields of the wrong JSON type. Carries a human-readable detail.
    Malformed(String),
    /// A well-formed object whose `type` this protocol does not define.
    UnknownType(String),
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Malformed(detail) => write!(f, "malformed json frame: {detail}"),
            Self::UnknownType(t) => write!(f, "unknown frame type {t:?}"),
        }
    }
}

impl std::error::Error for DecodeError {}

#[derive(Deserialize)]
struct TypeOnly {
    #[serde(rename = "type")]
    kind: String,
}

fn unknown_type(line: &[u8]) -> DecodeError {
    match serde_json::from_slice::<TypeOnly>(line) {
        Ok(t) => DecodeError::UnknownType(t.kind),
        Err(e) => DecodeError::Malformed(e.to_string()),
    }
}

fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn malformed(line: &[u8], err: serde_json::Error) -> DecodeError {
    if line.is_empty() {
        return DecodeError::Malformed("empty line".into());
    }
    if std::str::from_utf8(line).is_err() {
        return DecodeError::Malformed("line is not valid UTF-8".into());
    }
    DecodeError::Malformed(err.to_string())
}

/// Decodes one line written by an extension. A trailing LF and one CR are
/// stripped first. Unknown keys are ignored.
pub fn decode_ext_frame(line: &[u8]) -> Result<ExtFrame, DecodeError> {
    let line = trim_line(line);
    match serde_json::from_slice::<ExtFrame>(line) {
        Ok(ExtFrame::Unknown) => Err(unknown_type(line)),
        Ok(frame) => Ok(frame),
        Err(e) => Err(malformed(line, e)),
    }
}

/// Decodes one line written by the host (used by SDKs).
pub fn decode_host_frame(line: &[u8]) -> Result<HostFrame, DecodeError> {
    let line = trim_line(line);
    match serde_json::from_slice::<HostFrame>(line) {
        Ok(HostFrame::Unknown) => Err(unknown_type(line)),
        Ok(frame) => Ok(frame),
        Err(e) => Err(malformed(line, e)),
    }
}

/// Encodes any frame as one JSON line terminated by LF.
pub fn encode_line<T: serde::Serialize>(frame: &T) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    // Serialising these plain data types cannot fail: no maps with
    // non-string keys, no failing custom serialisers.
    if serde_json::to_writer(&mut out, frame).is_err() {
        out.clear();
        out.extend_from_slice(b"{}");
    }
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ext_frame::Notify;

    #[test]
    fn crlf_and_unknown_keys_are_accepted() {
        let f = decode_ext_frame(
            b"{\"type\":\"notify\",\"level\":\"info\",\"message\":\"hi\",\"foo\":1}\r\n",
        )
        .unwrap();
        assert_eq!(
            f,
            ExtFrame::Notify(Notify {
                level: "info".into(),
                message: "hi".into()
            })
        );
    }

    #[test]
    fn unknown_type_is_distinguished_from_malformed() {
        assert_eq!(
            decode_ext_frame(b"{\"type\":\"bogus\"}"),
            Err(DecodeError::UnknownType("bogus".into()))
        );
        assert!(matches!(
            decode_ext_frame(b"not json"),
            Err(DecodeError::Malformed(_))
        ));
        assert!(
            matches!(decode_ext_frame(b""), Err(DecodeError::Malformed(m)) if m == "empty line")
        );
        assert!(matches!(
            decode_ext_frame(b"{\"x\":1}"),
            Err(DecodeError::Malformed(_))
        ));
        assert!(matches!(
            decode_ext_frame(b"{\"type\":\"notify\",\"message\":5}"),
            Err(DecodeError::Malformed(_))
        ));
        assert!(matches!(
            decode_ext_frame(b"{\"type\":\"notify\",\"message\":\"\xff\"}"),
            Err(DecodeError::Malformed(m)) if m.contains("UTF-8")
        ));
    }

    #[test]
    fn numeric_id_is_malformed() {
        assert!(matches!(
            decode_ext_frame(b"{\"type\":\"tool_result\",\"id\":7}"),
            Err(DecodeError::Malformed(_))
        ));
    }

    #[test]
    fn details_null_is_distinguished_from_absent() {
        let ExtFrame::ToolResult(r) =
            decode_ext_frame(b"{\"type\":\"tool_result\",\"id\":\"1\",\"details\":null}").unwrap()
        else {
            panic!("not a tool_result")
        };
        assert_eq!(r.details, Some(serde_json::Value::Null));
        let ExtFrame::ToolResult(r) =
            decode_ext_frame(b"{\"type\":\"tool_result\",\"id\":\"1\"}").unwrap()
        else {
            panic!("not a tool_result")
        };
        assert_eq!(r.details, None);
    }

    #[test]
    fn missing_protocol_version_is_zero() {
        let ExtFrame::Hello(h) = decode_ext_frame(b"{\"type\":\"hello\",\"name\":\"x\"}").unwrap()
        else {
            panic!("not hello")
        };
        assert_eq!(h.protocol_version, 0);
    }
}
