//! `zut ext remove <name> [--yes|-y]` (alias `rm`, cli.md §2.4).

use std::io::{BufRead, Write};

use anyhow::{bail, Context};

use super::guard::ensure_scope_child;
use super::{lookup, ExtContext};

const USAGE: &str = "usage: zut ext remove <name> [--yes]";

/// Runs `zut ext remove`.
pub fn run(ctx: &ExtContext, args: &[String]) -> anyhow::Result<()> {
    let mut name: Option<&str> = None;
    let mut yes = false;
    for a in args {
        match a.as_str() {
            "--yes" | "-y" => yes = true,
            s if s.starts_with('-') && s.len() > 1 => bail!("unknown ext remove option {s:?}"),
            s if name.is_none() => name = Some(s),
            _ => bail!(USAGE),
        }
    }
    let Some(name) = name else { bail!(USAGE) };
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
