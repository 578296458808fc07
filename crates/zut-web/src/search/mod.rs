//! `web_search` backends: DuckDuckGo's HTML page, SearXNG, Brave, Tavily,
//! Exa, and the model API's own search (`provider`, run through
//! [`ServerSearch`]). Each turns a query into [`Hit`]s; failures are texts the model
//! can act on (rate limits, bad keys, HTML where JSON was expected, empty
//! answers). Backend endpoints are the user's configuration, so they are
//! trusted (a SearXNG on 127.0.0.1 is fine); result URLs are only listed.

mod api;
mod duckduckgo;

use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, RETRY_AFTER};
use tokio_util::sync::CancellationToken;

use crate::config::{SearchBackend, SearchConfig};
use crate::limits::{
    MAX_SEARCH_BODY_BYTES, MAX_SNIPPET_CHARS, MAX_TITLE_CHARS, MAX_URL_BYTES,
    PROVIDER_SEARCH_TIMEOUT,
};
use crate::server_search::ServerSearch;

pub use api::{parse_brave, parse_exa, parse_searxng, parse_tavily};
pub use duckduckgo::parse as parse_duckduckgo;

/// One search result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// Title (bounded, never empty).
    pub title: String,
    /// An absolute http(s) URL without credentials or fragment.
    pub url: String,
    /// Snippet (bounded, may be empty).
    pub snippet: String,
}

/// `User-Agent` of search requests.
const USER_AGENT: &str = concat!("zut-web-search/", env!("CARGO_PKG_VERSION"));

/// Runs `query` on the configured backend; at most `max` unique hits and
/// the label of who searched. `server` is the `provider` backend's search
/// (the current model's), when the session has one.
pub async fn search(
    cfg: &SearchConfig,
    query: &str,
    max: usize,
    timeout: Duration,
    cancel: &CancellationToken,
    server: Option<&dyn ServerSearch>,
) -> Result<(Vec<Hit>, String), String> {
    let backend = cfg.backend;
    let mut label = backend.label().to_string();
    let timeout = if backend == SearchBackend::Provider {
        PROVIDER_SEARCH_TIMEOUT.max(timeout)
    } else {
        timeout
    };
    let work = async {
        let hits = match backend {
            SearchBackend::DuckDuckGo => duckduckgo::search(cfg, query).await?,
            SearchBackend::Searxng
            | SearchBackend::Brave
            | SearchBackend::Tavily
            | SearchBackend::Exa => api::search(cfg, query, max).await?,
            SearchBackend::Provider => {
                let Some(server) = server else {
                    return Err(
                        "web search: the \"provider\" backend (the model API's own server-side search) is not available in this session (no model provider is attached); set \"web\": {\"search\": {\"backend\": \"duckduckgo\"}} (or searxng, brave, tavily, exa) in config.json".to_string(),
                    );
                };
                let found = server.search(query, cancel).await?;
                label = found.label;
                found.hits
            }
        };
        Ok(hits)
    };
    let hits = tokio::select! {
        r = tokio::time::timeout(timeout, work) => match r {
            Ok(r) => r?,
            Err(_) => return Err(format!("web search: timed out ({} did not answer within {} s)", backend.label(), timeout.as_secs())),
        },
        _ = cancel.cancelled() => return Err("web search: request cancelled".into()),
    };
    let mut seen = std::collections::HashSet::new();
    let hits: Vec<Hit> = hits
        .into_iter()
        .filter_map(clean_hit)
        .filter(|h| seen.insert(h.url.clone()))
        .take(max)
        .collect();
    if hits.is_empty() {
        return Err(format!(
            "web search: no usable HTTP(S) results from {label} for this query"
        ));
    }
    Ok((hits, label))
}

/// A client for backend requests: standard proxy environment honoured, no
/// redirects (a redirect is an error), no cookies.
fn client() -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(USER_AGENT)
        .connect_timeout(Duration::from_secs(8))
        .build()
        .map_err(|e| format!("web search: cannot build the HTTP client: {e}"))
}

/// A response body the backend sent, after status and size checks.
pub(crate) struct Body {
    pub(crate) mime: String,
    pub(crate) bytes: Vec<u8>,
}

