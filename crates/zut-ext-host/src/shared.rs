//! State shared by the host's public handle and its per-extension tasks.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use serde_json::Value;
use zut_protocol::SessionInfo;

use crate::config::HostConfig;
use crate::extension::Extension;
use crate::registry::Registry;
use crate::ui::{UiEvent, UiKind, UiSender};

/// The most recent session event, replayed to extensions that become
/// ready later (protocol §10.5).
#[derive(Debug, Default, Clone)]
pub(crate) struct SessionMemory {
    pub session: Option<SessionInfo>,
    pub last_event: Option<String>,
    /// Number of session events emitted so far (the last one's number):
    /// an extension gets each at most once, live or replayed.
    pub seq: u64,
    pub states: HashMap<String, Value>,
}

pub(crate) struct Shared {
    pub config: HostConfig,
    pub ui: UiSender,
    pub registry: Mutex<Registry>,
    /// Started extensions, kept sorted by load index.
    pub extensions: RwLock<Vec<Arc<Extension>>>,
    pub session: Mutex<SessionMemory>,
    pub shutting_down: AtomicBool,
    ids: AtomicU64,
}

impl Shared {
    pub fn new(config: HostConfig, ui: UiSender) -> Self {
        let registry = Registry::new(&config.builtin_commands, &config.builtin_tools);
        let memory = SessionMemory {
            session: None,
            last_event: None,
            seq: 0,
            states: config.states.clone(),
        };
        Self {
            config,
            ui,
            registry: Mutex::new(registry),
            extensions: RwLock::new(Vec::new()),
            session: Mutex::new(memory),
            shutting_down: AtomicBool::new(false),
            ids: AtomicU64::new(1),
        }
    }

    /// A fresh, never reused request id.
    pub fn next_id(&self) -> String {
        format!("{:012}", self.ids.fetch_add(1, Ordering::Relaxed))
    }

    pub fn registry(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn session(&self) -> std::sync::MutexGuard<'_, SessionMemory> {
        self.session.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Snapshot of the extension list in load order.
    pub fn extensions(&self) -> Vec<Arc<Extension>> {
        self.extensions
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn insert_extension(&self, ext: Arc<Extension>) {
        let mut list = self.extensions.write().unwrap_or_else(|e| e.into_inner());
        let pos = list.partition_point(|e| e.idx < ext.idx);
        list.insert(pos, ext);
    }

    pub fn extension(&self, idx: usize) -> Option<Arc<Extension>> {
        self.extensions
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|e| e.idx == idx)
            .cloned()
    }

    pub fn extension_named(&self, name: &str) -> Option<Arc<Extension>> {
        self.extensions
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|e| e.name == name)
            .cloned()
    }

    /// Sends a UI event, waiting while the channel is full (backpressure).
    pub async fn ui(&self, extension: &str, kind: UiKind) {
        let _ = self
            .ui
            .send(UiEvent {
                extension: extension.to_string(),
                kind,
            })
            .await;
    }
}

impl Drop for Shared {
    /// Safety net: no extension process group outlives the host, even if
    /// `shutdown` was never called.
    fn drop(&mut self) {
        #[cfg(unix)]
        for ext in self
            .extensions
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            // Only while the leader is unreaped: its pid (and so the group
            // id) cannot have been reused by an unrelated process.
            if let (Some(pgid), None) = (ext.pgid, ext.exit.borrow().as_ref()) {
                crate::process::signal_group(pgid, crate::process::SIGKILL);
            }
        }
    }
}
