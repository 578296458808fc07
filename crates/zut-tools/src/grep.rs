//! `grep`: regex search over files, respecting .gitignore.
//!
//! Built on ripgrep's crates: `ignore` walks the tree (hidden files and
//! anything excluded by `.gitignore`, `.ignore` or git's exclude files are
//! skipped, also outside a git repository), `grep-regex` compiles the
//! pattern and `grep-searcher` searches each file line by line, skipping
//! binary files (a NUL byte). The walk is sorted by file name, so results
//! are deterministic. Output is bounded by `max_results`,
//! [`GREP_MAX_BYTES`] and [`GREP_MAX_LINE_CHARS`].

use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::limits::*;
use crate::{blocking, io_error_text, parse_args, whole_number, ToolContext, ToolOutput};

/// Longest line the searcher buffers; files with longer lines are skipped
/// (keeps memory bounded on huge single-line files).
const HEAP_LIMIT: usize = 32 * 1024 * 1024;
/// At most this many unreadable paths are named in the output.
const MAX_REPORTED_ERRORS: usize = 3;

#[derive(Deserialize)]
struct GrepArgs {
    pattern: String,
    path: Option<String>,
    glob: Option<String>,
    #[serde(default)]
    ignore_case: bool,
    #[serde(default)]
    literal: bool,
    #[serde(default)]
    hidden: bool,
    max_results: Option<Value>,
}

pub(crate) async fn run(args: &Value, ctx: &ToolContext) -> ToolOutput {
    let a: GrepArgs = match parse_args("grep", args) {
        Ok(a) => a,
        Err(out) => return out,
    };
    let max_results = match &a.max_results {
        None => GREP_DEFAULT_MAX_RESULTS,
        Some(v) => match whole_number(v).filter(|n| (1..=GREP_MAX_RESULTS).contains(n)) {
            Some(n) => n,
            None => {
                return ToolOutput::error(format!(
                    "Invalid arguments for `grep`: `max_results` must be a whole number from 1 to \
                     {GREP_MAX_RESULTS}, got {v}."
                ))
            }
        },
    };
    let root = match &a.path {
        Some(p) => ctx.resolve(p),
        None => ctx.cwd.clone(),
    };
    if let Err(out) = crate::jail::check_read(ctx, &root) {
        return out;
    }
    let jail = ctx.jail.clone();
    // A child token cancelled when this future is dropped, so the blocking
    // search stops too.
    let cancel = ctx.cancel.child_token();
    let _stop_on_drop = cancel.clone().drop_guard();
    let hint = crate::ast::grep_hint(&a.pattern, a.literal);
    let mut out = blocking("grep", move || {
        search(&a, &root, max_results, &cancel, jail)
    })
    .await;
    if let (Some(hint), false) = (hint, out.is_error) {
        if let Some(crate::ToolContent::Text(t)) = out.content.last_mut() {
            t.push('\n');
            t.push_str(&hint);
        }
    }
    out
}

/// Which files a `glob` admits.
enum GlobFilter {
    /// No `/` in the glob: matched against the file name.
    Name(GlobMatcher),
    /// With a `/`: matched against the path relative to the search root.
    Path(GlobMatcher),
}

impl GlobFilter {
    fn new(glob: &str) -> Result<Self, String> {
        let trimmed = glob.strip_prefix("./").unwrap_or(glob);
        let matcher = GlobBuilder::new(trimmed)
            .literal_separator(true)
            .build()
            .map_err(|e| e.to_string())?
            .compile_matcher();
        Ok(if trimmed.contains('/') {
            GlobFilter::Path(matcher)
        } else {
            GlobFilter::Name(matcher)
        })
    }

    fn admits(&self, rel: &Path) -> bool {
        match self {
            GlobFilter::Name(m) => rel.file_name().is_some_and(|n| m.is_match(n)),
            GlobFilter::Path(m) => m.is_match(rel),
        }
    }
}

/// The state of one search across files.
struct Search<'a> {
    matcher: RegexMatcher,
    searcher: Searcher,
    cancel: &'a CancellationToken,
    max_results: u64,
    /// Rendered result lines.
    out: String,
    results: u64,
    /// More matches exist than `max_results`.
    more_results: bool,
    /// The byte cap stopped the output.
    byte_capped: bool,
    files_searched: u64,
    binary_skipped: u64,
    errors: Vec<String>,
    error_count: u64,
}

impl Search<'_> {
    fn done(&self) -> bool {
        self.more_results || self.byte_capped
    }

    /// Searches one file; `shown` is how its path is printed.
    fn file(&mut self, path: &Path, shown: &str) {
        self.files_searched += 1;
        let remaining = self.max_results.saturating_sub(self.results);
        let mut sink = FileSink {
            // One extra to learn whether there are more than allowed.
            budget: remaining + 1,
            lines: Vec::new(),
            binary: false,
            cancel: self.cancel,
        };
        if let Err(e) = self.searcher.search_path(&self.matcher, path, &mut sink) {
            self.error(format!("{shown}: {e}"));
            return;
        }
        if sink.binary {
            self.binary_skipped += 1;
            return;
        }
        for (line_no, text) in sink.lines {
            if self.results >= self.max_results {
                self.more_results = true;
                return;
            }
            let line = format!("{shown}:{line_no}:{text}\n");
            if self.out.len() + line.len() > GREP_MAX_BYTES {
                self.byte_capped = true;
                return;
            }
            self.out.push_str(&line);
            self.results += 1;
        }
    }

    fn error(&mut self, text: String) {
        self.error_count += 1;
        if self.errors.len() < MAX_REPORTED_ERRORS {
            self.errors.push(text);
        }
    }
}

