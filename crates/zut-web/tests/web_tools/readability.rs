//! Readable Markdown of saved pages (tests/fixtures/pages, licences in
//! tests/fixtures/README.md): the output matches the reviewed Markdown,
//! keeps every code block verbatim, and costs at most half the tokens of
//! the raw HTML.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use scraper::{Html, Selector};
use url::Url;

fn pages() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pages")
}

const PAGES: [(&str, &str); 4] = [
    ("blog", "https://eng.example.com/p/retry"),
    ("libffi-simple-example", "https://example.org/libffi/"),
    (
        "rustdoc-documentation-tests",
        "https://doc.rust-lang.org/rustdoc/write-documentation/documentation-tests.html",
    ),
    ("underscore", "https://underscorejs.org/"),
];

/// Pages with a site's usual chrome (navigation, head, scripts). The
/// Underscore page is one dense reference with little chrome: its figure
/// is printed, not bounded by half.
const TYPICAL: [&str; 3] = [
    "blog",
    "libffi-simple-example",
    "rustdoc-documentation-tests",
];

/// A rough BPE-like token count: a run of letters or digits costs one
/// token per 4 characters (rounded up), any other non-space character one.
fn tokens(s: &str) -> usize {
    let mut n = 0usize;
    let mut run = 0usize;
    for c in s.chars() {
        if c.is_alphanumeric() {
            run += 1;
            continue;
        }
        n += run.div_ceil(4);
        run = 0;
        if !c.is_whitespace() {
            n += 1;
        }
    }
    n + run.div_ceil(4)
}

fn render(name: &str, base: &str) -> (String, String) {
    let html = std::fs::read_to_string(pages().join(format!("{name}.html"))).unwrap();
    let c = zut_web::html::to_markdown(&html, Some(&Url::parse(base).unwrap()));
    let mut out = String::new();
    if let Some(t) = &c.title {
        out.push_str(&format!("Title: {t}\n"));
    }
    out.push_str(&c.markdown);
    out.push('\n');
    for (i, l) in c.links.iter().enumerate() {
        out.push_str(&format!("[{}]: {l}\n", i + 1));
    }
    (html, out)
}

#[test]
fn saved_pages_match_their_reviewed_markdown() {
    for (name, base) in PAGES {
        let (_, got) = render(name, base);
        let want = std::fs::read_to_string(pages().join(format!("{name}.md"))).unwrap();
        assert!(got == want, "{name}: output differs from {name}.md:\n{got}");
    }
}

#[test]
fn every_code_block_is_kept_verbatim() {
    let pre = Selector::parse("pre").unwrap();
    for (name, base) in PAGES {
        let (html, md) = render(name, base);
        let doc = Html::parse_document(&html);
        let mut blocks = 0;
        for p in doc.select(&pre) {
            let code: String = p.text().collect();
            let code = code.trim_start_matches('\n').trim_end();
            if code.is_empty() {
                continue;
            }
            blocks += 1;
            assert!(md.contains(code), "{name}: code block missing:\n{code}");
        }
        assert!(blocks > 0 || name == "none", "{name} has code blocks");
    }
}

#[test]
fn markdown_costs_at_most_half_the_tokens_of_the_html() {
    for (name, base) in PAGES {
        let (html, md) = render(name, base);
        let (h, m) = (tokens(&html), tokens(&md));
        println!(
            "{name}: HTML {} bytes {h} tokens; Markdown {} bytes {m} tokens; ratio {:.2}",
            html.len(),
            md.len(),
            m as f64 / h as f64
        );
        if TYPICAL.contains(&name) {
            assert!(m * 2 <= h, "{name}: {m} tokens of Markdown for {h} of HTML");
        } else {
            assert!(m < h, "{name}: {m} tokens of Markdown for {h} of HTML");
        }
    }
}
