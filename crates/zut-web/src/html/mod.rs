//! HTML to readable Markdown: the page's main content (its `main`, else a
//! lone `article`, else `body` without navigation, headers, footers and
//! asides), headings, lists, quotes, tables, inline code, code blocks kept
//! verbatim with their language, and links numbered for `web_click`.
//!
//! The document is parsed by html5ever into a compact arena ([`dom`]:
//! only what the converter reads), walked without recursion: a 10,000-level nested page cannot
//! overflow the stack. Past [`MAX_STRUCTURE_DEPTH`] levels elements stop
//! adding structure, so output stays linear in the input.

mod dom;
mod markdown;
mod skip;

use html5ever::tendril::TendrilSink;
use url::Url;

use dom::{Dom, DomSink, NodeRef, Value};

use crate::limits::{
    MAX_PAGE_TEXT_BYTES, MAX_PARSE_WORK, MAX_STRUCTURE_DEPTH, PARSE_WORK_PER_BYTE,
};

/// A page converted to Markdown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Converted {
    /// `<title>` (or the first `h1`), whitespace collapsed.
    pub title: Option<String>,
    /// The Markdown. Links read `[label][n]`; `n` indexes `links` from 1.
    pub markdown: String,
    /// Absolute http(s) link targets, numbered from 1.
    pub links: Vec<String>,
    /// The Markdown reached [`MAX_PAGE_TEXT_BYTES`] and was cut.
    pub truncated: bool,
    /// `script` elements seen (to explain an empty page).
    pub scripts: usize,
    /// The page nests elements so deeply that parsing it whole would take
    /// too long: only its start was converted.
    pub nesting_cut: bool,
}

/// Converts `html` (relative links resolve against `base`, or the page's
/// `<base href>`).
pub fn to_markdown(html: &str, base: Option<&Url>) -> Converted {
    let mut feed = Feed::new(memchr_count(b'<', html.as_bytes()), html.len());
    feed.push(html);
    let (dom, cut) = feed.finish();
    convert(dom, base, cut)
}

/// Converts a fetched HTML body: decoded in 64 KiB pieces (charset from
/// BOM, `header_charset` or `<meta>`) straight into the parser, so the
/// whole page never exists as a second, decoded copy; the bytes are freed
/// once parsed.
pub fn body_to_markdown(
    body: Vec<u8>,
    header_charset: Option<&str>,
    base: Option<&Url>,
) -> Converted {
    let mut feed = Feed::new(memchr_count(b'<', &body), body.len());
    let encoding = crate::decode::html_encoding(&body, header_charset);
    let mut decoder = encoding.new_decoder_with_bom_removal();
    let mut piece = String::with_capacity(64 * 1024 + 16);
    'chunks: for (i, chunk) in body.chunks(64 * 1024).enumerate() {
        let last = (i + 1) * 64 * 1024 >= body.len();
        let mut input = chunk;
        loop {
            let (result, read, _) = decoder.decode_to_string(input, &mut piece, last);
            input = &input[read..];
            let more = feed.push(&piece);
            piece.clear();
            if !more {
                break 'chunks;
            }
            if matches!(result, encoding_rs::CoderResult::InputEmpty) {
                break;
            }
        }
    }
    drop(body);
    let (dom, cut) = feed.finish();
    convert(dom, base, cut)
}

/// Text fed to the parser in pieces of at most this many bytes (ending
/// before a `<` where there is one), the work budget checked after each:
/// one piece of even the most deeply nested page costs little.
const PIECE_BYTES: usize = 64 * 1024;

/// The parser and its work budget ([`MAX_PARSE_WORK`] plus
/// [`PARSE_WORK_PER_BYTE`] per byte of the page).
struct Feed {
    parser: html5ever::driver::Parser<DomSink>,
    budget: u64,
    cut: bool,
}

impl Feed {
    /// A parser for a page of `bytes` bytes with about `tags` tags.
    fn new(tags: usize, bytes: usize) -> Self {
        // The node arena sized up front (about one node per `<`): growing
        // it by doubling would hold the old and the new arena at once.
        let sink = DomSink::with_capacity(tags.saturating_add(16), bytes);
        Self {
            parser: html5ever::driver::parse_document(sink, Default::default()),
            budget: MAX_PARSE_WORK
                .saturating_add((bytes as u64).saturating_mul(PARSE_WORK_PER_BYTE)),
            cut: false,
        }
    }

    /// Parses `text`; `false` once the budget is spent (this text and
    /// what follows are dropped from there on).
    fn push(&mut self, mut text: &str) -> bool {
        use html5ever::tendril::StrTendril;
        while !text.is_empty() && !self.cut {
            let mut end = text.len().min(PIECE_BYTES);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            // Pieces end before a tag, so a cut leaves no half tag behind.
            if end < text.len() {
                if let Some(lt) = text[..end].rfind('<').filter(|lt| *lt > 0) {
                    end = lt;
                }
            }
            let (piece, rest) = text.split_at(end);
            self.parser.process(StrTendril::from_slice(piece));
            text = rest;
            self.cut = self.parser.tokenizer.sink.sink.work() > self.budget;
        }
        !self.cut
    }

