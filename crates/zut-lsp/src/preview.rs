//! The `--no-yolo` preview of an `lsp` call that would write: a rename's
//! diff, or a code action's (its edit; a command's edits are known only
//! once it runs), planned like the real call — inside the workspace,
//! writable in the jail — and nothing written.

use std::time::{Duration, Instant};

use lsp_types::CodeActionOrCommand;
use serde_json::Value;
use zut_tools::ToolContext;

use crate::client::file_uri;
use crate::edits;
use crate::manager::LspManager;
use crate::navigate::request_for;
use crate::tool::Args;
use crate::{format, MAX_TIMEOUT_MS};

/// Longest a preview waits for the servers.
const PREVIEW_BUDGET: Duration = Duration::from_secs(15);

impl LspManager {
    /// See [`zut_tools::CodeIntel::preview`].
    pub(crate) async fn preview_call(&self, args: &Value, ctx: &ToolContext) -> Option<String> {
        // Bad arguments: the call itself says what is wrong.
        let a: Args = serde_json::from_value(args.clone()).ok()?;
        let action = a.action.trim().to_lowercase();
        let applies = match action.as_str() {
            "rename" => a.apply.unwrap_or(true) && !a.new_name.trim().is_empty(),
            "code_actions" => a.apply.unwrap_or(false),
            _ => false,
        };
        if !applies || a.path.is_empty() || a.path == "*" || a.line < 1 || a.column < 1 {
            return None;
        }
        let path = ctx.resolve(&a.path);
        if let Some(why) = zut_tools::jail::read_denied(ctx, &path) {
            return Some(why);
        }
        let budget = a
            .timeout_ms
            .map(|ms| Duration::from_millis(ms.clamp(1, MAX_TIMEOUT_MS)))
            .unwrap_or(PREVIEW_BUDGET)
            .min(PREVIEW_BUDGET);
        let deadline = Instant::now() + budget;
        let (clients, errors) = match self.clients_for(&path, true, deadline).await {
            Ok(x) => x,
            Err(e) => return Some(e),
        };
        if clients.is_empty() {
            return Some(errors.join("\n"));
        }
        let text = match tokio::fs::read_to_string(&path).await {
            Ok(t) => t,
            Err(e) => return Some(format!("cannot read {}: {e}", path.display())),
        };
        for (t, c) in &clients {
            let _ = c
                .sync_document(&path, &t.spec.language_for(&path), &text)
                .await;
        }
        let uri = match file_uri(&path) {
            Ok(u) => u,
            Err(e) => return Some(e),
        };
        let (method, params) = request_for(&action, &a, &uri, &path, &clients);
        let mut problems = Vec::new();
        for (t, c) in &clients {
            let left = deadline.saturating_duration_since(Instant::now());
            let answer = match c.request(method, params.clone(), left).await {
                Ok(v) => v,
                Err(e) => {
                    problems.push(format!("{}: {e}", t.spec.id));
                    continue;
                }
            };
            let server = &t.spec.id;
            if action == "rename" {
                return Some(
                    match serde_json::from_value::<lsp_types::WorkspaceEdit>(answer) {
                        Ok(edit) => self.planned_diff(&edit, ctx),
                        Err(_) => format!("{server}: the symbol cannot be renamed here"),
                    },
                );
            }
            let (_, chosen) = format::code_actions(&answer, &a.query);
            let Some(item) = chosen else {
                continue;
            };
            return Some(match item {
                CodeActionOrCommand::Command(cmd) => command_note(server, &cmd.title, &cmd.command),
                CodeActionOrCommand::CodeAction(act) => {
                    let mut out = format!("{:?} from {server}\n", act.title);
                    match (&act.edit, &act.command) {
                        (None, None) => out.push_str("(resolved by the server when applied)\n"),
                        (Some(edit), _) => out.push_str(&self.planned_diff(edit, ctx)),
                        (None, Some(_)) => {}
                    }
                    if let Some(cmd) = &act.command {
                        out.push_str(&command_note(server, &cmd.title, &cmd.command));
                    }
                    out
                }
            });
        }
        Some(if problems.is_empty() {
            "Nothing to apply.".into()
        } else {
            problems.join("\n")
        })
    }

    /// The diff `edit` would make, or why it would be refused.
    fn planned_diff(&self, edit: &lsp_types::WorkspaceEdit, ctx: &ToolContext) -> String {
        let planned = edits::collect(edit).and_then(|files| edits::plan(self.cwd(), &files));
        let plans = match planned {
            Ok(p) => p,
            Err(e) => return e,
        };
        for p in &plans {
            if let Some(why) = zut_tools::jail::write_denied(ctx, &p.path) {
                return format!("{why} (nothing would be written)");
            }
        }
        if plans.is_empty() {
            return "(the edit changes nothing)\n".into();
        }
        edits::diff(self.cwd(), &plans)
    }
}

fn command_note(server: &str, title: &str, command: &str) -> String {
    format!(
        "runs {server}'s command {command} ({title}); the edits it sends are checked, \
         written and shown after\n"
    )
}
