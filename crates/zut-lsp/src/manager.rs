//! The language-server manager: which servers apply to a file, starting
//! them lazily per (workspace root, server), keeping them warm, restarting
//! a crashed one with backoff, and stopping them all with zut.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::client::Client;
use crate::config::{Config, Kind, ServerConfig};
use crate::diagnostics::Diagnostic;
use crate::process::resolve_command;

/// Timings of the manager.
#[derive(Debug, Clone)]
pub struct Options {
    /// Longest wait for a server's `initialize` answer.
    pub start_timeout: Duration,
    /// Default request budget of the `lsp` tool (`timeout_ms`).
    pub request_timeout: Duration,
    /// Total wait for diagnostics after an edit.
    pub mutation_budget: Duration,
    /// After a diagnostics publication, how long to wait for another one
    /// (servers that publish in steps) before answering.
    pub settle: Duration,
    /// Shutdown grace before the process group is killed.
    pub shutdown_grace: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            start_timeout: Duration::from_secs(12),
            request_timeout: Duration::from_secs(30),
            mutation_budget: Duration::from_secs(2),
            settle: Duration::from_millis(10),
            shutdown_grace: Duration::from_millis(500),
        }
    }
}

/// A server that applies to a file, with the root it runs in.
#[derive(Debug, Clone)]
pub struct Target {
    /// Its configuration.
    pub spec: ServerConfig,
    /// The workspace root (nearest ancestor with a marker, else the cwd).
    pub root: PathBuf,
}

#[derive(Default)]
struct Slot {
    client: Option<Arc<Client>>,
    failures: u32,
    retry_at: Option<Instant>,
    last_error: Option<String>,
}

type SlotKey = (PathBuf, String);

pub(crate) struct Inner {
    pub(crate) cwd: PathBuf,
    pub(crate) user_file: Option<PathBuf>,
    pub(crate) options: Options,
    config: Mutex<Option<Result<Arc<Config>, String>>>,
    slots: Mutex<HashMap<SlotKey, Arc<tokio::sync::Mutex<Slot>>>>,
    /// Post-edit ledger: identities already reported per file.
    ledger: Mutex<HashMap<PathBuf, HashSet<String>>>,
    /// Running clients, for status and shutdown without locking slots.
    running: Mutex<HashMap<SlotKey, Arc<Client>>>,
    /// The jail servers and linters start in (`None`: unjailed); see
    /// [`LspManager::use_jail`].
    jail: Mutex<Option<Arc<zut_sandbox::Prepared>>>,
    /// The `runOnStartup` linters (see `startup.rs`).
    pub(crate) lint: Mutex<crate::startup::StartupLint>,
    /// True when no startup linter is running.
    pub(crate) lint_settled: tokio::sync::watch::Sender<bool>,
}

/// Owns the language servers of one zut session. Cheap to clone; servers
/// stop when the last clone is dropped (process groups killed) or on
/// [`LspManager::shutdown`].
#[derive(Clone)]
pub struct LspManager {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for LspManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LspManager")
            .field("cwd", &self.inner.cwd)
            .finish()
    }
}

/// Delay before restart attempt `n` after crashes: none for the first,
/// then 1 s, 2 s, 4 s … up to 60 s.
pub fn backoff(failures: u32) -> Duration {
    if failures <= 1 {
        return Duration::ZERO;
    }
    let secs = 1u64 << (failures - 2).min(6);
    Duration::from_secs(secs.min(60))
}

impl LspManager {
    /// A manager for the session in `cwd`, reading `$ZUT_HOME/lsp.json`
    /// from `zut_home` (if given) and the project files. Nothing starts
    /// until a file needs a server.
    pub fn new(cwd: impl Into<PathBuf>, zut_home: Option<&Path>, options: Options) -> Self {
        let cwd = cwd.into();
        let cwd = cwd.canonicalize().unwrap_or(cwd);
        Self {
            inner: Arc::new(Inner {
                cwd,
                user_file: zut_home.map(|h| h.join("lsp.json")),
                options,
                config: Mutex::new(None),
                slots: Mutex::new(HashMap::new()),
                ledger: Mutex::new(HashMap::new()),
                running: Mutex::new(HashMap::new()),
                jail: Mutex::new(None),
                lint: Mutex::new(Default::default()),
                lint_settled: tokio::sync::watch::channel(true).0,
            }),
        }
    }

    /// The session directory.
    pub fn cwd(&self) -> &Path {
        &self.inner.cwd
    }

    /// The timings.
    pub fn options(&self) -> &Options {
        &self.inner.options
    }

