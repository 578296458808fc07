//! The Markdown writer driven by the walk in `super`: one `open`/`close`
//! pair per element, `text` per text node. Blocks are flushed as lines with
//! their quote and list prefixes; tables are gathered and written whole;
//! code blocks are written verbatim in a fence long enough for them.

use std::collections::HashMap;

use url::Url;

use super::dom::{Attr, Elem, NodeRef, Value};
use super::{skip, Converted};
use crate::limits::{MAX_INDENT_LEVELS, MAX_LINKS, MAX_URL_BYTES};

/// What `open` did, undone by `close`.
pub(crate) enum Opened {
    /// Nothing to undo.
    Nothing,
    /// A block: flush, blank line after.
    Block,
    /// A block past the structure depth: flush only.
    Flush,
    /// A heading.
    Heading,
    /// A list.
    List,
    /// A list item.
    Item,
    /// A quote.
    Quote,
    /// A link: where its text starts, the sink generation, its target.
    Link { start: usize, gen: u64, url: String },
    /// Inline code: where it starts and the sink generation.
    Code { start: usize, gen: u64 },
    /// A data table.
    Table,
    /// A table used for layout (its cells are blocks).
    LayoutTable,
    /// A table row.
    Row,
    /// A table cell.
    Cell,
    /// A table caption.
    Caption,
}

#[derive(Default)]
struct Table {
    caption: Option<String>,
    rows: Vec<Vec<String>>,
    row: Option<Vec<String>>,
    cell: Option<String>,
}

struct List {
    ordered: bool,
    next: u64,
}

pub(crate) struct Writer<'a> {
    base: Option<&'a Url>,
    cap: usize,
    out: String,
    line: String,
    pending_space: bool,
    need_blank: bool,
    last_blank: bool,
    heading: u8,
    quote: usize,
    lists: Vec<List>,
    items: usize,
    marker: Option<String>,
    gen: u64,
    links: Vec<String>,
    link_ids: HashMap<String, usize>,
    in_link: usize,
    in_code: usize,
    layout_tables: usize,
    table: Option<Table>,
    truncated: bool,
}

impl<'a> Writer<'a> {
    pub(crate) fn new(base: Option<&'a Url>, cap: usize) -> Self {
        Self {
            base,
            cap,
            out: String::new(),
            line: String::new(),
            pending_space: false,
            need_blank: false,
            last_blank: false,
            heading: 0,
            quote: 0,
            lists: Vec::new(),
            items: 0,
            marker: None,
            gen: 0,
            links: Vec::new(),
            link_ids: HashMap::new(),
            in_link: 0,
            in_code: 0,
            layout_tables: 0,
            table: None,
            truncated: false,
        }
    }

    /// The output reached its cap.
    pub(crate) fn full(&self) -> bool {
        self.truncated
    }

    pub(crate) fn finish(mut self) -> Converted {
        self.flush();
        if self.out.len() > self.cap {
            let mut end = self.cap;
            while !self.out.is_char_boundary(end) {
                end -= 1;
            }
            self.out.truncate(end);
        }
        while self.out.ends_with('\n') {
            self.out.pop();
        }
        Converted {
            title: None,
            markdown: self.out,
            links: self.links,
            truncated: self.truncated,
            scripts: 0,
            nesting_cut: false,
        }
    }

    // ----- sinks -----

    fn in_table(&self) -> bool {
        self.table.is_some()
    }

    /// The string inline text goes to: the open cell, the line, or nowhere
    /// (text between table cells).
    fn sink(&mut self) -> Option<&mut String> {
        match &mut self.table {
            Some(t) => t.cell.as_mut(),
            None => Some(&mut self.line),
        }
    }

    fn sink_len(&mut self) -> usize {
        self.sink().map_or(0, |s| s.len())
    }

