//! `zut ext doctor` (cli.md §2.2).
//!
//! PLACEHOLDER — owned by the lead, who will replace this file with the
//! real doctor (static scan + live discovery). Until then it only says so.

/// Runs `zut ext doctor`; returns the exit status.
pub fn run(_ctx: &super::ExtContext) -> anyhow::Result<i32> {
    // PLACEHOLDER: replaced by the lead's implementation.
    eprintln!("zut ext doctor: not built yet");
    Ok(1)
}
