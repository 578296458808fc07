//! MCP elicitation (a server asks the user for input), form mode only.
//!
//! zut declares the `elicitation` capability to a server only while
//! someone can answer: a front end that shows forms sets an [`Asker`]
//! ([`crate::McpManager::set_elicitation_asker`]); without one nothing is
//! declared, and a request that still arrives is declined. Servers already
//! connected when the asker appears or goes reconnect, so what they were
//! told stays true. Every request and its outcome go to the server's log.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use futures::future::BoxFuture;
use serde_json::Value;
use zut_types::elicitation::{validate, ElicitationAnswer, ElicitationRequest};

/// Shows one request to the user and resolves with the answer. Dropping
/// the future means the server stopped waiting.
pub type Asker =
    Arc<dyn Fn(ElicitationRequest) -> BoxFuture<'static, ElicitationAnswer> + Send + Sync>;

#[derive(Default)]
struct Inner {
    /// Declared to servers connecting from now on.
    declare: AtomicBool,
    asker: RwLock<Option<Asker>>,
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
        let e = Self::default();
        e.0.declare.store(on, Ordering::Release);
        e
    }

    /// Whether servers connecting now are told zut can ask the user.
    pub fn declared(&self) -> bool {
        self.0.declare.load(Ordering::Acquire)
    }

    /// Sets (or removes) the asker; returns whether the declaration
    /// changed.
    pub(crate) fn set(&self, asker: Option<Asker>) -> bool {
        let on = asker.is_some();
        *self.0.asker.write().unwrap_or_else(|e| e.into_inner()) = asker;
        self.0.declare.swap(on, Ordering::AcqRel) != on
    }

    fn asker(&self) -> Option<Asker> {
        self.0
            .asker
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Asks the user (or declines when nobody can), checks an accepted
    /// answer against the schema, and returns the answer with a line for
    /// the server's log.
    pub(crate) async fn ask(
        &self,
        server: &str,
        message: String,
        schema: Value,
        order: Vec<String>,
    ) -> (ElicitationAnswer, String) {
        let Some(asker) = self.asker() else {
            return (
                ElicitationAnswer::decline(),
                "elicitation declined: nobody can answer in this mode".into(),
            );
        };
        let request = ElicitationRequest {
            id: self.0.next_id.fetch_add(1, Ordering::Relaxed) + 1,
            server: server.to_string(),
            message,
            schema,
            order,
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
}
