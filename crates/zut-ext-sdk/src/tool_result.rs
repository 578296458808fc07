//! What a tool handler returns to the model.

use base64::Engine as _;
use serde_json::Value;
use zut_protocol::ContentBlock;

/// A tool handler's answer, sent as `tool_result`.
///
/// ```
/// use zut_ext_sdk::ToolResult;
/// let ok = ToolResult::text("Berlin: 16°C, fog")
///     .with_details(serde_json::json!({"state": {"version": 1}}));
/// let failed = ToolResult::error("city is required");
/// # let _ = (ok, failed);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolResult {
    /// Result blocks shown to the model, in order.
    pub content: Vec<ContentBlock>,
    /// Marks the call as failed.
    pub is_error: bool,
    /// Registered deferred tools to make available after this result.
    pub activate_tools: Vec<String>,
    /// Opaque extension state persisted with the session branch (never
    /// sent to the model). `Some(Value::Null)` clears the stored state.
    pub details: Option<Value>,
}

impl ToolResult {
    /// An empty successful result (the host shows "no content").
    pub fn new() -> Self {
        Self::default()
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new().with_text(text)
    }

    /// A failed result (`is_error: true`) with one text block.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            is_error: true,
            ..Self::text(text)
        }
    }

    /// A successful result with one image block made from raw bytes.
    pub fn image(mime_type: impl Into<String>, bytes: &[u8]) -> Self {
        Self::new().with_image(mime_type, bytes)
    }

    /// Appends a text block.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.content.push(ContentBlock::text(text));
        self
    }

    /// Appends an image block, base64-encoding `bytes`.
    pub fn with_image(mut self, mime_type: impl Into<String>, bytes: &[u8]) -> Self {
        let data = base64::engine::general_purpose::STANDARD.encode(bytes);
        self.content.push(ContentBlock::image(mime_type, data));
        self
    }

    /// Appends an image block whose data is already standard base64.
    pub fn with_image_base64(
        mut self,
        mime_type: impl Into<String>,
        base64_data: impl Into<String>,
    ) -> Self {
        self.content
            .push(ContentBlock::image(mime_type, base64_data));
        self
    }

    /// Sets the opaque `details` state snapshot. Build it with
    /// `serde_json::json!` or `serde_json::to_value(&state)`.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// Adds deferred tool names to activate after this result.
    pub fn with_activate_tools<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.activate_tools
            .extend(names.into_iter().map(Into::into));
        self
    }

    /// The wire frame answering request `id`.
    pub(crate) fn into_frame(self, id: String) -> zut_protocol::ToolResult {
        zut_protocol::ToolResult {
            id,
            content: self.content,
            is_error: self.is_error,
            activate_tools: self.activate_tools,
            details: self.details,
        }
    }
}