/// Sends `req`; maps statuses to readable errors and reads at most
/// [`MAX_SEARCH_BODY_BYTES`].
async fn send(req: reqwest::RequestBuilder, label: &str) -> Result<Body, String> {
    let mut resp = req.send().await.map_err(|e| {
        let mut text = e.to_string();
        let mut src = std::error::Error::source(&e);
        while let Some(s) = src {
            text.push_str(": ");
            text.push_str(&s.to_string());
            src = s.source();
        }
        format!("web search: {label} request failed: {text}")
    })?;
    let status = resp.status();
    if status.as_u16() == 429 {
        let after = resp
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(|s| format!(" (Retry-After: {s})"))
            .unwrap_or_default();
        return Err(format!(
            "web search: {label} is rate-limiting requests (HTTP 429){after}; wait before searching again, or choose another backend with \"web\": {{\"search\": {{\"backend\": …}}}} in config.json"
        ));
    }
    if status.as_u16() == 401 || status.as_u16() == 403 {
        return Err(format!(
            "web search: {label} refused the request (HTTP {status}); check its API key"
        ));
    }
    if status.is_redirection() {
        return Err(format!(
            "web search: {label} answered with a redirect (HTTP {status}); check web.search.url"
        ));
    }
    if !status.is_success() {
        return Err(format!("web search: {label} returned HTTP {status}"));
    }
    let mime = resp
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let mut bytes = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| format!("web search: {label} response broke off: {e}"))?
    {
        if bytes.len() + chunk.len() > MAX_SEARCH_BODY_BYTES {
            return Err(format!(
                "web search: {label} returned more than {} MiB",
                MAX_SEARCH_BODY_BYTES / (1024 * 1024)
            ));
        }
        bytes.extend_from_slice(&chunk);
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(format!("web search: {label} returned an empty response"));
    }
    Ok(Body { mime, bytes })
}

/// Bounds title and snippet, checks and normalises the URL; `None` drops
/// the hit.
fn clean_hit(h: Hit) -> Option<Hit> {
    let url = clean_url(&h.url)?;
    let title = bounded(&strip_tags(&h.title), MAX_TITLE_CHARS);
    let title = if title.is_empty() {
        "(untitled result)".to_string()
    } else {
        title
    };
    let snippet = bounded(&strip_tags(&h.snippet), MAX_SNIPPET_CHARS);
    Some(Hit {
        title,
        url,
        snippet,
    })
}

/// An http(s) URL with a host, no credentials, no fragment, ≤ 4 KiB.
pub(crate) fn clean_url(raw: &str) -> Option<String> {
    let mut u = url::Url::parse(raw.trim()).ok()?;
    if !matches!(u.scheme(), "http" | "https") || u.host_str().is_none_or(str::is_empty) {
        return None;
    }
    if !u.username().is_empty() || u.password().is_some() {
        return None;
    }
    u.set_fragment(None);
    let s = String::from(u);
    (s.len() <= MAX_URL_BYTES).then_some(s)
}

/// Tags removed, a few entities decoded, whitespace and control
/// characters collapsed (snippets of some APIs carry `<strong>`).
pub(crate) fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if in_tag => {}
            c if c.is_control() || is_bidi(c) => out.push(' '),
            c => out.push(c),
        }
    }
    let out = out
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&nbsp;", " ");
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Bidirectional-text controls (they can make text read differently from
/// what it is).
pub(crate) fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// At most `max` characters, with `…` when cut.
pub(crate) fn bounded(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_are_cleaned() {
        let h = clean_hit(Hit {
            title: "<b>Rust</b> &amp; you\u{202E}".into(),
            url: "HTTPS://Example.com/a#x".into(),
            snippet: "x".repeat(900),
        });
        let h = h.unwrap_or_else(|| unreachable!());
        assert_eq!(h.title, "Rust & you");
        assert_eq!(h.url, "https://example.com/a");
        assert_eq!(h.snippet.chars().count(), MAX_SNIPPET_CHARS);
        for bad in [
            "javascript:alert(1)",
            "https://u:p@x.com/",
            "ftp://x.com/",
            "/relative",
        ] {
            assert!(clean_url(bad).is_none(), "{bad}");
        }
    }
}
