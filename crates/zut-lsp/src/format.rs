//! Server answers as compact text for the model: `path:line:col` locations
//! (paths relative to the session, copyable), hover text, symbol outlines,
//! edit summaries and code-action lists. Unknown shapes fall back to
//! pretty JSON.

use std::path::Path;

use lsp_types::{
    CodeActionOrCommand, DocumentSymbolResponse, GotoDefinitionResponse, Hover, HoverContents,
    Location, MarkedString, SymbolKind, WorkspaceEdit,
};
use serde_json::Value;

use crate::diagnostics::display_path;

/// Most locations listed per server.
const MAX_LOCATIONS: usize = 200;

/// Most symbols listed per server.
const MAX_SYMBOLS: usize = 300;

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

fn location_line(loc: &Location, cwd: &Path) -> String {
    let shown = match loc.uri.to_file_path() {
        Ok(p) => display_path(&p, cwd),
        Err(_) => loc.uri.to_string(),
    };
    let line = loc.range.start.line + 1;
    let col = loc.range.start.character + 1;
    let source = loc
        .uri
        .to_file_path()
        .ok()
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|t| {
            t.lines()
                .nth(loc.range.start.line as usize)
                .map(|l| l.trim().to_string())
        })
        .map(|l| {
            let short: String = l.chars().take(160).collect();
            format!(": {short}")
        })
        .unwrap_or_default();
    format!("  {shown}:{line}:{col}{source}")
}

/// Definition/reference answers as `path:line:col: source line` lines.
pub fn locations(v: &Value, cwd: &Path) -> String {
    if v.is_null() {
        return "  (none)".into();
    }
    let locs: Vec<Location> = match serde_json::from_value::<GotoDefinitionResponse>(v.clone()) {
        Ok(GotoDefinitionResponse::Scalar(l)) => vec![l],
        Ok(GotoDefinitionResponse::Array(a)) => a,
        Ok(GotoDefinitionResponse::Link(links)) => links
            .into_iter()
            .map(|l| Location {
                uri: l.target_uri,
                range: l.target_selection_range,
            })
            .collect(),
        Err(_) => return pretty(v),
    };
    if locs.is_empty() {
        return "  (none)".into();
    }
    let mut lines: Vec<String> = locs
        .iter()
        .take(MAX_LOCATIONS)
        .map(|l| location_line(l, cwd))
        .collect();
    if locs.len() > MAX_LOCATIONS {
        lines.push(format!("  ... {} more", locs.len() - MAX_LOCATIONS));
    }
    format!("  {} location(s)\n{}", locs.len(), lines.join("\n"))
}

fn marked(m: &MarkedString) -> String {
    match m {
        MarkedString::String(s) => s.clone(),
        MarkedString::LanguageString(ls) => format!("```{}\n{}\n```", ls.language, ls.value),
    }
}

/// Hover contents as text.
pub fn hover(v: &Value) -> String {
    if v.is_null() {
        return "  (nothing)".into();
    }
    match serde_json::from_value::<Hover>(v.clone()) {
        Ok(h) => match h.contents {
            HoverContents::Scalar(m) => marked(&m),
            HoverContents::Array(a) => a.iter().map(marked).collect::<Vec<_>>().join("\n\n"),
            HoverContents::Markup(m) => m.value,
        },
        Err(_) => pretty(v),
    }
}

fn kind_name(k: SymbolKind) -> String {
    let s = format!("{k:?}");
    s.to_lowercase()
}

/// A document outline: `kind name (line N)`, nested by indentation.
pub fn document_symbols(v: &Value) -> String {
    if v.is_null() {
        return "  (none)".into();
    }
    let mut out = Vec::new();
    match serde_json::from_value::<DocumentSymbolResponse>(v.clone()) {
        Ok(DocumentSymbolResponse::Nested(list)) => {
            fn walk(list: &[lsp_types::DocumentSymbol], depth: usize, out: &mut Vec<String>) {
                for s in list {
                    if out.len() >= MAX_SYMBOLS {
                        return;
                    }
                    out.push(format!(
                        "{}{} {} (line {})",
                        "  ".repeat(depth + 1),
                        kind_name(s.kind),
                        s.name,
                        s.selection_range.start.line + 1
                    ));
                    if let Some(c) = &s.children {
                        walk(c, depth + 1, out);
                    }
                }
            }
            walk(&list, 0, &mut out);
        }
        Ok(DocumentSymbolResponse::Flat(list)) => {
            for s in list.iter().take(MAX_SYMBOLS) {
                out.push(format!(
                    "  {} {} (line {})",
                    kind_name(s.kind),
                    s.name,
                    s.location.range.start.line + 1
                ));
            }
        }
        Err(_) => return pretty(v),
    }
    if out.is_empty() {
        return "  (none)".into();
    }
    out.join("\n")
}

