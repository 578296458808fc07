//! Top-level (non-`ext`) command line: the flags of cli.md §4 and the agent
//! flags, parsed with clap into [`GlobalArgs`]; [`run`] hands the parsed
//! flags to the selected mode.

use std::path::PathBuf;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, Parser, ValueEnum};

/// How zut runs (cli.md §4 "Modes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Interactive TUI (the default).
    Interactive,
    /// `-p`/`--print`: print the final text and exit.
    Print,
    /// `--stream`: stream assistant text live and exit.
    Stream,
    /// `--json`: newline-delimited JSON agent events and exit.
    Json,
    /// `--rpc` / `zut rpc`: RPC server on stdin/stdout.
    Rpc,
}

impl Mode {
    /// The lower-case name used by `--mode`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Interactive => "interactive",
            Self::Print => "print",
            Self::Stream => "stream",
            Self::Json => "json",
            Self::Rpc => "rpc",
        }
    }
}

/// The global flags of `zut` (everything except `zut ext …`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Parser)]
#[command(
    name = "zut",
    version,
    about = "zut: a terminal coding agent with extensions",
    after_help = "Extension management: zut ext help\nSessions: zut session --help\nMCP servers: zut mcp help"
)]
pub struct GlobalArgs {
    /// Load an extension directory for this run (repeatable).
    #[arg(short = 'e', long = "ext", value_name = "DIR")]
    pub ext: Vec<PathBuf>,
    /// Skip discovery of installed (project/global) extensions.
    #[arg(long = "no-ext", visible_alias = "no-extensions")]
    pub no_ext: bool,
    /// Project directory (project extension scope, `hello_ack.cwd`).
    #[arg(long, value_name = "PATH")]
    pub cwd: Option<PathBuf>,
    /// Do not write a session file.
    #[arg(long = "no-session")]
    pub no_session: bool,
    /// Use this session file.
    #[arg(long, value_name = "PATH")]
    pub session: Option<PathBuf>,
    /// Continue the most recent session.
    #[arg(short = 'c', long = "continue")]
    pub continue_session: bool,
    /// Resume a session (optionally by id).
    #[arg(short = 'r', long, value_name = "UUID", num_args = 0..=1, default_missing_value = "")]
    pub resume: Option<String>,
    /// No skill discovery.
    #[arg(long = "no-skill", visible_alias = "no-skills")]
    pub no_skill: bool,
    /// Interactive confirmations for tool calls.
    #[arg(long = "no-yolo")]
    pub no_yolo: bool,
    /// Start jailed: bash runs inside the sandbox, file tools stay in the
    /// session directory (config.json `jail_by_default`).
    #[arg(long)]
    pub jail: bool,
    /// Accept run consent without prompting.
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Print mode: print the final text and exit.
    #[arg(short = 'p', long)]
    pub print: bool,
    /// JSON mode: newline-delimited JSON events.
    #[arg(long)]
    pub json: bool,
    /// Stream mode: stream assistant text live.
    #[arg(long)]
    pub stream: bool,
    /// RPC server on stdin/stdout.
    #[arg(long)]
    pub rpc: bool,
    /// Mode alias: interactive, print, stream, json or rpc.
    #[arg(long, value_enum, value_name = "MODE")]
    pub mode: Option<Mode>,
    /// LLM provider.
    #[arg(long)]
    pub provider: Option<String>,
    /// Model name.
    #[arg(long)]
    pub model: Option<String>,
    /// Provider base URL.
    #[arg(long = "base-url", value_name = "URL")]
    pub base_url: Option<String>,
    /// Provider API key.
    #[arg(long = "api-key", value_name = "KEY")]
    pub api_key: Option<String>,
    /// Restrict built-in tools (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "a,b")]
    pub tools: Option<Vec<String>>,
    /// Disable built-in tools.
    #[arg(long = "no-tools")]
    pub no_tools: bool,
    /// No language servers: no `lsp` tool, no diagnostics after edits.
    #[arg(long = "no-lsp")]
    pub no_lsp: bool,
    /// Reasoning effort: off, minimum, low, medium, high, xhigh or max.
    #[arg(long, value_name = "LEVEL")]
    pub reasoning: Option<String>,
    /// Maximum model calls per prompt.
    #[arg(long = "max-steps", value_name = "N")]
    pub max_steps: Option<u32>,
    /// Replace the base system prompt.
    #[arg(long = "system-prompt", value_name = "TEXT")]
    pub system_prompt: Option<String>,
    /// Append text to the system prompt (repeatable).
    #[arg(long = "append-system-prompt", value_name = "TEXT")]
    pub append_system_prompt: Vec<String>,
    /// Do not read AGENTS.md context files.
    #[arg(long = "no-context-files")]
    pub no_context_files: bool,
    /// Write provider, model, token counts, model calls and elapsed ms to FILE
    /// as JSON when the run ends (print, stream and JSON modes).
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
    /// The model's context window in tokens (automatic compaction; default:
    /// known for common models, else 64000).
    #[arg(long = "context-window", value_name = "TOKENS")]
    pub context_window: Option<u64>,
    /// Compact automatically when a request would pass this share of the
    /// context window (0 disables; default 0.8).
    #[arg(long = "auto-compact", value_name = "SHARE")]
    pub auto_compact: Option<String>,
    /// Sampling temperature, 0 to 2 (default: the provider's).
    #[arg(long, value_name = "T")]
    pub temperature: Option<String>,
    /// List the provider presets and the models of models.json, then exit.
    #[arg(long = "list-models")]
    pub list_models: bool,
    /// Turn off the repetition guard (the same tool call and result, or
    /// the same message, is otherwise warned at 5 and stopped at 8).
    #[arg(long = "no-repetition-guard")]
    pub no_repetition_guard: bool,
    /// `-p`/`--stream`/`--json` only: the agent plans, delegates the work
    /// to subagents, waits for them and writes the synthesis; it keeps only
    /// read-only tools itself (docs/subagents.md).
    #[arg(long)]
    pub orchestrate: bool,
    /// Skip TLS certificate checks, only for an explicit --base-url or a
    /// models.json baseUrl (never a preset's own endpoint).
    #[arg(long)]
    pub insecure: bool,
    /// Prompt text (everything after `--` is prompt text too).
    #[arg(value_name = "PROMPT")]
    pub prompt: Vec<String>,
}