/// Collects one file's matching lines (discarded if the file is binary).
struct FileSink<'a> {
    budget: u64,
    lines: Vec<(u64, String)>,
    binary: bool,
    cancel: &'a CancellationToken,
}

impl Sink for FileSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let line_no = m.line_number().unwrap_or(0);
        self.lines.push((line_no, render_line(m.bytes())));
        Ok((self.lines.len() as u64) < self.budget && !self.cancel.is_cancelled())
    }

    fn binary_data(&mut self, _: &Searcher, _offset: u64) -> Result<bool, Self::Error> {
        self.binary = true;
        Ok(false)
    }
}

/// A matching line without its terminator, lossily decoded and cut to
/// [`GREP_MAX_LINE_CHARS`] characters.
fn render_line(bytes: &[u8]) -> String {
    let mut bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let text = String::from_utf8_lossy(bytes);
    match text.char_indices().nth(GREP_MAX_LINE_CHARS) {
        None => text.into_owned(),
        Some((cut, _)) => format!(
            "{}… [line cut: {} characters in total]",
            &text[..cut],
            text.chars().count()
        ),
    }
}

fn search(
    a: &GrepArgs,
    root: &Path,
    max_results: u64,
    cancel: &CancellationToken,
    jail: Option<Arc<zut_sandbox::Prepared>>,
) -> ToolOutput {
    let root_shown = a.path.as_deref().map(|p| {
        let t = p.trim_end_matches('/');
        if t.is_empty() {
            "/".to_string()
        } else {
            t.to_string()
        }
    });
    let where_ = root_shown.as_deref().unwrap_or("the working directory");
    let meta = match std::fs::metadata(root) {
        Ok(m) => m,
        Err(e) => return ToolOutput::error(io_error_text("search", where_, &e)),
    };
    let matcher = match RegexMatcherBuilder::new()
        .case_insensitive(a.ignore_case)
        .fixed_strings(a.literal)
        .line_terminator(Some(b'\n'))
        .build(&a.pattern)
    {
        Ok(m) => m,
        Err(e) => {
            let what = if a.literal { "pattern" } else { "regex" };
            return ToolOutput::error(format!(
                "Invalid {what} `{}`: {e}\nPatterns match within one line (no `\\n`). Escape regex \
                 metacharacters such as `( ) [ ] {{ }} . * + ?` with `\\`, or set `literal: true` \
                 to search for the text as-is.",
                a.pattern.replace('\n', "\\n")
            ));
        }
    };
    let glob = match a.glob.as_deref().map(GlobFilter::new).transpose() {
        Ok(g) => g,
        Err(e) => {
            return ToolOutput::error(format!(
                "Invalid glob `{}`: {e}.",
                a.glob.as_deref().unwrap_or_default()
            ))
        }
    };
    let searcher = SearcherBuilder::new()
        .line_number(true)
        .binary_detection(BinaryDetection::quit(0))
        .heap_limit(Some(HEAP_LIMIT))
        .build();
    let mut s = Search {
        matcher,
        searcher,
        cancel,
        max_results,
        out: String::new(),
        results: 0,
        more_results: false,
        byte_capped: false,
        files_searched: 0,
        binary_skipped: 0,
        errors: Vec::new(),
        error_count: 0,
    };

    if meta.is_file() {
        // An explicitly named file is searched whatever ignore rules say.
        let shown = root_shown.clone().unwrap_or_default();
        s.file(root, &shown);
    } else {
        walk(a, root, root_shown.as_deref(), glob.as_ref(), &mut s, jail);
    }
    summarize(a, s, where_, meta.is_file())
}

fn walk(
    a: &GrepArgs,
    root: &Path,
    root_shown: Option<&str>,
    glob: Option<&GlobFilter>,
    s: &mut Search<'_>,
    jail: Option<Arc<zut_sandbox::Prepared>>,
) {
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .hidden(!a.hidden)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(|x, y| x.cmp(y))
        // Never descend into git's own database, nor (jailed) into a
        // location the jail keeps secret.
        .filter_entry(move |e| {
            e.file_name() != ".git"
                && jail
                    .as_ref()
                    .is_none_or(|j| j.policy().check_read(e.path()).is_ok())
        });
    for entry in builder.build() {
        if s.cancel.is_cancelled() || s.done() {
            return;
        }
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                s.error(e.to_string());
                continue;
            }
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        let rel = path.strip_prefix(root).unwrap_or(path);
        if let Some(g) = glob {
            if !g.admits(rel) {
                continue;
            }
        }
        let shown = display_path(root_shown, rel);
        s.file(path, &shown);
    }
}

