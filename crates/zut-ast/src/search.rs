//! Structural search with the embedded engine: walk, parse, match.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ast_grep_core::tree_sitter::LanguageExt;
use ast_grep_core::{Language as _, Pattern, PatternError};

use crate::lang::Lang;
use crate::{AstError, Found, Match, MAX_FILE_BYTES, MAX_MATCHES};

/// Compiles `pattern` for `lang`; a pattern that does not parse is an
/// error quoting where the parser stopped.
pub(crate) fn compile(pattern: &str, lang: Lang) -> Result<Pattern, String> {
    let p = Pattern::try_new(pattern, lang.0).map_err(|e| match e {
        PatternError::Parse(_) | PatternError::NoContent(_) => {
            format!("the pattern does not parse as {}: {e}", lang.id())
        }
        other => format!("invalid pattern for {}: {other}", lang.id()),
    })?;
    if p.has_error() {
        let processed = lang.0.pre_process_pattern(pattern);
        let near = syntax_error(&processed, lang).unwrap_or_else(|| "a syntax error".into());
        return Err(format!(
            "the pattern does not parse as {}: {near}. A pattern must be valid {} code \
             ($A stands for one node, $$$A for zero or more)",
            lang.id(),
            lang.id()
        ));
    }
    Ok(p)
}

/// The first ERROR or MISSING node tree-sitter reports when parsing the
/// pattern as code, described with its position.
fn syntax_error(pattern: &str, lang: Lang) -> Option<String> {
    let root = lang.0.ast_grep(pattern);
    let node = root.root();
    for n in node.dfs() {
        if n.is_error() || n.is_missing() {
            let pos = n.start_pos();
            let line = pos.line() + 1;
            let col = pos.column(&n) + 1;
            let text: String = n.text().chars().take(40).collect();
            return Some(if n.is_missing() {
                format!("syntax error at {line}:{col}: missing `{}`", n.kind())
            } else if text.trim().is_empty() {
                format!("syntax error at {line}:{col}")
            } else {
                format!("syntax error at {line}:{col} near `{}`", text.trim())
            });
        }
    }
    None
}

/// How files are assigned a language.
#[derive(Clone, Copy)]
pub(crate) enum Mode {
    /// Only files of this language (a single named file is parsed as it
    /// whatever its name).
    Fixed(Lang),
    /// Each file by its extension.
    ByExtension,
}

/// Patterns compiled per language on first use (by-extension searches).
struct Patterns {
    source: String,
    cache: Mutex<HashMap<Lang, Option<Arc<Pattern>>>>,
    errors: Mutex<Vec<(Lang, String)>>,
}

impl Patterns {
    fn get(&self, lang: Lang) -> Option<Arc<Pattern>> {
        let mut cache = match self.cache.lock() {
            Ok(c) => c,
            Err(p) => p.into_inner(),
        };
        if let Some(p) = cache.get(&lang) {
            return p.clone();
        }
        let compiled = match compile(&self.source, lang) {
            Ok(p) => Some(Arc::new(p)),
            Err(e) => {
                if let Ok(mut errs) = self.errors.lock() {
                    errs.push((lang, e));
                }
                None
            }
        };
        cache.insert(lang, compiled.clone());
        compiled
    }
}

