//! The code-intelligence seam: a language-server manager (the `zut-lsp`
//! crate) answers the `lsp` tool and reports the diagnostics of files that
//! a mutating tool (`write`, `edit`, an `ast` rewrite) just changed. This
//! crate only defines the trait; the front end puts an implementation in
//! [`crate::ToolContext::lsp`].

use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;

use serde_json::Value;

use crate::{ToolContent, ToolContext, ToolOutput};

/// A boxed future returned by [`CodeIntel`] methods.
pub type IntelFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Language intelligence behind the `lsp` tool and the post-edit
/// diagnostics (implemented by `zut_lsp::LspManager`).
pub trait CodeIntel: Send + Sync + fmt::Debug {
    /// Runs the `lsp` tool with already validated `args`.
    fn run_tool<'a>(&'a self, args: &'a Value, ctx: &'a ToolContext)
        -> IntelFuture<'a, ToolOutput>;

    /// The diagnostics newly introduced in `paths` (absolute files just
    /// written), as a summary text to append to the mutating tool's
    /// result, or `None` when there is nothing new to say. Bounded in time
    /// by the implementation; never fails the mutation.
    fn after_mutation<'a>(
        &'a self,
        paths: &'a [PathBuf],
        ctx: &'a ToolContext,
    ) -> IntelFuture<'a, Option<String>>;

    /// What an `lsp` call with `args` would write (a rename's or code
    /// action's diff, or the error it would give), for the `--no-yolo`
    /// confirmation; nothing is written. `None` for calls that write
    /// nothing. The default has no preview.
    fn preview<'a>(
        &'a self,
        _args: &'a Value,
        _ctx: &'a ToolContext,
    ) -> IntelFuture<'a, Option<String>> {
        Box::pin(async { None })
    }
}

/// Appends the diagnostics of `paths` to a successful mutating tool's
/// `out` (first text block, after a blank line), when the context has a
/// [`CodeIntel`]. Failed outputs are left alone.
pub async fn attach_diagnostics(out: &mut ToolOutput, paths: &[PathBuf], ctx: &ToolContext) {
    let Some(intel) = &ctx.lsp else {
        return;
    };
    if out.is_error || paths.is_empty() {
        return;
    }
    let Some(summary) = intel.after_mutation(paths, ctx).await else {
        return;
    };
    match out.content.iter_mut().find_map(|c| match c {
        ToolContent::Text(t) => Some(t),
        ToolContent::Image { .. } => None,
    }) {
        Some(text) => {
            text.push_str("\n\n");
            text.push_str(summary.trim_end());
            text.push('\n');
        }
        None => out.content.push(ToolContent::Text(summary)),
    }
}

/// `lsp` without a manager (`--no-lsp` or an embedder that set none).
pub(crate) async fn run_lsp(args: &Value, ctx: &ToolContext) -> ToolOutput {
    match &ctx.lsp {
        Some(intel) => intel.run_tool(args, ctx).await,
        None => ToolOutput::error("lsp manager is unavailable"),
    }
}

/// `write`/`edit` followed by the diagnostics of the file they changed.
pub(crate) async fn with_diagnostics(
    mut out: ToolOutput,
    args: &Value,
    ctx: &ToolContext,
) -> ToolOutput {
    if ctx.lsp.is_some() && !out.is_error {
        if let Some(path) = args.get("path").and_then(Value::as_str) {
            let paths = [ctx.resolve(path)];
            attach_diagnostics(&mut out, &paths, ctx).await;
        }
    }
    out
}
