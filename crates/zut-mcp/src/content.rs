//! MCP tool results as zut tool results: text, images, embedded resources,
//! resource links, audio, structured content and `isError`.

use serde_json::Value;

/// One block of a tool result, in the form zut's agent understands.
#[derive(Debug, Clone, PartialEq)]
pub enum McpContent {
    /// Text for the model.
    Text(String),
    /// An image, base64-encoded.
    Image {
        /// MIME type.
        mime_type: String,
        /// Base64 data.
        data: String,
    },
}

/// A mapped tool result.
#[derive(Debug, Clone, PartialEq)]
pub struct McpToolResult {
    /// `isError` of the result, or a failure of the call itself.
    pub is_error: bool,
    /// The blocks, in order.
    pub content: Vec<McpContent>,
}

impl McpToolResult {
    /// An error result with one text block.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            is_error: true,
            content: vec![McpContent::Text(text.into())],
        }
    }

    /// The text blocks joined with newlines (images as placeholders).
    pub fn text(&self) -> String {
        self.content
            .iter()
            .map(|c| match c {
                McpContent::Text(t) => t.clone(),
                McpContent::Image { mime_type, .. } => format!("[image {mime_type}]"),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Maps a `tools/call` result given as JSON (`content`, `structuredContent`,
/// `isError`). Unknown block types become a text note, never a failure.
pub fn map_call_result(result: &Value) -> McpToolResult {
    let is_error = result
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mut content: Vec<McpContent> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| blocks.iter().map(map_block).collect())
        .unwrap_or_default();
    // Structured content is also serialised as text by conforming servers;
    // when a server sent only the structure, the model gets it as JSON.
    if content.is_empty() {
        if let Some(s) = result.get("structuredContent").filter(|v| !v.is_null()) {
            content.push(McpContent::Text(
                serde_json::to_string_pretty(s).unwrap_or_default(),
            ));
        }
    }
    if content.is_empty() {
        content.push(McpContent::Text(if is_error {
            "the tool failed without a message".into()
        } else {
            "(no output)".into()
        }));
    }
    McpToolResult { is_error, content }
}

fn map_block(block: &Value) -> McpContent {
    let s = |k: &str| block.get(k).and_then(Value::as_str).unwrap_or("");
    match s("type") {
        "text" => McpContent::Text(s("text").to_string()),
        "image" => McpContent::Image {
            mime_type: s("mimeType").to_string(),
            data: s("data").to_string(),
        },
        "audio" => McpContent::Text(format!(
            "[audio {} ({} bytes base64) not shown]",
            s("mimeType"),
            s("data").len()
        )),
        "resource" => map_resource(block.get("resource").unwrap_or(&Value::Null)),
        "resource_link" => McpContent::Text(format!(
            "[resource link] {}{}{}",
            s("uri"),
            opt(" name: ", block.get("name")),
            opt(" — ", block.get("description")),
        )),
        other => McpContent::Text(format!("[unsupported content block type \"{other}\"]")),
    }
}

/// Maps one resource content (`text` or `blob`), as in `resources/read` and
/// embedded resources. Image blobs become images.
pub fn map_resource(r: &Value) -> McpContent {
    let uri = r.get("uri").and_then(Value::as_str).unwrap_or("");
    let mime = r.get("mimeType").and_then(Value::as_str).unwrap_or("");
    if let Some(text) = r.get("text").and_then(Value::as_str) {
        return McpContent::Text(format!("[resource {uri}]\n{text}"));
    }
    let blob = r.get("blob").and_then(Value::as_str).unwrap_or("");
    if mime.starts_with("image/") && !blob.is_empty() {
        return McpContent::Image {
            mime_type: mime.to_string(),
            data: blob.to_string(),
        };
    }
    McpContent::Text(format!(
        "[resource {uri}: binary {} ({} bytes base64) not shown]",
        if mime.is_empty() { "data" } else { mime },
        blob.len()
    ))
}

fn opt(prefix: &str, v: Option<&Value>) -> String {
    v.and_then(Value::as_str)
        .map(|s| format!("{prefix}{s}"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn maps_every_block() {
        let r = map_call_result(&json!({
            "isError": true,
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "image", "mimeType": "image/png", "data": "AAAA"},
                {"type": "resource", "resource": {"uri": "file:///a", "text": "body"}},
                {"type": "resource", "resource": {"uri": "file:///b", "mimeType": "application/zip", "blob": "QUJD"}},
                {"type": "resource_link", "uri": "file:///c", "name": "c"},
                {"type": "audio", "mimeType": "audio/wav", "data": "AA"},
                {"type": "weird"}
            ]
        }));
        assert!(r.is_error);
        assert_eq!(r.content[0], McpContent::Text("hi".into()));
        assert!(
            matches!(&r.content[1], McpContent::Image { mime_type, .. } if mime_type == "image/png")
        );
        assert_eq!(
            r.content[2],
            McpContent::Text("[resource file:///a]\nbody".into())
        );
        assert!(r.text().contains("binary application/zip"));
        assert!(r.text().contains("[resource link] file:///c name: c"));
        assert!(r.text().contains("audio/wav"));
        assert!(r.text().contains("\"weird\""));
    }

    #[test]
    fn structured_only() {
        let r = map_call_result(&json!({"structuredContent": {"n": 3}}));
        assert!(!r.is_error);
        assert!(r.text().contains("\"n\": 3"));
        assert_eq!(map_call_result(&json!({})).text(), "(no output)");
    }
}
