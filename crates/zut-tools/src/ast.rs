//! `ast`: structural search and rewrite with ast-grep patterns, through
//! the embedded engine of `zut-ast` (the installed ast-grep CLI for
//! languages zut does not embed).
//!
//! A search lists `path:line: source` per match, the source cut to
//! [`AST_MAX_MATCH_LINES`] lines and the whole text to [`AST_MAX_BYTES`].
//! A rewrite is planned in memory, then written file by file after checking
//! each file still holds what was planned (a changed file is refused and
//! left untouched); the result is the unified diff of every changed file.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;
use zut_ast::{AstError, Found, Query};

use crate::limits::*;
use crate::{blocking, parse_args, ToolContext, ToolOutput};

#[derive(Deserialize)]
struct AstArgs {
    #[serde(default)]
    pattern: String,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    path: String,
    #[serde(default)]
    rewrite: Option<String>,
}

const HINT: &str = "Tip: the pattern must be valid code in the target language; $A matches one node and $$$A matches zero or more. Set language when the path mixes languages.";

/// A call's checked arguments.
struct Call {
    pattern: String,
    root: std::path::PathBuf,
    language: Option<zut_ast::LangChoice>,
    rewrite: Option<String>,
}

/// Parses and checks the arguments (jail, root exists).
fn prepare(args: &Value, ctx: &ToolContext) -> Result<Call, ToolOutput> {
    let a: AstArgs = parse_args("ast", args)?;
    let pattern = a.pattern.trim().to_string();
    if pattern.is_empty() || a.path.trim().is_empty() {
        return Err(ToolOutput::error("ast: pattern and path are required"));
    }
    let root = ctx.resolve(a.path.trim());
    if let Some(why) = crate::jail::read_denied(ctx, &root) {
        return Err(ToolOutput::error(format!("ast: {why}")));
    }
    match std::fs::metadata(&root) {
        Ok(m) if m.is_file() || m.is_dir() => {}
        Ok(_) => {
            return Err(ToolOutput::error(format!(
                "ast: {} is not a regular file or directory",
                a.path.trim()
            )))
        }
        Err(e) => {
            return Err(ToolOutput::error(format!(
                "ast: {}",
                crate::io_error_text("search", a.path.trim(), &e)
            )))
        }
    }
    let language = a
        .language
        .as_deref()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(zut_ast::parse_language);
    Ok(Call {
        pattern,
        root,
        language,
        rewrite: a.rewrite,
    })
}

/// The `--no-yolo` preview of a rewrite: the planned diff (or why there is
/// none), nothing written. `None` for a search.
pub(crate) async fn preview(args: &Value, ctx: &ToolContext) -> Option<String> {
    let call = match prepare(args, ctx) {
        Ok(c) => c,
        Err(out) => return Some(out.text_content()),
    };
    call.rewrite.as_ref()?;
    let cwd = ctx.cwd.clone();
    let cancel = ctx.cancel.child_token();
    let _stop_on_drop = cancel.clone().drop_guard();
    let out = blocking("ast", move || {
        let q = Query {
            root: &call.root,
            pattern: &call.pattern,
            language: call.language,
            rewrite: call.rewrite.as_deref(),
        };
        let stop = || cancel.is_cancelled();
        match zut_ast::plan_rewrite(&q, &stop) {
            Err(e) => error(e),
            Ok((found, plan)) if plan.files.is_empty() => {
                ToolOutput::text(if found.matches.is_empty() {
                    no_matches(&found)
                } else {
                    "Structural matches found, but the rewrite produced no changes.".to_string()
                })
            }
            Ok((_, plan)) => {
                let (diffs, replacements) = diffs(&plan, &cwd);
                ToolOutput::text(cap(format!(
                    "Would rewrite {}.\n\n{diffs}",
                    counted(replacements, plan.files.len())
                )))
            }
        }
    })
    .await;
    Some(out.text_content())
}

