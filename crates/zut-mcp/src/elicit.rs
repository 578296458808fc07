//! MCP elicitation (a server asks the user for input): form mode (fields
//! to fill) and URL mode (a page for the user to open).
//!
//! zut declares the `elicitation` capability to a server only while
//! someone can answer, and only the modes they can show: a front end sets
//! an [`Asker`] with its [`ElicitationModes`]
//! ([`crate::McpManager::set_elicitation_asker_modes`]); without one nothing
//! is declared, and a request that still arrives (or one in a mode not
//! declared) is declined. Servers already connected when the asker appears
//! or goes reconnect, so what they were told stays true. Every request and
//! its outcome go to the server's log.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, RwLock};

use futures::future::BoxFuture;
use serde_json::Value;
use zut_types::elicitation::{validate, ElicitationAnswer, ElicitationRequest};
use zut_types::ElicitationModes;

/// Shows one request to the user and resolves with the answer. Dropping
/// the future means the server stopped waiting.
pub type Asker =
    Arc<dyn Fn(ElicitationRequest) -> BoxFuture<'static, ElicitationAnswer> + Send + Sync>;

/// Told that the out-of-band flow of URL-mode request `id` of `server`
/// finished (the server sent `notifications/elicitation/complete`): the
/// request's dialog, if still open, is closed right after.
pub type Completer = Arc<dyn Fn(u64, &str) + Send + Sync>;

#[derive(Default)]
struct Inner {
    /// Declared to servers connecting from now on
    /// ([`ElicitationModes::bits`]).
    declare: AtomicU8,
    asker: RwLock<Option<Asker>>,
    completer: RwLock<Option<Completer>>,
    next_id: AtomicU64,
}

/// Whether elicitation is declared, and who answers. Cheap to clone.
#[derive(Clone, Default)]
pub struct Elicitation(Arc<Inner>);

impl std::fmt::Debug for Elicitation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Elicitation")
            .field("declared", &self.declared())
            .finish()
    }
}

impl Elicitation {
    /// Declared from the first connection on (`true`) or not. A front end
    /// that will set an asker right after the servers start passes `true`
    /// so the servers are not reconnected for it.
    pub fn declared_from_start(on: bool) -> Self {
        Self::declared_from_start_modes(if on {
            ElicitationModes::ALL
        } else {
            ElicitationModes::NONE
        })
    }

    /// Declared from the first connection on, in `modes`.
    pub fn declared_from_start_modes(modes: ElicitationModes) -> Self {
        let e = Self::default();
        e.0.declare.store(modes.bits(), Ordering::Release);
        e
    }

    /// Whether servers connecting now are told zut can ask the user.
    pub fn declared(&self) -> bool {
        self.modes().any()
    }

    /// The modes declared to servers connecting now.
    pub fn modes(&self) -> ElicitationModes {
        ElicitationModes::from_bits(self.0.declare.load(Ordering::Acquire))
    }

    /// Sets (or removes) the asker and the modes it shows.
    pub(crate) fn set(&self, asker: Option<Asker>, modes: ElicitationModes) {
        let modes = if asker.is_some() {
            modes
        } else {
            ElicitationModes::NONE
        };
        *self.0.asker.write().unwrap_or_else(|e| e.into_inner()) = asker;
        self.0.declare.store(modes.bits(), Ordering::Release);
    }

    /// Sets (or removes) who is told of finished URL flows.
    pub(crate) fn set_completer(&self, completer: Option<Completer>) {
        *self.0.completer.write().unwrap_or_else(|e| e.into_inner()) = completer;
    }

    /// Tells the completer (if any) that request `id`'s flow finished.
    pub(crate) fn completed(&self, id: u64, server: &str) {
        let completer = self
            .0
            .completer
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(c) = completer {
            c(id, server);
        }
    }

    fn asker(&self) -> Option<Asker> {
        self.0
            .asker
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Asks the user (or declines when nobody can, or not in this mode),
    /// checks an accepted answer against the schema, and returns the
    /// answer with a line for the server's log. `url`: URL mode (`schema`
    /// is then ignored; an accepted answer carries no content). `id`:
    /// from [`Elicitation::next_id`].
    pub(crate) async fn ask(
        &self,
        id: u64,
        server: &str,
        message: String,
        schema: Value,
        order: Vec<String>,
        url: Option<String>,
    ) -> (ElicitationAnswer, String) {
        let Some(asker) = self.asker() else {
            return (
                ElicitationAnswer::decline(),
                "elicitation declined: nobody can answer in this mode".into(),
            );
        };
        let modes = self.modes();
        let (declared, mode) = match url {
            Some(_) => (modes.url, "URL"),
            None => (modes.form, "form"),
        };
        if !declared {
            return (
                ElicitationAnswer::decline(),
                format!("elicitation declined: {mode} mode was not declared to the server"),
            );
        }
        if let Some(url) = url {
            return ask_url(&asker, id, server, message, url).await;
        }
        let request = ElicitationRequest {
            id,
            server: server.to_string(),
            message,
            schema,
            order,
            url: None,
        };
        if let Err(why) = request.fields() {
            return (
                ElicitationAnswer::decline(),
                format!("elicitation declined: the form cannot be shown ({why})"),
            );
        }
        let schema = request.schema.clone();
        let answer = asker(request).await;
        if let Some(content) = &answer.content {
            if let Err(why) = validate(&schema, content) {
                return (
                    ElicitationAnswer::cancel(),
                    format!("elicitation cancelled: the answer does not fit the form ({why})"),
                );
            }
        }
        let line = format!("elicitation answered: {}", answer.action.as_str());
        (answer, line)
    }
    /// A new request id (unique for this manager).
    pub(crate) fn next_id(&self) -> u64 {
        self.0.next_id.fetch_add(1, Ordering::Relaxed) + 1
    }
}

/// A URL-mode request: refused without asking when the URL is not a plain
/// `http`/`https` URL with a host (what the user is shown must be what
/// would open); an accept carries no content.
async fn ask_url(
    asker: &Asker,
    id: u64,
    server: &str,
    message: String,
    url: String,
) -> (ElicitationAnswer, String) {
    let Some(host) = zut_types::elicitation::url_host(&url) else {
        return (
            ElicitationAnswer::decline(),
            format!("elicitation declined: {url:?} is not an http(s) URL zut will show"),
        );
    };
    let request = ElicitationRequest {
        id,
        server: server.to_string(),
        message,
        schema: serde_json::json!({"type": "object", "properties": {}}),
        order: Vec::new(),
        url: Some(url),
    };
    let mut answer = asker(request).await;
    answer.content = None;
    let line = format!(
        "elicitation (URL at {host}) answered: {}",
        answer.action.as_str()
    );
    (answer, line)
}