    /// The merged configuration (loaded once; [`LspManager::reload`]
    /// reads it again).
    pub fn config(&self) -> Result<Arc<Config>, String> {
        let mut slot = self
            .inner
            .config
            .lock()
            .map_err(|_| "lsp configuration lock poisoned".to_string())?;
        if slot.is_none() {
            *slot =
                Some(Config::load(self.inner.user_file.as_deref(), &self.inner.cwd).map(Arc::new));
        }
        slot.clone()
            .unwrap_or_else(|| Err("lsp configuration unavailable".into()))
    }

    /// The servers (LSP and CLI) that apply to `path`, with their roots.
    /// A server whose root markers exist nowhere above the file is left
    /// out; `fallbackFor` servers stand in for a missing preferred one.
    pub fn targets(&self, path: &Path) -> Result<Vec<Target>, String> {
        let config = self.config()?;
        let candidates = config.candidates(path);
        let start_dir = path.parent().unwrap_or(&self.inner.cwd);
        let installed = |s: &ServerConfig| resolve_command(&s.command, start_dir).is_ok();
        let mut chosen: Vec<&ServerConfig> = Vec::new();
        for spec in &candidates {
            if let Some(primary) = &spec.fallback_for {
                // Considered with the server it stands in for, unless that
                // one is disabled or not configured: then the first
                // installed stand-in serves.
                let primary_here = candidates.iter().any(|c| &c.id == primary);
                let taken = chosen
                    .iter()
                    .any(|c| c.fallback_for.as_deref() == Some(primary.as_str()));
                if !primary_here && !taken && installed(spec) {
                    chosen.push(spec);
                }
                continue;
            }
            if installed(spec) {
                chosen.push(spec);
                continue;
            }
            let stand_in = candidates
                .iter()
                .find(|c| c.fallback_for.as_deref() == Some(spec.id.as_str()) && installed(c));
            chosen.push(stand_in.copied().unwrap_or(spec));
        }
        let mut out = Vec::new();
        for spec in chosen {
            let root = if spec.root_markers.is_empty() {
                Some(self.inner.cwd.clone())
            } else {
                find_root(start_dir, &spec.root_markers)
            };
            if let Some(root) = root {
                out.push(Target {
                    spec: spec.clone(),
                    root,
                });
            }
        }
        Ok(out)
    }

    fn slot(&self, key: &SlotKey) -> Arc<tokio::sync::Mutex<Slot>> {
        let Ok(mut slots) = self.inner.slots.lock() else {
            return Arc::new(tokio::sync::Mutex::new(Slot::default()));
        };
        slots.entry(key.clone()).or_default().clone()
    }

    /// The running client of `target`, started if needed. The start runs
    /// in the background: when `deadline` passes first, this returns an
    /// error but the server keeps starting for the next call.
    pub async fn client(&self, target: &Target, deadline: Instant) -> Result<Arc<Client>, String> {
        let key = (target.root.clone(), target.spec.id.clone());
        let slot = self.slot(&key);
        let this = self.clone();
        let target = target.clone();
        let id = target.spec.id.clone();
        let task = tokio::spawn(async move { this.ensure(slot, key, target).await });
        match tokio::time::timeout_at(deadline.into(), task).await {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => Err(format!("{id}: start task failed: {e}")),
            Err(_) => Err(format!(
                "{id} is still starting (no answer to initialize yet); try again shortly"
            )),
        }
    }

    async fn ensure(
        &self,
        slot: Arc<tokio::sync::Mutex<Slot>>,
        key: SlotKey,
        target: Target,
    ) -> Result<Arc<Client>, String> {
        let mut s = slot.lock().await;
        let id = &target.spec.id;
        if let Some(c) = &s.client {
            match c.failure() {
                None => return Ok(c.clone()),
                Some(why) => {
                    // Crashed: count it (a long healthy run resets the
                    // count) and schedule the restart.
                    if c.started.elapsed() > Duration::from_secs(120) {
                        s.failures = 0;
                    }
                    s.failures += 1;
                    s.retry_at = Some(Instant::now() + backoff(s.failures));
                    s.last_error = Some(why);
                    s.client = None;
                    if let Ok(mut r) = self.inner.running.lock() {
                        r.remove(&key);
                    }
                }
            }
        }
        if let Some(at) = s.retry_at {
            let now = Instant::now();
            if at > now {
                return Err(format!(
                    "{} (failed {} time(s)); next restart attempt in {}",
                    s.last_error
                        .clone()
                        .unwrap_or_else(|| format!("{id} failed")),
                    s.failures,
                    crate::fmt_duration(round_100ms(at - now))
                ));
            }
        }
        let program = resolve_command(&target.spec.command, &target.root).map_err(|e| {
            let hint = target
                .spec
                .install
                .as_deref()
                .map(|h| format!(" Install it with: {h}"))
                .unwrap_or_default();
            format!("language server {id} is not installed: {e}.{hint}")
        })?;
        match Client::start(
            &target.spec,
            &program,
            &target.root,
            self.inner.options.start_timeout,
            self.jail(),
        )
        .await
        {
            Ok(c) => {
                let c = Arc::new(c);
                s.client = Some(c.clone());
                s.retry_at = None;
                if let Ok(mut r) = self.inner.running.lock() {
                    r.insert(key, c.clone());
                }
                Ok(c)
            }
            Err(e) => {
                s.failures += 1;
                s.retry_at = Some(Instant::now() + backoff(s.failures.max(2)));
                s.last_error = Some(e.clone());
                Err(e)
            }
        }
    }

