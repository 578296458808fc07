//! `zut session …`: headless session management — list, show, fork,
//! export (docs/cli.md "Sessions").

mod export;
mod fork;
mod list;
mod show;

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};
use zut_ext_host::ZutHome;

/// `zut session`.
#[derive(Debug, Parser)]
#[command(
    name = "zut session",
    about = "List, show, fork and export this project's sessions",
    after_help = "Sessions live in $ZUT_HOME/sessions/<hash of the project directory>/.\n\
                  <session> is a full id, a unique id prefix, or a .jsonl path."
)]
struct SessionArgs {
    /// Project directory whose sessions are used (default: the current one).
    #[arg(long, value_name = "PATH", global = true)]
    cwd: Option<PathBuf>,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// This project's sessions, newest first: id, start time, messages, title.
    #[command(visible_alias = "ls")]
    List {
        /// Include hidden tree-navigation branches.
        #[arg(long)]
        all: bool,
        /// One JSON object per session.
        #[arg(long)]
        json: bool,
    },
    /// The effective transcript of a session (after compaction and repair).
    Show {
        /// Session id, id prefix or path.
        session: String,
        /// The session's meta and messages as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Branch a session at message N into a new file; prints its path.
    #[command(visible_alias = "branch")]
    Fork {
        /// Session id, id prefix or path.
        session: String,
        /// Messages to copy (default: all). A boundary on a tool call is
        /// extended through its results.
        #[arg(long, value_name = "N")]
        at: Option<usize>,
    },
    /// The effective transcript as Markdown.
    Export {
        /// Session id, id prefix or path.
        session: String,
        /// Write to FILE instead of stdout.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

/// Where the commands look.
pub struct Ctx {
    /// `$ZUT_HOME` (absolute).
    pub home: PathBuf,
    /// The project directory.
    pub cwd: PathBuf,
}

impl Ctx {
    /// This project's sessions directory.
    pub fn dir(&self) -> PathBuf {
        zut_session::sessions_dir(&self.home, &self.cwd.display().to_string())
    }

    /// Finds `<session>` (id, prefix or path relative to the process cwd).
    pub fn resolve(&self, session: &str) -> Result<PathBuf, String> {
        let here = std::env::current_dir().map_err(|e| format!("working directory: {e}"))?;
        let as_path = here.join(session);
        let arg = if session.ends_with(".jsonl") || session.contains('/') {
            as_path.display().to_string()
        } else {
            session.to_string()
        };
        zut_session::resolve(&self.home, &self.dir(), &arg).map_err(|e| e.to_string())
    }
}

/// Runs `zut session <args>`; returns the exit status.
pub fn run(argv: &[String]) -> i32 {
    let args = match SessionArgs::try_parse_from(
        std::iter::once("zut session".to_string()).chain(argv.iter().cloned()),
    ) {
        Ok(a) => a,
        Err(e) => {
            use clap::error::ErrorKind;
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    crate::stdio::text(&e.to_string());
                    0
                }
                _ => {
                    crate::errln!("{}", e.to_string().trim_end());
                    1
                }
            };
        }
    };
    let ctx = match context(args.cwd.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            crate::errln!("zut session: {e}");
            return 1;
        }
    };
    let result = match args.cmd {
        Cmd::List { all, json } => list::run(&ctx, all, json),
        Cmd::Show { session, json } => show::run(&ctx, &session, json),
        Cmd::Fork { session, at } => fork::run(&ctx, &session, at),
        Cmd::Export { session, output } => export::run(&ctx, &session, output.as_deref()),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            crate::errln!("zut session: {e}");
            1
        }
    }
}

fn context(cwd: Option<&Path>) -> Result<Ctx, String> {
    let here = std::env::current_dir().map_err(|e| format!("working directory: {e}"))?;
    let cwd = match cwd {
        Some(p) => here.join(p),
        None => here.clone(),
    };
    let cwd = cwd
        .canonicalize()
        .map_err(|e| format!("--cwd {}: {e}", cwd.display()))?;
    let home = ZutHome::from_env();
    let home = if home.root().is_absolute() {
        home.root().to_path_buf()
    } else {
        here.join(home.root())
    };
    Ok(Ctx { home, cwd })
}