    /// Collapses whitespace into the sink.
    pub(crate) fn text(&mut self, t: &str) {
        let mut pending = self.pending_space;
        let Some(sink) = self.sink() else { return };
        // Words between whitespace runs, each pushed whole; ASCII bytes
        // are classified without decoding.
        let bytes = t.as_bytes();
        let mut word = 0;
        let mut i = 0;
        while i < bytes.len() {
            let (space, width) = match bytes[i] {
                b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ' => (true, 1),
                b if b < 0x80 => (false, 1),
                _ => match t.get(i..).and_then(|rest| rest.chars().next()) {
                    Some(c) => (c.is_whitespace(), c.len_utf8()),
                    None => (false, 1),
                },
            };
            if space {
                if let Some(w) = t.get(word..i).filter(|w| !w.is_empty()) {
                    push_word(sink, w, pending);
                }
                pending = true;
                word = i + width;
            }
            i += width;
        }
        if let Some(w) = t.get(word..).filter(|w| !w.is_empty()) {
            push_word(sink, w, pending);
            pending = false;
        }
        self.pending_space = pending;
    }

    /// Pushes `s` as is (after a pending space).
    fn push_inline(&mut self, s: &str) {
        let pending = std::mem::take(&mut self.pending_space);
        let Some(sink) = self.sink() else { return };
        if pending && !sink.is_empty() && !sink.ends_with(' ') {
            sink.push(' ');
        }
        sink.push_str(s);
    }

    fn resolve_space(&mut self) {
        if std::mem::take(&mut self.pending_space) {
            if let Some(sink) = self.sink() {
                if !sink.is_empty() && !sink.ends_with(' ') {
                    sink.push(' ');
                }
            }
        }
    }

    // ----- lines -----

    fn quote_prefix(&self) -> String {
        "> ".repeat(self.quote.min(MAX_INDENT_LEVELS))
    }

    /// Writes one output line with quote, list and marker prefixes.
    fn emit_line(&mut self, text: &str) {
        if self.truncated {
            return;
        }
        if self.need_blank {
            self.blank_line();
        }
        self.out.push_str(&self.quote_prefix());
        if self.items > 0 {
            let depth = self.lists.len().max(1) - 1;
            self.out
                .push_str(&"  ".repeat(depth.min(MAX_INDENT_LEVELS)));
            match self.marker.take() {
                Some(m) => self.out.push_str(&m),
                None => self.out.push_str("  "),
            }
        }
        self.out.push_str(text);
        self.out.push('\n');
        self.last_blank = false;
        self.gen += 1;
        if self.out.len() > self.cap {
            self.truncated = true;
        }
    }

    /// Writes a blank line (with the current quote prefix) unless the
    /// output is empty or already ends with one.
    fn blank_line(&mut self) {
        self.need_blank = false;
        if self.out.is_empty() || self.last_blank {
            return;
        }
        let q = self.quote_prefix();
        self.out.push_str(q.trim_end());
        self.out.push('\n');
        self.last_blank = true;
    }

    /// Ends the current line (no blank line).
    fn flush(&mut self) {
        if self.in_table() {
            self.pending_space = true;
            return;
        }
        let line = std::mem::take(&mut self.line);
        self.pending_space = false;
        let text = line.trim();
        if !text.is_empty() {
            let text = if self.heading > 0 {
                format!("{} {text}", "#".repeat(self.heading as usize))
            } else {
                text.to_string()
            };
            self.emit_line(&text);
        }
        self.heading = 0;
        self.line = line;
        self.line.clear();
    }

    /// Ends a block: the next block starts after a blank line (tight
    /// inside list items).
    fn block_break(&mut self) {
        self.flush();
        if self.items == 0 && !self.in_table() {
            self.need_blank = true;
        }
    }

    // ----- elements -----