/// Searches `root` (a file or a directory) for `pattern`, computing the
/// replacement of every match when `rewrite` is given.
pub(crate) fn run(
    root: &Path,
    pattern: &str,
    mode: Mode,
    rewrite: Option<&str>,
    cancel: &(dyn Fn() -> bool + Sync),
) -> Result<Found, AstError> {
    let fixed = match mode {
        Mode::Fixed(lang) => Some(Arc::new(compile(pattern, lang).map_err(AstError::Pattern)?)),
        Mode::ByExtension => None,
    };
    let patterns = Patterns {
        source: pattern.to_string(),
        cache: Mutex::new(HashMap::new()),
        errors: Mutex::new(Vec::new()),
    };
    let meta =
        std::fs::metadata(root).map_err(|e| AstError::Io(format!("{}: {e}", root.display())))?;
    let results: Mutex<Vec<Match>> = Mutex::new(Vec::new());
    let count = AtomicUsize::new(0);
    let files = AtomicUsize::new(0);
    let truncated = AtomicBool::new(false);
    let cancelled = AtomicBool::new(false);
    let skipped = Mutex::new(Vec::<String>::new());

    let one_file = |path: &Path, named: bool| {
        let (lang, pat) = match (mode, &fixed) {
            (Mode::Fixed(lang), Some(p)) => {
                if !named && Lang::of_path(path) != Some(lang) {
                    return;
                }
                (lang, p.clone())
            }
            _ => {
                let Some(lang) = Lang::of_path(path) else {
                    return;
                };
                let Some(p) = patterns.get(lang) else {
                    return;
                };
                (lang, p)
            }
        };
        files.fetch_add(1, Ordering::Relaxed);
        match search_file(path, lang, &pat, rewrite) {
            Ok(found) if found.is_empty() => {}
            Ok(found) => {
                let n = found.len();
                if let Ok(mut r) = results.lock() {
                    r.extend(found);
                }
                if count.fetch_add(n, Ordering::Relaxed) + n > MAX_MATCHES {
                    truncated.store(true, Ordering::Relaxed);
                }
            }
            Err(why) => {
                if let Ok(mut s) = skipped.lock() {
                    s.push(format!("{}: {why}", path.display()));
                }
            }
        }
    };

    if meta.is_file() {
        one_file(root, true);
    } else {
        let mut builder = ignore::WalkBuilder::new(root);
        builder
            .hidden(true)
            .require_git(false)
            .follow_links(false)
            .filter_entry(|e| e.file_name() != ".git");
        builder.build_parallel().run(|| {
            Box::new(|entry| {
                use ignore::WalkState;
                if truncated.load(Ordering::Relaxed) {
                    return WalkState::Quit;
                }
                if cancel() {
                    cancelled.store(true, Ordering::Relaxed);
                    return WalkState::Quit;
                }
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                if entry.file_type().is_some_and(|t| t.is_file()) {
                    one_file(entry.path(), false);
                }
                WalkState::Continue
            })
        });
    }
    if cancelled.load(Ordering::Relaxed) {
        return Err(AstError::Cancelled);
    }
    let mut matches = results.into_inner().unwrap_or_else(|p| p.into_inner());
    matches.sort_by(|a, b| {
        a.path
            .cmp(&b.path)
            .then(a.range.start.cmp(&b.range.start))
            .then(b.range.end.cmp(&a.range.end))
    });
    let truncated = matches.len() > MAX_MATCHES;
    matches.truncate(MAX_MATCHES);
    let errors = patterns.errors.into_inner().unwrap_or_default();
    if let (Mode::ByExtension, true) = (mode, matches.is_empty()) {
        // The pattern parsed in no language met: that is the error.
        let cache = patterns.cache.into_inner().unwrap_or_default();
        if !cache.is_empty() && cache.values().all(Option::is_none) {
            if let Some((_, e)) = errors.first() {
                return Err(AstError::Pattern(e.clone()));
            }
        }
    }
    let mut warnings: Vec<String> = Vec::new();
    if !errors.is_empty() && !matches.is_empty() {
        let langs: Vec<&str> = errors.iter().map(|(l, _)| l.id()).collect();
        warnings.push(format!(
            "the pattern does not parse as {}; files in {} were not searched",
            langs.join(", "),
            if langs.len() == 1 {
                "that language"
            } else {
                "those languages"
            }
        ));
    }
    let skipped = skipped.into_inner().unwrap_or_default();
    if !skipped.is_empty() {
        warnings.push(format!(
            "{} file{} skipped: {}",
            skipped.len(),
            if skipped.len() == 1 { " was" } else { "s were" },
            skipped
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    Ok(Found {
        matches,
        files_searched: files.into_inner() as u64,
        truncated,
        warnings,
        engine: "embedded",
    })
}

/// Matches in one file (empty when none), with replacements for a rewrite.
fn search_file(
    path: &Path,
    lang: Lang,
    pattern: &Pattern,
    rewrite: Option<&str>,
) -> Result<Vec<Match>, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "larger than {} MiB",
            MAX_FILE_BYTES / (1024 * 1024)
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let Ok(src) = String::from_utf8(bytes) else {
        return Err("not UTF-8 text".into());
    };
    // Cheap pre-filter: a pattern's fixed text must occur in the file.
    let fixed = pattern.fixed_string();
    if !fixed.is_empty() && !src.contains(fixed.as_ref()) {
        return Ok(Vec::new());
    }
    let root = lang.0.ast_grep(&src);
    let mut out = Vec::new();
    for nm in root.root().find_all(pattern) {
        let range = nm.range();
        let line = nm.start_pos().line() + 1;
        let end_line = nm.end_pos().line() + 1;
        let (edit_range, replacement) = match rewrite {
            Some(r) => {
                let edit = nm.make_edit(pattern, &r);
                let start = edit.position;
                let end = start + edit.deleted_length;
                (
                    start..end,
                    Some(String::from_utf8_lossy(&edit.inserted_text).into_owned()),
                )
            }
            None => (range.clone(), None),
        };
        out.push(Match {
            path: path.to_path_buf(),
            line,
            end_line,
            lines: full_lines(&src, range.clone()),
            text: src.get(edit_range.clone()).unwrap_or_default().to_string(),
            range: edit_range,
            replacement,
        });
    }
    Ok(out)
}

/// The whole source lines a byte range touches (without the final newline).
pub(crate) fn full_lines(src: &str, range: std::ops::Range<usize>) -> String {
    let start = src[..range.start.min(src.len())]
        .rfind('\n')
        .map(|i| i + 1)
        .unwrap_or(0);
    let end = src[range.end.min(src.len())..]
        .find('\n')
        .map(|i| range.end + i)
        .unwrap_or(src.len());
    src.get(start..end).unwrap_or_default().to_string()
}

pub(crate) fn in_source(
    pattern: &str,
    lang: Lang,
    source: &str,
) -> Result<Vec<(usize, std::ops::Range<usize>)>, AstError> {
    let pat = compile(pattern, lang).map_err(AstError::Pattern)?;
    let root = lang.0.ast_grep(source);
    Ok(root
        .root()
        .find_all(&pat)
        .map(|m| (m.start_pos().line() + 1, m.range()))
        .collect())
}
