//! The JSON Schema of the RPC protocol, generated from the wire types and
//! checked in as `schema/rpc.schema.json` (a test fails when they differ;
//! `UPDATE_SCHEMA=1 cargo test -p zut-rpc rpc_schema` rewrites it).

use serde_json::{json, Value};
use zut_agent::AgentEvent;

use super::wire::*;

/// The whole schema: requests, responses (with every data object) and
/// events.
pub fn rpc_schema() -> Value {
    let v = |s: schemars::Schema| serde_json::to_value(s).unwrap_or(Value::Null);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "zut RPC protocol v1",
        "description": "One JSON object per line on stdin (Request) and stdout (Response or Event). Data objects are the `data` of successful responses, by command. Opt-in additions (`command`, `get_commands`, `panel_key`, `panel_close`, `reload_ext`, `ext_panel_*`, `ext_submit`, `ext_insert`, `list_sessions`, `new_session`, `switch_session`, `fork_session`, `rename_session`, `elicitation_response`, and the `subagents` capability's children's events: `subagent_start`, `subagent_end` and any event carrying an extra `subagent_id` string) need `hello` capabilities.",
        "protocol_version": 1,
        "definitions": {
            "Request": v(schemars::schema_for!(Request)),
            "Response": v(schemars::schema_for!(Response)),
            "Event": v(schemars::schema_for!(AgentEvent)),
            "HelloData": v(schemars::schema_for!(HelloData)),
            "StartedData": v(schemars::schema_for!(StartedData)),
            "StateData": v(schemars::schema_for!(StateData)),
            "MessagesData": v(schemars::schema_for!(MessagesData)),
            "ModelData": v(schemars::schema_for!(ModelData)),
            "ReasoningData": v(schemars::schema_for!(ReasoningData)),
            "ModelsData": v(schemars::schema_for!(ModelsData)),
            "PongData": v(schemars::schema_for!(PongData)),
            "CommandData": v(schemars::schema_for!(CommandData)),
            "ReloadData": v(schemars::schema_for!(ReloadData)),
            "CommandsData": v(schemars::schema_for!(CommandsData)),
            "SessionData": v(schemars::schema_for!(SessionData)),
            "SessionsData": v(schemars::schema_for!(SessionsData)),
        }
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn rpc_schema_file_is_current() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schema/rpc.schema.json");
        // Keys sorted, whatever serde_json's `preserve_order` is in this
        // build, so the checked-in file changes only where the types do.
        let generated = serde_json::to_string_pretty(&sorted(rpc_schema())).unwrap() + "\n";
        if std::env::var_os("UPDATE_SCHEMA").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        // Compared as JSON values: key order depends on whether some crate in
        // the build enables serde_json's `preserve_order` (agent-client-protocol does).
        let on_disk: serde_json::Value = serde_json::from_str(&on_disk).unwrap_or_default();
        let generated: serde_json::Value = serde_json::from_str(&generated).unwrap();
        assert!(
            on_disk == generated,
            "schema/rpc.schema.json is stale; run UPDATE_SCHEMA=1 cargo test -p zut-rpc rpc_schema"
        );
    }

    fn sorted(v: serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(m) => {
                let mut entries: Vec<_> = m.into_iter().collect();
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                serde_json::Value::Object(
                    entries.into_iter().map(|(k, v)| (k, sorted(v))).collect(),
                )
            }
            serde_json::Value::Array(a) => {
                serde_json::Value::Array(a.into_iter().map(sorted).collect())
            }
            other => other,
        }
    }

    #[test]
    fn rpc_schema_names_every_command_and_event() {
        let text = serde_json::to_string(&rpc_schema()).unwrap();
        for t in [
            "hello",
            "prompt",
            "abort",
            "compact",
            "get_state",
            "get_messages",
            "clear",
            "set_model",
            "set_reasoning",
            "get_models",
            "ping",
            "command",
            "panel_key",
            "panel_close",
            "elicitation_response",
            "reload_ext",
            "get_commands",
            "turn_start",
            "request_started",
            "cache_diagnostics",
            "retry_scheduled",
            "user_message",
            "assistant_start",
            "text_delta",
            "tool_use_start",
            "tool_use_args",
            "tool_use_end",
            "tool_call",
            "tool_execution_started",
            "tool_progress",
            "tool_result",
            "assistant_message",
            "usage",
            "turn_end",
            "done",
            "error",
            "compact_done",
            "ext_notify",
            "ext_clear_notes",
            "ext_alert",
            "ext_status",
            "ext_widget",
            "ext_widget_clear",
            "ext_display",
            "ext_chrome_clear",
            "ext_panel_open",
            "ext_panel_render",
            "ext_panel_close",
            "ext_submit",
            "ext_insert",
            "context_recovery",
            "repetition_guard",
            "turn_recovery",
            "plan_update",
        ] {
            assert!(text.contains(&format!("\"{t}\"")), "schema lacks {t}");
        }
    }
}
