//! Diagnostics as zut shows them: deduplicated, sorted, grouped and
//! bounded (tools.md §4.6), and the ledger that keeps post-edit reports to
//! what is new (§4.7).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Most diagnostics the `diagnostics` action lists (default and maximum).
pub const DEFAULT_DIAGNOSTIC_CAP: usize = 50;

/// Most diagnostics listed after an edit.
pub const MUTATION_DIAGNOSTIC_CAP: usize = 8;

/// Longest message shown, in characters.
const MAX_MESSAGE_CHARS: usize = 220;

/// One diagnostic from a language server or a CLI linter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Absolute file path.
    pub path: PathBuf,
    /// 1 error, 2 warning, 3 information, 4 hint (LSP numbering).
    pub severity: u8,
    /// The server's code, if any (`E0308`, `reportUndefinedVariable`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Who reported it (`rustc`, `Pyright`, the server id …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// 0-based line.
    pub line: u32,
    /// 0-based character (UTF-16 units, as the server counts).
    pub character: u32,
    /// The message.
    pub message: String,
    /// The server id that reported it.
    pub server: String,
    /// The server's own diagnostic object (LSP servers only), handed back
    /// as the context of a code-action request.
    #[serde(skip)]
    pub raw: Option<serde_json::Value>,
}

impl Diagnostic {
    /// Whether this is an error or a warning (what post-edit reports keep).
    pub fn is_problem(&self) -> bool {
        matches!(self.severity, 1 | 2)
    }

    fn rank(&self) -> u8 {
        match self.severity {
            1 => 0,
            2 => 1,
            4 => 3,
            _ => 2,
        }
    }

    fn compact_message(&self) -> String {
        self.message
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Identity independent of position (the post-edit ledger's key).
    pub fn identity(&self) -> String {
        format!(
            "{}\u{1f}{}\u{1f}{}",
            self.severity,
            self.code.as_deref().unwrap_or(""),
            self.compact_message()
        )
    }

    fn dedup_key(&self) -> (PathBuf, u8, String, u32, u32, String) {
        (
            self.path.clone(),
            self.severity,
            self.code.clone().unwrap_or_default(),
            self.line,
            self.character,
            self.compact_message(),
        )
    }
}

fn severity_word(severity: u8) -> &'static str {
    match severity {
        1 => "ERROR",
        2 => "WARNING",
        4 => "HINT",
        _ => "INFO",
    }
}

fn severity_plural(severity: u8) -> &'static str {
    match severity {
        1 => "error",
        2 => "warning",
        4 => "hint",
        _ => "info",
    }
}

/// Removes duplicates (same path, severity, code, start and whitespace-
/// compacted message; the server is ignored) and sorts: errors, warnings,
/// infos, hints, then path, line, character, message, code.
pub fn dedup_and_sort(mut all: Vec<Diagnostic>) -> (Vec<Diagnostic>, usize) {
    let before = all.len();
    let mut seen = HashSet::new();
    all.retain(|d| seen.insert(d.dedup_key()));
    let removed = before - all.len();
    all.sort_by(|a, b| {
        (a.rank(), &a.path, a.line, a.character, &a.message, &a.code).cmp(&(
            b.rank(),
            &b.path,
            b.line,
            b.character,
            &b.message,
            &b.code,
        ))
    });
    (all, removed)
}

/// A path as the model should see it: relative to `cwd` when inside it.
pub fn display_path(path: &Path, cwd: &Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => path.display().to_string(),
    }
}

/// ` [code]` when the diagnostic has a code, else nothing.
fn code_suffix(d: &Diagnostic) -> String {
    d.code
        .as_deref()
        .map(|c| format!(" [{c}]"))
        .unwrap_or_default()
}

fn cut_chars(s: &str, max: usize) -> String {
    let compact: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match compact.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &compact[..i]),
        None => compact,
    }
}

