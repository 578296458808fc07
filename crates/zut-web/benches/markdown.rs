//! HTML to Markdown of a 2 MB documentation page (the Underscore.js
//! reference, tests/fixtures/pages, its body repeated to 2 MB), and of a
//! 48 KB mdBook page. Run: `cargo bench -p zut-web --bench markdown`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn page(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pages")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// `html` with its body content repeated until the page is at least `size` bytes.
pub fn grow(html: &str, size: usize) -> String {
    let start = html.find("<body").unwrap();
    let start = start + html[start..].find('>').unwrap() + 1;
    let end = html.rfind("</body>").unwrap();
    let body = &html[start..end];
    let mut out = html[..start].to_string();
    while out.len() + (html.len() - end) < size {
        out.push_str(body);
    }
    out.push_str(&html[end..]);
    out
}

fn bench(c: &mut Criterion) {
    let base = url::Url::parse("https://underscorejs.org/").unwrap();
    let big = grow(&page("underscore.html"), 2_000_000);
    let mut g = c.benchmark_group("html_to_markdown");
    g.sample_size(20);
    g.throughput(Throughput::Bytes(big.len() as u64));
    g.bench_function("underscore_2MB", |b| {
        b.iter(|| zut_web::html::to_markdown(&big, Some(&base)))
    });
    let small = page("rustdoc-documentation-tests.html");
    g.throughput(Throughput::Bytes(small.len() as u64));
    g.bench_function("rustdoc_book_48KB", |b| {
        b.iter(|| zut_web::html::to_markdown(&small, Some(&base)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
