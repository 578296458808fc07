//! The bounded, cancellation-safe line reader for extension stdout (the
//! shared one of `zut-process`).

pub use zut_process::lines::{LineRead, LineReader};
