//! The JSON backends: SearXNG (self-hosted), Brave Search, Tavily, Exa.
//! Response formats follow each API's public documentation; only the
//! fields zut shows are read, so additions on their side do not break it.

use serde::Deserialize;
use serde_json::json;

use super::{send, Body, Hit};
use crate::config::{SearchBackend, SearchConfig};

/// Brave Search's web endpoint.
pub const BRAVE_ENDPOINT: &str = "https://api.search.brave.com/res/v1/web/search";
/// Tavily's search endpoint.
pub const TAVILY_ENDPOINT: &str = "https://api.tavily.com/search";
/// Exa's search endpoint.
pub const EXA_ENDPOINT: &str = "https://api.exa.ai/search";

pub(super) async fn search(
    cfg: &SearchConfig,
    query: &str,
    max: usize,
) -> Result<Vec<Hit>, String> {
    let b = cfg.backend;
    let label = b.label();
    let key = || -> Result<&str, String> {
        cfg.api_key.as_deref().filter(|k| !k.trim().is_empty()).ok_or_else(|| {
            format!(
                "web search: {label} needs an API key: set {} or add {{\"{}\": {{\"api_key\": \"…\"}}}} to $ZUT_HOME/auth.json",
                b.key_env().unwrap_or(""),
                b.auth_id().unwrap_or("")
            )
        })
    };
    let client = super::client()?;
    let accept = (reqwest::header::ACCEPT, "application/json");
    let req = match b {
        SearchBackend::Searxng => {
            let base = cfg.url.as_deref().ok_or(
                "web search: the searxng backend needs the instance's URL: \"web\": {\"search\": {\"backend\": \"searxng\", \"url\": \"http://127.0.0.1:8888\"}} in config.json",
            )?;
            let base = base.trim_end_matches('/');
            let endpoint = if base.ends_with("/search") {
                base.to_string()
            } else {
                format!("{base}/search")
            };
            client
                .get(endpoint)
                .query(&[("q", query), ("format", "json")])
                .header(accept.0, accept.1)
        }
        SearchBackend::Brave => client
            .get(cfg.url.as_deref().unwrap_or(BRAVE_ENDPOINT))
            .query(&[("q", query), ("count", &max.to_string())])
            .header(accept.0, accept.1)
            .header("X-Subscription-Token", key()?),
        SearchBackend::Tavily => client
            .post(cfg.url.as_deref().unwrap_or(TAVILY_ENDPOINT))
            .header(accept.0, accept.1)
            .bearer_auth(key()?)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(json!({"query": query, "max_results": max, "search_depth": "basic"}).to_string()),
        SearchBackend::Exa => client
            .post(cfg.url.as_deref().unwrap_or(EXA_ENDPOINT))
            .header(accept.0, accept.1)
            .header("x-api-key", key()?)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(
                json!({
                    "query": query,
                    "numResults": max,
                    "contents": {"highlights": {"numSentences": 2}}
                })
                .to_string(),
            ),
        SearchBackend::DuckDuckGo | SearchBackend::Provider => {
            return Err(format!("web search: {label} is not a JSON backend"))
        }
    };
    let body = send(req, label).await.map_err(|e| {
        if b == SearchBackend::Searxng && e.contains("HTTP 403") {
            format!("{e}; SearXNG answers 403 when the JSON format is off: add `json` to search.formats in its settings.yml")
        } else {
            e
        }
    })?;
    json_body(&body, label)?;
    let parsed = match b {
        SearchBackend::Searxng => parse_searxng(&body.bytes),
        SearchBackend::Brave => parse_brave(&body.bytes),
        SearchBackend::Tavily => parse_tavily(&body.bytes),
        _ => parse_exa(&body.bytes),
    };
    parsed.map_err(|e| format!("web search: {label} returned an unparseable response: {e}"))
}

/// Refuses an HTML page where JSON was expected (a wrong URL, a login or
/// error page).
fn json_body(body: &Body, label: &str) -> Result<(), String> {
    let start = body
        .bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .copied();
    if body.mime == "text/html" || body.mime == "application/xhtml+xml" || start == Some(b'<') {
        return Err(format!(
            "web search: {label} returned an HTML page instead of JSON; check web.search.url in config.json"
        ));
    }
    Ok(())
}

#[derive(Deserialize)]
struct UrlTitle {
    #[serde(default)]
    url: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    description: Option<String>,
}

impl From<UrlTitle> for Hit {
    fn from(r: UrlTitle) -> Self {
        Hit {
            title: r.title.unwrap_or_default(),
            url: r.url,
            snippet: r.content.or(r.description).unwrap_or_default(),
        }
    }
}

#[derive(Deserialize)]
struct Results<T> {
    results: Vec<T>,
}

/// SearXNG `GET /search?format=json`: `{"results": [{"url", "title", "content"}]}`.
pub fn parse_searxng(bytes: &[u8]) -> Result<Vec<Hit>, String> {
    let r: Results<UrlTitle> = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    Ok(r.results.into_iter().map(Hit::from).collect())
}

/// Tavily `POST /search`: `{"results": [{"title", "url", "content", "score"}]}`.
pub fn parse_tavily(bytes: &[u8]) -> Result<Vec<Hit>, String> {
    parse_searxng(bytes)
}

/// Brave `GET /res/v1/web/search`: `{"web": {"results": [{"title", "url",
/// "description"}]}}`; no `web` section means no results.
pub fn parse_brave(bytes: &[u8]) -> Result<Vec<Hit>, String> {
    #[derive(Deserialize)]
    struct Brave {
        #[serde(default)]
        web: Option<Results<UrlTitle>>,
        #[serde(rename = "type", default)]
        kind: Option<String>,
    }
    let r: Brave = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    if r.web.is_none() && r.kind.as_deref() != Some("search") {
        return Err("no \"web\" results section".into());
    }
    Ok(r.web
        .map(|w| w.results)
        .unwrap_or_default()
        .into_iter()
        .map(Hit::from)
        .collect())
}

/// Exa `POST /search`: `{"results": [{"title", "url", "highlights": [..],
/// "text", "summary"}]}`.
pub fn parse_exa(bytes: &[u8]) -> Result<Vec<Hit>, String> {
    #[derive(Deserialize)]
    struct Exa {
        #[serde(default)]
        url: String,
        #[serde(default)]
        title: Option<String>,
        #[serde(default)]
        highlights: Vec<String>,
        #[serde(default)]
        text: Option<String>,
        #[serde(default)]
        summary: Option<String>,
    }
    let r: Results<Exa> = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    Ok(r.results
        .into_iter()
        .map(|e| Hit {
            title: e.title.unwrap_or_default(),
            url: e.url,
            snippet: if e.highlights.is_empty() {
                e.summary.or(e.text).unwrap_or_default()
            } else {
                e.highlights.join(" … ")
            },
        })
        .collect())
}
