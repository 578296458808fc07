//! CLI linters with `runOnStartup: true` in `lsp.json`: run once over the
//! workspace when the session starts, in the background (inside the
//! session's jail when it is on). Their findings
//!
//! - are what the post-edit report compares with: a problem the linter
//!   found at startup is not reported as introduced by an edit;
//! - are listed by `lsp diagnostics` without a path (`*`), and replaced
//!   for a file whenever the linter runs on that file again;
//! - show in `lsp status` (`startup` of the linter's row).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::config::{Kind, ServerConfig};
use crate::diagnostics::Diagnostic;
use crate::linters::{self, LINTER_TIMEOUT};
use crate::manager::{find_root, join_all, Inner, LspManager};

/// One startup run of a linter.
#[derive(Debug, Clone)]
enum RunState {
    Running,
    Done { findings: usize, took: Duration },
    Failed(String),
}

/// The startup runs and the latest findings of their linters.
#[derive(Debug, Default)]
pub(crate) struct StartupLint {
    runs: HashMap<String, RunState>,
    /// Latest findings per linter id and file.
    findings: HashMap<String, HashMap<PathBuf, Vec<Diagnostic>>>,
}

impl LspManager {
    /// Starts the `runOnStartup` linters of the configuration over the
    /// workspace, on a thread of their own, inside `jail` (`None`:
    /// unjailed). Returns their ids (none when the configuration does not
    /// load: the `lsp` tool reports that on first use).
    pub fn lint_on_startup(&self, jail: Option<Arc<zut_sandbox::Prepared>>) -> Vec<String> {
        if !crate::config::Config::any_file(self.inner.user_file.as_deref(), self.cwd()) {
            return Vec::new();
        }
        let Ok(config) = self.config() else {
            return Vec::new();
        };
        let cwd = self.cwd().to_path_buf();
        let jobs: Vec<(ServerConfig, PathBuf)> = config
            .servers
            .values()
            .filter(|s| {
                s.kind == Kind::Cli
                    && s.run_on_startup
                    && !s.disabled
                    && (config.auto_detect || s.explicit)
            })
            .filter_map(|s| {
                let root = if s.root_markers.is_empty() {
                    Some(cwd.clone())
                } else {
                    find_root(&cwd, &s.root_markers)
                };
                root.map(|r| (s.clone(), r))
            })
            .collect();
        if jobs.is_empty() {
            return Vec::new();
        }
        let ids: Vec<String> = jobs.iter().map(|(s, _)| s.id.clone()).collect();
        if let Ok(mut l) = self.inner.lint.lock() {
            for id in &ids {
                l.runs.insert(id.clone(), RunState::Running);
            }
        }
        self.inner.lint_settled.send_replace(false);
        let weak: Weak<Inner> = Arc::downgrade(&self.inner);
        let spawned = std::thread::Builder::new()
            .name("zut-lint-startup".into())
            .spawn(move || run_jobs(weak, cwd, jobs, jail));
        if let Err(e) = spawned {
            self.finish_all(&ids, &format!("cannot start a thread: {e}"));
        }
        ids
    }

    fn finish_all(&self, ids: &[String], why: &str) {
        if let Ok(mut l) = self.inner.lint.lock() {
            for id in ids {
                l.runs.insert(id.clone(), RunState::Failed(why.to_string()));
            }
        }
        self.inner.lint_settled.send_replace(true);
    }

    /// Waits (until `deadline`) for the startup runs to end; whether they
    /// have.
    pub(crate) async fn startup_lint_settled(&self, deadline: Instant) -> bool {
        let mut rx = self.inner.lint_settled.subscribe();
        loop {
            if *rx.borrow_and_update() {
                return true;
            }
            tokio::select! {
                r = rx.changed() => if r.is_err() { return true },
                _ = tokio::time::sleep_until(deadline.into()) => return false,
            }
        }
    }

