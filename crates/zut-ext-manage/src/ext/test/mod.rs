//! `zut ext test [DIR]`: checks an extension against the protocol without
//! any model — handshake, registration and `ready`, stray output, each
//! tool with a schema-valid sample argument, commands, interceptors within
//! their deadline, panel frames, shutdown and leftover processes — and
//! prints a report (`--json` for machines). Exit status 1 when a check
//! failed, 2 on bad arguments.
//!
//! | file | concern |
//! |---|---|
//! | `args.rs` | command line |
//! | `wire.rs` | the spawned process, frame I/O, process group |
//! | `conformance/` | the checks, in protocol order: `mod.rs` (the run), `handshake.rs` (hello, registrations, ready), `calls.rs` (tools, commands, interceptors, events, shutdown), `frames.rs` (unasked frames, request/reply) |
//! | `samples.rs` | sample tool arguments from a JSON Schema |
//! | `report.rs` | checks, text and JSON rendering |
//! | `scenario.rs` | `--scenario` files: real turns against the local LLM server |

mod args;
mod conformance;
mod report;
mod samples;
mod scenario;
mod wire;

use std::time::Duration;

use super::ExtContext;

/// Runs `zut ext test <args>`; returns the exit status.
pub fn run(ctx: &ExtContext, argv: &[String]) -> anyhow::Result<i32> {
    let a = match args::parse(argv) {
        Ok(a) => a,
        Err(e) => {
            crate::errln!("zut ext test: {e}");
            return Ok(2);
        }
    };
    if a.help {
        crate::errln!("{}", args::USAGE);
        crate::errln!(
            "checks an extension directory against the protocol without a model (see docs/cli.md)"
        );
        return Ok(0);
    }
    let dir = a.dir.clone().unwrap_or_else(|| ".".into());
    let dir = if dir.is_absolute() {
        dir
    } else {
        ctx.cwd.join(dir)
    };
    let dir = dir.canonicalize().unwrap_or(dir);
    if !dir.is_dir() {
        crate::errln!("zut ext test: {}: not a directory", dir.display());
        return Ok(2);
    }
    let mut scenarios = Vec::new();
    for file in &a.scenarios {
        let file = if file.is_absolute() {
            file.clone()
        } else {
            ctx.cwd.join(file)
        };
        match scenario::load(&file) {
            Ok(s) => scenarios.push((file, s)),
            Err(e) => {
                crate::errln!("zut ext test: scenario {e}");
                return Ok(2);
            }
        }
    }
    let opts = conformance::Options {
        dir,
        tool_args: a.tool_args.clone(),
        timeout: Duration::from_secs_f64(a.timeout_secs.unwrap_or(10.0)),
        cwd: ctx.cwd.clone(),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| anyhow::anyhow!("start async runtime: {e}"))?;
    let mut report = report::Report::default();
    rt.block_on(async {
        conformance::run(&opts, &mut report).await;
        // Scenarios only make sense for an extension that loads.
        if report.ok() {
            for (file, s) in &scenarios {
                scenario::run(file, s, &opts.dir, &mut report).await;
            }
        }
    });
    if a.json {
        crate::stdio::line(&report.to_json().to_string());
    } else {
        crate::stdio::text(&report.to_text());
    }
    Ok(if report.ok() { 0 } else { 1 })
}
