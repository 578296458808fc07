//! The `lsp` tool's language actions (tools.md §4.3): definition,
//! references, hover, symbols, rename and code actions, sent to every
//! server of the file; a rename's edit or a chosen code action applied.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};
use zut_tools::ToolContext;

use crate::apply::Applied;
use crate::client::{file_uri, Client};
use crate::diagnostics::display_path;
use crate::format;
use crate::manager::{join_all, LspManager, Target};
use crate::tool::{Args, Outcome};

/// What `apply` would apply.
enum Proposal {
    /// A rename's edit.
    Rename(lsp_types::WorkspaceEdit),
    /// A code action (or bare command).
    Action(Box<lsp_types::CodeActionOrCommand>),
}

impl LspManager {
    pub(crate) async fn action_language(
        &self,
        action: &str,
        a: &Args,
        path: Option<&Path>,
        deadline: Instant,
        ctx: &ToolContext,
    ) -> Outcome {
        let workspace_symbols = action == "symbols" && path.is_none() && !a.query.is_empty();
        let Some(path) = path else {
            if workspace_symbols {
                return self.workspace_symbols(a, deadline).await;
            }
            return Outcome::err(format!("path is required for {action}"));
        };
        if action == "symbols" && !a.query.is_empty() && a.path == "*" {
            return self.workspace_symbols(a, deadline).await;
        }
        if action != "symbols" && (a.line < 1 || a.column < 1) {
            return Outcome::err(format!(
                "line and column (1-based) are required for {action}"
            ));
        }
        if action == "rename" && a.new_name.trim().is_empty() {
            return Outcome::err("new_name is required for rename");
        }
        if !path.is_file() {
            return Outcome::err(format!("{}: no such file", display_path(path, self.cwd())));
        }
        let (clients, errors) = match self.clients_for(path, true, deadline).await {
            Ok(x) => x,
            Err(e) => return Outcome::err(e),
        };
        if clients.is_empty() {
            return Outcome::err(errors.join("\n"));
        }
        // The server must see the file as it is on disk.
        let text = match tokio::fs::read_to_string(path).await {
            Ok(t) => t,
            Err(e) => {
                return Outcome::err(format!(
                    "cannot read {}: {e}",
                    display_path(path, self.cwd())
                ))
            }
        };
        for (t, c) in &clients {
            let _ = c
                .sync_document(path, &t.spec.language_for(path), &text)
                .await;
        }
        let uri = match file_uri(path) {
            Ok(u) => u,
            Err(e) => return Outcome::err(e),
        };
        let (method, params) = request_for(action, a, &uri, path, &clients);
        let answers = self.request_all(&clients, method, &params, deadline).await;
        let mut out = String::new();
        let mut first_error = errors.first().cloned();
        for e in &errors {
            out.push_str(&format!("lsp: {e}\n"));
        }
        let apply = match action {
            "rename" => a.apply.unwrap_or(true),
            "code_actions" => a.apply.unwrap_or(false),
            _ => false,
        };
        let mut to_apply: Option<(String, Proposal)> = None;
        for (server, answer) in &answers {
            match answer {
                Err(e) => {
                    out.push_str(&format!("{server}: error: {e}\n"));
                    first_error.get_or_insert_with(|| e.clone());
                }
                Ok(v) => {
                    let body = match action {
                        "definition" | "type_definition" | "implementation" | "references" => {
                            format::locations(v, self.cwd())
                        }
                        "hover" => format::hover(v),
                        "symbols" => format::document_symbols(v),
                        "rename" => {
                            if to_apply.is_none() {
                                if let Ok(e) =
                                    serde_json::from_value::<lsp_types::WorkspaceEdit>(v.clone())
                                {
                                    to_apply = Some((server.clone(), Proposal::Rename(e)));
                                }
                            }
                            format::workspace_edit_summary(v, self.cwd())
                        }
                        _ => {
                            let (listing, chosen) = format::code_actions(v, &a.query);
                            if to_apply.is_none() {
                                if let Some(item) = chosen {
                                    to_apply =
                                        Some((server.clone(), Proposal::Action(Box::new(item))));
                                }
                            }
                            listing
                        }
                    };
                    out.push_str(&format!("{server}:\n{body}\n"));
                }
            }
        }
        let mut modified = Vec::new();
        let mut apply_error = None;
        if apply {
            match to_apply {
                None if first_error.is_none() => out.push_str("Nothing to apply.\n"),
                None => {}
                Some((server, proposal)) => {
                    let applied = match proposal {
                        Proposal::Rename(edit) => {
                            let mut done = Applied::default();
                            match self.apply_edit(&edit, ctx) {
                                Ok((diff, paths)) => {
                                    done.diff = diff;
                                    done.paths = paths;
                                    done.edits = 1;
                                }
                                Err(e) => done.errors.push(e),
                            }
                            done
                        }
                        Proposal::Action(item) => {
                            let item = *item;
                            let title = match &item {
                                lsp_types::CodeActionOrCommand::Command(c) => c.title.clone(),
                                lsp_types::CodeActionOrCommand::CodeAction(a) => a.title.clone(),
                            };
                            out.push_str(&format!("Applying {title:?} from {server}.\n"));
                            match clients.iter().find(|(t, _)| t.spec.id == server) {
                                Some((_, c)) => self.apply_action(c, item, ctx, deadline).await,
                                None => Applied::default(),
                            }
                        }
                    };
                    out.push_str(&applied.diff);
                    if applied.edits > 0 {
                        out.push_str(&format!(
                            "\nApplied {} workspace edit(s) from {server}.\n",
                            applied.edits
                        ));
                    } else if applied.errors.is_empty() {
                        out.push_str("(the action changed no file)\n");
                    }
                    for e in &applied.errors {
                        out.push_str(&format!("apply: error: {e}\n"));
                    }
                    apply_error = applied.errors.first().cloned();
                    modified = applied.paths;
                }
            }
        }
        if out.trim().is_empty() {
            out = "No results.".into();
        }
        if !modified.is_empty() {
            if let Some(summary) = self.diagnostics_after_mutation(&modified).await {
                out = format!("{}\n\n{}\n", out.trim_end(), summary);
            }
        }
        Outcome {
            text: out.trim_end().to_string(),
            // A failed apply is an error; otherwise one server answering
            // is a result (the others' errors are in the text).
            error: match apply_error {
                Some(e) => Some(e),
                None if answers.iter().any(|(_, r)| r.is_ok()) => None,
                None => first_error,
            },
        }
    }

