//! A subagent's events as the front ends send them: the event's own JSON
//! object with one more field, `subagent_id` (docs/subagents.md). Clients
//! that ignore unknown fields still parse them; those that follow children
//! tell them from the parent's events by that field.

use crate::event::AgentEvent;

impl AgentEvent {
    /// Appends the event's JSON line (no trailing newline) with
    /// `"subagent_id":<id>` added as its last field.
    pub fn write_json_tagged(&self, subagent_id: &str, out: &mut Vec<u8>) {
        let start = out.len();
        self.write_json(out);
        // Every event is an object with at least its `type`.
        if out.len() > start + 1 && out.last() == Some(&b'}') {
            out.pop();
            out.extend_from_slice(br#","subagent_id":"#);
            if serde_json::to_writer(&mut *out, subagent_id).is_err() {
                out.extend_from_slice(b"\"\"");
            }
            out.push(b'}');
        }
    }

    /// [`AgentEvent::write_json_tagged`] as a `String`.
    pub fn to_json_tagged(&self, subagent_id: &str) -> String {
        let mut out = Vec::new();
        self.write_json_tagged(subagent_id, &mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn the_tag_is_one_more_field() {
        let ev = AgentEvent::ToolExecutionStarted {
            id: "c1".into(),
            name: "bash".into(),
        };
        let line = ev.to_json_tagged("sa-1-ab\"c");
        let v: Value = serde_json::from_str(&line).unwrap_or_default();
        assert_eq!(v["type"], "tool_execution_started");
        assert_eq!(v["name"], "bash");
        assert_eq!(v["subagent_id"], "sa-1-ab\"c");
        let plain: Value =
            serde_json::from_str(&AgentEvent::Done.to_json_tagged("x")).unwrap_or_default();
        assert_eq!(plain, serde_json::json!({"type":"done","subagent_id":"x"}));
        let delta = AgentEvent::TextDelta { delta: "hi".into() };
        assert_eq!(
            delta.to_json_tagged("sa-2"),
            r#"{"type":"text_delta","delta":"hi","subagent_id":"sa-2"}"#
        );
    }
}