/// Workspace symbols: `kind name  path:line:col`.
pub fn workspace_symbols(v: &Value, cwd: &Path) -> String {
    let Some(items) = v.as_array() else {
        return if v.is_null() {
            "  (none)".into()
        } else {
            pretty(v)
        };
    };
    let mut out = Vec::new();
    for item in items.iter().take(MAX_SYMBOLS) {
        let name = item.get("name").and_then(Value::as_str).unwrap_or("?");
        let kind = item
            .get("kind")
            .cloned()
            .and_then(|k| serde_json::from_value::<SymbolKind>(k).ok())
            .map(kind_name)
            .unwrap_or_default();
        let loc = item
            .get("location")
            .cloned()
            .and_then(|l| serde_json::from_value::<Location>(l).ok())
            .map(|l| {
                let p = l
                    .uri
                    .to_file_path()
                    .map(|p| display_path(&p, cwd))
                    .unwrap_or_else(|_| l.uri.to_string());
                format!(
                    "{p}:{}:{}",
                    l.range.start.line + 1,
                    l.range.start.character + 1
                )
            })
            .unwrap_or_default();
        out.push(format!("  {kind} {name}  {loc}"));
    }
    if items.len() > MAX_SYMBOLS {
        out.push(format!("  ... {} more", items.len() - MAX_SYMBOLS));
    }
    if out.is_empty() {
        return "  (none)".into();
    }
    out.join("\n")
}

/// A rename answer: files and edit counts.
pub fn workspace_edit_summary(v: &Value, cwd: &Path) -> String {
    if v.is_null() {
        return "  (no edit: the symbol cannot be renamed here)".into();
    }
    let Ok(edit) = serde_json::from_value::<WorkspaceEdit>(v.clone()) else {
        return pretty(v);
    };
    match crate::edits::collect(&edit) {
        Ok(files) => files
            .iter()
            .map(|(p, e)| format!("  {}: {} edit(s)", display_path(p, cwd), e.len()))
            .collect::<Vec<_>>()
            .join("\n"),
        Err(e) => format!("  {e}"),
    }
}

/// The listing of a code-action answer, and the action `apply` would
/// take: the first whose title contains `wanted` (case-insensitive) when
/// given, else the preferred one, else the first that carries an edit or
/// a command, else the first (it may need `codeAction/resolve`).
pub fn code_actions(v: &Value, wanted: &str) -> (String, Option<CodeActionOrCommand>) {
    let Ok(list) = serde_json::from_value::<Option<Vec<CodeActionOrCommand>>>(v.clone()) else {
        return (pretty(v), None);
    };
    let list = list.unwrap_or_default();
    if list.is_empty() {
        return ("  (no code actions here)".into(), None);
    }
    let mut lines = Vec::new();
    for (i, item) in list.iter().enumerate() {
        match item {
            CodeActionOrCommand::Command(c) => {
                lines.push(format!("  {}. {} [command {}]", i + 1, c.title, c.command));
            }
            CodeActionOrCommand::CodeAction(a) => {
                let kind = a
                    .kind
                    .as_ref()
                    .map(|k| format!(" ({})", k.as_str()))
                    .unwrap_or_default();
                let what = match (&a.edit, &a.command) {
                    (Some(_), Some(_)) => " [edit + command]",
                    (Some(_), None) => " [edit]",
                    (None, Some(_)) => " [command]",
                    (None, None) => " [needs resolve]",
                };
                let star = if a.is_preferred == Some(true) {
                    " *preferred*"
                } else {
                    ""
                };
                lines.push(format!("  {}. {}{kind}{what}{star}", i + 1, a.title));
            }
        }
    }
    let title = |item: &CodeActionOrCommand| match item {
        CodeActionOrCommand::Command(c) => c.title.clone(),
        CodeActionOrCommand::CodeAction(a) => a.title.clone(),
    };
    let wanted = wanted.trim().to_lowercase();
    let doable = |item: &&CodeActionOrCommand| match item {
        CodeActionOrCommand::Command(_) => true,
        CodeActionOrCommand::CodeAction(a) => a.edit.is_some() || a.command.is_some(),
    };
    let chosen = if !wanted.is_empty() {
        list.iter()
            .find(|i| title(i).to_lowercase().contains(&wanted))
    } else {
        list.iter()
            .find(
                |i| matches!(i, CodeActionOrCommand::CodeAction(a) if a.is_preferred == Some(true)),
            )
            .or_else(|| list.iter().find(doable))
            .or_else(|| list.first())
    };
    (lines.join("\n"), chosen.cloned())
}
