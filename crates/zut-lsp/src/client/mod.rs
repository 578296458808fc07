//! One running language server: the JSON-RPC connection over its stdio,
//! the `initialize` handshake, requests with budgets, server requests
//! answered, published diagnostics stored (bounded) and the documents it
//! has open.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lsp_types::Url;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, BufReader};
use tokio::sync::{mpsc, oneshot, watch};

use crate::config::ServerConfig;
use crate::diagnostics::Diagnostic;
use crate::framing::{read_message, write_message};
use crate::process::{spawn, GroupGuard};

mod incoming;
mod pull;
mod server_edits;

pub use incoming::{EditRequest, UNSOLICITED_EDIT};
pub use pull::PullMode;
pub use server_edits::{requested_edit, EditWindow};

/// Most diagnostics kept per file and server (a flooding server is cut).
pub const MAX_DIAGNOSTICS_PER_FILE: usize = 1000;

/// Most files with diagnostics kept per server.
pub const MAX_DIAGNOSTIC_FILES: usize = 5000;

/// Pause before asking again after `ContentModified`.
const RETRY_DELAY: Duration = Duration::from_millis(100);

/// Bytes of the server's stderr kept (for crash reports).
const STDERR_TAIL_BYTES: usize = 4096;

type Pending = Mutex<HashMap<i64, oneshot::Sender<Result<Value, String>>>>;

#[derive(Default)]
struct DiagState {
    by_path: HashMap<PathBuf, Vec<Diagnostic>>,
    /// Publications seen per path (to wait for the one after a change).
    published: HashMap<PathBuf, u64>,
    /// Publications dropped because of [`MAX_DIAGNOSTIC_FILES`].
    dropped_files: u64,
    /// Per path: when the last change was sent, and when the first
    /// publication after it arrived (the server's own time, measured).
    timing: HashMap<PathBuf, (Instant, Option<Instant>, i32)>,
    /// Documents zut opened: always stored, whatever the file cap.
    open: std::collections::HashSet<PathBuf>,
    /// The document version of the last publication, when the server
    /// gave one.
    versions: HashMap<PathBuf, i32>,
    /// Pulled diagnostics per path, with the report's `resultId`.
    pulled: HashMap<PathBuf, (Option<String>, Vec<Diagnostic>)>,
}

struct Shared {
    server: String,
    settings: Value,
    diags: Mutex<DiagState>,
    generation: watch::Sender<u64>,
    dead: watch::Sender<Option<String>>,
    exit_status: Mutex<Option<String>>,
    stderr_tail: Mutex<Vec<u8>>,
    malformed: AtomicI64,
    pending: Pending,
    /// False while the server says it is loading the project.
    ready: watch::Sender<bool>,
    /// How the server answers `textDocument/diagnostic`, per
    /// registration id (`""`: from `initialize`); empty: it does not.
    pull: Mutex<Vec<(String, PullMode)>>,
    /// Where `workspace/applyEdit` requests go while a tool call runs one
    /// of the server's commands (see [`EditWindow`]).
    edits: Mutex<Option<(u64, mpsc::UnboundedSender<EditRequest>)>>,
    /// Numbers the edit windows.
    edit_seq: std::sync::atomic::AtomicU64,
}

impl Shared {
    fn kill_reason(&self, reason: String) {
        self.dead.send_if_modified(|d| {
            if d.is_none() {
                *d = Some(reason);
                true
            } else {
                false
            }
        });
        if let Ok(mut p) = self.pending.lock() {
            p.clear();
        }
    }
}

/// A connection to one server process for one workspace root.
pub struct Client {
    /// Server id (`rust-analyzer`).
    pub server: String,
    /// Workspace root given to the server.
    pub root: PathBuf,
    /// `capabilities` from the `initialize` answer.
    pub capabilities: Value,
    /// When the process started.
    pub started: Instant,
    out: mpsc::UnboundedSender<Vec<u8>>,
    next_id: AtomicI64,
    shared: Arc<Shared>,
    docs: tokio::sync::Mutex<HashMap<PathBuf, (i32, String)>>,
    /// One command run at a time (its `workspace/applyEdit` requests go to
    /// the caller that holds this; subagents share servers).
    commands: tokio::sync::Mutex<()>,
    tasks: Vec<tokio::task::AbortHandle>,
    guard: GroupGuard,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("server", &self.server)
            .field("root", &self.root)
            .finish()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
        // `guard` kills the process group.
    }
}

