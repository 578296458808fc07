//! Structural code search and rewrite for zut's `ast` tool.
//!
//! ast-grep's engine (`ast-grep-core`) with the tree-sitter grammars of the
//! common languages built in ([`lang::EMBEDDED`]), so it works with nothing
//! installed; other languages go to an installed `ast-grep`/`sg` binary
//! ([`fallback`]). [`search`] finds the matches of a pattern under a file or
//! directory (sorted by path and position, bounded by [`MAX_MATCHES`]).
//! A rewrite is planned in memory ([`plan_rewrite`]: outermost match wins,
//! replacements applied back to front, one [`FilePlan`] per changed file
//! with its unified diff), then applied by [`apply`], which checks each
//! file's current bytes against the planned original just before writing
//! (a changed file is refused and left untouched) and writes atomically,
//! keeping permissions.
//!
//! This crate knows nothing of tools, models or the agent: it takes paths
//! and strings and returns data and error texts.

pub mod fallback;
pub mod lang;
mod rewrite;
mod search;

use std::path::{Path, PathBuf};

pub use lang::{embedded_ids, parse_language, Lang, LangChoice};
pub use rewrite::{apply, ApplyError, FilePlan, Plan};

/// Most matches collected by one search; more are dropped with a note.
pub const MAX_MATCHES: usize = 10_000;
/// Larger files are skipped (with a note).
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// One structural match.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    /// The file, as found under the search root.
    pub path: PathBuf,
    /// 1-based first line of the match.
    pub line: usize,
    /// 1-based last line of the match.
    pub end_line: usize,
    /// The whole source lines the match covers (no final newline).
    pub lines: String,
    /// Byte range replaced by a rewrite (the matched node otherwise).
    pub range: std::ops::Range<usize>,
    /// The source text of `range`.
    pub text: String,
    /// The rewrite's replacement for `range`, when rewriting.
    pub replacement: Option<String>,
}

/// The result of a search.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// Matches sorted by path, then position (outer before inner).
    pub matches: Vec<Match>,
    /// Files parsed.
    pub files_searched: u64,
    /// More than [`MAX_MATCHES`] matches existed.
    pub truncated: bool,
    /// Notes for the model (skipped files, languages the pattern does not
    /// parse in).
    pub warnings: Vec<String>,
    /// `embedded` or `ast-grep` (the CLI fallback).
    pub engine: &'static str,
}

/// Why a search or plan failed.
#[derive(Debug, Clone, PartialEq)]
pub enum AstError {
    /// The pattern does not parse (the parser's message).
    Pattern(String),
    /// The root cannot be read.
    Io(String),
    /// The language is not embedded and no ast-grep CLI is installed, or
    /// the CLI failed.
    Engine(String),
    /// Stopped by the caller.
    Cancelled,
}

impl std::fmt::Display for AstError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AstError::Pattern(s) | AstError::Io(s) | AstError::Engine(s) => f.write_str(s),
            AstError::Cancelled => f.write_str("cancelled"),
        }
    }
}

impl std::error::Error for AstError {}

/// A search or rewrite request.
#[derive(Debug, Clone)]
pub struct Query<'a> {
    /// File or directory to search.
    pub root: &'a Path,
    /// The ast-grep pattern.
    pub pattern: &'a str,
    /// `None`: each file's language from its extension.
    pub language: Option<LangChoice>,
    /// Replacement template (rewrites only).
    pub rewrite: Option<&'a str>,
}

/// Searches `q.root` for `q.pattern`. Embedded languages run in-process;
/// a language zut does not embed runs the installed ast-grep CLI.
/// `cancel` is polled between files.
pub fn search(q: &Query<'_>, cancel: &(dyn Fn() -> bool + Sync)) -> Result<Found, AstError> {
    let mode = match &q.language {
        Some(LangChoice::Embedded(l)) => search::Mode::Fixed(*l),
        Some(LangChoice::External(name)) => {
            return fallback::search(q.root, q.pattern, Some(name), q.rewrite)
        }
        None => {
            if q.root.is_file() && Lang::of_path(q.root).is_none() {
                // A single file of a language zut does not embed.
                return fallback::search(q.root, q.pattern, None, q.rewrite);
            }
            search::Mode::ByExtension
        }
    };
    search::run(q.root, q.pattern, mode, q.rewrite, cancel)
}

/// Plans a rewrite: searches with `q.rewrite` and computes every changed
/// file in memory. Nothing is written.
pub fn plan_rewrite(
    q: &Query<'_>,
    cancel: &(dyn Fn() -> bool + Sync),
) -> Result<(Found, Plan), AstError> {
    let found = search(q, cancel)?;
    if found.truncated {
        return Err(AstError::Engine(format!(
            "more than {MAX_MATCHES} matches; rewrite a narrower path or pattern"
        )));
    }
    let plan = rewrite::plan(&found.matches)?;
    Ok((found, plan))
}

/// Matches of `pattern` in `source` parsed as the embedded `lang`: the
/// 1-based line and byte range of each. In memory, no files (used by the
/// fuzz target and handy for callers that hold a buffer).
pub fn matches_in_source(
    pattern: &str,
    lang: Lang,
    source: &str,
) -> Result<Vec<(usize, std::ops::Range<usize>)>, AstError> {
    search::in_source(pattern, lang, source)
}
