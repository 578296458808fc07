//! The `provider` search backend's seam: the model API's own server-side
//! search, run by whoever owns the provider (zut-agent) and handed to
//! [`crate::WebRuntime::run_with_search`] per call, so the current model is
//! the one that searches. zut-web only bounds, checks and lists what it
//! returns, with `web-N` references like every other backend.

use std::future::Future;
use std::pin::Pin;

use tokio_util::sync::CancellationToken;

use crate::search::Hit;

/// What a server-side search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerResults {
    /// Who searched, for the result header (`anthropic's server-side web
    /// search (claude-sonnet-4-5)`).
    pub label: String,
    /// The sources, best first (checked and bounded by the caller).
    pub hits: Vec<Hit>,
}

/// A future of [`ServerSearch::search`].
pub type SearchFuture<'a> =
    Pin<Box<dyn Future<Output = Result<ServerResults, String>> + Send + 'a>>;

/// Runs one server-side search for `web_search`'s `provider` backend.
pub trait ServerSearch: Send + Sync {
    /// Searches for `query`; errors are texts for the model (why, and what
    /// to do). Cancelling `cancel` stops the request.
    fn search<'a>(&'a self, query: &'a str, cancel: &'a CancellationToken) -> SearchFuture<'a>;
}
