//! The `lsp` tool (tools.md §4): argument handling, the actions, and the
//! diagnostics attached after a mutating tool (§4.7).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{json, Value};
use zut_tools::{CodeIntel, IntelFuture, ToolContext, ToolOutput};

use crate::client::{file_uri, Client};
use crate::config::Kind;
use crate::diagnostics::{
    self, display_path, Diagnostic, DEFAULT_DIAGNOSTIC_CAP, MUTATION_DIAGNOSTIC_CAP,
};
use crate::manager::{join_all, LspManager, Target};
use crate::{edits, format};

/// Largest tool text, in bytes.
pub const MAX_TOOL_TEXT: usize = 61_440;

/// Largest `timeout_ms` honoured.
pub const MAX_TIMEOUT_MS: u64 = 120_000;

/// Most files checked after one mutation.
pub const MAX_MUTATION_FILES: usize = 3;

#[derive(Deserialize, Default)]
struct Args {
    #[serde(default)]
    action: String,
    #[serde(default)]
    path: String,
    #[serde(default)]
    line: u32,
    #[serde(default)]
    column: u32,
    #[serde(default)]
    query: String,
    #[serde(default)]
    new_name: String,
    #[serde(default)]
    server: String,
    #[serde(default)]
    method: String,
    #[serde(default)]
    params: Option<Value>,
    #[serde(default)]
    apply: Option<bool>,
    #[serde(default)]
    timeout_ms: Option<u64>,
    #[serde(default)]
    max: Option<usize>,
    #[serde(default)]
    run_cli: Option<bool>,
}

/// A failed action: its text (may be empty) and the error.
struct Outcome {
    text: String,
    error: Option<String>,
}

impl Outcome {
    fn ok(text: String) -> Self {
        Self { text, error: None }
    }
    fn err(e: impl Into<String>) -> Self {
        Self {
            text: String::new(),
            error: Some(e.into()),
        }
    }
}

impl CodeIntel for LspManager {
    fn run_tool<'a>(
        &'a self,
        args: &'a Value,
        ctx: &'a ToolContext,
    ) -> IntelFuture<'a, ToolOutput> {
        Box::pin(async move {
            self.use_jail(ctx.jail.clone()).await;
            tokio::select! {
                out = self.run_tool_inner(args, ctx) => out,
                _ = ctx.cancel.cancelled() => ToolOutput::error("aborted: context canceled"),
            }
        })
    }

    fn after_mutation<'a>(
        &'a self,
        paths: &'a [PathBuf],
        ctx: &'a ToolContext,
    ) -> IntelFuture<'a, Option<String>> {
        Box::pin(async move {
            self.use_jail(ctx.jail.clone()).await;
            self.diagnostics_after_mutation(paths).await
        })
    }
}

impl LspManager {
    /// A handle for [`ToolContext::lsp`].
    pub fn handle(&self) -> Arc<dyn CodeIntel> {
        Arc::new(self.clone())
    }