/// The file URI of an absolute path.
pub fn file_uri(path: &Path) -> Result<Url, String> {
    Url::from_file_path(path)
        .map_err(|_| format!("{} is not an absolute file path", path.display()))
}

impl Client {
    /// Starts `program` for `spec` in `root` and completes `initialize`
    /// within `timeout`. The process is killed if anything fails.
    pub async fn start(
        spec: &ServerConfig,
        program: &Path,
        root: &Path,
        timeout: Duration,
        jail: Option<Arc<zut_sandbox::Prepared>>,
    ) -> Result<Client, String> {
        let env: Vec<(String, String)> = spec
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut child = spawn(program, &spec.args, root, &env, jail).map_err(|e| {
            format!(
                "{} could not be started ({}): {e}",
                spec.id,
                program.display()
            )
        })?;
        let guard = GroupGuard::new(child.id());
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(format!("{}: no stdio pipes", spec.id));
        };
        let stdin = tokio::process::ChildStdin::from_std(stdin).map_err(|e| e.to_string())?;
        let stdout = tokio::process::ChildStdout::from_std(stdout).map_err(|e| e.to_string())?;
        let mut stderr =
            tokio::process::ChildStderr::from_std(stderr).map_err(|e| e.to_string())?;

        let (dead_tx, _) = watch::channel(None);
        let (gen_tx, _) = watch::channel(0u64);
        let shared = Arc::new(Shared {
            server: spec.id.clone(),
            settings: spec.settings.clone(),
            diags: Mutex::new(DiagState::default()),
            generation: gen_tx,
            dead: dead_tx,
            exit_status: Mutex::new(None),
            stderr_tail: Mutex::new(Vec::new()),
            malformed: AtomicI64::new(0),
            pending: Mutex::new(HashMap::new()),
            ready: watch::channel(true).0,
            pull: Mutex::new(Vec::new()),
            edits: Mutex::new(None),
            edit_seq: std::sync::atomic::AtomicU64::new(0),
        });

        // Reaper: a plain thread waits for the exit and records it.
        {
            let shared = shared.clone();
            let id = spec.id.clone();
            let _ = std::thread::Builder::new()
                .name(format!("zut-lsp-wait-{id}"))
                .spawn(move || {
                    let status = child.wait();
                    let text = match status {
                        Ok(s) => s.to_string(),
                        Err(e) => format!("wait failed: {e}"),
                    };
                    if let Ok(mut es) = shared.exit_status.lock() {
                        *es = Some(text.clone());
                    }
                    shared.kill_reason(format!("the process exited ({text})"));
                });
        }

