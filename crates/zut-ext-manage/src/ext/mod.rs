//! `zut ext …`: extension management (cli.md §2).
//!
//! Arguments are parsed by hand because the required error texts are part
//! of the contract. Every subcommand uses the process working directory for
//! the project scope and `$ZUT_HOME` for the global scope; none reads the
//! global flags.

mod doctor;
mod enable;
mod flags;
mod guard;
mod install;
mod json_edit;
mod list;
mod logs;
mod lookup;
mod new;
mod remove;
mod test;

use std::path::PathBuf;

use zut_ext_host::home::project_extensions_dir;
use zut_ext_host::ZutHome;

use crate::Builtins;

/// What every `zut ext` subcommand works on.
#[derive(Debug, Clone)]
pub struct ExtContext {
    /// Absolute process working directory (project scope root).
    pub cwd: PathBuf,
    /// `$ZUT_HOME`.
    pub home: ZutHome,
}

impl ExtContext {
    /// Builds the context from the process environment.
    pub fn from_env() -> anyhow::Result<Self> {
        let cwd = std::env::current_dir().map_err(|e| anyhow::anyhow!("working directory: {e}"))?;
        let home = ZutHome::from_env();
        // Make `$ZUT_HOME` absolute so printed paths are absolute.
        let home = if home.root().is_absolute() {
            home
        } else {
            ZutHome::new(cwd.join(home.root()))
        };
        Ok(Self { cwd, home })
    }

    /// `<cwd>/.zut/extensions`.
    pub fn project_dir(&self) -> PathBuf {
        project_extensions_dir(&self.cwd)
    }

    /// `$ZUT_HOME/extensions`.
    pub fn global_dir(&self) -> PathBuf {
        self.home.extensions_dir()
    }
}

/// The help printed by `zut ext`, `zut ext help` and on unknown subcommands.
pub const HELP: &str = "\
zut ext — manage extensions

usage:
  zut ext list                      list installed extensions and their state
  zut ext doctor [--ext <dir>] [--no-ext] [--cwd <path>]
                                    diagnose installed extensions (starts them)
  zut ext logs <name> [-f]          print / follow an extension's stderr log
  zut ext enable <name>             re-enable a disabled extension
  zut ext disable <name>            disable without removing
  zut ext remove <name> [--yes]     delete an extension directory (alias: rm)
  zut ext install [--build=go|cargo] <path|git-url>
                                    copy / clone and validate an extension
                                    --build=go builds a local Go extension
                                    --build=cargo builds a local Rust extension
  zut ext new <name> [--lang rust|python|typescript|go|shell]
                                    write a new extension (manifest, source,
                                    a test, a README) that passes `zut ext test`
  zut ext test [DIR] [--json] [--args TOOL=JSON] [--timeout SECS] [--scenario FILE]
                                    check an extension against the protocol
                                    (no model needed; exit 1 on a failed check)

extensions live under:
  $ZUT_HOME/extensions/<name>/extension.json   (global)
  ./.zut/extensions/<name>/extension.json      (project-local)";

/// Runs `zut ext <args>`; returns the exit status.
pub fn run(args: &[String], builtins: &Builtins) -> i32 {
    let Some(sub) = args.first() else {
        crate::errln!("{HELP}");
        return 0;
    };
    let rest = &args[1..];
    if matches!(sub.as_str(), "help" | "-h" | "--help") {
        crate::errln!("{HELP}");
        return 0;
    }
    let known = [
        "list", "doctor", "logs", "enable", "disable", "remove", "rm", "install", "test", "new",
    ];
    if !known.contains(&sub.as_str()) {
        crate::errln!("{HELP}");
        crate::errln!("zut: unknown ext subcommand: {sub}");
        return 1;
    }
    let result = ExtContext::from_env().and_then(|ctx| match sub.as_str() {
        "list" => list::run(&ctx).map(|()| 0),
        "doctor" => doctor::run(&ctx, rest, builtins),
        "logs" => logs::run(&ctx, rest).map(|()| 0),
        "enable" => enable::run(&ctx, rest, true).map(|()| 0),
        "disable" => enable::run(&ctx, rest, false).map(|()| 0),
        "remove" | "rm" => remove::run(&ctx, rest).map(|()| 0),
        "test" => test::run(&ctx, rest),
        "new" => new::run(&ctx, rest),
        _ => install::run(&ctx, rest).map(|()| 0),
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            crate::errln!("zut: {e:#}");
            1
        }
    }
}