/// `N match(es) in M file(s)`.
fn counted(replacements: usize, files: usize) -> String {
    format!(
        "{replacements} match{} in {files} file{}",
        if replacements == 1 { "" } else { "es" },
        if files == 1 { "" } else { "s" }
    )
}

/// Every changed file's diff, and the replacements in all.
fn diffs(plan: &zut_ast::Plan, cwd: &Path) -> (String, usize) {
    let mut diffs = String::new();
    let mut replacements = 0;
    for f in &plan.files {
        diffs.push_str(&f.diff(&shown(&f.path, cwd)));
        replacements += f.replacements;
    }
    (diffs, replacements)
}

pub(crate) async fn run(args: &Value, ctx: &ToolContext) -> ToolOutput {
    let Call {
        pattern,
        root,
        language,
        rewrite,
    } = match prepare(args, ctx) {
        Ok(c) => c,
        Err(out) => return out,
    };
    let cwd = ctx.cwd.clone();
    let cancel = ctx.cancel.child_token();
    let _stop_on_drop = cancel.clone().drop_guard();
    let jail = ctx.jail.clone();
    let write_ctx = ctx.clone();
    blocking("ast", move || {
        let q = Query {
            root: &root,
            pattern: &pattern,
            language,
            rewrite: rewrite.as_deref(),
        };
        let stop = || cancel.is_cancelled();
        match q.rewrite {
            None => match zut_ast::search(&q, &stop) {
                Ok(mut found) => {
                    hide_secrets(&mut found, jail.as_deref());
                    render_search(&found, &cwd)
                }
                Err(e) => error(e),
            },
            Some(_) => rewrite_files(&q, &cwd, &stop, &write_ctx),
        }
    })
    .await
}

fn error(e: AstError) -> ToolOutput {
    match e {
        AstError::Cancelled => ToolOutput::error("aborted: ast: cancelled"),
        AstError::Pattern(m) => ToolOutput::error(format!("ast: {m}\n{HINT}")),
        other => ToolOutput::error(format!("ast: {other}")),
    }
}

/// `path` relative to `cwd` when inside it, else as it is.
fn shown(path: &Path, cwd: &Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => path.display().to_string(),
    }
}

fn no_matches(found: &Found) -> String {
    let mut text = "No structural matches.".to_string();
    for w in &found.warnings {
        text.push('\n');
        text.push_str(w);
    }
    text.push('\n');
    text.push_str(HINT);
    text
}

fn cap(mut text: String) -> String {
    if text.len() > AST_MAX_BYTES {
        let mut cut = AST_MAX_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str(&format!("\n... [truncated at {AST_MAX_BYTES} bytes]"));
    }
    text
}

fn render_search(found: &Found, cwd: &Path) -> ToolOutput {
    if found.matches.is_empty() {
        return ToolOutput::text(no_matches(found));
    }
    let mut out = String::new();
    for m in &found.matches {
        let src = m.lines.trim();
        let mut lines = src.lines();
        let head: Vec<&str> = lines.by_ref().take(AST_MAX_MATCH_LINES).collect();
        let rest = lines.count();
        out.push_str(&format!(
            "{}:{}: {}",
            shown(&m.path, cwd),
            m.line,
            head.join("\n")
        ));
        if rest > 0 {
            out.push_str(&format!(
                "\n… (+{rest} more line{})",
                if rest == 1 { "" } else { "s" }
            ));
        }
        out.push('\n');
        if out.len() > AST_MAX_BYTES + 1024 {
            break;
        }
    }
    let mut text = cap(out.trim_end_matches('\n').to_string());
    if found.truncated {
        text.push_str(&format!(
            "\n... [search stopped at {} matches; narrow path or pattern for complete results]",
            zut_ast::MAX_MATCHES
        ));
    }
    for w in &found.warnings {
        text.push_str(&format!("\nNote: {w}"));
    }
    ToolOutput::text(text)
}