    pub(crate) fn open(&mut self, node: NodeRef<'_>, el: &Elem, too_deep: bool) -> Opened {
        let name = el.name();
        if too_deep {
            return if is_block(name) {
                self.flush();
                Opened::Flush
            } else {
                Opened::Nothing
            };
        }
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.block_break();
                if !self.in_table() {
                    self.heading = name.as_bytes()[1] - b'0';
                }
                Opened::Heading
            }
            "ul" | "ol" | "menu" | "dir" if !self.in_table() => {
                if self.items == 0 {
                    self.block_break();
                } else {
                    self.flush();
                }
                let start = el
                    .attr(Attr::Start)
                    .and_then(|s| s.trim().parse().ok())
                    .unwrap_or(1);
                self.lists.push(List {
                    ordered: name == "ol",
                    next: start,
                });
                Opened::List
            }
            "li" if !self.in_table() => {
                self.flush();
                let marker = match self.lists.last_mut() {
                    Some(l) if l.ordered => {
                        let n = l.next;
                        l.next += 1;
                        format!("{n}. ")
                    }
                    _ => "- ".to_string(),
                };
                self.items += 1;
                self.marker = Some(marker);
                Opened::Item
            }
            "blockquote" if !self.in_table() => {
                self.block_break();
                if self.need_blank {
                    self.blank_line();
                }
                self.quote += 1;
                Opened::Quote
            }
            "br" => {
                self.flush();
                Opened::Nothing
            }
            "hr" if !self.in_table() => {
                self.block_break();
                self.emit_line("---");
                self.need_blank = self.items == 0;
                Opened::Nothing
            }
            "a" => match el.attr(Attr::Href).and_then(|h| self.link_target(h)) {
                Some(url) => {
                    self.resolve_space();
                    self.in_link += 1;
                    Opened::Link {
                        start: self.sink_len(),
                        gen: self.gen,
                        url,
                    }
                }
                None => Opened::Nothing,
            },
            "img" => {
                let alt = el.attr(Attr::Alt).map(super::collapse).unwrap_or_default();
                if !alt.is_empty() {
                    if self.in_link > 0 {
                        self.push_inline(&alt);
                    } else {
                        self.push_inline(&format!("[image: {alt}]"));
                    }
                }
                Opened::Nothing
            }
            "code" | "kbd" | "samp" | "tt" => {
                self.push_inline("`");
                self.in_code += 1;
                Opened::Code {
                    start: self.sink_len(),
                    gen: self.gen,
                }
            }
            "table" => {
                if self.in_table() {
                    Opened::Nothing
                } else if self.layout_tables > 0 || layout_table(node, el) {
                    self.block_break();
                    self.layout_tables += 1;
                    Opened::LayoutTable
                } else {
                    self.block_break();
                    self.table = Some(Table::default());
                    self.gen += 1;
                    Opened::Table
                }
            }
            "tr" => match &mut self.table {
                Some(t) => {
                    t.row = Some(Vec::new());
                    Opened::Row
                }
                None => {
                    self.flush();
                    Opened::Flush
                }
            },
            "td" | "th" => match &mut self.table {
                Some(t) => {
                    t.cell = Some(String::new());
                    self.pending_space = false;
                    self.gen += 1;
                    Opened::Cell
                }
                None => {
                    self.flush();
                    Opened::Flush
                }
            },
            "caption" => match &mut self.table {
                Some(t) => {
                    t.cell = Some(String::new());
                    self.gen += 1;
                    Opened::Caption
                }
                None => {
                    self.flush();
                    Opened::Flush
                }
            },
            n if is_block(n) => {
                self.block_break();
                Opened::Block
            }
            _ => Opened::Nothing,
        }
    }

    pub(crate) fn close(&mut self, op: Opened) {
        match op {
            Opened::Nothing => {}
            Opened::Block => self.block_break(),
            Opened::LayoutTable => {
                self.layout_tables = self.layout_tables.saturating_sub(1);
                self.block_break();
            }
            Opened::Flush => self.flush(),
            Opened::Heading => self.block_break(),
            Opened::List => {
                self.flush();
                self.lists.pop();
                if self.items == 0 {
                    self.need_blank = true;
                }
            }
            Opened::Item => {
                self.flush();
                self.items = self.items.saturating_sub(1);
                self.marker = None;
            }
            Opened::Quote => {
                self.flush();
                self.quote = self.quote.saturating_sub(1);
                self.need_blank = self.items == 0;
            }
            Opened::Link { start, gen, url } => {
                self.in_link = self.in_link.saturating_sub(1);
                self.close_link(start, gen, url);
            }
            Opened::Code { start, gen } => {
                self.in_code = self.in_code.saturating_sub(1);
                let same = gen == self.gen;
                let pending = self.pending_space;
                if let Some(sink) = self.sink() {
                    if same && start <= sink.len() && sink[start..].trim().is_empty() {
                        sink.truncate(start.saturating_sub(1));
                    } else {
                        while sink.ends_with(' ') {
                            sink.pop();
                        }
                        sink.push('`');
                    }
                }
                self.pending_space = pending;
            }
            Opened::Cell | Opened::Caption => {
                if let Some(t) = &mut self.table {
                    let text = t.cell.take().unwrap_or_default();
                    let text = text.trim().replace('|', "\\|");
                    if matches!(op, Opened::Caption) {
                        t.caption = Some(text);
                    } else {
                        t.row.get_or_insert_with(Vec::new).push(text);
                    }
                }
                self.gen += 1;
            }
            Opened::Row => {
                if let Some(t) = &mut self.table {
                    if let Some(row) = t.row.take() {
                        if row.iter().any(|c| !c.is_empty()) {
                            t.rows.push(row);
                        }
                    }
                }
            }
            Opened::Table => {
                if let Some(t) = self.table.take() {
                    self.write_table(t);
                }
                self.need_blank = self.items == 0;
            }
        }
    }

    fn close_link(&mut self, start: usize, gen: u64, url: String) {
        let same = gen == self.gen;
        let has_text = match self.sink() {
            Some(s) if same && start <= s.len() => !s[start..].trim().is_empty(),
            Some(s) => !s.trim().is_empty(),
            None => false,
        };
        if !has_text {
            return;
        }
        let Some(n) = self.link_number(url) else {
            return;
        };
        let pending = self.pending_space;
        if let Some(sink) = self.sink() {
            let mut trailing = false;
            while sink.ends_with(' ') {
                sink.pop();
                trailing = true;
            }
            if same && start <= sink.len() {
                sink.insert(start, '[');
                sink.push_str(&format!("][{n}]"));
            } else {
                sink.push_str(&format!(" [{n}]"));
            }
            self.pending_space = pending || trailing;
        }
    }

    fn link_number(&mut self, url: String) -> Option<usize> {
        if let Some(n) = self.link_ids.get(&url) {
            return Some(*n);
        }
        if self.links.len() >= MAX_LINKS {
            return None;
        }
        self.links.push(url.clone());
        let n = self.links.len();
        self.link_ids.insert(url, n);
        Some(n)
    }

    /// An absolute http(s) target for `href`, or `None` (same-page anchors,
    /// `javascript:`, `mailto:`, credentials, over-long).
    fn link_target(&self, href: &str) -> Option<String> {
        let href = href.trim();
        if href.is_empty() || href.starts_with('#') {
            return None;
        }
        let mut url = match self.base {
            Some(b) => b.join(href).ok()?,
            None => Url::parse(href).ok()?,
        };
        if !matches!(url.scheme(), "http" | "https")
            || !url.username().is_empty()
            || url.password().is_some()
        {
            return None;
        }
        url.set_fragment(None);
        let s = String::from(url);
        (s.len() <= MAX_URL_BYTES).then_some(s)
    }

    fn write_table(&mut self, t: Table) {
        let cols = t.rows.iter().map(Vec::len).max().unwrap_or(0);
        if let Some(c) = t.caption.filter(|c| !c.is_empty()) {
            self.emit_line(&c);
        }
        if cols <= 1 {
            // A layout or one-column table: its cells are paragraphs.
            for row in t.rows {
                for cell in row.into_iter().filter(|c| !c.is_empty()) {
                    self.emit_line(&cell);
                }
            }
            return;
        }
        for (i, mut row) in t.rows.into_iter().enumerate() {
            row.resize(cols, String::new());
            self.emit_line(&format!("| {} |", row.join(" | ")));
            if i == 0 {
                self.emit_line(&format!("|{}", " --- |".repeat(cols)));
            }
        }
    }

    /// Writes `<pre>` (or a multi-line `<code>` outside tables) as a fenced
    /// block; `false` when `el` is not one.
    pub(crate) fn try_code_block(&mut self, node: NodeRef<'_>, el: &Elem) -> bool {
        let name = el.name();
        if name != "pre" && (name != "code" || self.in_code > 0 || self.in_table()) {
            return false;
        }
        let mut code = String::new();
        for n in node.descendants() {
            match n.value() {
                Value::Text(t) => code.push_str(t),
                Value::Element(e) if e.name() == "br" => code.push('\n'),
                _ => {}
            }
        }
        if name == "code" && (self.in_table() || !code.trim().contains('\n')) {
            return false;
        }
        if self.in_table() {
            // A <pre> in a data table: inline, whitespace kept as spaces.
            self.push_inline(&code.split_whitespace().collect::<Vec<_>>().join(" "));
            return true;
        }
        let code = code.trim_start_matches(['\n', '\r']).trim_end();
        self.block_break();
        if code.is_empty() {
            return true;
        }
        let lang = language(node, el).unwrap_or("");
        let fence = "`".repeat(longest_backtick_run(code).max(2) + 1);
        self.emit_line(&format!("{fence}{lang}"));
        for l in code.lines() {
            self.emit_line(l.trim_end_matches('\r'));
        }
        self.emit_line(&fence);
        self.need_blank = self.items == 0;
        true
    }
}