        let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Vec<u8>>();
        let mut tasks = Vec::new();
        // Writer.
        {
            let shared = shared.clone();
            let mut stdin = stdin;
            tasks.push(
                tokio::spawn(async move {
                    while let Some(body) = out_rx.recv().await {
                        if let Err(e) = write_message(&mut stdin, &body).await {
                            shared.kill_reason(format!("writing to it failed: {e}"));
                            break;
                        }
                    }
                })
                .abort_handle(),
            );
        }
        // Stderr: keep a tail, never shown to the model except in crash
        // reports.
        {
            let shared = shared.clone();
            tasks.push(
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 4096];
                    loop {
                        match stderr.read(&mut buf).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => {
                                if let Ok(mut t) = shared.stderr_tail.lock() {
                                    t.extend_from_slice(&buf[..n]);
                                    if t.len() > STDERR_TAIL_BYTES {
                                        let cut = t.len() - STDERR_TAIL_BYTES;
                                        t.drain(..cut);
                                    }
                                }
                            }
                        }
                    }
                })
                .abort_handle(),
            );
        }
        // Reader.
        {
            let shared = shared.clone();
            let out = out_tx.clone();
            tasks.push(
                tokio::spawn(async move {
                    let mut r = BufReader::new(stdout);
                    loop {
                        match read_message(&mut r).await {
                            Ok(Some(body)) => incoming::handle_message(&shared, &out, &body),
                            Ok(None) => {
                                // Usually the process exited: give the
                                // reaper a moment to record the status.
                                for _ in 0..20 {
                                    if shared.dead.borrow().is_some() {
                                        break;
                                    }
                                    tokio::time::sleep(Duration::from_millis(10)).await;
                                }
                                shared.kill_reason("it closed its output".into());
                                break;
                            }
                            Err(e) => {
                                shared.kill_reason(format!(
                                    "it sent malformed JSON-RPC framing: {e}"
                                ));
                                break;
                            }
                        }
                    }
                })
                .abort_handle(),
            );
        }

        let mut client = Client {
            server: spec.id.clone(),
            root: root.to_path_buf(),
            capabilities: Value::Null,
            started: Instant::now(),
            out: out_tx,
            next_id: AtomicI64::new(1),
            shared,
            docs: tokio::sync::Mutex::new(HashMap::new()),
            commands: tokio::sync::Mutex::new(()),
            tasks,
            guard,
        };
        let params = crate::handshake::initialize_params(root, &spec.initialization_options)?;
        let answer = match client.request_raw("initialize", params, timeout).await {
            Ok(v) => v,
            Err(RequestError::Timeout) => {
                return Err(format!(
                    "{} did not answer initialize within {}",
                    spec.id,
                    crate::fmt_duration(timeout)
                ))
            }
            Err(RequestError::Failed(e)) => {
                return Err(format!("{} failed during initialize: {e}", spec.id))
            }
        };
        client.capabilities = answer.get("capabilities").cloned().unwrap_or(Value::Null);
        if let Some(mode) = pull::from_capabilities(&client.capabilities) {
            if let Ok(mut p) = client.shared.pull.lock() {
                p.push((String::new(), mode));
            }
        }
        client.notify("initialized", json!({}))?;
        if !spec.settings.is_null() {
            client.notify(
                "workspace/didChangeConfiguration",
                json!({ "settings": spec.settings }),
            )?;
        }
        Ok(client)
    }

    /// Why the server is gone (exit status and last stderr line), or
    /// `None` while it runs.
    pub fn failure(&self) -> Option<String> {
        let reason = self.shared.dead.borrow().clone()?;
        let mut out = format!("{} stopped: {reason}", self.server);
        if !reason.contains("exited") {
            if let Ok(Some(status)) = self.shared.exit_status.lock().map(|s| s.clone()) {
                out.push_str(&format!(" (exit {status})"));
            }
        }
        if let Some(line) = self.stderr_last_line() {
            out.push_str(&format!("; its last stderr line: {line}"));
        }
        Some(out)
    }

    fn stderr_last_line(&self) -> Option<String> {
        let tail = self.shared.stderr_tail.lock().ok()?;
        let text = String::from_utf8_lossy(&tail);
        let line = text.lines().rev().find(|l| !l.trim().is_empty())?;
        Some(line.trim().chars().take(200).collect())
    }

    /// Whether the process still runs and the connection is in step.
    pub fn alive(&self) -> bool {
        self.shared.dead.borrow().is_none()
    }

    /// Malformed messages received (skipped) so far.
    pub fn malformed_count(&self) -> i64 {
        self.shared.malformed.load(Ordering::Relaxed)
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: Value) -> Result<(), String> {
        let body = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.send(&body)
    }

    fn send(&self, v: &Value) -> Result<(), String> {
        if let Some(f) = self.failure() {
            return Err(f);
        }
        let bytes = serde_json::to_vec(v).map_err(|e| e.to_string())?;
        self.out
            .send(bytes)
            .map_err(|_| format!("{}: connection closed", self.server))
    }

    /// Sends a request and waits at most `timeout` for its answer.
    pub async fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, String> {
        let deadline = Instant::now() + timeout;
        let timed_out = || {
            format!(
                "{} did not answer {method} within {}",
                self.server,
                crate::fmt_duration(timeout)
            )
        };
        // A server that announces it is still loading (rust-analyzer's
        // `experimental/serverStatus`) answers only after it is ready.
        if !self.wait_ready(deadline).await {
            return Err(format!(
                "{} is still loading the project (not ready within {})",
                self.server,
                crate::fmt_duration(timeout)
            ));
        }
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.request_raw(method, params.clone(), left).await {
                Ok(v) => return Ok(v),
                Err(RequestError::Timeout) => return Err(timed_out()),
                Err(RequestError::Failed(e)) => {
                    // ContentModified / ServerCancelled: the answer went
                    // stale while the server worked; ask again.
                    let retry = e.ends_with("(code -32801)") || e.ends_with("(code -32802)");
                    if !retry || Instant::now() + RETRY_DELAY >= deadline {
                        return Err(e);
                    }
                    tokio::time::sleep(RETRY_DELAY).await;
                }
            }
        }
    }

    /// Waits until the server is not loading (see [`Client::request`]).
    async fn wait_ready(&self, deadline: Instant) -> bool {
        let mut ready = self.shared.ready.subscribe();
        loop {
            if *ready.borrow_and_update() {
                return true;
            }
            if !self.alive() {
                return true; // the request reports the failure
            }
            tokio::select! {
                r = ready.changed() => if r.is_err() { return true },
                _ = tokio::time::sleep_until(deadline.into()) => return false,
            }
        }
    }

    async fn request_raw(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, RequestError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = self.shared.pending.lock() {
            p.insert(id, tx);
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if let Err(e) = self.send(&body) {
            self.forget(id);
            return Err(RequestError::Failed(e));
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(r)) => r.map_err(RequestError::Failed),
            Ok(Err(_)) => {
                Err(RequestError::Failed(self.failure().unwrap_or_else(|| {
                    format!("{}: request dropped", self.server)
                })))
            }
            Err(_) => {
                self.forget(id);
                let _ = self.notify("$/cancelRequest", json!({ "id": id }));
                Err(RequestError::Timeout)
            }
        }
    }

    fn forget(&self, id: i64) {
        if let Ok(mut p) = self.shared.pending.lock() {
            p.remove(&id);
        }
    }

    /// Makes the server's copy of `path` equal `text` (`didOpen` the first
    /// time, `didChange` with the full text when it differs), then
    /// `didSave`. Returns whether anything changed for the server.
    pub async fn sync_document(
        &self,
        path: &Path,
        language_id: &str,
        text: &str,
    ) -> Result<bool, String> {
        let uri = file_uri(path)?;
        let mut docs = self.docs.lock().await;
        let changed = match docs.get_mut(path) {
            None => {
                self.mark_sent(path, 1);
                self.notify(
                    "textDocument/didOpen",
                    json!({"textDocument": {"uri": uri, "languageId": language_id, "version": 1, "text": text}}),
                )?;
                docs.insert(path.to_path_buf(), (1, text.to_string()));
                true
            }
            Some((version, old)) if old != text => {
                *version += 1;
                self.mark_sent(path, *version);
                self.notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": uri, "version": *version},
                           "contentChanges": [{"text": text}]}),
                )?;
                *old = text.to_string();
                true
            }
            Some(_) => false,
        };
        drop(docs);
        self.notify(
            "textDocument/didSave",
            json!({"textDocument": {"uri": uri}, "text": text}),
        )?;
        Ok(changed)
    }

    /// Whether the last publication for `path` is for version `wanted`
    /// or later (a server that sends no versions always is).
    fn current_for(&self, path: &Path, wanted: Option<i32>) -> bool {
        let Some(wanted) = wanted else {
            return true;
        };
        self.shared
            .diags
            .lock()
            .map(|d| d.versions.get(path).is_none_or(|v| *v >= wanted))
            .unwrap_or(true)
    }

    /// Publications of diagnostics for `path` seen so far.
    pub fn publish_count(&self, path: &Path) -> u64 {
        self.shared
            .diags
            .lock()
            .map(|d| d.published.get(path).copied().unwrap_or(0))
            .unwrap_or(0)
    }

    /// Waits until a publication for `path` beyond `seen` arrives, then
    /// for `quiet` without further ones for it (a server that publishes in
    /// steps), never past `deadline`. Returns whether one arrived (`false`
    /// at once when the server turns out to answer pulls instead).
    pub async fn wait_publish(
        &self,
        path: &Path,
        seen: u64,
        quiet: Duration,
        deadline: Instant,
    ) -> bool {
        let mut gen = self.shared.generation.subscribe();
        let mut dead = self.shared.dead.subscribe();
        let wanted = self.docs.lock().await.get(path).map(|(v, _)| *v);
        loop {
            if self.publish_count(path) > seen && self.current_for(path, wanted) {
                break;
            }
            if self.pulls() {
                // Registered pull diagnostics meanwhile: it answers pulls
                // rather than publishing (the caller pulls).
                return false;
            }
            if !self.alive() {
                return false;
            }
            tokio::select! {
                r = gen.changed() => if r.is_err() { return false },
                _ = dead.changed() => {},
                _ = tokio::time::sleep_until(deadline.into()) => return false,
            }
        }
        if quiet.is_zero() {
            return true;
        }
        let mut count = self.publish_count(path);
        let mut until = (Instant::now() + quiet).min(deadline);
        loop {
            tokio::select! {
                r = gen.changed() => if r.is_err() { return true },
                _ = tokio::time::sleep_until(until.into()) => return true,
            }
            let now = self.publish_count(path);
            if now != count {
                count = now;
                until = (Instant::now() + quiet).min(deadline);
            }
        }
    }

    /// The stored diagnostics of `path` (all of them when `None`):
    /// published and pulled.
    pub fn diagnostics(&self, path: Option<&Path>) -> Vec<Diagnostic> {
        let mut out = match self.shared.diags.lock() {
            Ok(d) => match path {
                Some(p) => d.by_path.get(p).cloned().unwrap_or_default(),
                None => d.by_path.values().flatten().cloned().collect(),
            },
            Err(_) => Vec::new(),
        };
        out.extend(self.pulled(path));
        out
    }

    fn mark_sent(&self, path: &Path, version: i32) {
        if let Ok(mut d) = self.shared.diags.lock() {
            d.timing
                .insert(path.to_path_buf(), (Instant::now(), None, version));
            d.open.insert(path.to_path_buf());
        }
    }

    /// How long the server took from the last change of `path` sent to
    /// the first diagnostics publication for it after that change.
    pub fn server_time(&self, path: &Path) -> Option<Duration> {
        let d = self.shared.diags.lock().ok()?;
        let (sent, got, _) = d.timing.get(path)?;
        got.map(|g| g.saturating_duration_since(*sent))
    }

    /// Publications dropped because too many files had diagnostics.
    pub fn dropped_files(&self) -> u64 {
        self.shared
            .diags
            .lock()
            .map(|d| d.dropped_files)
            .unwrap_or(0)
    }

    /// Asks the server to shut down (`shutdown`, `exit`), waiting at most
    /// `grace`; the process group is killed when the client is dropped.
    pub async fn shutdown(&self, grace: Duration) {
        if !self.alive() {
            return;
        }
        let deadline = Instant::now() + grace;
        let _ = self.request("shutdown", Value::Null, grace).await;
        let _ = self.notify("exit", Value::Null);
        let mut dead = self.shared.dead.subscribe();
        while self.alive() {
            tokio::select! {
                _ = dead.changed() => {},
                _ = tokio::time::sleep_until(deadline.into()) => break,
            }
        }
        self.guard.signal(libc::SIGTERM);
    }
}

enum RequestError {
    Timeout,
    Failed(String),
}
