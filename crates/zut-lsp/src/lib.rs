//! zut's language-server manager and the `lsp` tool.
//!
//! [`LspManager`] knows which servers apply to a file (a built-in table
//! overridden and extended by `lsp.json`, [`config`]), starts them lazily
//! per workspace root, keeps them warm, restarts a crashed one with
//! backoff and stops them with zut (each server leads a process group that
//! is killed on drop; on Linux it also dies with zut). It implements
//! [`zut_tools::CodeIntel`]: the `lsp` tool's actions and the diagnostics
//! attached after `write`, `edit` and applied rename/code-action edits.

mod apply;
pub mod builtin;
pub mod client;
pub mod config;
pub mod diagnostics;
pub mod edits;
mod file_glob;
mod format;
pub mod framing;
mod handshake;
pub mod linters;
pub mod manager;
mod navigate;
mod preview;
pub mod process;
mod raw;
mod startup;
mod tool;

pub use config::{Config, Kind, ServerConfig};
pub use diagnostics::{summarize, Diagnostic};
pub use manager::{LspManager, Options, Target};
pub use tool::{MAX_MUTATION_FILES, MAX_TIMEOUT_MS, MAX_TOOL_TEXT};

/// A duration as people read it: `850 ms`, `1.5 s`, `12 s`.
pub(crate) fn fmt_duration(d: std::time::Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}
