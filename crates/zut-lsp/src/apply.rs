//! Applying what a server proposes: a rename's or code action's
//! `WorkspaceEdit`, a code action that must be resolved first, and a code
//! action's command, run with `workspace/executeCommand` while the
//! server's `workspace/applyEdit` requests are accepted. Every edit goes
//! through the same checked path: files inside the session directory only
//! (tools.md §4.8), every file writable in the jail, all planned before
//! any is written, written atomically.

use std::path::PathBuf;
use std::time::Instant;

use lsp_types::{CodeAction, CodeActionOrCommand, Command, WorkspaceEdit};
use serde_json::{json, Value};
use zut_tools::ToolContext;

use crate::client::{requested_edit, Client, EditRequest};
use crate::edits;
use crate::manager::LspManager;

/// What applying an action did.
#[derive(Debug, Default)]
pub(crate) struct Applied {
    /// The diffs of the edits written, in order.
    pub diff: String,
    /// Files changed.
    pub paths: Vec<PathBuf>,
    /// Workspace edits written.
    pub edits: usize,
    /// What was refused or failed (the rest may have been applied).
    pub errors: Vec<String>,
}

impl Applied {
    fn add(&mut self, diff: String, paths: Vec<PathBuf>) {
        self.diff.push_str(&diff);
        self.edits += 1;
        for p in paths {
            if !self.paths.contains(&p) {
                self.paths.push(p);
            }
        }
    }
}

impl LspManager {
    /// Plans `edit`, checks every file against the jail, writes it.
    /// Returns the diff and the changed files; nothing is written on an
    /// error.
    pub(crate) fn apply_edit(
        &self,
        edit: &WorkspaceEdit,
        ctx: &ToolContext,
    ) -> Result<(String, Vec<PathBuf>), String> {
        let per_file = edits::collect(edit)?;
        let plans = edits::plan(self.cwd(), &per_file)?;
        if plans.is_empty() {
            return Ok(("(the edit changes nothing)\n".into(), Vec::new()));
        }
        // Jailed: every file the edit touches must be writable, or none
        // is written.
        for p in &plans {
            if let Some(why) = zut_tools::jail::write_denied(ctx, &p.path) {
                return Err(format!("{why} (nothing was written)"));
            }
        }
        let diff = edits::write(self.cwd(), &plans)?;
        Ok((diff, plans.into_iter().map(|p| p.path).collect()))
    }

    /// Applies the code action `item` of `client`: resolved first when it
    /// carries neither an edit nor a command, then its edit, then its
    /// command (LSP order).
    pub(crate) async fn apply_action(
        &self,
        client: &Client,
        item: CodeActionOrCommand,
        ctx: &ToolContext,
        deadline: Instant,
    ) -> Applied {
        let mut applied = Applied::default();
        let (edit, command) = match item {
            CodeActionOrCommand::Command(c) => (None, Some(c)),
            CodeActionOrCommand::CodeAction(a) if a.edit.is_none() && a.command.is_none() => {
                match resolve(client, a, deadline).await {
                    Ok(a) => (a.edit, a.command),
                    Err(e) => {
                        applied.errors.push(e);
                        return applied;
                    }
                }
            }
            CodeActionOrCommand::CodeAction(a) => (a.edit, a.command),
        };
        if let Some(edit) = edit {
            match self.apply_edit(&edit, ctx) {
                Ok((diff, paths)) => applied.add(diff, paths),
                Err(e) => {
                    // The command would build on an edit that is not there.
                    applied.errors.push(e);
                    return applied;
                }
            }
        }
        if let Some(command) = command {
            self.run_command(client, &command, ctx, deadline, &mut applied)
                .await;
        }
        applied
    }

    /// `workspace/executeCommand`, applying the server's
    /// `workspace/applyEdit` requests that arrive meanwhile.
    async fn run_command(
        &self,
        client: &Client,
        command: &Command,
        ctx: &ToolContext,
        deadline: Instant,
        applied: &mut Applied,
    ) {
        let Ok(_turn) = tokio::time::timeout_at(deadline.into(), client.command_turn()).await
        else {
            applied.errors.push(format!(
                "another call was running a command of {} until the time ran out",
                client.server
            ));
            return;
        };
        let mut window = client.accept_edits();
        let params = json!({
            "command": command.command,
            "arguments": command.arguments.clone().unwrap_or_default(),
        });
        let left = deadline.saturating_duration_since(Instant::now());
        let run = client.request("workspace/executeCommand", params, left);
        tokio::pin!(run);
        let result = loop {
            tokio::select! {
                r = &mut run => break r,
                Some(req) = window.next() => {
                    let outcome = self.apply_requested(&req, ctx, applied);
                    window.answer(&req, outcome);
                }
            }
        };
        // Requests sent just before the answer.
        while let Some(req) = window.try_next() {
            let outcome = self.apply_requested(&req, ctx, applied);
            window.answer(&req, outcome);
        }
        drop(window);
        if let Err(e) = result {
            applied
                .errors
                .push(format!("command {} failed: {e}", command.command));
        }
    }

    /// One `workspace/applyEdit` request: applied through
    /// [`LspManager::apply_edit`], or why not (also kept in `applied`).
    fn apply_requested(
        &self,
        req: &EditRequest,
        ctx: &ToolContext,
        applied: &mut Applied,
    ) -> Result<(), String> {
        let result = requested_edit(&req.params).and_then(|e| self.apply_edit(&e, ctx));
        match result {
            Ok((diff, paths)) => {
                applied.add(diff, paths);
                Ok(())
            }
            Err(e) => {
                let label = req
                    .params
                    .get("label")
                    .and_then(Value::as_str)
                    .map(|l| format!(" ({l})"))
                    .unwrap_or_default();
                applied
                    .errors
                    .push(format!("the server's edit{label} was refused: {e}"));
                Err(e)
            }
        }
    }
}

/// `codeAction/resolve` for an action that carries neither an edit nor a
/// command (when the server can resolve).
async fn resolve(client: &Client, a: CodeAction, deadline: Instant) -> Result<CodeAction, String> {
    let can = client
        .capabilities
        .get("codeActionProvider")
        .and_then(|p| p.get("resolveProvider"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if !can {
        return Err(format!(
            "{:?} carries neither an edit nor a command, and {} cannot resolve code actions",
            a.title, client.server
        ));
    }
    let title = a.title.clone();
    let v = serde_json::to_value(&a).map_err(|e| e.to_string())?;
    let left = deadline.saturating_duration_since(Instant::now());
    let answer = client.request("codeAction/resolve", v, left).await?;
    serde_json::from_value::<CodeAction>(answer).map_err(|e| {
        format!(
            "{} resolved {title:?} into a malformed action: {e}",
            client.server
        )
    })
}
