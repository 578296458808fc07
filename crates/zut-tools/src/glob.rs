//! `glob`: find files by name or path pattern, respecting .gitignore.
//!
//! The pattern is compiled with `globset`: `*` and `?` never cross a `/`,
//! `**/` matches zero or more directories, `[...]` / `[!...]` are classes
//! and `{a,b}` alternatives. A pattern with a `/` matches the path relative
//! to the search root; one without matches file names. The tree is walked
//! with `ignore` (nested `.gitignore`, `.ignore` and git excludes, also
//! outside a repository), sorted by file name, never following symlinks:
//! a symlink to a directory is neither entered nor listed, one to a file
//! is matched like a file. Hidden entries are skipped unless asked for;
//! `.git` always is. Depth, matches and visited entries are bounded, and
//! every bound that cuts the result says so.

use std::path::{Component, Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use serde::Deserialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::limits::*;
use crate::{blocking, io_error_text, parse_args, ToolContext, ToolOutput};

#[derive(Deserialize)]
struct GlobArgs {
    pattern: String,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    hidden: bool,
}

pub(crate) async fn run(args: &Value, ctx: &ToolContext) -> ToolOutput {
    if args.to_string().len() > GLOB_MAX_ARGS_BYTES {
        return ToolOutput::error("glob: invalid arguments");
    }
    let a: GlobArgs = match parse_args("glob", args) {
        Ok(a) => a,
        Err(out) => return out,
    };
    if a.pattern.trim().is_empty() {
        return ToolOutput::error("glob: pattern is required");
    }
    if a.pattern.contains('\0') || a.path.as_deref().is_some_and(|p| p.contains('\0')) {
        return ToolOutput::error("glob: arguments contain invalid characters");
    }
    let matcher = match Matcher::new(&a.pattern) {
        Ok(m) => m,
        Err(e) => return ToolOutput::error(e),
    };
    let given = a.path.clone().unwrap_or_default();
    let root = if given.is_empty() {
        ctx.cwd.clone()
    } else {
        ctx.resolve(&given)
    };
    if let Some(why) = crate::jail::read_denied(ctx, &root) {
        return ToolOutput::error(format!("glob: {why}"));
    }
    let cancel = ctx.cancel.child_token();
    let _stop_on_drop = cancel.clone().drop_guard();
    let limits = WalkLimits::default();
    let jail = ctx.jail.clone();
    blocking("glob", move || {
        walk(
            &matcher,
            &root,
            &given,
            a.hidden,
            &limits,
            &cancel,
            jail.as_deref(),
        )
    })
    .await
}

/// A compiled pattern and whether it matches relative paths or names.
pub(crate) struct Matcher {
    glob: GlobMatcher,
    /// The pattern has a `/`: match the path relative to the root.
    by_path: bool,
}

impl Matcher {
    /// Compiles `pattern` (trimmed, `\` read as `/`, a leading `./` dropped).
    pub(crate) fn new(pattern: &str) -> Result<Self, String> {
        let p = pattern.trim().replace('\\', "/");
        let p = p.strip_prefix("./").unwrap_or(&p).to_string();
        if p.is_empty() {
            return Err("glob: pattern is required".into());
        }
        let glob = GlobBuilder::new(&p)
            .literal_separator(true)
            .backslash_escape(false)
            .empty_alternates(true)
            .build()
            .map_err(|e| format!("glob: invalid pattern {p:?}: {}", e.kind()))?
            .compile_matcher();
        Ok(Self {
            by_path: p.contains('/'),
            glob,
        })
    }

    /// Whether the file at `rel` (relative to the root) matches.
    pub(crate) fn is_match(&self, rel: &Path) -> bool {
        if self.by_path {
            self.glob.is_match(rel)
        } else {
            rel.file_name().is_some_and(|n| self.glob.is_match(n))
        }
    }
}

/// Bounds of one walk.
pub(crate) struct WalkLimits {
    /// Matches returned; the walk stops at this many.
    pub max_matches: usize,
    /// Directory levels below the root that are entered.
    pub max_depth: usize,
    /// Entries (files and directories) visited before the walk gives up.
    pub max_visited: u64,
}

impl Default for WalkLimits {
    fn default() -> Self {
        Self {
            max_matches: GLOB_MAX_MATCHES,
            max_depth: GLOB_MAX_DEPTH,
            max_visited: GLOB_MAX_VISITED,
        }
    }
}

pub(crate) fn walk(
    matcher: &Matcher,
    root: &Path,
    given: &str,
    hidden: bool,
    limits: &WalkLimits,
    cancel: &CancellationToken,
    jail: Option<&zut_sandbox::Prepared>,
) -> ToolOutput {
    let shown_root = if given.is_empty() { "." } else { given };
    let meta = match std::fs::metadata(root) {
        Ok(m) => m,
        Err(e) => {
            return ToolOutput::error(format!("glob: {}", io_error_text("search", shown_root, &e)))
        }
    };
    if !meta.is_dir() {
        return ToolOutput::error(format!("glob: {shown_root} is not a directory"));
    }
    // The walker does not follow a symlinked root; walk its target.
    let search_dir = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let prefix = display_prefix(given);

    let mut builder = ignore::WalkBuilder::new(&search_dir);
    // Jailed: secret locations are neither entered nor listed.
    let secrets_hidden = jail.map(|j| j.policy().clone());
    builder
        .hidden(!hidden)
        .require_git(false)
        .follow_links(false)
        .max_depth(Some(limits.max_depth))
        .sort_by_file_name(|x, y| x.cmp(y))
        .filter_entry(move |e| {
            e.file_name() != ".git"
                && secrets_hidden
                    .as_ref()
                    .is_none_or(|p| p.check_read(e.path()).is_ok())
        });

    let mut matches: Vec<String> = Vec::new();
    let mut visited: u64 = 0;
    let mut unreadable: u64 = 0;
    let mut first_unreadable: Option<String> = None;
    let mut stop: Option<Stop> = None;
    let mut deep_dirs: u64 = 0;
    for entry in builder.build() {
        if cancel.is_cancelled() {
            stop = Some(Stop::Cancelled);
            break;
        }
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                unreadable += 1;
                if first_unreadable.is_none() {
                    first_unreadable = Some(short_walk_error(&e, &search_dir, &prefix));
                }
                continue;
            }
        };
        if entry.depth() == 0 {
            continue;
        }
        visited += 1;
        if visited > limits.max_visited {
            stop = Some(Stop::Visited);
            break;
        }
        let Some(ft) = entry.file_type() else {
            continue;
        };
        if ft.is_dir() {
            if entry.depth() == limits.max_depth {
                deep_dirs += 1;
            }
            continue;
        }
        if ft.is_symlink() {
            // Not followed: a link to a directory is skipped, a link to a
            // file is matched like a file, a dangling link is skipped.
            match std::fs::metadata(entry.path()) {
                Ok(m) if m.is_file() => {}
                _ => continue,
            }
        } else if !ft.is_file() {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(&search_dir)
            .unwrap_or(entry.path());
        if matcher.is_match(rel) {
            matches.push(join_display(&prefix, rel));
            if matches.len() >= limits.max_matches {
                stop = Some(Stop::Matches);
                break;
            }
        }
    }
    matches.sort();
    render(
        matches,
        stop,
        limits,
        unreadable,
        first_unreadable,
        deep_dirs,
        hidden,
    )
}