    async fn run_tool_inner(&self, args: &Value, ctx: &ToolContext) -> ToolOutput {
        let a: Args = match serde_json::from_value(args.clone()) {
            Ok(a) => a,
            Err(e) => return ToolOutput::error(format!("invalid lsp args: {e}")),
        };
        let action = a.action.trim().to_lowercase();
        if action.is_empty() {
            return ToolOutput::error("action is required");
        }
        let budget = a
            .timeout_ms
            .map(|ms| Duration::from_millis(ms.clamp(1, MAX_TIMEOUT_MS)))
            .unwrap_or(self.options().request_timeout);
        let deadline = Instant::now() + budget;
        let path = if a.path.is_empty() || a.path == "*" {
            None
        } else {
            Some(ctx.resolve(&a.path))
        };
        // Jailed: the path must be readable (a diagnostics pattern is
        // checked file by file).
        let pattern = action == "diagnostics" && a.path.contains(['*', '?', '[']);
        if let Some(why) = path
            .as_deref()
            .filter(|_| !pattern)
            .and_then(|p| zut_tools::jail::read_denied(ctx, p))
        {
            return ToolOutput::error(why);
        }
        let out = match action.as_str() {
            "diagnostics" => {
                self.action_diagnostics(&a, path.as_deref(), deadline, ctx)
                    .await
            }
            "definition" | "references" | "hover" | "type_definition" | "implementation"
            | "symbols" | "rename" | "code_actions" => {
                self.action_language(&action, &a, path.as_deref(), deadline, ctx)
                    .await
            }
            "status" => match self.status(path.as_deref()) {
                Ok(rows) => Outcome::ok(pretty(&Value::Array(rows))),
                Err(e) => Outcome::err(e),
            },
            "reload" => {
                self.reload().await;
                Outcome::ok("Reloaded LSP and linter processes and configuration.".into())
            }
            "capabilities" => {
                self.action_capabilities(&a, path.as_deref(), deadline)
                    .await
            }
            "request" => self.action_request(&a, path.as_deref(), deadline).await,
            other => Outcome::err(format!("unknown lsp action {other:?}")),
        };
        match out {
            Outcome {
                text,
                error: Some(e),
            } if text.is_empty() => ToolOutput::error(e),
            Outcome { text, error } => {
                let text = bound_text(text);
                if error.is_some() {
                    ToolOutput::error(text)
                } else {
                    ToolOutput::text(text)
                }
            }
        }
    }

    /// Targets for `path` that are language servers (no linters).
    fn lsp_targets(&self, path: &Path, navigation: bool) -> Result<Vec<Target>, String> {
        let all = self.targets(path)?;
        Ok(all
            .into_iter()
            .filter(|t| t.spec.kind == Kind::Lsp && !(navigation && t.spec.is_linter))
            .collect())
    }

    /// Running clients for `path`, starting them; errors per server.
    async fn clients_for(
        &self,
        path: &Path,
        navigation: bool,
        deadline: Instant,
    ) -> Result<(Vec<(Target, Arc<Client>)>, Vec<String>), String> {
        let targets = self.lsp_targets(path, navigation)?;
        if targets.is_empty() {
            return Err(format!(
                "no language server is configured for {} (see lsp.json in docs/config.md)",
                display_path(path, self.cwd())
            ));
        }
        let started = join_all(targets.iter().map(|t| self.client(t, deadline))).await;
        let mut ok = Vec::new();
        let mut errors = Vec::new();
        for (t, r) in targets.into_iter().zip(started) {
            match r {
                Ok(c) => ok.push((t, c)),
                Err(e) => errors.push(e),
            }
        }
        Ok((ok, errors))
    }

