//! The `zut` binary: routes `zut ext …` to the extension manager and
//! everything else to the global flag parser.

mod acp_mode;
mod agent_mode;
mod agents_cmd;
mod args;
mod auth_cmd;
mod builtin_names;
mod config_cmd;
mod config_extra;
mod rpc_mode;
mod sandbox_setup;
mod session_cmd;
mod settings;
mod skills_cmd;
mod stdio;
mod tui_mode;
mod web_setup;

use std::process::ExitCode;

use zut_ext_manage::errln;

/// The allocator of the static release build (docs/install.md): musl's
/// own allocator takes about twice zut's CPU time per streamed megabyte
/// (`scripts/bench/rpc --throughput`); glibc builds keep glibc's.
/// The static release build's memory functions (crates/zut-mem): linked
/// before musl's own.
#[cfg(target_env = "musl")]
extern crate zut_mem;

#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let argv: Vec<String> = match std::env::args_os()
        .skip(1)
        .map(|a| a.into_string())
        .collect::<Result<_, _>>()
    {
        Ok(v) => v,
        Err(bad) => {
            crate::errln!("zut: argument is not valid UTF-8: {bad:?}");
            return ExitCode::from(1);
        }
    };
    // config.json `http_proxy`, before any thread starts.
    settings::apply_http_proxy(&config_cmd::home_root());
    let code = route(argv);
    // A skill scan started for a run that ended early finishes its cache
    // write before the process exits.
    zut_agent::skills::settle_prefetch();
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// Subcommand routing happens before flag parsing (cli.md §1): `ext`,
/// `update`, `session`, `skills`, `config`, `auth`, `mcp`, then the normal flag parser; `zut rpc …` becomes `zut --rpc …`.
fn route(mut argv: Vec<String>) -> i32 {
    match argv.first().map(String::as_str) {
        Some("ext") => zut_ext_manage::run_ext(&argv[1..], &builtin_names::builtins()),
        Some("update") => zut_ext_manage::run_update(&argv[1..]),
        Some("session") => session_cmd::run(&argv[1..]),
        Some("skills") => skills_cmd::run(&argv[1..]),
        Some("agents") => agents_cmd::run(&argv[1..]),
        Some("config") => config_cmd::run(&argv[1..]),
        Some("auth") => auth_cmd::run(&argv[1..]),
        Some("acp") => acp_mode::run(&argv[1..]),
        Some("mcp") => zut_mcp::cli::run_with(&argv[1..], &sandbox_setup::mcp_serve_jail),
        Some("rpc") => {
            argv[0] = "--rpc".to_string();
            args::run(argv)
        }
        _ => {
            agent_mode::setup::prefetch_early(&argv);
            args::run(argv)
        }
    }
}