enum Stop {
    Matches,
    Visited,
    Cancelled,
}

fn render(
    matches: Vec<String>,
    stop: Option<Stop>,
    limits: &WalkLimits,
    unreadable: u64,
    first_unreadable: Option<String>,
    deep_dirs: u64,
    hidden: bool,
) -> ToolOutput {
    let mut text = if matches.is_empty() {
        let mut t = "No files matched the pattern.".to_string();
        if !hidden {
            t.push_str(" (Hidden files and files ignored by .gitignore were skipped; set `hidden: true` to include dot-files.)");
        }
        t
    } else {
        matches.join("\n")
    };
    let mut notes = Vec::new();
    match stop {
        Some(Stop::Matches) => notes.push(format!(
            "(Truncated: showing first {} matches)",
            limits.max_matches
        )),
        Some(Stop::Visited) => notes.push(format!(
            "(Stopped after visiting {} entries; narrow `path` or the pattern to see the rest)",
            limits.max_visited
        )),
        Some(Stop::Cancelled) => notes.push("(Cancelled; the matches so far are shown)".into()),
        None => {}
    }
    if deep_dirs > 0 {
        notes.push(format!(
            "({deep_dirs} director{} {} levels deep were not entered; search from a deeper `path`)",
            if deep_dirs == 1 { "y" } else { "ies" },
            limits.max_depth
        ));
    }
    if unreadable > 0 {
        notes.push(format!(
            "({unreadable} entr{} could not be read and {} skipped{})",
            if unreadable == 1 { "y" } else { "ies" },
            if unreadable == 1 { "was" } else { "were" },
            first_unreadable
                .map(|e| format!(", e.g. {e}"))
                .unwrap_or_default()
        ));
    }
    if !notes.is_empty() {
        text.push_str("\n\n");
        text.push_str(&notes.join("\n"));
    }
    if matches!(stop, Some(Stop::Cancelled)) {
        ToolOutput::error(text)
    } else {
        ToolOutput::text(text)
    }
}

