//! zut's public-web capability: `web_search`, `web_open`, `web_find` and
//! `web_click`, one indivisible set selected by the `web_search` token.
//!
//! - [`WebRuntime`] holds a session's configuration and reference store
//!   (`web-<n>` ids for search results and cached pages) and runs the tools:
//!   [`WebRuntime::run`] always returns a [`ToolOutput`]; failures are
//!   `is_error` outputs whose text says why and what to do.
//! - Fetches go only to public addresses (or hosts the user allowed): see
//!   [`address`] and the crate README for the rules, which hold on every
//!   redirect and for the addresses actually dialled.
//! - Fetched text is framed as untrusted ([`render::BEGIN`]/[`render::END`]).
//!
//! Knows nothing of providers, sessions, the agent loop or UI.

pub mod address;
pub mod config;
pub mod decode;
pub mod destination;
pub mod fetch;
pub mod html;
pub mod jail;
pub mod limits;
pub mod page;
mod pdf;
pub mod render;
mod schema;
pub mod search;
pub mod server_search;
pub mod store;
mod tools;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use zut_tools::{ToolContext, ToolOutput};

pub use config::{AllowedHost, SearchBackend, SearchConfig, WebConfig};
pub use schema::{is_web_tool, tool_def, tool_defs, SELECTOR, TOOL_NAMES};
pub use server_search::{SearchFuture, ServerResults, ServerSearch};

/// A session's web tools: configuration plus reference store. Share it
/// (it is `Sync`); clear it when the session changes.
pub struct WebRuntime {
    config: WebConfig,
    store: Mutex<store::Store>,
    generation: AtomicU64,
}

impl std::fmt::Debug for WebRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebRuntime")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl WebRuntime {
    /// A runtime with an empty reference store.
    pub fn new(config: WebConfig) -> Self {
        Self {
            config,
            store: Mutex::new(store::Store::default()),
            generation: AtomicU64::new(0),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &WebConfig {
        &self.config
    }

    /// Forgets every reference (session switch, fork, capability turned
    /// off). Searches and fetches in flight do not store their results.
    pub fn clear(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.lock().clear();
    }

    /// Runs web tool `name`. Unknown names and bad arguments are error
    /// outputs. Dropping the future stops the request.
    pub async fn run(&self, name: &str, args: &Value, ctx: &ToolContext) -> ToolOutput {
        self.run_with_search(name, args, ctx, None).await
    }

    /// [`WebRuntime::run`] with the server-side search the `provider`
    /// backend uses (the current model's; `None`: that backend answers
    /// that no provider search is available here).
    pub async fn run_with_search(
        &self,
        name: &str,
        args: &Value,
        ctx: &ToolContext,
        server: Option<&dyn ServerSearch>,
    ) -> ToolOutput {
        match name {
            "web_search" => tools::web_search(self, args, ctx, server).await,
            "web_open" => tools::web_open(self, args, ctx).await,
            "web_find" => tools::web_find(self, args),
            "web_click" => tools::web_click(self, args, ctx).await,
            other => ToolOutput::error(format!("unknown tool \"{other}\"")),
        }
    }

    /// What a call would do, for `--no-yolo` confirmation (no request).
    pub fn preview(&self, name: &str, args: &Value) -> Option<String> {
        tools::preview(self, name, args)
    }

    fn lock(&self) -> MutexGuard<'_, store::Store> {
        self.store.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// Stores `entry` unless the store was cleared since `gen`.
    pub(crate) fn add(&self, gen: u64, entry: store::Entry) -> Option<u64> {
        let mut s = self.lock();
        (self.generation() == gen).then(|| s.add(entry))
    }

    pub(crate) fn get(&self, id: u64) -> Option<store::Entry> {
        self.lock().get(id)
    }

    pub(crate) fn peek(&self, id: u64) -> Option<store::Entry> {
        self.lock().get(id)
    }

    pub(crate) fn cached(&self, url: &str) -> Option<(u64, Arc<page::Page>)> {
        self.lock().page_for(url)
    }
}