/// How a file is printed: under the `path` the model gave, or relative to
/// the working directory when it gave none.
fn display_path(root_shown: Option<&str>, rel: &Path) -> String {
    let rel = rel.to_string_lossy();
    match root_shown {
        None | Some(".") => rel.into_owned(),
        Some("/") => format!("/{rel}"),
        Some(root) => format!("{root}/{rel}"),
    }
}

fn summarize(a: &GrepArgs, s: Search<'_>, where_: &str, single_file: bool) -> ToolOutput {
    let mut notes: Vec<String> = Vec::new();
    if s.more_results {
        let raise = if s.max_results < GREP_MAX_RESULTS {
            format!(", or raise `max_results` (up to {GREP_MAX_RESULTS})")
        } else {
            String::new()
        };
        notes.push(format!(
            "[Showing the first {} matches; there are more. Narrow the search with `path`, `glob` \
             or a more specific pattern{raise}.]",
            s.results
        ));
    }
    if s.byte_capped {
        notes.push(format!(
            "[Output limit of {} KiB reached after {} matches; there are more. Narrow the search \
             with `path`, `glob` or a more specific pattern.]",
            GREP_MAX_BYTES / 1024,
            s.results
        ));
    }
    // Binary files met on a walk are skipped silently (like ripgrep); a
    // named binary file, or binary files in a fruitless search, are noted.
    if s.binary_skipped > 0 && single_file {
        notes.push(format!(
            "[{where_} is a binary file; grep skips binary files.]"
        ));
    }
    if s.error_count > 0 {
        let more = s.error_count - s.errors.len() as u64;
        let more = if more > 0 {
            format!(" (and {more} more)")
        } else {
            String::new()
        };
        notes.push(format!(
            "[Could not search {} path{}: {}{more}.]",
            s.error_count,
            if s.error_count == 1 { "" } else { "s" },
            s.errors.join("; ")
        ));
    }

    if s.cancel.is_cancelled() {
        let mut text = s.out;
        text.push_str(&format!(
            "[Search cancelled after {} file{}.]",
            s.files_searched,
            if s.files_searched == 1 { "" } else { "s" }
        ));
        return ToolOutput::error(text);
    }

    if s.results == 0 {
        let mut text = format!(
            "No matches for `{}` in {where_} ({} file{} searched",
            a.pattern,
            s.files_searched,
            if s.files_searched == 1 { "" } else { "s" }
        );
        if !single_file && s.binary_skipped > 0 {
            text.push_str(&format!(
                "; {} binary file{} skipped",
                s.binary_skipped,
                if s.binary_skipped == 1 {
                    " was"
                } else {
                    "s were"
                }
            ));
        }
        if !single_file {
            text.push_str(if a.hidden {
                "; files ignored by .gitignore/.ignore were skipped"
            } else {
                "; hidden files and files ignored by .gitignore/.ignore were skipped"
            });
        }
        text.push_str(").");
        for n in notes {
            text.push('\n');
            text.push_str(&n);
        }
        return ToolOutput::text(text);
    }

    let mut text = s.out;
    if !notes.is_empty() {
        text.push('\n');
        text.push_str(&notes.join("\n"));
    }
    ToolOutput::text(text.trim_end_matches('\n').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn lines_are_cut() {
        assert_eq!(render_line(b"abc\r\n"), "abc");
        let long = "x".repeat(GREP_MAX_LINE_CHARS + 10);
        let r = render_line(long.as_bytes());
        assert!(r.starts_with(&"x".repeat(GREP_MAX_LINE_CHARS)));
        assert!(r.ends_with(&format!("[line cut: {} characters in total]", long.len())));
    }

    #[test]
    fn globs_match_names_or_relative_paths() {
        let g = GlobFilter::new("*.rs").unwrap();
        assert!(g.admits(Path::new("src/deep/lib.rs")));
        assert!(!g.admits(Path::new("src/lib.rs.bak")));
        let g = GlobFilter::new("src/**/*.{ts,tsx}").unwrap();
        assert!(g.admits(Path::new("src/a/b.tsx")));
        assert!(g.admits(Path::new("src/b.ts")));
        assert!(!g.admits(Path::new("lib/src/b.ts")));
        let g = GlobFilter::new("./src/*.rs").unwrap();
        assert!(g.admits(Path::new("src/lib.rs")));
        assert!(!g.admits(Path::new("src/a/lib.rs")));
    }

    #[test]
    fn display_paths() {
        let rel = PathBuf::from("a/b.rs");
        assert_eq!(display_path(None, &rel), "a/b.rs");
        assert_eq!(display_path(Some("."), &rel), "a/b.rs");
        assert_eq!(display_path(Some("src"), &rel), "src/a/b.rs");
        assert_eq!(display_path(Some("/"), &rel), "/a/b.rs");
    }
}
