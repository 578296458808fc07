//! `zut ext remove <name> [--yes|-y]` (alias `rm`, cli.md §2.4).

use std::io::{BufRead, Write};

use anyhow::Context;

use super::flags::name_and_switch;
use super::guard::ensure_scope_child;
use super::{lookup, ExtContext};

const USAGE: &str = "usage: zut ext remove <name> [--yes]";

/// Runs `zut ext remove`.
pub fn run(ctx: &ExtContext, args: &[String]) -> anyhow::Result<()> {
    let (name, yes) = name_and_switch(args, ["--yes", "-y"], "remove", USAGE)?;
    let dir = lookup::find(ctx, name)?;
    if !yes && !confirm(&format!("remove {} ? [y/N] ", dir.display()))? {
        crate::errln!("aborted");
        return Ok(());
    }
    ensure_scope_child(&dir, &[&ctx.project_dir(), &ctx.global_dir()])?;
    std::fs::remove_dir_all(&dir).with_context(|| format!("remove {}", dir.display()))?;
    crate::errln!("removed {}", dir.display());
    Ok(())
}

/// Prints `prompt` on stderr and reads one line: only `y`/`Y` confirms
/// (EOF, empty, `yes`, anything else does not).
fn confirm(prompt: &str) -> anyhow::Result<bool> {
    let mut err = std::io::stderr().lock();
    err.write_all(prompt.as_bytes())?;
    err.flush()?;
    drop(err);
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("read answer")?;
    Ok(matches!(line.trim(), "y" | "Y"))
}
