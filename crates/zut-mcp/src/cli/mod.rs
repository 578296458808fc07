//! `zut mcp list|get|add|remove|trust|login|logout|serve`. The CLI crate
//! routes `zut mcp …` here ([`run`]); each subcommand returns the exit
//! status and prints nothing but its own output.

mod edit;
mod list;
mod login;
mod trust;

use std::io::Write;
use std::path::PathBuf;

/// Usage text.
pub const USAGE: &str = "\
usage: zut mcp <command>

  list [--json]                      configured servers, connected to show their state
  get <name>                         one server: definition, source, state, tools, prompts, resources
  add [-s user|project] [-t stdio|http|sse] [-e KEY=VALUE]... [-H 'Name: value']...
      [--timeout MS] <name> <command-or-url> [args...]
                                     add a server (user: $ZUT_HOME/config.json, project: ./.mcp.json)
  add-json [-s user|project] <name> '<json>'
  remove [-s user|project] <name>    remove a server
  trust [--revoke] [name...]         trust this project's .mcp.json / .zut/mcp.json servers (all without names)
  login <name> [--no-browser]        OAuth login for a remote server (prints the URL, listens on a loopback port;
                                     paste the redirect URL when the browser is elsewhere)
  logout <name>                      forget a server's OAuth tokens
  serve [--extensions] [--jail|--no-jail]
                                     run zut as an MCP server on stdio (built-in tools; --extensions adds
                                     the installed extensions' tools; --jail runs them under the jail,
                                     the default with jail_by_default)

Common: --cwd DIR (project directory, default: the current one)";

/// Where the command runs.
pub(crate) struct Ctx {
    pub home: PathBuf,
    pub project: PathBuf,
}

/// Runs `zut mcp <argv>`; returns the exit status. `zut mcp serve` gets
/// the default jail (no `sandbox` keys, off unless `--jail`).
pub fn run(argv: &[String]) -> i32 {
    run_with(argv, &crate::serve::default_jail)
}

/// [`run`] with what the jail of `zut mcp serve` is built from (the CLI
/// crate reads config.json's `jail_by_default` and `sandbox`).
pub fn run_with(argv: &[String], jail: crate::serve::JailConfig<'_>) -> i32 {
    let mut args: Vec<String> = Vec::new();
    let mut project = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        if a == "--cwd" {
            match it.next() {
                Some(d) => project = PathBuf::from(d),
                None => return usage_error("--cwd needs a directory"),
            }
        } else {
            args.push(a.clone());
        }
    }
    let ctx = Ctx {
        home: zut_ext_host::ZutHome::from_env().root().to_path_buf(),
        project,
    };
    let Some((cmd, rest)) = args.split_first() else {
        out(USAGE);
        return 2;
    };
    let result = match cmd.as_str() {
        "list" | "ls" => runtime(|| list::list(&ctx, rest)),
        "get" | "show" => runtime(|| list::get(&ctx, rest)),
        "add" => edit::add(&ctx, rest),
        "add-json" => edit::add_json(&ctx, rest),
        "remove" | "rm" => edit::remove(&ctx, rest),
        "trust" => trust::trust(&ctx, rest),
        "login" => runtime(|| login::login(&ctx, rest)),
        "logout" => login::logout(&ctx, rest),
        "serve" => runtime(|| crate::serve::serve_with(&ctx.home, &ctx.project, rest, jail)),
        "help" | "-h" | "--help" => {
            out(USAGE);
            Ok(0)
        }
        other => Err(format!("unknown command `{other}`\n{USAGE}")),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            err(&format!("zut mcp: {e}"));
            1
        }
    }
}

fn usage_error(msg: &str) -> i32 {
    err(&format!("zut mcp: {msg}\n{USAGE}"));
    2
}

/// Runs an async command on a fresh runtime.
fn runtime<F, Fut>(f: F) -> Result<i32, String>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Result<i32, String>>,
{
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("starting the runtime: {e}"))?;
    rt.block_on(f())
}

/// Prints a line on stdout (a closed pipe is not an error).
pub(crate) fn out(text: &str) {
    let mut o = std::io::stdout().lock();
    let _ = writeln!(o, "{text}");
}

/// Prints a line on stderr.
pub(crate) fn err(text: &str) {
    let mut o = std::io::stderr().lock();
    let _ = writeln!(o, "{text}");
}