impl GlobalArgs {
    /// The selected mode. Several different mode flags are an error;
    /// repeating the same mode is fine.
    pub fn mode(&self) -> Result<Mode, String> {
        let mut picked: Vec<Mode> = Vec::new();
        for (on, m) in [
            (self.print, Mode::Print),
            (self.stream, Mode::Stream),
            (self.json, Mode::Json),
            (self.rpc, Mode::Rpc),
        ] {
            if on {
                picked.push(m);
            }
        }
        picked.extend(self.mode);
        picked.dedup();
        match picked.as_slice() {
            [] => Ok(Mode::Interactive),
            [one] => Ok(*one),
            many => {
                let names: Vec<&str> = many.iter().map(|m| m.as_str()).collect();
                Err(format!("conflicting modes: {}", names.join(", ")))
            }
        }
    }
}

/// Whether this run chose its provider or model itself (`--provider`,
/// `--model`, `ZUT_PROVIDER`, `ZUT_MODEL`): a resumed session then keeps
/// them instead of going back to the model it last used.
pub fn model_explicit(args: &GlobalArgs) -> bool {
    let set = |k: &str| std::env::var(k).is_ok_and(|v| !v.trim().is_empty());
    args.provider.is_some() || args.model.is_some() || set("ZUT_PROVIDER") || set("ZUT_MODEL")
}

/// Parses `argv` (without the program name).
pub fn parse(argv: &[String]) -> Result<GlobalArgs, clap::Error> {
    GlobalArgs::try_parse_from(std::iter::once("zut".to_string()).chain(argv.iter().cloned()))
}

