//! The JSON shape of messages for JSON/RPC clients (rpc.md §6): images are
//! reduced to their byte count, reasoning is omitted.

use zut_providers::Part;

pub use zut_types::transcript::JsonBlock;

/// Decoded length of standard base64 `data` (without decoding it).
fn base64_len(data: &str) -> usize {
    let trimmed = data.trim_end_matches('=');
    trimmed.len() * 3 / 4
}

/// JSON blocks for `parts` (reasoning dropped).
pub fn json_blocks(parts: &[Part]) -> Vec<JsonBlock> {
    parts.iter().filter_map(json_block).collect()
}

fn json_block(part: &Part) -> Option<JsonBlock> {
    Some(match part {
        Part::Text { text } => JsonBlock::Text { text: text.clone() },
        Part::Image { mime_type, data } => JsonBlock::Image {
            mime_type: mime_type.clone(),
            bytes: base64_len(data),
        },
        Part::Thinking { .. } => return None,
        Part::ToolCall { id, name, args } => JsonBlock::ToolCall {
            id: id.clone(),
            name: name.clone(),
            args: args.clone(),
        },
        Part::ToolResult {
            call_id,
            is_error,
            content,
        } => JsonBlock::ToolResult {
            call_id: call_id.clone(),
            is_error: *is_error,
            content: json_blocks(content),
        },
    })
}

/// The current time as RFC 3339 (UTC, seconds).
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_become_byte_counts_and_thinking_is_dropped() {
        let parts = vec![
            Part::Thinking {
                text: "hm".into(),
                signature: None,
            },
            Part::Image {
                mime_type: "image/png".into(),
                data: "aGVsbG8=".into(),
            },
        ];
        let v = serde_json::to_value(json_blocks(&parts)).unwrap();
        assert_eq!(
            v,
            serde_json::json!([{"type":"image","mime_type":"image/png","bytes":5}])
        );
    }
}
