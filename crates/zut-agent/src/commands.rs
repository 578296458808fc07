//! The one list of built-in slash commands (defined in `zut-types`, so
//! front ends that only depend on it can list them).

pub use zut_types::commands::*;
