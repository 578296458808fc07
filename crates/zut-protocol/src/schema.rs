//! JSON Schema of every frame, for generating other languages' SDK types.

use serde_json::{json, Value};

use crate::ext_frame::ExtFrame;
use crate::host_frame::HostFrame;

/// The JSON Schema document describing both directions of protocol v2:
/// `definitions.ExtFrame` (extension → host) and `definitions.HostFrame`
/// (host → extension).
pub fn protocol_schema() -> Value {
    let ext = serde_json::to_value(schemars::schema_for!(ExtFrame)).unwrap_or(Value::Null);
    let host = serde_json::to_value(schemars::schema_for!(HostFrame)).unwrap_or(Value::Null);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "zut extension protocol v2",
        "description": "One JSON object per line; `type` is the discriminator. ExtFrame: extension stdout -> host. HostFrame: host -> extension stdin.",
        "protocol_version": crate::PROTOCOL_VERSION,
        "definitions": {
            "ExtFrame": ext,
            "HostFrame": host,
        }
    })
}