fn is_module_error(d: &Diagnostic) -> Option<String> {
    if d.severity != 1 {
        return None;
    }
    let lower = d.message.to_lowercase();
    let markers = [
        "cannot find module",
        "no module named",
        "could not be resolved",
        "unresolved import",
        "cannot find package",
        "could not import",
        "failed to resolve",
    ];
    if !markers.iter().any(|m| lower.contains(m)) {
        return None;
    }
    let quoted = d
        .message
        .split(['\'', '"', '`'])
        .nth(1)
        .map(str::to_string)
        .unwrap_or_else(|| cut_chars(&d.message, 40));
    Some(quoted)
}

/// The text summary of `diagnostics` (any order, duplicates allowed),
/// listing at most `cap` items (tools.md §4.6).
pub fn summarize(diagnostics: &[Diagnostic], cwd: &Path, cap: usize) -> String {
    let (items, removed) = dedup_and_sort(diagnostics.to_vec());
    if items.is_empty() {
        return "No diagnostics.".to_string();
    }
    let cap = cap.max(1);
    let mut counts: BTreeMap<u8, usize> = BTreeMap::new();
    for d in &items {
        *counts.entry(d.rank()).or_default() += 1;
    }
    let parts: Vec<String> = counts
        .iter()
        .map(|(rank, n)| {
            let sev = match rank {
                0 => 1,
                1 => 2,
                3 => 4,
                _ => 3,
            };
            let word = severity_plural(sev);
            if *n == 1 || sev == 3 {
                format!("{n} {word}")
            } else {
                format!("{n} {word}s")
            }
        })
        .collect();
    let mut out = format!("Diagnostics: {}", parts.join(", "));
    if removed > 0 {
        out.push_str(&format!(" (deduplicated {removed})"));
    }
    out.push('\n');

    // Files with a module-resolution error and ≥2 other diagnostics: those
    // others become one SECONDARY line.
    let mut module_errors: BTreeMap<&Path, BTreeSet<String>> = BTreeMap::new();
    for d in &items {
        if let Some(m) = is_module_error(d) {
            module_errors.entry(d.path.as_path()).or_default().insert(m);
        }
    }
    let mut secondary: BTreeMap<&Path, usize> = BTreeMap::new();
    for d in &items {
        if module_errors.contains_key(d.path.as_path()) && is_module_error(d).is_none() {
            *secondary.entry(d.path.as_path()).or_default() += 1;
        }
    }
    secondary.retain(|_, n| *n >= 2);

    // Groups of identical issues (severity + code + message).
    let mut groups: BTreeMap<String, Vec<&Diagnostic>> = BTreeMap::new();
    for d in &items {
        if secondary.contains_key(d.path.as_path()) && is_module_error(d).is_none() {
            continue;
        }
        groups.entry(d.identity()).or_default().push(d);
    }

    let mut shown = 0usize;
    let mut listed = 0usize;
    let mut emitted_groups: HashSet<String> = HashSet::new();
    let mut emitted_secondary: HashSet<&Path> = HashSet::new();
    for d in &items {
        if shown >= cap {
            break;
        }
        if secondary.contains_key(d.path.as_path()) && is_module_error(d).is_none() {
            if emitted_secondary.insert(d.path.as_path()) {
                let n = secondary[d.path.as_path()];
                let mods: Vec<String> = module_errors[d.path.as_path()].iter().cloned().collect();
                out.push_str(&format!(
                    "- SECONDARY: grouped {n} additional diagnostics in {} under module-resolution error ({}). Fix the root import error first, then re-check.\n",
                    display_path(&d.path, cwd),
                    mods.join(", ")
                ));
                shown += 1;
                listed += n;
            }
            continue;
        }
        let id = d.identity();
        let group = &groups[&id];
        let files: BTreeSet<&Path> = group.iter().map(|g| g.path.as_path()).collect();
        if group.len() >= 3 || files.len() >= 2 {
            if !emitted_groups.insert(id) {
                continue;
            }
            let code = code_suffix(d);
            let head = if files.len() == 1 {
                let lines: Vec<String> = group.iter().map(|g| (g.line + 1).to_string()).collect();
                format!(
                    "- {}: repeated {} occurrences in {} (lines: {})",
                    severity_word(d.severity),
                    group.len(),
                    display_path(&d.path, cwd),
                    lines.join(", ")
                )
            } else {
                format!(
                    "- {}: repeated {} occurrences across {} files",
                    severity_word(d.severity),
                    group.len(),
                    files.len()
                )
            };
            let examples: Vec<String> =
                files.iter().take(3).map(|p| display_path(p, cwd)).collect();
            out.push_str(&format!(
                "{head}{code} {} (examples: {})\n",
                cut_chars(&d.message, MAX_MESSAGE_CHARS),
                examples.join(", ")
            ));
            shown += 1;
            listed += group.len();
            continue;
        }
        let code = code_suffix(d);
        out.push_str(&format!(
            "- {}: {}:{}:{}{code} {}\n",
            severity_word(d.severity),
            display_path(&d.path, cwd),
            d.line + 1,
            d.character + 1,
            cut_chars(&d.message, MAX_MESSAGE_CHARS)
        ));
        shown += 1;
        listed += 1;
    }
    if listed < items.len() {
        out.push_str(&format!(
            "... truncated; {} diagnostics omitted (hard cap {cap})\n",
            items.len() - listed
        ));
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(path: &str, severity: u8, line: u32, msg: &str) -> Diagnostic {
        Diagnostic {
            path: PathBuf::from(path),
            severity,
            code: None,
            source: None,
            line,
            character: 0,
            message: msg.to_string(),
            server: "s".into(),
            raw: None,
        }
    }

    /// The summary of `all` for a project at `/w`, capped at 50.
    fn summary(all: &[Diagnostic]) -> String {
        summarize(all, Path::new("/w"), 50)
    }

    #[test]
    fn empty_says_so() {
        assert_eq!(summary(&[]), "No diagnostics.");
    }

    #[test]
    fn sorted_deduplicated_and_counted() {
        let text = summary(&[
            d("/w/b.rs", 2, 3, "unused   variable"),
            d("/w/a.rs", 1, 9, "mismatched types"),
            d("/w/b.rs", 2, 3, "unused variable"),
        ]);
        assert_eq!(
            text,
            "Diagnostics: 1 error, 1 warning (deduplicated 1)\n\
             - ERROR: a.rs:10:1 mismatched types\n\
             - WARNING: b.rs:4:1 unused variable"
        );
    }

    #[test]
    fn repeated_issues_are_grouped_and_cap_truncates() {
        let mut all: Vec<Diagnostic> = (0..5).map(|i| d("/w/a.py", 2, i, "same")).collect();
        all.push(d("/w/x.py", 1, 0, "one"));
        all.push(d("/w/y.py", 1, 0, "two"));
        let text = summarize(&all, Path::new("/w"), 2);
        assert!(text.contains("- ERROR: x.py:1:1 one"), "{text}");
        assert!(text.contains("- ERROR: y.py:1:1 two"), "{text}");
        assert!(
            text.ends_with("... truncated; 5 diagnostics omitted (hard cap 2)"),
            "{text}"
        );
        let grouped = summary(&all[..5]);
        assert!(
            grouped.contains("- WARNING: repeated 5 occurrences in a.py (lines: 1, 2, 3, 4, 5) same (examples: a.py)"),
            "{grouped}"
        );
    }

    #[test]
    fn module_errors_make_the_rest_secondary() {
        let text = summary(&[
            d("/w/m.ts", 1, 0, "Cannot find module 'left-pad'"),
            d("/w/m.ts", 1, 4, "x is any"),
            d("/w/m.ts", 2, 5, "y unused"),
        ]);
        assert!(text.contains("- SECONDARY: grouped 2 additional diagnostics in m.ts under module-resolution error (left-pad)"), "{text}");
    }
}
