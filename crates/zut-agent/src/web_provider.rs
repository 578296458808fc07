//! The `provider` web-search backend: `web_search` through the current
//! model API's own server-side search (Anthropic's `web_search` server
//! tool, the OpenAI Responses `web_search` tool), as a side request of the
//! agent's provider and model (`zut_providers::Provider::web_search`). The
//! sources become `zut_web` hits, listed with `web-N` references like any
//! other backend's.

use tokio_util::sync::CancellationToken;
use zut_providers::{Provider, ProviderError, WebSource};
use zut_web::search::Hit;
use zut_web::{SearchFuture, ServerResults, ServerSearch};

/// The server-side search of one provider and model.
pub(crate) struct ProviderSearch {
    provider: Provider,
}

impl ProviderSearch {
    pub(crate) fn new(provider: Provider) -> Self {
        Self { provider }
    }
}

/// What to do when the provider refused the search tool.
const CHOOSE_ANOTHER: &str = "if this model has no server-side web search, set \"web\": {\"search\": {\"backend\": \"duckduckgo\"}} (or searxng, brave, tavily, exa) in config.json";

fn error_text(name: &str, e: ProviderError) -> String {
    match e {
        ProviderError::Aborted => "web search: request cancelled".to_string(),
        ProviderError::Config(m) => format!("web search: {m}"),
        ProviderError::Http {
            status: 400 | 404 | 422,
            ..
        } => {
            format!("web search: {name}'s server-side search was refused: {e}; {CHOOSE_ANOTHER}")
        }
        ProviderError::Http { status: 429, .. } => format!(
            "web search: {name} is rate-limiting requests: {e}; wait before searching again"
        ),
        e => format!("web search: {name}'s server-side search failed: {e}"),
    }
}

/// A title for a source that has none: its host.
fn title_of(s: &WebSource) -> String {
    if !s.title.trim().is_empty() {
        return s.title.clone();
    }
    let rest = s.url.split_once("://").map_or("", |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority.rsplit('@').next().unwrap_or("").to_string()
}

fn hit(s: WebSource) -> Hit {
    let title = title_of(&s);
    let snippet = match (&s.page_age, s.snippet.trim()) {
        (Some(age), "") => format!("(page age: {age})"),
        (Some(age), text) => format!("{text} (page age: {age})"),
        (None, text) => text.to_string(),
    };
    Hit {
        title,
        url: s.url,
        snippet,
    }
}

impl ServerSearch for ProviderSearch {
    fn search<'a>(&'a self, query: &'a str, cancel: &'a CancellationToken) -> SearchFuture<'a> {
        Box::pin(async move {
            let name = self.provider.name();
            let model = self.provider.model();
            let found = self
                .provider
                .web_search(model, query, cancel)
                .await
                .map_err(|e| error_text(name, e))?;
            Ok(ServerResults {
                label: format!("{name}'s server-side web search ({model})"),
                hits: found.sources.into_iter().map(hit).collect(),
            })
        })
    }
}