    /// The latest findings of the startup linters (every file).
    pub(crate) fn startup_findings(&self) -> Vec<Diagnostic> {
        self.inner
            .lint
            .lock()
            .map(|l| {
                l.findings
                    .values()
                    .flat_map(|m| m.values().flatten().cloned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A later run of linter `id` on `files` found `diags`: they replace
    /// its findings for those files (only for linters that ran at startup).
    pub(crate) fn note_lint(&self, id: &str, files: &[PathBuf], diags: &[Diagnostic]) {
        let Ok(mut l) = self.inner.lint.lock() else {
            return;
        };
        let Some(map) = l.findings.get_mut(id) else {
            return;
        };
        for f in files {
            let mine: Vec<Diagnostic> = diags.iter().filter(|d| &d.path == f).cloned().collect();
            if mine.is_empty() {
                map.remove(f);
            } else {
                map.insert(f.clone(), mine);
            }
        }
    }

    /// The `startup` field of linter `id`'s status row, if it ran.
    pub(crate) fn startup_status(&self, id: &str) -> Option<Value> {
        let l = self.inner.lint.lock().ok()?;
        Some(match l.runs.get(id)? {
            RunState::Running => json!({"state": "running"}),
            RunState::Done { findings, took } => {
                json!({"state": "done", "findings": findings, "took_ms": took.as_millis() as u64})
            }
            RunState::Failed(e) => json!({"state": "failed", "error": e}),
        })
    }
}

/// The startup thread: every job at once, each bounded by the linter
/// timeout; results stored while the manager lives.
fn run_jobs(
    weak: Weak<Inner>,
    cwd: PathBuf,
    jobs: Vec<(ServerConfig, PathBuf)>,
    jail: Option<Arc<zut_sandbox::Prepared>>,
) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            if let Some(inner) = weak.upgrade() {
                let ids: Vec<String> = jobs.iter().map(|(s, _)| s.id.clone()).collect();
                LspManager { inner }.finish_all(&ids, &format!("cannot start a runtime: {e}"));
            }
            return;
        }
    };
    runtime.block_on(async {
        let runs = jobs.iter().map(|(spec, root)| {
            let jail = jail.clone();
            let cwd = &cwd;
            async move {
                let started = Instant::now();
                let since = std::time::SystemTime::now();
                let r = linters::run(spec, root, cwd, &[], LINTER_TIMEOUT, jail).await;
                (spec.id.clone(), r, started.elapsed(), since)
            }
        });
        for (id, result, took, since) in join_all(runs).await {
            let Some(inner) = weak.upgrade() else {
                return;
            };
            let manager = LspManager { inner };
            manager.store_run(&id, result, took, since);
        }
    });
    if let Some(inner) = weak.upgrade() {
        inner.lint_settled.send_replace(true);
    }
}

impl LspManager {
    fn store_run(
        &self,
        id: &str,
        result: Result<Vec<Diagnostic>, String>,
        took: Duration,
        since: std::time::SystemTime,
    ) {
        let state = match result {
            Ok(diags) => {
                let findings = diags.len();
                let mut by_file: HashMap<PathBuf, Vec<Diagnostic>> = HashMap::new();
                for d in diags {
                    by_file.entry(d.path.clone()).or_default().push(d);
                }
                // Known from the start: an edit reports only what it adds.
                // A file changed since the run began (an edit while it ran)
                // may hold the edit's own problems: not a baseline.
                for (path, list) in &by_file {
                    let changed = std::fs::metadata(path)
                        .and_then(|m| m.modified())
                        .map(|m| m > since)
                        .unwrap_or(true);
                    if changed {
                        continue;
                    }
                    let problems: Vec<Diagnostic> =
                        list.iter().filter(|d| d.is_problem()).cloned().collect();
                    self.mark_reported(path, &problems);
                }
                if let Ok(mut l) = self.inner.lint.lock() {
                    l.findings.insert(id.to_string(), by_file);
                }
                RunState::Done { findings, took }
            }
            Err(e) => RunState::Failed(e),
        };
        if let Ok(mut l) = self.inner.lint.lock() {
            l.runs.insert(id.to_string(), state);
        }
    }
}