    /// Sends `path`'s current text to each of `clients` and gets the
    /// diagnostics that follow (until `deadline`): a server that offers
    /// pull diagnostics is asked (`textDocument/diagnostic`), the others
    /// are waited for until they publish. Returns what went wrong, one
    /// message per server that did not report.
    pub async fn refresh(
        &self,
        path: &Path,
        clients: &[(Target, Arc<Client>)],
        deadline: Instant,
    ) -> Vec<String> {
        let text = match tokio::fs::read(path).await {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(_) => return Vec::new(),
        };
        let mut waits = Vec::new();
        for (t, c) in clients {
            let seen = c.publish_count(path);
            let lang = t.spec.language_for(path);
            match c.sync_document(path, &lang, &text).await {
                // Pulled every time: an unchanged file costs the server an
                // `unchanged` report.
                Ok(_) if c.pulls() => waits.push((t.spec.id.clone(), c.clone(), None)),
                Ok(changed) if changed || seen == 0 => {
                    waits.push((t.spec.id.clone(), c.clone(), Some(seen)))
                }
                Ok(_) => {}
                Err(_) => {}
            }
        }
        let settle = self.inner.options.settle;
        let shown = crate::diagnostics::display_path(path, &self.inner.cwd);
        let futs = waits.into_iter().map(|(id, c, seen)| {
            let shown = &shown;
            async move {
                match seen {
                    None => c.pull_diagnostics(path, deadline).await.err(),
                    Some(seen) => {
                        if c.wait_publish(path, seen, settle, deadline).await {
                            None
                        } else if c.pulls() {
                            // It registered pull diagnostics after start.
                            c.pull_diagnostics(path, deadline).await.err()
                        } else {
                            Some(format!(
                                "{id} did not report diagnostics for {shown} in time"
                            ))
                        }
                    }
                }
            }
        });
        join_all(futs).await.into_iter().flatten().collect()
    }

    /// Running clients (for status and workspace diagnostics).
    pub fn running(&self) -> Vec<Arc<Client>> {
        self.inner
            .running
            .lock()
            .map(|r| r.values().cloned().collect())
            .unwrap_or_default()
    }

    /// Keeps only the diagnostics of `path` not yet reported (identity
    /// ignores position); an empty input clears the file's ledger. Returns
    /// the fresh ones and how many were already reported.
    pub fn reduce(&self, path: &Path, diags: Vec<Diagnostic>) -> (Vec<Diagnostic>, usize) {
        let Ok(mut ledger) = self.inner.ledger.lock() else {
            return (diags, 0);
        };
        if diags.is_empty() {
            ledger.remove(path);
            return (diags, 0);
        }
        let previous = ledger.remove(path).unwrap_or_default();
        let current: HashSet<String> = diags.iter().map(Diagnostic::identity).collect();
        let total = diags.len();
        let fresh: Vec<Diagnostic> = diags
            .into_iter()
            .filter(|d| !previous.contains(&d.identity()))
            .collect();
        let old = total - fresh.len();
        ledger.insert(path.to_path_buf(), current);
        (fresh, old)
    }

    /// Records diagnostics as reported (the `diagnostics` action shows
    /// them too, so an edit does not repeat them).
    pub fn mark_reported(&self, path: &Path, diags: &[Diagnostic]) {
        if let Ok(mut ledger) = self.inner.ledger.lock() {
            let set = ledger.entry(path.to_path_buf()).or_default();
            set.extend(diags.iter().map(Diagnostic::identity));
        }
    }