    /// The document, and whether the budget cut it.
    fn finish(self) -> (Dom, bool) {
        (self.parser.finish(), self.cut)
    }
}

fn memchr_count(needle: u8, hay: &[u8]) -> usize {
    hay.iter().filter(|b| **b == needle).count()
}

fn convert(doc: Dom, base: Option<&Url>, nesting_cut: bool) -> Converted {
    let found = Landmarks::find(&doc);
    let base = match (&found.base_href, base) {
        (Some(href), Some(b)) => b.join(href).ok().or_else(|| Some(b.clone())),
        (Some(href), None) => Url::parse(href).ok(),
        (None, b) => b.cloned(),
    };
    let page_level = found.root.is_none();
    let root = found.root.or(found.body).unwrap_or_else(|| doc.root());
    let mut out = markdown::Writer::new(base.as_ref(), MAX_PAGE_TEXT_BYTES);
    walk(root, &mut out, page_level);
    let mut conv = out.finish();
    if conv.markdown.trim().is_empty() && !page_level {
        if let Some(body) = found.body {
            let mut out = markdown::Writer::new(base.as_ref(), MAX_PAGE_TEXT_BYTES);
            walk(body, &mut out, true);
            conv = out.finish();
        }
    }
    conv.title = found.title.or(conv.title);
    conv.scripts = found.scripts;
    conv.nesting_cut = nesting_cut;
    conv
}

/// Title, `<base href>`, script count and the content root, found in one
/// pass.
struct Landmarks<'a> {
    title: Option<String>,
    base_href: Option<String>,
    body: Option<NodeRef<'a>>,
    root: Option<NodeRef<'a>>,
    scripts: usize,
}

impl<'a> Landmarks<'a> {
    fn find(doc: &'a Dom) -> Self {
        let mut title = None;
        let mut base_href = None;
        let mut body = None;
        let mut main = None;
        let mut role_main = None;
        let mut article = None;
        let mut articles = 0usize;
        let mut scripts = 0usize;
        for node in doc.root().descendants() {
            let Value::Element(el) = node.value() else {
                continue;
            };
            match el.name() {
                "title" if title.is_none() => {
                    let t: String = node
                        .descendants()
                        .filter_map(|n| match n.value() {
                            Value::Text(t) => Some(t),
                            _ => None,
                        })
                        .collect();
                    let t = collapse(&t);
                    if !t.is_empty() {
                        title = Some(t.chars().take(512).collect());
                    }
                }
                "base" if base_href.is_none() => {
                    base_href = el.attr(dom::Attr::Href).map(str::to_string)
                }
                "body" if body.is_none() => body = Some(node),
                "main" if main.is_none() && !el.has(skip::HIDDEN) => main = Some(node),
                "article" => {
                    articles += 1;
                    article.get_or_insert(node);
                }
                "script" => scripts += 1,
                _ => {}
            }
            if role_main.is_none() && el.has(skip::ROLE_MAIN) && !el.has(skip::HIDDEN) {
                role_main = Some(node);
            }
        }
        let root = main
            .or(role_main)
            .or(if articles == 1 { article } else { None });
        Self {
            title,
            base_href,
            body,
            root,
            scripts,
        }
    }
}

/// Walks the subtree of `root` in document order without recursion.
fn walk(root: NodeRef<'_>, out: &mut markdown::Writer<'_>, page_level: bool) {
    let mut stack: Vec<markdown::Opened> = Vec::new();
    let mut cur = root;
    'walk: loop {
        if out.full() {
            break;
        }
        let opened = match cur.value() {
            Value::Element(el) => {
                // Skipped subtrees and code blocks (written whole) are not
                // descended into.
                if skip::skipped(el, page_level) || out.try_code_block(cur, el) {
                    None
                } else {
                    Some(out.open(cur, el, stack.len() > MAX_STRUCTURE_DEPTH))
                }
            }
            Value::Text(t) => {
                out.text(t);
                None
            }
            Value::Document => Some(markdown::Opened::Nothing),
            Value::Other => None,
        };
        if let Some(op) = opened {
            match cur.first_child() {
                Some(child) => {
                    stack.push(op);
                    cur = child;
                    continue 'walk;
                }
                None => out.close(op),
            }
        }
        loop {
            if cur.id() == root.id() {
                break 'walk;
            }
            if let Some(next) = cur.next_sibling() {
                cur = next;
                continue 'walk;
            }
            let Some(parent) = cur.parent() else {
                break 'walk;
            };
            if let Some(op) = stack.pop() {
                out.close(op);
            }
            cur = parent;
        }
    }
    // Close what a cut left open, so tables and code are flushed.
    while let Some(op) = stack.pop() {
        out.close(op);
    }
}

/// Whitespace runs become one space; ends trimmed.
pub(crate) fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests;
