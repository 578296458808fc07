//! Any bytes, decoded as a page would be, through the HTML to Markdown
//! converter: it must not panic, its links must be absolute http(s) URLs,
//! and every `[k]` it writes must name a link.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let html = zut_web::decode::text(data, None, true);
    let base = url::Url::parse("https://example.com/a/b.html").ok();
    let c = zut_web::html::to_markdown(&html, base.as_ref());
    for l in &c.links {
        assert!(l.starts_with("http://") || l.starts_with("https://"), "{l}");
    }
    assert!(c.markdown.len() <= zut_web::limits::MAX_PAGE_TEXT_BYTES);
});
