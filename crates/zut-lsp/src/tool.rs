//! The `lsp` tool (tools.md §4): argument handling, the actions, and the
//! diagnostics attached after a mutating tool (§4.7).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;
use zut_tools::{CodeIntel, IntelFuture, ToolContext, ToolOutput};

use crate::client::Client;
use crate::config::Kind;
use crate::diagnostics::{
    self, display_path, Diagnostic, DEFAULT_DIAGNOSTIC_CAP, MUTATION_DIAGNOSTIC_CAP,
};
use crate::manager::{join_all, LspManager, Target};

/// Largest tool text, in bytes.
pub const MAX_TOOL_TEXT: usize = 61_440;

/// Largest `timeout_ms` honoured.
pub const MAX_TIMEOUT_MS: u64 = 120_000;

/// Most files checked after one mutation.
pub const MAX_MUTATION_FILES: usize = 3;

#[derive(Deserialize, Default)]
pub(crate) struct Args {
    #[serde(default)]
    pub(crate) action: String,
    #[serde(default)]
    pub(crate) path: String,
    #[serde(default)]
    pub(crate) line: u32,
    #[serde(default)]
    pub(crate) column: u32,
    #[serde(default)]
    pub(crate) query: String,
    #[serde(default)]
    pub(crate) new_name: String,
    #[serde(default)]
    pub(crate) server: String,
    #[serde(default)]
    pub(crate) method: String,
    #[serde(default)]
    pub(crate) params: Option<Value>,
    #[serde(default)]
    pub(crate) apply: Option<bool>,
    #[serde(default)]
    pub(crate) timeout_ms: Option<u64>,
    #[serde(default)]
    pub(crate) max: Option<usize>,
    #[serde(default)]
    pub(crate) run_cli: Option<bool>,
}

/// An action's answer: its text (may be empty) and the error, if any.
pub(crate) struct Outcome {
    pub(crate) text: String,
    pub(crate) error: Option<String>,
}

impl Outcome {
    pub(crate) fn ok(text: String) -> Self {
        Self { text, error: None }
    }
    pub(crate) fn err(e: impl Into<String>) -> Self {
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

    fn preview<'a>(
        &'a self,
        args: &'a Value,
        ctx: &'a ToolContext,
    ) -> IntelFuture<'a, Option<String>> {
        Box::pin(async move {
            self.use_jail(ctx.jail.clone()).await;
            tokio::select! {
                out = self.preview_call(args, ctx) => out,
                _ = ctx.cancel.cancelled() => None,
            }
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
    pub(crate) fn lsp_targets(&self, path: &Path, navigation: bool) -> Result<Vec<Target>, String> {
        let all = self.targets(path)?;
        Ok(all
            .into_iter()
            .filter(|t| t.spec.kind == Kind::Lsp && !(navigation && t.spec.is_linter))
            .collect())
    }

    /// Running clients for `path`, starting them; errors per server.
    pub(crate) async fn clients_for(
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
        after_change: bool,
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
                    && (t.spec.run_on_change || !after_change)
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
            errors.extend(self.refresh(path, &clients, deadline).await);
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
        for (t, r) in cli.iter().zip(cli_results) {
            match r {
                Ok(d) => {
                    self.note_lint(&t.spec.id, &files, &d);
                    all.extend(d.into_iter().filter(|d| d.path == path));
                }
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
                // What the startup linters found (their runs finished
                // first, within the call's budget).
                if !self.startup_lint_settled(deadline).await {
                    errors.push("the linters started with zut are still running".into());
                }
                all.extend(self.startup_findings());
                if self.running().is_empty() && all.is_empty() && errors.is_empty() {
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
                        .map(|f| self.file_diagnostics(f, deadline, run_cli, false)),
                )
                .await;
                for (d, e) in results {
                    all.extend(d);
                    errors.extend(e);
                }
            }
            Some(p) => {
                let (d, e) = self.file_diagnostics(p, deadline, run_cli, false).await;
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

    /// The post-mutation report (tools.md §4.7): for at most
    /// [`MAX_MUTATION_FILES`] files, within the mutation budget, the
    /// errors and warnings not reported before. `None` when nothing new.
    pub async fn diagnostics_after_mutation(&self, paths: &[PathBuf]) -> Option<String> {
        let deadline = Instant::now() + self.options().mutation_budget;
        // The startup linters' findings are the baseline: not "new".
        self.startup_lint_settled(deadline).await;
        let files: Vec<&PathBuf> = paths.iter().take(MAX_MUTATION_FILES).collect();
        let results = join_all(files.iter().map(|p| async move {
            if self.targets(p).map(|t| t.is_empty()).unwrap_or(true) {
                return (p, Vec::new(), false);
            }
            let (d, errs) = self.file_diagnostics(p, deadline, true, true).await;
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

pub(crate) fn pretty(v: &Value) -> String {
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
