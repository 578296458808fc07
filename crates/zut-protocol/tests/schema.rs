//! The checked-in schema must match what the types generate.

use std::path::PathBuf;

fn schema_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schema/protocol.schema.json")
}

#[test]
fn checked_in_schema_is_current() {
    let generated = serde_json::to_string_pretty(&zut_protocol::protocol_schema()).unwrap() + "\n";
    let path = schema_path();
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    // Compared as JSON values: key order depends on whether some crate in the
    // build enables serde_json's `preserve_order` (agent-client-protocol does).
    let on_disk: serde_json::Value = serde_json::from_str(&on_disk).unwrap_or_default();
    let generated: serde_json::Value = serde_json::from_str(&generated).unwrap();
    assert!(
        on_disk == generated,
        "schema/protocol.schema.json is stale; run UPDATE_SCHEMA=1 cargo test -p zut-protocol --test schema"
    );
}

#[test]
fn schema_names_every_frame_type() {
    let text = serde_json::to_string(&zut_protocol::protocol_schema()).unwrap();
    for t in [
        "hello",
        "register_command",
        "register_tool",
        "subscribe",
        "ready",
        "command_response",
        "tool_result",
        "event_intercept_response",
        "notify",
        "status",
        "widget",
        "widget_clear",
        "alert",
        "clear_notes",
        "submit",
        "submit_slash",
        "open_panel",
        "panel_render",
        "panel_close",
        "shutdown_ack",
        "hello_ack",
        "command_invoked",
        "tool_call",
        "event",
        "event_intercept",
        "panel_key",
        "panel_resize",
        "shutdown",
    ] {
        assert!(
            text.contains(&format!("\"{t}\"")),
            "schema lacks frame type {t}"
        );
    }
}
