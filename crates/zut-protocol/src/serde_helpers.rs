//! Small serde helpers shared by the frame types.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// Deserialises a field that must distinguish "absent" (`None`, via
/// `#[serde(default)]`) from "present, possibly `null`" (`Some(Value::Null)`).
pub(crate) fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

pub(crate) fn is_zero(n: &u64) -> bool {
    *n == 0
}

pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}
