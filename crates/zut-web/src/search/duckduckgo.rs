//! DuckDuckGo's keyless HTML results page (the Go original's backend).
//! Best-effort: DuckDuckGo may answer automated queries with a challenge.

use scraper::{Html, Selector};

use super::{send, Hit};
use crate::config::SearchConfig;

/// DuckDuckGo's HTML endpoint.
pub const ENDPOINT: &str = "https://html.duckduckgo.com/html/";

/// Lower-cased markers of a challenge page.
const CHALLENGE: &[&str] = &[
    "unusual traffic",
    "automated queries",
    "are you a robot",
    "verify you are human",
    "checking your browser",
    "challenge-form",
    "captcha",
];

pub(super) async fn search(cfg: &SearchConfig, query: &str) -> Result<Vec<Hit>, String> {
    let endpoint = cfg.url.as_deref().unwrap_or(ENDPOINT);
    let req = super::client()?
        .get(endpoint)
        .query(&[("q", query)])
        .header(reqwest::header::ACCEPT, "text/html");
    let body = send(req, "DuckDuckGo").await?;
    if !body.mime.is_empty() && body.mime != "text/html" {
        return Err(format!(
            "web search: DuckDuckGo returned an unavailable response ({} instead of HTML)",
            body.mime
        ));
    }
    parse(&String::from_utf8_lossy(&body.bytes))
}

/// Results of a DuckDuckGo HTML page (ads skipped, `/l/?uddg=` links
/// unwrapped). Errors: a challenge page, or a page without result markup.
pub fn parse(html: &str) -> Result<Vec<Hit>, String> {
    let lower = html.to_ascii_lowercase();
    if CHALLENGE.iter().any(|m| lower.contains(m)) {
        return Err("web search: DuckDuckGo returned a challenge page instead of results (it limits automated queries); try again later or choose another backend in config.json (web.search.backend)".into());
    }
    let sel = |s: &str| Selector::parse(s).map_err(|_| format!("web search: bad selector {s}"));
    let (result, title, snippet) = (
        sel(".result")?,
        sel("a.result__a")?,
        sel(".result__snippet")?,
    );
    let doc = Html::parse_document(html);
    let mut hits = Vec::new();
    let mut blocks = 0;
    for r in doc.select(&result) {
        blocks += 1;
        if r.value().classes().any(|c| c == "result--ad") {
            continue;
        }
        let Some(a) = r.select(&title).next() else {
            continue;
        };
        let Some(href) = a.value().attr("href") else {
            continue;
        };
        let Some(url) = unwrap_link(href) else {
            continue;
        };
        let snippet = r
            .select(&snippet)
            .next()
            .map(|s| s.text().collect::<String>())
            .unwrap_or_default();
        hits.push(Hit {
            title: a.text().collect(),
            url,
            snippet,
        });
    }
    if blocks == 0 && !lower.contains("no results") && !lower.contains("no-results") {
        return Err(
            "web search: DuckDuckGo returned an unparseable response (no result markup)".into(),
        );
    }
    Ok(hits)
}

/// The target of a result link: `//duckduckgo.com/l/?uddg=<url>&rut=…`
/// unwrapped (exactly one `uddg`), other links as they are.
fn unwrap_link(href: &str) -> Option<String> {
    let abs = if href.starts_with("//") {
        format!("https:{href}")
    } else if href.starts_with('/') {
        format!("https://duckduckgo.com{href}")
    } else {
        href.to_string()
    };
    let u = url::Url::parse(&abs).ok()?;
    if u.host_str().is_some_and(|h| h.ends_with("duckduckgo.com")) && u.path() == "/l/" {
        let mut targets = u
            .query_pairs()
            .filter(|(k, _)| k == "uddg")
            .map(|(_, v)| v.into_owned());
        let first = targets.next()?;
        return targets.next().is_none().then_some(first);
    }
    Some(abs)
}
