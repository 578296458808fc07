//! `grep`: regex search over files, respecting .gitignore.

use serde_json::Value;

use crate::{ToolContext, ToolOutput};

pub(crate) async fn run(_args: &Value, _ctx: &ToolContext) -> ToolOutput {
    ToolOutput::error("grep is not implemented yet")
}