    /// Current diagnostics of `path` from its servers (refreshed) and,
    /// with `run_cli`, its CLI linters (built-in linters that are not
    /// installed are skipped quietly; ones named in lsp.json are reported).
    async fn file_diagnostics(
        &self,
        path: &Path,
        deadline: Instant,
        run_cli: bool,
    ) -> (Vec<Diagnostic>, Vec<String>) {
        if !path.is_file() {
            return (
                Vec::new(),
                vec![format!("{}: no such file", display_path(path, self.cwd()))],
            );
        }
        let targets = match self.targets(path) {
            Ok(t) => t,
            Err(e) => return (Vec::new(), vec![e]),
        };
        let lsp: Vec<Target> = targets
            .iter()
            .filter(|t| t.spec.kind == Kind::Lsp)
            .cloned()
            .collect();
        let cli: Vec<Target> = targets
            .iter()
            .filter(|t| {
                run_cli
                    && t.spec.kind == Kind::Cli
                    && (t.spec.explicit
                        || crate::process::resolve_command(&t.spec.command, &t.root).is_ok())
            })
            .cloned()
            .collect();
        if lsp.is_empty() && cli.is_empty() {
            return (
                Vec::new(),
                vec![format!(
                    "no language server is configured for {} (see lsp.json in docs/config.md)",
                    display_path(path, self.cwd())
                )],
            );
        }
        let lsp_part = async {
            let started = join_all(lsp.iter().map(|t| self.client(t, deadline))).await;
            let mut clients = Vec::new();
            let mut errors = Vec::new();
            for (t, r) in lsp.iter().zip(started) {
                match r {
                    Ok(c) => clients.push((t.clone(), c)),
                    Err(e) => errors.push(e),
                }
            }
            let late = self.refresh(path, &clients, deadline).await;
            for id in late {
                errors.push(format!(
                    "{id} did not report diagnostics for {} in time",
                    display_path(path, self.cwd())
                ));
            }
            let mut all = Vec::new();
            for (_, c) in &clients {
                all.extend(c.diagnostics(Some(path)));
            }
            (all, errors)
        };
        let files = [path.to_path_buf()];
        let cli_part = join_all(cli.iter().map(|t| {
            let left = deadline.saturating_duration_since(Instant::now());
            crate::linters::run(&t.spec, &t.root, self.cwd(), &files, left, self.jail())
        }));
        let ((mut all, mut errors), cli_results) = tokio::join!(lsp_part, cli_part);
        for r in cli_results {
            match r {
                Ok(d) => all.extend(d.into_iter().filter(|d| d.path == path)),
                Err(e) => errors.push(e),
            }
        }
        (all, errors)
    }

    async fn action_diagnostics(
        &self,
        a: &Args,
        path: Option<&Path>,
        deadline: Instant,
        ctx: &ToolContext,
    ) -> Outcome {
        let cap = a
            .max
            .unwrap_or(DEFAULT_DIAGNOSTIC_CAP)
            .clamp(1, DEFAULT_DIAGNOSTIC_CAP);
        let run_cli = a.run_cli.unwrap_or(true);
        let mut all = Vec::new();
        let mut errors = Vec::new();
        match path {
            None => {
                for c in self.running() {
                    all.extend(c.diagnostics(None));
                }
                if self.running().is_empty() {
                    return Outcome::ok(
                        "No diagnostics: no language server is running yet. Ask for a file's diagnostics (path) to start its server."
                            .into(),
                    );
                }
            }
            Some(p) if a.path.contains(['*', '?', '[']) => {
                let mut files = match crate::file_glob::expand_glob(self.cwd(), &a.path) {
                    Ok(f) => f,
                    Err(e) => return Outcome::err(e),
                };
                // Jailed: the first refusal is reported, the others skipped.
                files.retain(|f| match zut_tools::jail::read_denied(ctx, f) {
                    None => true,
                    Some(why) => {
                        if errors.is_empty() {
                            errors.push(why);
                        }
                        false
                    }
                });
                if files.is_empty() {
                    return Outcome::err(
                        errors
                            .pop()
                            .unwrap_or_else(|| format!("no file matches {}", a.path)),
                    );
                }
                let _ = p;
                let results = join_all(
                    files
                        .iter()
                        .map(|f| self.file_diagnostics(f, deadline, run_cli)),
                )
                .await;
                for (d, e) in results {
                    all.extend(d);
                    errors.extend(e);
                }
            }
            Some(p) => {
                let (d, e) = self.file_diagnostics(p, deadline, run_cli).await;
                all = d;
                errors = e;
            }
        }
        let (sorted, _) = diagnostics::dedup_and_sort(all.clone());
        for d in &sorted {
            self.mark_reported(&d.path, std::slice::from_ref(d));
        }
        let mut text = diagnostics::summarize(&all, self.cwd(), cap);
        let error = if errors.is_empty() {
            None
        } else {
            for e in &errors {
                text.push_str(&format!("\nlsp: {e}"));
            }
            Some(errors.join("; "))
        };
        // Diagnostics found while some server failed are still a result.
        if !all.is_empty() || error.is_none() {
            return Outcome { text, error: None };
        }
        Outcome { text, error }
    }

