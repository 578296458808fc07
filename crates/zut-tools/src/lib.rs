//! zut's built-in tools — `read`, `write`, `edit`, `bash`, `grep`, `glob`,
//! `ast`, `python`, `worktree`, `lsp` (through [`CodeIntel`]) — with
//! their JSON Schemas ([`builtin_tools`]) and argument validation
//! ([`validate_args`], [`ArgValidator`], also used for extension tools).
//!
//! [`run_builtin`] validates the arguments against the tool's schema and runs
//! it. It never panics: every failure is a [`ToolOutput`] with
//! `is_error: true` whose text tells the model what went wrong and how to
//! proceed. This crate knows nothing of providers, extensions or UI.

mod ast;
mod bash;
mod code_intel;
mod context;
mod edit;
mod files;
mod glob;
mod grep;
pub mod jail;
pub mod limits;
mod output;
mod process;
mod python;
mod read;
mod schema;
mod validate;
mod worktree;
mod write;

use std::sync::OnceLock;

use serde::de::DeserializeOwned;
use serde_json::Value;

pub use code_intel::{attach_diagnostics, CodeIntel, IntelFuture};
pub use context::{ProgressFn, ToolContext};
pub use files::{FileAccess, FileFuture};
pub use jail::JailSwitch;
pub use output::{ToolContent, ToolOutput};
pub use schema::{builtin_tool, builtin_tools, ToolDef, BUILTIN_NAMES, SESSION_TOOLS};
pub use validate::{validate_args, ArgValidator};

/// What a mutating built-in call would do, for the `--no-yolo`
/// confirmation (the Go original's tool previews, tools.md §1.4): the diff
/// of an `edit`, an `ast` rewrite or an `lsp` rename / applied code action
/// (or the error the call would give), computed without changing
/// anything. `None` for tools without a preview, `ast` searches and `lsp`
/// calls that write nothing.
pub async fn preview_builtin(name: &str, args: &Value, ctx: &ToolContext) -> Option<String> {
    match name {
        "edit" => Some(edit::preview(args, ctx).await),
        "ast" => ast::preview(args, ctx).await,
        "lsp" => match &ctx.lsp {
            Some(intel) => intel.preview(args, ctx).await,
            None => None,
        },
        _ => None,
    }
}

/// Runs the built-in tool `name` with `args` in `ctx`.
///
/// The arguments are validated against the tool's schema first; an unknown
/// name, invalid arguments, I/O failures, a non-zero exit of `bash`, a
/// timeout or cancellation all come back as `is_error` outputs. Dropping the
/// returned future stops the tool (a running `bash` command's process group
/// is killed).
pub async fn run_builtin(name: &str, args: &Value, ctx: &ToolContext) -> ToolOutput {
    let Some(validator) = builtin_validator(name) else {
        return ToolOutput::error(format!(
            "Unknown built-in tool `{name}`. Built-in tools are: {}.",
            BUILTIN_NAMES.join(", ")
        ));
    };
    if let Err(e) = validator.validate(args) {
        return ToolOutput::error(format!(
            "Invalid arguments for `{name}`: {e}. Fix the arguments to match the tool's schema and call it again."
        ));
    }
    let name: &'static str = match BUILTIN_NAMES.iter().find(|n| **n == name) {
        Some(n) => n,
        None => return ToolOutput::error(format!("Unknown built-in tool `{name}`.")),
    };
    let args = args.clone();
    let ctx = ctx.clone();
    let fut = async move { dispatch(name, &args, &ctx).await };
    // Run on a task so a panic becomes an error output; abort it (and with
    // it any child processes) if this future is dropped.
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => {
            let task = AbortOnDrop(handle.spawn(fut));
            match (&mut { task }).await {
                Ok(out) => out,
                Err(e) => ToolOutput::error(format!("Internal error in tool `{name}`: {e}")),
            }
        }
        Err(_) => fut.await,
    }
}

async fn dispatch(name: &str, args: &Value, ctx: &ToolContext) -> ToolOutput {
    match name {
        "read" => read::run(args, ctx).await,
        "write" => code_intel::with_diagnostics(write::run(args, ctx).await, args, ctx).await,
        "edit" => code_intel::with_diagnostics(edit::run(args, ctx).await, args, ctx).await,
        "bash" => bash::run(args, ctx).await,
        "grep" => grep::run(args, ctx).await,
        "lsp" => code_intel::run_lsp(args, ctx).await,
        "glob" => glob::run(args, ctx).await,
        "ast" => ast::run(args, ctx).await,
        "python" => python::run(args, ctx).await,
        "worktree" => worktree::run(args, ctx).await,
        // Session state: the agent runs it (zut-agent `plan`).
        "plan" | "update_goal" => ToolOutput::error(format!(
            "the {name} tool needs a conversation: it is run by the agent"
        )),
        other => ToolOutput::error(format!("Unknown built-in tool `{other}`.")),
    }
}

/// The compiled validator of a built-in tool's schema (compiled once).
/// The compiled validator of built-in tool `name`, compiled on first use
/// (each compile costs memory, and a run rarely uses every tool).
fn builtin_validator(name: &str) -> Option<&'static ArgValidator> {
    static VALIDATORS: [OnceLock<Option<ArgValidator>>; BUILTIN_NAMES.len()] =
        [const { OnceLock::new() }; BUILTIN_NAMES.len()];
    let index = BUILTIN_NAMES.iter().position(|n| *n == name)?;
    VALIDATORS[index]
        .get_or_init(|| {
            let tool = builtin_tool(name)?;
            match ArgValidator::new(&tool.schema) {
                Ok(v) => Some(v),
                Err(e) => {
                    tracing::error!(tool = name, error = %e, "built-in tool schema does not compile");
                    None
                }
            }
        })
        .as_ref()
}

struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl<T> std::future::Future for AbortOnDrop<T> {
    type Output = Result<T, tokio::task::JoinError>;
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        std::pin::Pin::new(&mut self.0).poll(cx)
    }
}

/// Deserializes already-validated arguments into a tool's argument struct.
fn parse_args<T: DeserializeOwned>(tool: &str, args: &Value) -> Result<T, ToolOutput> {
    serde_json::from_value(args.clone())
        .map_err(|e| ToolOutput::error(format!("Invalid arguments for `{tool}`: {e}")))
}

/// A JSON number that is a whole number (`5` or `5.0`; JSON Schema calls
/// both integers), as `u64`. `None` for anything else.
fn whole_number(v: &Value) -> Option<u64> {
    if let Some(n) = v.as_u64() {
        return Some(n);
    }
    let f = v.as_f64()?;
    if f.fract() != 0.0 || !(0.0..=u64::MAX as f64).contains(&f) {
        return None;
    }
    Some(f as u64)
}

/// Runs blocking file-system work off the async executor.
async fn blocking<F>(tool: &str, f: F) -> ToolOutput
where
    F: FnOnce() -> ToolOutput + Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(out) => out,
        Err(e) => ToolOutput::error(format!("Internal error in tool `{tool}`: {e}")),
    }
}

/// A readable description of an I/O error for `path` (as the model gave it).
fn io_error_text(action: &str, path: &str, err: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match err.kind() {
        ErrorKind::NotFound => format!("Cannot {action} {path}: no such file or directory."),
        ErrorKind::PermissionDenied => format!("Cannot {action} {path}: permission denied."),
        _ => format!("Cannot {action} {path}: {err}."),
    }
}
