#![allow(clippy::unwrap_used)]
use super::*;

fn md(html: &str) -> Converted {
    to_markdown(
        html,
        Some(&Url::parse("https://example.com/docs/page").unwrap()),
    )
}

#[test]
fn main_content_headings_lists_and_links() {
    let c = md(r#"<html><head><title> My  Doc </title></head><body>
        <header><a href="/">Home</a></header><nav><a href="/a">A</a></nav>
        <main><h1>Install</h1><p>Run <code>cargo add zut</code> and see
        <a href="../api#x">the API</a>.</p>
        <ul><li>one</li><li>two <a href="https://other.org/">other</a><ol start="3"><li>deep</li></ol></li></ul>
        <blockquote><p>quoted</p></blockquote></main>
        <footer>© 2024</footer></body></html>"#);
    assert_eq!(c.title.as_deref(), Some("My Doc"));
    assert_eq!(
        c.markdown,
        "# Install\n\nRun `cargo add zut` and see [the API][1].\n\n- one\n- two [other][2]\n  3. deep\n\n> quoted"
    );
    assert_eq!(
        c.links,
        vec!["https://example.com/api", "https://other.org/"]
    );
}

#[test]
fn code_blocks_are_verbatim_with_language() {
    let c = md("<body><p>x</p><div class=\"highlight-python\"><div class=\"highlight\"><pre><span>def</span> f():\n    return  `1`\n\n\n    # end</pre></div></div>\
                <pre><code class=\"language-rust\">fn main() {\n    println!(\"&lt;hi&gt;\");\n}</code></pre>\
                <p>a <code>inline</code> b</p></body>");
    assert!(
        c.markdown
            .contains("```python\ndef f():\n    return  `1`\n\n\n    # end\n```"),
        "{}",
        c.markdown
    );
    assert!(
        c.markdown
            .contains("```rust\nfn main() {\n    println!(\"<hi>\");\n}\n```"),
        "{}",
        c.markdown
    );
    assert!(c.markdown.ends_with("a `inline` b"));
    let c = md("<pre>has ``` fence</pre>");
    assert!(
        c.markdown.starts_with("````\nhas ``` fence\n````"),
        "{}",
        c.markdown
    );
}

#[test]
fn tables_become_markdown_tables() {
    let c = md(
        "<table><caption>Flags</caption><tr><th>Flag</th><th>Meaning</th></tr>\
                <tr><td><code>-p</code></td><td>print | mode</td></tr><tr><td>-v</td></tr></table>",
    );
    assert_eq!(
        c.markdown,
        "Flags\n| Flag | Meaning |\n| --- | --- |\n| `-p` | print \\| mode |\n| -v |  |"
    );
}

#[test]
fn a_table_holding_code_is_layout() {
    let c = md("<table><tr><td>1\n2</td><td><pre>a\nb</pre></td></tr></table>");
    assert!(c.markdown.contains("```\na\nb\n```"), "{}", c.markdown);
}

#[test]
fn scripts_hidden_and_chrome_are_skipped() {
    let c = md("<body><script>alert(1)</script><style>p{}</style><div hidden>h</div>\
                <div style=\"display: none\">n</div><div class=\"sidebar\">s</div>\
                <p aria-hidden=\"true\">a</p><p>kept</p><form><input value=x><label>l</label></form></body>");
    assert_eq!(c.markdown, "kept\n\nl");
    let c = md("<html><head><script>x()</script></head><body><script>y()</script><div id=app></div></body></html>");
    assert_eq!(c.markdown, "");
    assert_eq!(c.scripts, 2);
}

#[test]
fn ten_thousand_nested_elements_do_not_overflow() {
    let n = 10_000;
    for tag in ["div", "blockquote", "ul", "span", "table"] {
        let inner = if tag == "ul" { "<li>" } else { "" };
        let html = format!(
            "<body>{}deep text{}</body>",
            format!("<{tag}>{inner}").repeat(n),
            format!("</{tag}>").repeat(n)
        );
        let c = md(&html);
        assert!(
            c.markdown.contains("deep text"),
            "{tag}: {}",
            &c.markdown[..c.markdown.len().min(200)]
        );
        assert!(c.markdown.len() < 1000, "{tag}: {}", c.markdown.len());
    }
}

#[test]
fn links_are_numbered_once_and_unsafe_ones_dropped() {
    let c = md("<p><a href=\"/x\">x</a> <a href=\"/x#frag\">again</a> <a href=\"javascript:void(0)\">js</a> \
                <a href=\"#top\">top</a> <a href=\"https://u:p@evil.com/\">creds</a> <a href=\"/img\"><img alt=\"Logo\"></a>\
                <a href=\"/empty\"></a></p>");
    assert_eq!(c.markdown, "[x][1] [again][1] js top creds [Logo][2]");
    assert_eq!(
        c.links,
        vec!["https://example.com/x", "https://example.com/img"]
    );
}

#[test]
fn base_href_and_article_root() {
    let c = to_markdown(
        "<head><base href=\"https://docs.rs/zut/\"></head><body><div>menu</div><article><p><a href=\"a.html\">A</a></p></article></body>",
        Some(&Url::parse("https://example.com/").unwrap()),
    );
    assert_eq!(c.markdown, "[A][1]");
    assert_eq!(c.links, vec!["https://docs.rs/zut/a.html"]);
}

#[test]
fn a_page_nested_to_stall_the_parser_is_cut_with_its_start_kept() {
    // 10,000 levels are read whole.
    let ten_k = format!(
        "<body><p>top</p>{}deep text{}</body>",
        "<div>".repeat(10_000),
        "</div>".repeat(10_000)
    );
    let c = md(&ten_k);
    assert!(!c.nesting_cut && c.markdown.contains("deep text"));
    // 200,000 levels would take the parser minutes: it stops once its
    // budget is spent, keeping what came before.
    let n = 200_000;
    let html = format!(
        "<body><p>top</p>{}deep text{}</body>",
        "<div>".repeat(n),
        "</div>".repeat(n)
    );
    let c = md(&html);
    assert!(c.nesting_cut);
    assert_eq!(c.markdown, "top");
    // Deeply nested inline elements cost the parser little: kept whole.
    let c = md(&format!(
        "<body>{}bold{}</body>",
        "<b>".repeat(n),
        "</b>".repeat(n)
    ));
    assert!(
        !c.nesting_cut && c.markdown.contains("bold"),
        "{}",
        c.nesting_cut
    );
}