/// Jailed: drops matches in locations the jail keeps secret, with a note.
fn hide_secrets(found: &mut Found, jail: Option<&zut_sandbox::Prepared>) {
    let before = found.matches.len();
    found
        .matches
        .retain(|m| crate::jail::readable(jail, &m.path));
    let hidden = before - found.matches.len();
    if hidden > 0 {
        found.warnings.push(format!(
            "{hidden} match{} in locations the jail keeps secret left out",
            if hidden == 1 { "" } else { "es" }
        ));
    }
}

fn rewrite_files(
    q: &Query<'_>,
    cwd: &Path,
    stop: &(dyn Fn() -> bool + Sync),
    ctx: &ToolContext,
) -> ToolOutput {
    let (found, plan) = match zut_ast::plan_rewrite(q, stop) {
        Ok(p) => p,
        Err(e) => return error(e),
    };
    // Jailed: every file the plan changes must be writable, or nothing is
    // written.
    for f in &plan.files {
        if let Some(why) = crate::jail::write_denied(ctx, &f.path) {
            return ToolOutput::error(format!("ast: {why} (nothing was written)"));
        }
    }
    if plan.files.is_empty() {
        return ToolOutput::text(if found.matches.is_empty() {
            no_matches(&found)
        } else {
            "Structural matches found, but the rewrite produced no changes.".to_string()
        });
    }
    let (diffs, replacements) = diffs(&plan, cwd);
    if let Err(e) = zut_ast::apply(&plan) {
        return ToolOutput::error(format!("ast: {e}"));
    }
    ToolOutput::text(cap(format!(
        "Rewrote {}.\n\n{diffs}",
        counted(replacements, plan.files.len())
    )))
}

/// A `Tip:` line for `grep` when its regex looks like a search for a call
/// or a definition, which `ast` finds structurally (never for plain text).
pub(crate) fn grep_hint(pattern: &str, literal: bool) -> Option<String> {
    let p = if literal {
        pattern.to_string()
    } else {
        // Read the common escapes as the characters they match.
        pattern
            .replace("\\.", ".")
            .replace("\\(", "(")
            .replace("\\s+", " ")
            .replace("\\s*", "")
            .replace("\\s", " ")
            .replace("\\b", "")
    };
    let p = p.trim_start_matches('^').trim_start();
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !s.starts_with(|c: char| c.is_ascii_digit())
    };
    let suggest = |pat: &str| {
        Some(format!(
            "Tip: for code structure, try `ast` with pattern \"{pat}\""
        ))
    };
    for (kw, pat) in [
        ("func ", "func $NAME($$$ARGS) $$$RET { $$$BODY }"),
        ("def ", "def $NAME($$$ARGS): $$$BODY"),
        ("class ", "class $NAME { $$$BODY }"),
        ("fn ", "fn $NAME($$$ARGS) { $$$BODY }"),
        ("function ", "function $NAME($$$ARGS) { $$$BODY }"),
    ] {
        if p.starts_with(kw) || p == kw.trim_end() {
            return suggest(pat);
        }
    }
    // `name(` or `pkg.name(` at the end: a call.
    let call = p.strip_suffix('(')?;
    let parts: Vec<&str> = call.split('.').collect();
    if parts.len() <= 3 && parts.iter().all(|s| ident(s)) {
        return suggest(&format!("{call}($$$ARGS)"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::grep_hint;

    #[test]
    fn hints() {
        let h = |p: &str| grep_hint(p, false);
        assert!(h("fmt\\.Errorf\\(").is_some_and(|t| t.contains("\"fmt.Errorf($$$ARGS)\"")));
        assert!(h("^\\s*def\\s").is_some_and(|t| t.contains("def $NAME")));
        assert!(h("^func ").is_some_and(|t| t.contains("func $NAME")));
        assert!(h("\\bclass\\b").is_some());
        assert!(grep_hint("self.run(", true).is_some_and(|t| t.contains("self.run($$$ARGS)")));
        assert_eq!(h("TODO"), None);
        assert_eq!(h("error: (.*)"), None);
        assert_eq!(h("a b c("), None);
    }
}
