//! `zut ext doctor` (cli.md §2.2): a static scan of every extension
//! directory, then the real start-up path of the extension host (with
//! doctor's short timers), a per-extension snapshot, a quick shutdown and
//! a report on stdout. Diagnostics are not failures: the exit status is 0
//! unless doctor itself could not run (bad arguments, Ctrl+C).
//!
//! | file | concern |
//! |---|---|
//! | `args.rs` | `--ext/-e`, `--no-ext`, `--cwd` |
//! | `scan.rs` | static rows, manifest errors with file and field |
//! | `live.rs` | host configuration, start, snapshot, shutdown |
//! | `render.rs` | status precedence, blocks, load errors, hints |
//! | `mcp.rs` | MCP servers started alongside, tool name clashes |

mod args;
mod live;
mod mcp;
mod render;
mod scan;

use std::io::Write;

use super::ExtContext;
use crate::Builtins;

/// Runs `zut ext doctor <args>`; returns the exit status.
pub fn run(ctx: &ExtContext, argv: &[String], builtins: &Builtins) -> anyhow::Result<i32> {
    let a = args::parse(argv).map_err(anyhow::Error::msg)?;
    if a.help {
        crate::errln!("{}", args::USAGE);
        crate::errln!(
            "starts the installed extensions (or the --ext ones) and reports what each registered"
        );
        return Ok(0);
    }
    let cwd = match &a.cwd {
        Some(p) => {
            let p = args::absolute(&ctx.cwd, p);
            if !p.is_dir() {
                anyhow::bail!("--cwd {}: not a directory", p.display());
            }
            p
        }
        None => ctx.cwd.clone(),
    };
    let input = scan::ScanInput {
        cwd,
        home: ctx.home.clone(),
        ext: a.ext.iter().map(|p| args::absolute(&ctx.cwd, p)).collect(),
        no_ext: a.no_ext,
    };
    let rows = scan::scan(&input);
    let mut out = std::io::stdout().lock();
    if rows.is_empty() {
        if input.no_ext {
            writeln!(
                out,
                "no extensions to check: --no-ext skips installed extensions"
            )?;
            writeln!(out, "pass --ext <dir> to check an extension directory")?;
        } else {
            writeln!(out, "no extensions installed")?;
            writeln!(
                out,
                "see docs/extensions.md to write your own, or `zut ext install <path|url>`"
            )?;
        }
        out.flush()?;
        return Ok(0);
    }
    drop(out);
    let snapshot = live::run(&input, builtins)?;
    let mut out = std::io::stdout().lock();
    out.write_all(render::render(&rows, &snapshot).as_bytes())?;
    out.write_all(mcp::render(&snapshot.mcp).as_bytes())?;
    // What this machine can enforce for confined extensions (never claim a
    // sandbox that is not there).
    writeln!(out, "\nsandbox: {}", zut_sandbox::status().line())?;
    out.flush()?;
    Ok(0)
}