    /// Makes `jail` the jail that language servers and CLI linters run in
    /// (`None`: unjailed), as the session's tools are: called with the
    /// tool call's jail before each use. When it changes (`/jail`,
    /// `/unjail`), the running servers are stopped and start again, lazily,
    /// under the new one — a server never keeps the privileges of an
    /// earlier state.
    pub async fn use_jail(&self, jail: Option<Arc<zut_sandbox::Prepared>>) {
        let changed = match self.inner.jail.lock() {
            Ok(mut current) => {
                let same = match (&*current, &jail) {
                    (None, None) => true,
                    (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                    _ => false,
                };
                if !same {
                    *current = jail;
                }
                !same
            }
            Err(_) => false,
        };
        if changed {
            self.shutdown().await;
        }
    }

    /// The jail servers and linters start in now.
    pub fn jail(&self) -> Option<Arc<zut_sandbox::Prepared>> {
        self.inner.jail.lock().ok().and_then(|j| j.clone())
    }

    /// Stops every server (`shutdown`/`exit`, then the group is killed)
    /// and forgets the configuration.
    pub async fn reload(&self) {
        self.shutdown().await;
        if let Ok(mut c) = self.inner.config.lock() {
            *c = None;
        }
    }

    /// Asks every running server to exit, then kills their process groups.
    pub async fn shutdown(&self) {
        let clients: Vec<Arc<Client>> = self
            .inner
            .running
            .lock()
            .map(|mut r| r.drain().map(|(_, c)| c).collect())
            .unwrap_or_default();
        if let Ok(mut slots) = self.inner.slots.lock() {
            slots.clear();
        }
        let grace = self.inner.options.shutdown_grace;
        join_all(clients.iter().map(|c| c.shutdown(grace))).await;
    }

    /// Status rows of the servers applying to `path` (or all configured
    /// ones), never starting anything.
    pub fn status(&self, path: Option<&Path>) -> Result<Vec<serde_json::Value>, String> {
        let config = self.config()?;
        let running = self.running();
        let specs: Vec<Target> = match path {
            Some(p) => self.targets(p)?,
            None => config
                .servers
                .values()
                .filter(|s| !s.disabled)
                .map(|s| Target {
                    spec: s.clone(),
                    root: self.inner.cwd.clone(),
                })
                .collect(),
        };
        let mut rows = Vec::new();
        for t in specs {
            let mut row = serde_json::json!({
                "id": t.spec.id,
                "kind": if t.spec.kind == Kind::Lsp { "lsp" } else { "cli" },
                "command": std::iter::once(t.spec.command.clone()).chain(t.spec.args.iter().cloned()).collect::<Vec<_>>().join(" "),
            });
            let live: Vec<&Arc<Client>> =
                running.iter().filter(|c| c.server == t.spec.id).collect();
            let state = if let Some(c) = live.first() {
                row["root"] = c.root.display().to_string().into();
                row["diagnostics"] = c.diagnostics(None).len().into();
                if let Some(f) = c.failure() {
                    row["error"] = f.into();
                    "error"
                } else {
                    row["capabilities"] = c.capabilities.clone();
                    // Diagnostics asked for (`textDocument/diagnostic`)
                    // rather than waited for.
                    row["pull_diagnostics"] = c.pulls().into();
                    "running"
                }
            } else if let Err(e) = resolve_command(&t.spec.command, &t.root) {
                row["error"] = e.into();
                "missing"
            } else {
                "stopped"
            };
            row["state"] = state.into();
            if let Some(startup) = self.startup_status(&t.spec.id) {
                row["startup"] = startup;
            }
            rows.push(row);
        }
        Ok(rows)
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Clients kill their process groups when dropped.
        if let Ok(mut r) = self.running.lock() {
            r.clear();
        }
    }
}

/// `d` rounded to the nearest 100 ms (for messages).
fn round_100ms(d: Duration) -> Duration {
    Duration::from_millis((d.as_millis() as u64 + 50) / 100 * 100)
}

/// Nearest directory from `start` upward holding one of `markers`.
pub fn find_root(start: &Path, markers: &[String]) -> Option<PathBuf> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        if markers.iter().any(|m| d.join(m).exists()) {
            return Some(d.to_path_buf());
        }
        dir = d.parent();
    }
    None
}

/// Runs futures concurrently and collects their outputs in order.
pub(crate) async fn join_all<F: std::future::Future>(
    futs: impl IntoIterator<Item = F>,
) -> Vec<F::Output> {
    let mut set: Vec<std::pin::Pin<Box<F>>> = futs.into_iter().map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = (0..set.len()).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (i, f) in set.iter_mut().enumerate() {
            if out[i].is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => out[i] = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    out.into_iter().flatten().collect()
}