/// The prefix matches are shown under: nothing for the working directory,
/// else the `path` as given, cleaned, in slash form.
fn display_prefix(given: &str) -> String {
    if given.is_empty() {
        return String::new();
    }
    let mut out = PathBuf::new();
    for c in Path::new(given).components() {
        match c {
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    let s = out.to_string_lossy().replace('\\', "/");
    if s.is_empty() || s == "." {
        String::new()
    } else if s == "/" {
        s
    } else {
        s.trim_end_matches('/').to_string()
    }
}

fn join_display(prefix: &str, rel: &Path) -> String {
    let rel = rel.to_string_lossy();
    if prefix.is_empty() {
        rel.into_owned()
    } else if prefix == "/" {
        format!("/{rel}")
    } else {
        format!("{prefix}/{rel}")
    }
}

/// One walk error, with its path shown like the matches.
fn short_walk_error(e: &ignore::Error, search_dir: &Path, prefix: &str) -> String {
    fn path_of(e: &ignore::Error) -> Option<&Path> {
        match e {
            ignore::Error::WithPath { path, .. } => Some(path),
            ignore::Error::WithDepth { err, .. } => path_of(err),
            ignore::Error::WithLineNumber { err, .. } => path_of(err),
            ignore::Error::Loop { child, .. } => Some(child),
            _ => None,
        }
    }
    fn io_of(e: &ignore::Error) -> Option<&std::io::Error> {
        match e {
            ignore::Error::Io(io) => Some(io),
            ignore::Error::WithPath { err, .. }
            | ignore::Error::WithDepth { err, .. }
            | ignore::Error::WithLineNumber { err, .. } => io_of(err),
            _ => None,
        }
    }
    let Some(path) = path_of(e) else {
        return e.to_string();
    };
    let rel = path.strip_prefix(search_dir).unwrap_or(path);
    let shown = join_display(prefix, rel);
    match io_of(e) {
        Some(io) if io.kind() == std::io::ErrorKind::PermissionDenied => {
            format!("{shown} (permission denied)")
        }
        Some(io) => format!("{shown} ({io})"),
        None => shown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, path: &str) -> bool {
        Matcher::new(p)
            .map(|m| m.is_match(Path::new(path)))
            .unwrap_or(false)
    }

    #[test]
    fn pattern_language() {
        assert!(m("*.rs", "a/b/c.rs"));
        assert!(!m("*.rs", "a/b/c.rsx"));
        assert!(m("**/*.rs", "c.rs"));
        assert!(m("**/*.rs", "a/b/c.rs"));
        assert!(m("src/*.rs", "src/lib.rs"));
        assert!(!m("src/*.rs", "src/a/lib.rs"));
        assert!(m("src/**/*.rs", "src/a/b/lib.rs"));
        assert!(m("./src/?.rs", "src/a.rs"));
        assert!(!m("src/?.rs", "src/ab.rs"));
        assert!(m("[ab].txt", "x/a.txt"));
        assert!(!m("[!ab].txt", "x/a.txt"));
        assert!(m("[!ab].txt", "x/c.txt"));
        assert!(m("*.{ts,tsx}", "x/c.tsx"));
        assert!(m("src\\*.rs", "src/lib.rs"));
        assert!(m("a+b(1).txt", "a+b(1).txt"));
    }

    #[test]
    fn bad_patterns_are_named() {
        let e = Matcher::new("src/[ab.rs").err().unwrap_or_default();
        assert!(e.starts_with("glob: invalid pattern \"src/[ab.rs\""), "{e}");
        assert_eq!(
            Matcher::new("  ").err().unwrap_or_default(),
            "glob: pattern is required"
        );
    }

    #[test]
    fn display_prefixes() {
        assert_eq!(display_prefix(""), "");
        assert_eq!(display_prefix("."), "");
        assert_eq!(display_prefix("./src/"), "src");
        assert_eq!(display_prefix("/abs/dir"), "/abs/dir");
        assert_eq!(display_prefix("/"), "/");
        assert_eq!(join_display("/", Path::new("a.rs")), "/a.rs");
        assert_eq!(join_display("src", Path::new("a.rs")), "src/a.rs");
        assert_eq!(join_display("", Path::new("a.rs")), "a.rs");
    }

    #[test]
    fn visit_bound_stops_with_a_note() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        for i in 0..50 {
            std::fs::write(dir.path().join(format!("f{i:02}.txt")), "").unwrap_or_default();
        }
        let limits = WalkLimits {
            max_visited: 10,
            ..WalkLimits::default()
        };
        let matcher = Matcher::new("*.txt").unwrap_or_else(|e| panic!("{e}"));
        let out = walk(
            &matcher,
            dir.path(),
            "",
            false,
            &limits,
            &CancellationToken::new(),
            None,
        );
        let text = out.text_content();
        assert!(!out.is_error);
        assert_eq!(text.lines().filter(|l| l.ends_with(".txt")).count(), 10);
        assert!(
            text.contains("(Stopped after visiting 10 entries"),
            "{text}"
        );
    }
}