    async fn request_all(
        &self,
        clients: &[(Target, Arc<Client>)],
        method: &str,
        params: &Value,
        deadline: Instant,
    ) -> Vec<(String, Result<Value, String>)> {
        join_all(clients.iter().map(|(t, c)| async move {
            let left = deadline.saturating_duration_since(Instant::now());
            (
                t.spec.id.clone(),
                c.request(method, params.clone(), left).await,
            )
        }))
        .await
    }
}

/// The request of a language action at `a`'s position in `path`.
pub(crate) fn request_for(
    action: &str,
    a: &Args,
    uri: &lsp_types::Url,
    path: &Path,
    clients: &[(Target, Arc<Client>)],
) -> (&'static str, Value) {
    let position =
        json!({"line": a.line.saturating_sub(1), "character": a.column.saturating_sub(1)});
    match action {
        "definition" => (
            "textDocument/definition",
            json!({"textDocument": {"uri": uri}, "position": position}),
        ),
        "type_definition" => (
            "textDocument/typeDefinition",
            json!({"textDocument": {"uri": uri}, "position": position}),
        ),
        "implementation" => (
            "textDocument/implementation",
            json!({"textDocument": {"uri": uri}, "position": position}),
        ),
        "references" => (
            "textDocument/references",
            json!({"textDocument": {"uri": uri}, "position": position, "context": {"includeDeclaration": true}}),
        ),
        "hover" => (
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": position}),
        ),
        "symbols" => (
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        ),
        "rename" => (
            "textDocument/rename",
            json!({"textDocument": {"uri": uri}, "position": position, "newName": a.new_name}),
        ),
        _ => {
            // The diagnostics on that line, so quick fixes are offered.
            let line = a.line.saturating_sub(1);
            let context: Vec<Value> = clients
                .iter()
                .flat_map(|(_, c)| c.diagnostics(Some(path)))
                .filter(|d| d.line == line)
                .filter_map(|d| d.raw)
                .collect();
            (
                "textDocument/codeAction",
                json!({"textDocument": {"uri": uri},
                       "range": {"start": position, "end": position},
                       "context": {"diagnostics": context}}),
            )
        }
    }
}