    async fn action_language(
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
        let position =
            json!({"line": a.line.saturating_sub(1), "character": a.column.saturating_sub(1)});
        let (method, params) = match action {
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
        };
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
        let mut edit_to_apply: Option<(String, lsp_types::WorkspaceEdit, String)> = None;
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
                            if edit_to_apply.is_none() {
                                if let Ok(e) =
                                    serde_json::from_value::<lsp_types::WorkspaceEdit>(v.clone())
                                {
                                    edit_to_apply = Some((server.clone(), e, "rename".into()));
                                }
                            }
                            format::workspace_edit_summary(v, self.cwd())
                        }
                        _ => {
                            let (listing, first) = format::code_actions(v);
                            if edit_to_apply.is_none() {
                                if let Some((title, e)) = first {
                                    edit_to_apply = Some((server.clone(), e, title));
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
            match edit_to_apply {
                None if first_error.is_none() => out.push_str("Nothing to apply.\n"),
                None => {}
                Some((server, edit, what)) => match self.apply_edit(&edit, ctx) {
                    Ok((diff, paths)) => {
                        if action == "code_actions" {
                            out.push_str(&format!("Applied {what:?} from {server}.\n"));
                        }
                        out.push_str(&diff);
                        out.push_str(&format!("\nApplied 1 workspace edit(s) from {server}."));
                        modified = paths;
                    }
                    Err(e) => {
                        out.push_str(&format!("apply: error: {e}\n"));
                        apply_error = Some(e);
                    }
                },
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

    async fn workspace_symbols(&self, a: &Args, deadline: Instant) -> Outcome {
        let clients = self.running();
        if clients.is_empty() {
            return Outcome::err(
                "workspace symbols need a running language server: open a file first (e.g. symbols with a path)",
            );
        }
        let params = json!({"query": a.query});
        let answers = join_all(clients.iter().map(|c| {
            let params = params.clone();
            async move {
                let left = deadline.saturating_duration_since(Instant::now());
                (
                    c.server.clone(),
                    c.request("workspace/symbol", params, left).await,
                )
            }
        }))
        .await;
        let mut out = String::new();
        let mut err = None;
        for (server, r) in answers {
            match r {
                Ok(v) => out.push_str(&format!(
                    "{server}:\n{}\n",
                    format::workspace_symbols(&v, self.cwd())
                )),
                Err(e) => {
                    out.push_str(&format!("{server}: error: {e}\n"));
                    err.get_or_insert(e);
                }
            }
        }
        Outcome {
            text: out.trim_end().to_string(),
            error: err,
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

    fn apply_edit(
        &self,
        edit: &lsp_types::WorkspaceEdit,
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

    async fn action_capabilities(
        &self,
        a: &Args,
        path: Option<&Path>,
        deadline: Instant,
    ) -> Outcome {
        let mut map = serde_json::Map::new();
        if let Some(p) = path {
            match self.clients_for(p, false, deadline).await {
                Ok((clients, _)) => {
                    for (t, c) in clients {
                        map.insert(t.spec.id, c.capabilities.clone());
                    }
                }
                Err(e) => return Outcome::err(e),
            }
        }
        for c in self.running() {
            map.entry(c.server.clone())
                .or_insert(c.capabilities.clone());
        }
        if !a.server.is_empty() {
            return match map.get(&a.server) {
                Some(v) => Outcome::ok(pretty(&json!({ a.server.clone(): v }))),
                None => Outcome::err(format!(
                    "server {:?} is not running; give a path it handles to start it",
                    a.server
                )),
            };
        }
        if map.is_empty() {
            return Outcome::err("no language server is running; give a path to start its servers");
        }
        Outcome::ok(pretty(&Value::Object(map)))
    }

    async fn action_request(&self, a: &Args, path: Option<&Path>, deadline: Instant) -> Outcome {
        if a.method.trim().is_empty() {
            return Outcome::err("method is required for request");
        }
        let params = a.params.clone().unwrap_or_else(|| json!({}));
        let mut clients: Vec<Arc<Client>> = Vec::new();
        if let Some(p) = path {
            match self.clients_for(p, true, deadline).await {
                Ok((list, errs)) => {
                    if list.is_empty() {
                        return Outcome::err(errs.join("; "));
                    }
                    if let Ok(text) = tokio::fs::read_to_string(p).await {
                        for (t, c) in &list {
                            let _ = c.sync_document(p, &t.spec.language_for(p), &text).await;
                        }
                    }
                    clients.extend(list.into_iter().map(|(_, c)| c));
                }
                Err(e) => return Outcome::err(e),
            }
        } else {
            clients = self.running();
        }
        if !a.server.is_empty() {
            clients.retain(|c| c.server == a.server);
        }
        if clients.is_empty() {
            return Outcome::err(if a.server.is_empty() {
                "no language server is running; give a path to start its servers".to_string()
            } else {
                format!(
                    "server {:?} is not running; give a path it handles to start it",
                    a.server
                )
            });
        }
        let answers = join_all(clients.iter().map(|c| {
            let params = params.clone();
            let method = a.method.clone();
            async move {
                let left = deadline.saturating_duration_since(Instant::now());
                (c.server.clone(), c.request(&method, params, left).await)
            }
        }))
        .await;
        let mut out = String::new();
        let mut err = None;
        for (server, r) in answers {
            match r {
                Ok(v) => out.push_str(&format!("{server}:\n{}\n", pretty(&v))),
                Err(e) => {
                    out.push_str(&format!("{server}: error: {e}\n"));
                    err.get_or_insert(e);
                }
            }
        }
        Outcome {
            text: out.trim_end().to_string(),
            error: err,
        }
    }

    /// The post-mutation report (tools.md §4.7): for at most
    /// [`MAX_MUTATION_FILES`] files, within the mutation budget, the
    /// errors and warnings not reported before. `None` when nothing new.
    pub async fn diagnostics_after_mutation(&self, paths: &[PathBuf]) -> Option<String> {
        let deadline = Instant::now() + self.options().mutation_budget;
        let files: Vec<&PathBuf> = paths.iter().take(MAX_MUTATION_FILES).collect();
        let results = join_all(files.iter().map(|p| async move {
            if self.targets(p).map(|t| t.is_empty()).unwrap_or(true) {
                return (p, Vec::new(), false);
            }
            let (d, errs) = self.file_diagnostics(p, deadline, true).await;
            (p, d, errs.is_empty())
        }))
        .await;
        let mut fresh = Vec::new();
        let mut unchanged = 0usize;
        for (p, diags, complete) in results {
            let problems: Vec<Diagnostic> =
                diags.into_iter().filter(Diagnostic::is_problem).collect();
            if problems.is_empty() && !complete {
                // No answer in time: keep the ledger as it is.
                continue;
            }
            let (new, old) = self.reduce(p, problems);
            fresh.extend(new);
            unchanged += old;
        }
        if fresh.is_empty() {
            return None;
        }
        let mut text = diagnostics::summarize(&fresh, self.cwd(), MUTATION_DIAGNOSTIC_CAP);
        if unchanged > 0 {
            text.push_str(&format!(
                "\n({unchanged} previously reported diagnostics unchanged)"
            ));
        }
        if paths.len() > MAX_MUTATION_FILES {
            text.push_str(&format!(
                "\n(diagnostics checked for the first {MAX_MUTATION_FILES} of {} changed files)",
                paths.len()
            ));
        }
        Some(text)
    }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

/// Cuts `text` to [`MAX_TOOL_TEXT`] bytes with a note.
fn bound_text(text: String) -> String {
    if text.len() <= MAX_TOOL_TEXT {
        return text;
    }
    let suffix = format!("\n... [truncated at {MAX_TOOL_TEXT} bytes]");
    let mut cut = MAX_TOOL_TEXT - suffix.len();
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{suffix}", &text[..cut])
}