/// Pushes `word`, after a space when `pending` and the sink does not
/// already end with one.
fn push_word(sink: &mut String, word: &str, pending: bool) {
    if pending && !sink.is_empty() && !sink.ends_with(' ') {
        sink.push(' ');
    }
    sink.push_str(word);
}

/// A table used for layout: `role="presentation"`, or holding code
/// blocks or other tables (those cannot sit in Markdown table cells).
fn layout_table(node: NodeRef<'_>, el: &Elem) -> bool {
    if el.has(skip::ROLE_LAYOUT) {
        return true;
    }
    node.descendants().skip(1).any(|n| {
        n.element()
            .is_some_and(|e| matches!(e.name(), "pre" | "table"))
    })
}

fn is_block(name: &str) -> bool {
    matches!(
        name,
        "p" | "div"
            | "section"
            | "article"
            | "main"
            | "header"
            | "footer"
            | "figure"
            | "figcaption"
            | "dl"
            | "dt"
            | "dd"
            | "address"
            | "details"
            | "summary"
            | "fieldset"
            | "legend"
            | "form"
            | "center"
            | "body"
            | "html"
            | "hgroup"
            | "search"
            | "ul"
            | "ol"
            | "li"
            | "blockquote"
            | "table"
            | "tr"
            | "td"
            | "th"
            | "caption"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "pre"
            | "hr"
    )
}

/// The code's language from `language-x`, `lang-x`, `highlight-x` or
/// `data-lang` on the element, its first `code` child, its parent or
/// grandparent.
fn language<'a>(node: NodeRef<'a>, el: &'a Elem) -> Option<&'a str> {
    let mut candidates: Vec<&Elem> = vec![el];
    if let Some(c) = node
        .children()
        .find_map(|c| c.element().filter(|e| e.name() == "code"))
    {
        candidates.push(c);
    }
    let mut up = node.parent();
    for _ in 0..2 {
        let Some(p) = up else { break };
        if let Some(e) = p.element() {
            candidates.push(e);
        }
        up = p.parent();
    }
    candidates.into_iter().find_map(|e| e.attr(Attr::Lang))
}

fn longest_backtick_run(s: &str) -> usize {
    let mut best = 0;
    let mut run = 0;
    for c in s.chars() {
        if c == '`' {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}
