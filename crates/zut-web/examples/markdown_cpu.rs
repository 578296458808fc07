//! CPU time (not wall time: the figure holds on a busy machine) of HTML to
//! Markdown of a 2 MB page, and of html5ever's tokenizer alone (the floor
//! under any tree). Run: `cargo run --release -p zut-web --example
//! markdown_cpu [ROUNDS]` (20 rounds unless told; 0 skips the tokenizer).
#![allow(clippy::unwrap_used)]

fn main() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pages/underscore.html");
    let html = std::fs::read_to_string(path).unwrap();
    let start = html.find("<body").unwrap();
    let start = start + html[start..].find('>').unwrap() + 1;
    let end = html.rfind("</body>").unwrap();
    let mut page = html[..start].to_string();
    while page.len() < 2_000_000 {
        page.push_str(&html[start..end]);
    }
    page.push_str(&html[end..]);
    let base = url::Url::parse("https://underscorejs.org/").unwrap();
    let cpu = || {
        let s = std::fs::read_to_string("/proc/self/stat").unwrap();
        let f: Vec<&str> = s.rsplit(')').next().unwrap().split_whitespace().collect();
        (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) * 10.0
    };
    let rounds: u32 = std::env::args()
        .nth(1)
        .and_then(|r| r.parse().ok())
        .unwrap_or(20);
    let c0 = cpu();
    let mut links = 0;
    for _ in 0..rounds.max(1) {
        links = zut_web::html::to_markdown(&page, Some(&base)).links.len();
    }
    println!(
        "{} bytes, {links} links: cpu per conversion {:.1} ms",
        page.len(),
        (cpu() - c0) / f64::from(rounds.max(1))
    );
    if rounds == 0 {
        return;
    }
    let c0 = cpu();
    for _ in 0..rounds {
        let tok = html5ever::tokenizer::Tokenizer::new(Sink, Default::default());
        let q = html5ever::tokenizer::BufferQueue::default();
        q.push_back(html5ever::tendril::StrTendril::from_slice(&page));
        let _ = tok.feed(&q);
        tok.end();
    }
    println!(
        "cpu per tokenizer-only pass: {:.1} ms",
        (cpu() - c0) / f64::from(rounds)
    );
}
struct Sink;
impl html5ever::tokenizer::TokenSink for Sink {
    type Handle = ();
    fn process_token(
        &self,
        _: html5ever::tokenizer::Token,
        _: u64,
    ) -> html5ever::tokenizer::TokenSinkResult<()> {
        html5ever::tokenizer::TokenSinkResult::Continue
    }
}
