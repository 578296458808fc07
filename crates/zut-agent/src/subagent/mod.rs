//! Subagents: named profiles and (see `runtime`) in-process children.

pub mod profiles;