/// Runs a non-`ext` invocation; returns the exit status.
pub fn run(argv: Vec<String>) -> i32 {
    let args = match parse(&argv) {
        Ok(a) => a,
        Err(e) => return report_parse_error(&e),
    };
    let mode = match args.mode() {
        Ok(m) => m,
        Err(msg) => {
            crate::errln!("zut: {msg}");
            return 1;
        }
    };
    if args.list_models {
        return crate::config_cmd::list_models(&args);
    }
    // Piped stdin with no mode flag is a print run, as in the Go original
    // (`cat README.md | zut "summarize this"`).
    let mode = if mode == Mode::Interactive && !stdin_is_terminal() {
        Mode::Print
    } else {
        mode
    };
    if args.orchestrate && !matches!(mode, Mode::Print | Mode::Stream | Mode::Json) {
        crate::errln!(
            "zut: --orchestrate is for -p, --stream and --json runs (the {} mode offers the subagent tool instead)",
            mode.as_str()
        );
        return 1;
    }
    crate::agent_mode::run(args, mode)
}

/// Whether standard input is a terminal.
fn stdin_is_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal()
}

/// Prints help/version (exit 0) or a `zut: <message>` error (exit 1).
fn report_parse_error(e: &clap::Error) -> i32 {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            // Help and version go to stdout, like any requested output.
            crate::stdio::text(&e.to_string());
            0
        }
        ErrorKind::UnknownArgument => {
            let flag = invalid_arg(e).unwrap_or_default();
            crate::errln!("{}", GlobalArgs::command().render_help());
            crate::errln!("zut: unknown flag {flag:?}");
            1
        }
        ErrorKind::InvalidValue | ErrorKind::NoEquals
            if invalid_arg(e).is_some_and(|a| a.contains("--ext")) =>
        {
            crate::errln!("zut: --ext requires a value");
            1
        }
        _ => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            crate::errln!("zut: {}", first.trim_start_matches("error: "));
            1
        }
    }
}

/// The offending argument recorded in a clap error, if any.
fn invalid_arg(e: &clap::Error) -> Option<String> {
    match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(s)) => {
            // clap renders "--ext <DIR>"; keep only the flag itself.
            Some(s.split_whitespace().next().unwrap_or(s).to_string())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> GlobalArgs {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn flags_and_prompt() {
        let a = p(&[
            "-e",
            "a",
            "--ext",
            "b",
            "--no-extensions",
            "--cwd",
            "/p",
            "-p",
            "hi",
            "there",
        ]);
        assert_eq!(a.ext, vec![PathBuf::from("a"), PathBuf::from("b")]);
        assert!(a.no_ext);
        assert_eq!(a.cwd, Some(PathBuf::from("/p")));
        assert_eq!(a.mode(), Ok(Mode::Print));
        assert_eq!(a.prompt, vec!["hi".to_string(), "there".to_string()]);
    }

    #[test]
    fn modes() {
        assert_eq!(p(&[]).mode(), Ok(Mode::Interactive));
        assert_eq!(p(&["--mode", "rpc"]).mode(), Ok(Mode::Rpc));
        assert_eq!(p(&["--rpc", "--mode", "rpc"]).mode(), Ok(Mode::Rpc));
        assert_eq!(p(&["--json"]).mode(), Ok(Mode::Json));
        assert_eq!(p(&["--stream"]).mode(), Ok(Mode::Stream));
        assert!(p(&["--json", "-p"]).mode().is_err());
    }

    #[test]
    fn tools_and_provider() {
        let a = p(&[
            "--tools",
            "read,bash",
            "--provider",
            "x",
            "--model",
            "m",
            "--base-url",
            "u",
            "--api-key",
            "k",
        ]);
        assert_eq!(a.tools, Some(vec!["read".to_string(), "bash".to_string()]));
        assert_eq!(a.provider.as_deref(), Some("x"));
        assert!(p(&["--no-tools"]).no_tools);
        assert!(p(&["--no-session"]).no_session);
    }

    #[test]
    fn double_dash_ends_flags() {
        let a = p(&["--", "--json", "x"]);
        assert_eq!(a.prompt, vec!["--json".to_string(), "x".to_string()]);
        assert_eq!(a.mode(), Ok(Mode::Interactive));
    }

    #[test]
    fn unknown_flag_and_missing_ext_value() {
        let e = parse(&["--wat".to_string()]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::UnknownArgument);
        assert_eq!(invalid_arg(&e).as_deref(), Some("--wat"));
        let e = parse(&["--ext".to_string()]).unwrap_err();
        assert!(
            invalid_arg(&e).is_some_and(|a| a.contains("--ext")),
            "{e:?}"
        );
    }
}
