//! The shared state of one running server: status, catalog, the peer to
//! send requests through, progress routes.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use rmcp::service::Peer;
use rmcp::RoleClient;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::catalog::Catalog;
use crate::config::ServerConfig;
use crate::status::{ServerInfo, ServerStatus};

/// Receives a call's progress as one line of text.
pub type ProgressFn = Arc<dyn Fn(String) + Send + Sync>;

/// One server.
pub(crate) struct Slot {
    pub config: ServerConfig,
    pub status: watch::Sender<ServerStatus>,
    pub catalog: RwLock<Catalog>,
    pub peer: RwLock<Option<Peer<RoleClient>>>,
    pub progress: Mutex<HashMap<String, ProgressFn>>,
    pub restarts: AtomicU32,
    /// Bumped whenever the catalog changes (the manager's generation too).
    pub generation: Arc<AtomicU64>,
    /// Stops this server (and its supervisor).
    pub stop: CancellationToken,
    /// Asks the supervisor to reconnect now.
    pub reconnect: tokio::sync::Notify,
    /// Process group of the running stdio server, for the last-resort kill.
    pub pgid: AtomicU32,
    pub log: PathBuf,
    /// A catalog refresh is queued (coalesces `list_changed` floods).
    pub refresh_pending: std::sync::atomic::AtomicBool,
    /// How its process was last started: `jailed`, `permissions`,
    /// `unconfined` (`None`: remote, or not started yet).
    pub confined: Mutex<Option<&'static str>>,
    /// Elicitation was declared on the current connection.
    pub elicitation_declared: std::sync::atomic::AtomicU8,
}

impl Slot {
    pub fn new(
        config: ServerConfig,
        status: ServerStatus,
        generation: Arc<AtomicU64>,
        log: PathBuf,
        parent: &CancellationToken,
    ) -> Arc<Self> {
        Arc::new(Self {
            config,
            status: watch::channel(status).0,
            catalog: RwLock::new(Catalog::default()),
            peer: RwLock::new(None),
            progress: Mutex::new(HashMap::new()),
            restarts: AtomicU32::new(0),
            generation,
            stop: parent.child_token(),
            reconnect: tokio::sync::Notify::new(),
            pgid: AtomicU32::new(0),
            log,
            refresh_pending: std::sync::atomic::AtomicBool::new(false),
            confined: Mutex::new(None),
            elicitation_declared: std::sync::atomic::AtomicU8::new(0),
        })
    }

    pub fn set_status(&self, status: ServerStatus) {
        self.status.send_replace(status);
        self.bump();
    }

    pub fn status(&self) -> ServerStatus {
        self.status.borrow().clone()
    }

    pub fn bump(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    pub fn set_catalog(&self, catalog: Catalog) {
        *self.catalog.write().unwrap_or_else(|e| e.into_inner()) = catalog;
        self.bump();
    }

    pub fn catalog(&self) -> std::sync::RwLockReadGuard<'_, Catalog> {
        self.catalog.read().unwrap_or_else(|e| e.into_inner())
    }

    pub fn peer(&self) -> Option<Peer<RoleClient>> {
        self.peer.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn set_peer(&self, peer: Option<Peer<RoleClient>>) {
        *self.peer.write().unwrap_or_else(|e| e.into_inner()) = peer;
    }

    pub fn set_confined(&self, word: Option<&'static str>) {
        *self.confined.lock().unwrap_or_else(|e| e.into_inner()) = word;
    }

    pub fn progress_route(&self, token: &str) -> Option<ProgressFn> {
        self.progress
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(token)
            .cloned()
    }

    pub fn set_progress_route(&self, token: String, f: Option<ProgressFn>) {
        let mut map = self.progress.lock().unwrap_or_else(|e| e.into_inner());
        match f {
            Some(f) => {
                map.insert(token, f);
            }
            None => {
                map.remove(&token);
            }
        }
    }

    pub fn info(&self) -> ServerInfo {
        let c = self.catalog();
        ServerInfo {
            name: self.config.name.clone(),
            scope: self.config.scope,
            transport: self.config.transport.kind(),
            status: self.status(),
            tools: c.tools.len(),
            skipped: c.skipped.clone(),
            prompts: c.prompts.len(),
            resources: c.resources.len(),
            restarts: self.restarts.load(Ordering::Relaxed),
            log: self.log.clone(),
            target: self.config.transport.shown(),
            source: self.config.source.clone(),
            sandbox: *self.confined.lock().unwrap_or_else(|e| e.into_inner()),
        }
    }

    /// Kills the process group of a stdio server still running (drop path).
    pub fn kill_now(&self) {
        #[cfg(unix)]
        {
            let pgid = self.pgid.swap(0, Ordering::Relaxed);
            if pgid != 0 {
                crate::launch::signal_group(pgid, libc::SIGKILL);
            }
        }
    }
}
