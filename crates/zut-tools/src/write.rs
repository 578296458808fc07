//! `write`: create or replace a file.

use serde::Deserialize;
use serde_json::Value;

use crate::{io_error_text, parse_args, ToolContext, ToolOutput};

#[derive(Deserialize)]
struct WriteArgs {
    path: String,
    content: String,
}

pub(crate) async fn run(args: &Value, ctx: &ToolContext) -> ToolOutput {
    let a: WriteArgs = match parse_args("write", args) {
        Ok(a) => a,
        Err(out) => return out,
    };
    let path = ctx.resolve(&a.path);
    if let Err(out) = crate::jail::check_write(ctx, &path) {
        return out;
    }
    let existed = match tokio::fs::metadata(&path).await {
        Ok(meta) if meta.is_dir() => {
            return ToolOutput::error(format!(
                "Cannot write {}: it is a directory. Give a file path.",
                a.path
            ))
        }
        Ok(_) => true,
        Err(_) => false,
    };
    if let Some(parent) = path.parent() {
        if !parent.as_os_str().is_empty() {
            if let Err(e) = tokio::fs::create_dir_all(parent).await {
                return ToolOutput::error(io_error_text(
                    "create the parent directory of",
                    &a.path,
                    &e,
                ));
            }
        }
    }
    if let Some(files) = &ctx.files {
        if let Err(e) = files.write_text(&path, &a.content).await {
            return ToolOutput::error(format!("Cannot write {}: {e}", a.path));
        }
    } else if let Err(e) = tokio::fs::write(&path, a.content.as_bytes()).await {
        return ToolOutput::error(io_error_text("write", &a.path, &e));
    }
    let lines = a.content.lines().count();
    let verb = if existed { "Overwrote" } else { "Created" };
    ToolOutput::text(format!(
        "{verb} {}: wrote {} bytes ({lines} lines).",
        a.path,
        a.content.len()
    ))
}
