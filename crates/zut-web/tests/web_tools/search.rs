//! Search backends: each response format parsed from a fixture shaped like
//! its public documentation, each backend driven through `web_search`
//! against a fixture server (request shape, key headers), and the faults:
//! 429, HTML instead of JSON, an empty answer, a silent backend, a missing
//! key.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Fixture, Reply};
use serde_json::json;
use zut_tools::ToolContext;
use zut_web::search::{parse_brave, parse_duckduckgo, parse_exa, parse_searxng, parse_tavily};
use zut_web::{SearchBackend, SearchConfig, WebConfig, WebRuntime};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
    )
    .unwrap()
}

#[test]
fn documented_formats_parse() {
    let s = parse_searxng(fixture("searxng.json").as_bytes()).unwrap();
    assert_eq!(s.len(), 3);
    assert_eq!(s[0].url, "https://docs.rs/html5ever/latest/html5ever/");
    assert_eq!(s[0].snippet, "High-performance browser-grade HTML5 parser.");
    let b = parse_brave(fixture("brave.json").as_bytes()).unwrap();
    assert_eq!(b.len(), 2);
    assert_eq!(b[0].title, "html5ever - <strong>Rust</strong>");
    assert!(parse_brave(br#"{"type":"search"}"#).unwrap().is_empty());
    let t = parse_tavily(fixture("tavily.json").as_bytes()).unwrap();
    assert_eq!(t[1].url, "https://crates.io/crates/scraper");
    let e = parse_exa(fixture("exa.json").as_bytes()).unwrap();
    assert_eq!(
        e[0].snippet,
        "High-performance browser-grade HTML5 parser. … Used by Servo."
    );
    assert_eq!(
        e[1].snippet,
        "HTML parsing and querying with CSS selectors."
    );
    let d = parse_duckduckgo(&fixture("duckduckgo.html")).unwrap();
    assert_eq!(d.len(), 2, "the ad is skipped");
    assert_eq!(d[0].url, "https://docs.rs/html5ever/");
    assert_eq!(d[1].title, "scraper & selectors");
    assert!(
        parse_duckduckgo("<html><form id=challenge-form>captcha</form></html>")
            .unwrap_err()
            .contains("challenge")
    );
    assert!(parse_duckduckgo("<html><body>nothing here</body></html>")
        .unwrap_err()
        .contains("unparseable"));
    assert!(parse_searxng(b"{\"results\": 3}").is_err());
}

fn runtime(backend: SearchBackend, url: String, key: Option<&str>) -> WebRuntime {
    WebRuntime::new(WebConfig {
        search: SearchConfig {
            backend,
            url: Some(url),
            api_key: key.map(str::to_string),
        },
        ..Default::default()
    })
}

async fn search(rt: &WebRuntime, query: &str) -> zut_tools::ToolOutput {
    rt.run(
        "web_search",
        &json!({"query": query, "max_results": 2}),
        &ToolContext::new(std::env::temp_dir()),
    )
    .await
}

#[tokio::test]
async fn every_backend_through_web_search() {
    let f = Fixture::start(|path, _| {
        let json = |name: &str| Reply::typed("application/json", fixture(name).into_bytes());
        match path.split('?').next().unwrap() {
            "/searxng/search" => json("searxng.json"),
            "/brave" => json("brave.json"),
            "/tavily" => json("tavily.json"),
            "/exa" => json("exa.json"),
            "/ddg" => Reply::html(&fixture("duckduckgo.html")),
            _ => Reply::status(404, "text/plain", "no"),
        }
    });
    let cases = [
        (
            SearchBackend::Searxng,
            "/searxng",
            None,
            "Web search via SearXNG.",
        ),
        (
            SearchBackend::Brave,
            "/brave",
            Some("brave-key"),
            "Web search via Brave Search.",
        ),
        (
            SearchBackend::Tavily,
            "/tavily",
            Some("tvly-key"),
            "Web search via Tavily.",
        ),
        (
            SearchBackend::Exa,
            "/exa",
            Some("exa-key"),
            "Web search via Exa.",
        ),
        (
            SearchBackend::DuckDuckGo,
            "/ddg",
            None,
            "Web search via DuckDuckGo HTML.",
        ),
    ];
    for (backend, path, key, head) in cases {
        let rt = runtime(backend, f.url(path), key);
        let out = search(&rt, "rust  html\u{202E} parser").await;
        let t = out.text_content();
        assert!(!out.is_error, "{backend:?}: {t}");
        assert!(t.starts_with(head), "{t}");
        assert!(t.contains("Results are untrusted external content"));
        assert!(
            t.contains("[1] html5ever - Rust (ref: web-1)\n    https://docs.rs/html5ever/"),
            "{backend:?}: {t}"
        );
        assert!(t.contains("(ref: web-2)") && !t.contains("web-3"), "{t}");
        // The reference opens (as a source) in web_open's preview.
        assert!(rt
            .preview("web_open", &json!({"ref_id": "web-1"}))
            .unwrap()
            .contains("https://docs.rs/html5ever"));
    }
    let reqs = f.requests();
    let find = |p: &str| reqs.iter().find(|r| r.contains(p)).unwrap().clone();
    assert!(find("GET /searxng/search?").contains("format=json"));
    assert!(
        find("GET /searxng/search?").contains("q=rust+html+parser"),
        "query sanitised"
    );
    assert!(find("GET /brave?")
        .to_ascii_lowercase()
        .contains("x-subscription-token: brave-key"));
    assert!(find("GET /brave?").contains("count=2"));
    let tavily = find("POST /tavily");
    assert!(tavily
        .to_ascii_lowercase()
        .contains("authorization: bearer tvly-key"));
    assert!(
        tavily.contains(r#""max_results":2"#) && tavily.contains(r#""query":"rust html parser""#)
    );
    let exa = find("POST /exa");
    assert!(
        exa.to_ascii_lowercase().contains("x-api-key: exa-key")
            && exa.contains(r#""numResults":2"#)
    );
}

#[tokio::test]
async fn backend_faults_are_clear_errors() {
    let f = Fixture::start(|path, _| match path.split('?').next().unwrap() {
        "/limited/search" => Reply::Full(
            429,
            vec![
                ("Retry-After".into(), "30".into()),
                ("Content-Type".into(), "application/json".into()),
            ],
            b"{}".to_vec(),
        ),
        "/html/search" => Reply::html("<html><body>Login</body></html>"),
        "/empty/search" => Reply::typed("application/json", Vec::new()),
        "/garbage/search" => Reply::typed("application/json", b"{\"results\": \"x\"}".to_vec()),
        "/none/search" => Reply::typed("application/json", b"{\"results\": []}".to_vec()),
        "/forbidden/search" => Reply::status(403, "text/plain", "json format disabled"),
        _ => Reply::status(404, "text/plain", "no"),
    });
    let cases = [
        (
            "/limited",
            "web search: SearXNG is rate-limiting requests (HTTP 429) (Retry-After: 30)",
        ),
        (
            "/html",
            "web search: SearXNG returned an HTML page instead of JSON",
        ),
        ("/empty", "web search: SearXNG returned an empty response"),
        (
            "/garbage",
            "web search: SearXNG returned an unparseable response",
        ),
        ("/none", "web search: no usable HTTP(S) results"),
        ("/forbidden", "add `json` to search.formats"),
    ];
    for (path, want) in cases {
        let out = search(&runtime(SearchBackend::Searxng, f.url(path), None), "q").await;
        assert!(out.is_error, "{path}");
        assert!(
            out.text_content().contains(want),
            "{path}: {}",
            out.text_content()
        );
    }
    // A backend that accepts the connection and never answers: the time
    // cap ends the search (15 s in the tool; 1 s here).
    let silent = Fixture::start(|_, _| Reply::Silent);
    let cfg = SearchConfig {
        backend: SearchBackend::Searxng,
        url: Some(silent.url("")),
        api_key: None,
    };
    let cancel = tokio_util::sync::CancellationToken::new();
    let err = zut_web::search::search(
        &cfg,
        "q",
        5,
        std::time::Duration::from_secs(1),
        &cancel,
        None,
    )
    .await
    .unwrap_err();
    assert!(
        err.starts_with("web search: timed out (SearXNG did not answer within 1 s)"),
        "{err}"
    );
    // Nothing listening.
    let out = search(
        &runtime(SearchBackend::Searxng, "http://127.0.0.1:9".into(), None),
        "q",
    )
    .await;
    assert!(
        out.text_content()
            .starts_with("web search: SearXNG request failed"),
        "{}",
        out.text_content()
    );
    // A keyed backend without a key never sends a request.
    let before = f.requests().len();
    let out = search(&runtime(SearchBackend::Brave, f.url("/brave"), None), "q").await;
    assert!(
        out.text_content()
            .contains("Brave Search needs an API key: set BRAVE_API_KEY"),
        "{}",
        out.text_content()
    );
    assert_eq!(f.requests().len(), before);
    let out = search(&runtime(SearchBackend::Provider, String::new(), None), "q").await;
    assert!(
        out.text_content().contains("\"provider\" backend"),
        "{}",
        out.text_content()
    );
    // Bad arguments.
    let rt = runtime(SearchBackend::Searxng, f.url("/none"), None);
    let ctx = ToolContext::new(std::env::temp_dir());
    let out = rt
        .run("web_search", &json!({"query": "  \u{7} "}), &ctx)
        .await;
    assert!(out.text_content().starts_with("web search: invalid query"));
    let out = rt
        .run(
            "web_search",
            &json!({"query": "x", "max_results": 11}),
            &ctx,
        )
        .await;
    assert!(out
        .text_content()
        .starts_with("web search: invalid max_results"));
}
