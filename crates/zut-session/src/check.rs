//! Validating a `message` row without building it: the same checks as
//! [`crate::Row::parse`] (JSON syntax, role, non-empty content, block kinds,
//! string fields being strings), but no string is copied and nothing is
//! allocated per block. The strict reader uses it for message rows, keeps
//! their bytes, and builds only the messages that are still effective at
//! the end of the file (a compaction discards the others).

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use crate::message::{classify, Kind, Role};

/// A JSON string, checked but not kept.
struct IsStr;

impl<'de> Deserialize<'de> for IsStr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = IsStr;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E>(self, _: &str) -> Result<IsStr, E> {
                Ok(IsStr)
            }
        }
        d.deserialize_str(V)
    }
}

/// A JSON object of strings (`meta`), checked but not kept.
struct StrMap;

impl<'de> Deserialize<'de> for StrMap {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StrMap;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of strings")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StrMap, A::Error> {
                while map.next_entry::<IsStr, IsStr>()?.is_some() {}
                Ok(StrMap)
            }
        }
        d.deserialize_map(V)
    }
}

/// An array of strings, checked but not kept.
struct StrSeq;

impl<'de> Deserialize<'de> for StrSeq {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StrSeq;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of strings")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<StrSeq, A::Error> {
                while seq.next_element::<IsStr>()?.is_some() {}
                Ok(StrSeq)
            }
        }
        d.deserialize_seq(V)
    }
}

#[derive(Deserialize)]
struct CheckRow {
    #[serde(rename = "type")]
    _kind: IsStr,
    message: Option<CheckMessage>,
}

#[derive(Deserialize)]
struct CheckMessage {
    #[serde(rename = "role")]
    _role: Role,
    content: Vec<CheckBlock>,
    #[serde(default)]
    #[serde(rename = "time")]
    _time: Option<IsStr>,
    #[serde(default)]
    #[serde(rename = "meta")]
    _meta: Option<StrMap>,
    #[serde(default)]
    #[serde(rename = "added_tool_names")]
    _added_tool_names: Option<StrSeq>,
}

#[derive(Deserialize)]
struct CheckBlock {
    reasoning_id: Option<IsStr>,
    summary: Option<IsStr>,
    encrypted_content: Option<IsStr>,
    id: Option<IsStr>,
    name: Option<IsStr>,
    #[serde(default)]
    #[serde(rename = "arguments")]
    _arguments: Option<IgnoredAny>,
    #[serde(default)]
    #[serde(rename = "thought_signature")]
    _thought_signature: Option<IsStr>,
    call_id: Option<IsStr>,
    content: Option<Vec<CheckBlock>>,
    #[serde(default)]
    #[serde(rename = "is_error")]
    _is_error: Option<bool>,
    #[serde(default)]
    #[serde(rename = "timing")]
    _timing: Option<IgnoredAny>,
    mime_type: Option<IsStr>,
    #[serde(default)]
    #[serde(rename = "data")]
    _data: Option<IsStr>,
    text: Option<IsStr>,
}

impl CheckBlock {
    fn check(&self, nested: bool) -> Result<(), String> {
        let keys = crate::message::block_keys!(self);
        if classify(keys, nested)? == Kind::ToolResult {
            let content = self
                .content
                .as_ref()
                .ok_or("tool result block has no \"content\"")?;
            if content.is_empty() {
                return Err("tool result block has empty \"content\"".into());
            }
            for b in content {
                b.check(true)?;
            }
        }
        Ok(())
    }
}

/// Checks a line known to start with `{"type":"message",` as
/// [`crate::Row::parse`] would, without building the message.
pub(crate) fn check_message_row(line: &[u8]) -> Result<(), String> {
    let row: CheckRow =
        serde_json::from_slice(line).map_err(|e| format!("invalid JSON row: {e}"))?;
    let m = row.message.ok_or("message row has no \"message\" object")?;
    if m.content.is_empty() {
        return Err("message has empty \"content\"".into());
    }
    for b in &m.content {
        b.check(false)?;
    }
    Ok(())
}
