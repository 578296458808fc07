//! `@server:uri` mentions in a user prompt: the MCP resources they name
//! are read and attached to the prompt (`zut_mcp::mentions`: bounded, and
//! a mention that cannot be read becomes a line saying why, so the prompt
//! is never lost).

use tokio_util::sync::CancellationToken;
use zut_mcp::McpContent;
use zut_providers::Part;

use crate::agent::Agent;

impl Agent {
    /// `content` with the resources its `@server:uri` mentions name
    /// appended (unchanged without MCP servers or mentions).
    pub(crate) async fn attach_mcp_mentions(
        &self,
        mut content: Vec<Part>,
        cancel: &CancellationToken,
    ) -> Vec<Part> {
        let Some(mcp) = &self.mcp else {
            return content;
        };
        let text: String = content
            .iter()
            .filter_map(|p| match p {
                Part::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n");
        if !text.contains('@') {
            return content;
        }
        for c in mcp.read_mentions(&text, cancel).await {
            content.push(match c {
                McpContent::Text(text) => Part::Text { text },
                McpContent::Image { mime_type, data } => Part::Image { mime_type, data },
            });
        }
        content
    }
}
