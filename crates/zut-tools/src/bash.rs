//! `bash`: run a command in its own process group with a required timeout.

use serde_json::Value;

use crate::{ToolContext, ToolOutput};

pub(crate) async fn run(_args: &Value, _ctx: &ToolContext) -> ToolOutput {
    ToolOutput::error("bash is not implemented yet")
}
