//! The parsed page as the converter needs it: html5ever's tree builder
//! drives [`DomSink`], which keeps a compact arena (one 32-byte node per
//! element or text run, all text in one string) instead of a general DOM.
//!
//! Only what the converter reads is kept: each element's name, a few
//! precomputed facts ([`skip::facts`]: hidden, never content, page chrome,
//! `role`s that matter) and the attributes it uses (`href` of links and
//! `base`, `alt` of images, `start` of lists, the code language named by
//! `data-lang`, `data-language` or a `language-x` class). Comments,
//! doctypes and other attributes are dropped as they arrive.

use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};

use html5ever::tendril::StrTendril;
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{local_name, ns, Attribute, LocalName, Namespace, QualName};

use super::skip;

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
enum Kind {
    Document,
    /// Index into `Dom::elems`.
    Element(u32),
    /// Byte range in `Dom::text`.
    Text(u32, u32),
    /// Comments, doctypes, processing instructions, template contents.
    Other,
}

#[derive(Clone, Copy, Debug)]
struct Node {
    parent: u32,
    first: u32,
    last: u32,
    prev: u32,
    next: u32,
    kind: Kind,
}

/// An attribute the converter reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Attr {
    /// `href` of `a` and `base`.
    Href,
    /// `alt` of `img`.
    Alt,
    /// `start` of a list.
    Start,
    /// The code language this element names (`data-lang`,
    /// `data-language`, or a `language-x`/`lang-x`/`highlight-x` class).
    Lang,
}

/// An element: its name, precomputed facts and kept attributes.
#[derive(Debug)]
pub(super) struct Elem {
    ns: Namespace,
    local: LocalName,
    /// [`skip`]'s fact bits.
    pub(super) facts: u16,
    /// Which source attributes were seen (for `add_attrs_if_missing`).
    seen: u16,
    attrs: Box<[(Attr, Box<str>)]>,
}

impl Elem {
    fn new(ns: Namespace, local: LocalName) -> Self {
        Self {
            ns,
            local,
            facts: 0,
            seen: 0,
            attrs: Box::new([]),
        }
    }

    /// The local name (`div`, `a`, …), namespace ignored.
    pub(super) fn name(&self) -> &str {
        &self.local
    }

    /// A kept attribute's value.
    pub(super) fn attr(&self, which: Attr) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(a, _)| *a == which)
            .map(|(_, v)| &**v)
    }

    /// Whether fact `bit` ([`skip`]'s constants) holds.
    pub(super) fn has(&self, bit: u16) -> bool {
        self.facts & bit != 0
    }

    /// Takes in `attrs` (only those not seen before).
    fn absorb(&mut self, attrs: Vec<Attribute>) {
        let mut kept: Vec<(Attr, Box<str>)> = Vec::new();
        let name = self.local.clone();
        let mut lang_rank: Option<u8> = None;
        let mut best_lang: Option<String> = None;
        for a in attrs {
            if a.name.ns != ns!() {
                continue;
            }
            let Some(bit) = skip::attr_bit(&a.name.local) else {
                continue;
            };
            if self.seen & bit != 0 {
                continue;
            }
            self.seen |= bit;
            let v: &str = &a.value;
            self.facts |= skip::attr_facts(&a.name.local, v);
            let keep = match a.name.local {
                local_name!("href") if name == local_name!("a") || name == local_name!("base") => {
                    Some(Attr::Href)
                }
                local_name!("alt") if name == local_name!("img") => Some(Attr::Alt),
                local_name!("start") => Some(Attr::Start),
                _ => None,
            };
            if let Some(k) = keep {
                kept.push((k, v.into()));
            }
            if let Some((rank, lang)) = skip::lang_of(&a.name.local, v) {
                // `data-lang` before `data-language` before a class.
                if lang_rank.is_none_or(|r| rank < r) {
                    lang_rank = Some(rank);
                    best_lang = Some(lang);
                }
            }
        }
        if let Some(lang) = best_lang {
            if self.attr(Attr::Lang).is_none() {
                kept.push((Attr::Lang, lang.into()));
            }
        }
        if kept.is_empty() {
            return;
        }
        let mut all = std::mem::take(&mut self.attrs).into_vec();
        all.extend(kept);
        self.attrs = all.into_boxed_slice();
    }
}

/// The parsed document.
#[derive(Debug, Default)]
pub(super) struct Dom {
    nodes: Vec<Node>,
    elems: Vec<Elem>,
    text: String,
}

impl Dom {
    /// An empty document with room for about `nodes` nodes and `text`
    /// bytes of text (untouched room costs address space, not memory).
    fn with_capacity(nodes: usize, text: usize) -> Self {
        let mut d = Self {
            nodes: Vec::with_capacity(nodes.saturating_add(1)),
            elems: Vec::with_capacity(nodes / 2 + 1),
            text: String::with_capacity(text),
        };
        d.push(Kind::Document);
        // elems[0]: the name answered for a handle that is no element.
        d.elems.push(Elem::new(ns!(), local_name!("")));
        d
    }

    /// The document node.
    pub(super) fn root(&self) -> NodeRef<'_> {
        NodeRef { dom: self, id: 0 }
    }

    fn push(&mut self, kind: Kind) -> u32 {
        let id = u32::try_from(self.nodes.len()).unwrap_or(NONE - 1);
        self.nodes.push(Node {
            parent: NONE,
            first: NONE,
            last: NONE,
            prev: NONE,
            next: NONE,
            kind,
        });
        id
    }

    fn node(&self, id: u32) -> Option<&Node> {
        self.nodes.get(id as usize)
    }

    fn node_mut(&mut self, id: u32) -> Option<&mut Node> {
        self.nodes.get_mut(id as usize)
    }

    fn detach(&mut self, id: u32) {
        let Some(n) = self.node(id).copied() else {
            return;
        };
        if n.parent == NONE {
            return;
        }
        match self.node_mut(n.prev) {
            Some(p) => p.next = n.next,
            None => {
                if let Some(p) = self.node_mut(n.parent) {
                    p.first = n.next;
                }
            }
        }
        match self.node_mut(n.next) {
            Some(x) => x.prev = n.prev,
            None => {
                if let Some(p) = self.node_mut(n.parent) {
                    p.last = n.prev;
                }
            }
        }
        if let Some(me) = self.node_mut(id) {
            me.parent = NONE;
            me.prev = NONE;
            me.next = NONE;
        }
    }

    fn append_child(&mut self, parent: u32, id: u32) {
        self.detach(id);
        let Some(last) = self.node(parent).map(|p| p.last) else {
            return;
        };
        if let Some(me) = self.node_mut(id) {
            me.parent = parent;
            me.prev = last;
        }
        match self.node_mut(last) {
            Some(l) => l.next = id,
            None => {
                if let Some(p) = self.node_mut(parent) {
                    p.first = id;
                }
            }
        }
        if let Some(p) = self.node_mut(parent) {
            p.last = id;
        }
    }

    fn insert_before(&mut self, sibling: u32, id: u32) {
        self.detach(id);
        let Some(s) = self.node(sibling).copied() else {
            return;
        };
        if let Some(me) = self.node_mut(id) {
            me.parent = s.parent;
            me.prev = s.prev;
            me.next = sibling;
        }
        match self.node_mut(s.prev) {
            Some(p) => p.next = id,
            None => {
                if let Some(p) = self.node_mut(s.parent) {
                    p.first = id;
                }
            }
        }
        if let Some(s) = self.node_mut(sibling) {
            s.prev = id;
        }
    }

    /// Appends `t` to text node `id` when it is one (moving its text to
    /// the end of the arena first if something was written after it).
    fn extend_text(&mut self, id: u32, t: &str) -> bool {
        let Some(Kind::Text(start, len)) = self.node(id).map(|n| n.kind) else {
            return false;
        };
        let (start, len) = (start as usize, len as usize);
        let start = if start + len == self.text.len() {
            start
        } else {
            let moved = self.text.len();
            self.text.extend_from_within(start..start + len);
            moved
        };
        self.text.push_str(t);
        let (Ok(s), Ok(l)) = (u32::try_from(start), u32::try_from(len + t.len())) else {
            return true;
        };
        if let Some(n) = self.node_mut(id) {
            n.kind = Kind::Text(s, l);
        }
        true
    }

    fn new_text(&mut self, t: &str) -> u32 {
        let start = self.text.len();
        self.text.push_str(t);
        match (u32::try_from(start), u32::try_from(t.len())) {
            (Ok(s), Ok(l)) => self.push(Kind::Text(s, l)),
            _ => self.push(Kind::Other),
        }
    }
}

/// A node of a [`Dom`].
#[derive(Clone, Copy)]
pub(super) struct NodeRef<'a> {
    dom: &'a Dom,
    id: u32,
}

/// What a node is.
pub(super) enum Value<'a> {
    /// The document.
    Document,
    /// An element.
    Element(&'a Elem),
    /// A text run.
    Text(&'a str),
    /// Anything else (comments, doctypes).
    Other,
}

impl<'a> NodeRef<'a> {
    fn at(&self, id: u32) -> Option<NodeRef<'a>> {
        (id != NONE).then_some(NodeRef { dom: self.dom, id })
    }

    fn raw(&self) -> Node {
        self.dom.nodes[self.id as usize]
    }

    /// The node's identity within its document.
    pub(super) fn id(&self) -> u32 {
        self.id
    }

    /// What the node is.
    pub(super) fn value(&self) -> Value<'a> {
        match self.raw().kind {
            Kind::Document => Value::Document,
            Kind::Element(i) => match self.dom.elems.get(i as usize) {
                Some(e) => Value::Element(e),
                None => Value::Other,
            },
            Kind::Text(s, l) => {
                let (s, l) = (s as usize, l as usize);
                Value::Text(self.dom.text.get(s..s + l).unwrap_or(""))
            }
            Kind::Other => Value::Other,
        }
    }

    /// The element, if the node is one.
    pub(super) fn element(&self) -> Option<&'a Elem> {
        match self.value() {
            Value::Element(e) => Some(e),
            _ => None,
        }
    }

    /// The parent.
    pub(super) fn parent(&self) -> Option<NodeRef<'a>> {
        self.at(self.raw().parent)
    }

    /// The first child.
    pub(super) fn first_child(&self) -> Option<NodeRef<'a>> {
        self.at(self.raw().first)
    }

    /// The next sibling.
    pub(super) fn next_sibling(&self) -> Option<NodeRef<'a>> {
        self.at(self.raw().next)
    }

    /// The children, in order.
    pub(super) fn children(&self) -> impl Iterator<Item = NodeRef<'a>> {
        std::iter::successors(self.first_child(), |n| n.next_sibling())
    }

    /// The node and its descendants in document order (no recursion).
    pub(super) fn descendants(&self) -> Descendants<'a> {
        Descendants {
            root: *self,
            next: Some(*self),
        }
    }
}

/// See [`NodeRef::descendants`].
pub(super) struct Descendants<'a> {
    root: NodeRef<'a>,
    next: Option<NodeRef<'a>>,
}

impl<'a> Iterator for Descendants<'a> {
    type Item = NodeRef<'a>;

    fn next(&mut self) -> Option<NodeRef<'a>> {
        let cur = self.next?;
        self.next = cur.first_child().or_else(|| {
            let mut n = cur;
            loop {
                if n.id == self.root.id {
                    return None;
                }
                if let Some(s) = n.next_sibling() {
                    return Some(s);
                }
                n = n.parent()?;
            }
        });
        Some(cur)
    }
}

/// html5ever's tree builder writes the [`Dom`] through this.
pub(super) struct DomSink {
    dom: RefCell<Dom>,
    /// Element names the tree builder asked for: its scope checks walk the
    /// stack of open elements for most tags, so its time grows like this
    /// (with the square of the nesting depth on a page nested to stall it).
    work: Cell<u64>,
}

impl DomSink {
    /// A sink for a page of `html_bytes` bytes holding about `nodes` nodes.
    pub(super) fn with_capacity(nodes: usize, html_bytes: usize) -> Self {
        Self {
            dom: RefCell::new(Dom::with_capacity(nodes, html_bytes)),
            work: Cell::new(0),
        }
    }

    /// The parser's work so far (see `work`).
    pub(super) fn work(&self) -> u64 {
        self.work.get()
    }
}

/// An element's name, as the tree builder asks for it.
#[derive(Debug)]
pub(super) struct Name<'a>(Ref<'a, Elem>);

impl html5ever::interface::ElemName for Name<'_> {
    fn ns(&self) -> &Namespace {
        &self.0.ns
    }

    fn local_name(&self) -> &LocalName {
        &self.0.local
    }
}

impl TreeSink for DomSink {
    type Handle = u32;
    type Output = Dom;
    type ElemName<'a> = Name<'a>;

    fn finish(self) -> Dom {
        self.dom.into_inner()
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> u32 {
        0
    }

    fn elem_name<'a>(&'a self, target: &'a u32) -> Name<'a> {
        self.work.set(self.work.get().saturating_add(1));
        Name(Ref::map(self.dom.borrow(), |d| {
            let i = match d.node(*target).map(|n| n.kind) {
                Some(Kind::Element(i)) => i as usize,
                _ => 0,
            };
            d.elems.get(i).unwrap_or(&d.elems[0])
        }))
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> u32 {
        let mut d = self.dom.borrow_mut();
        let mut el = Elem::new(name.ns, name.local);
        el.facts = skip::name_facts(&el.local);
        el.absorb(attrs);
        let Ok(i) = u32::try_from(d.elems.len()) else {
            return d.push(Kind::Other);
        };
        d.elems.push(el);
        let id = d.push(Kind::Element(i));
        if flags.template {
            let contents = d.push(Kind::Other);
            d.append_child(id, contents);
        }
        id
    }

    fn create_comment(&self, _text: StrTendril) -> u32 {
        self.dom.borrow_mut().push(Kind::Other)
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> u32 {
        self.dom.borrow_mut().push(Kind::Other)
    }

    fn append(&self, parent: &u32, child: NodeOrText<u32>) {
        let mut d = self.dom.borrow_mut();
        match child {
            NodeOrText::AppendNode(id) => d.append_child(*parent, id),
            NodeOrText::AppendText(t) => {
                let last = d.node(*parent).map_or(NONE, |p| p.last);
                if !d.extend_text(last, &t) {
                    let id = d.new_text(&t);
                    d.append_child(*parent, id);
                }
            }
        }
    }

    fn append_based_on_parent_node(&self, element: &u32, prev: &u32, child: NodeOrText<u32>) {
        let has_parent = self
            .dom
            .borrow()
            .node(*element)
            .is_some_and(|n| n.parent != NONE);
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev, child);
        }
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {}

    fn get_template_contents(&self, target: &u32) -> u32 {
        let d = self.dom.borrow();
        d.node(*target)
            .map(|n| n.first)
            .filter(|f| *f != NONE)
            .unwrap_or(*target)
    }

    fn same_node(&self, x: &u32, y: &u32) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &u32, new_node: NodeOrText<u32>) {
        let mut d = self.dom.borrow_mut();
        let Some(s) = d.node(*sibling).copied() else {
            return;
        };
        match new_node {
            NodeOrText::AppendNode(id) => {
                d.detach(id);
                if s.parent != NONE {
                    d.insert_before(*sibling, id);
                }
            }
            NodeOrText::AppendText(t) => {
                if s.parent != NONE && !d.extend_text(s.prev, &t) {
                    let id = d.new_text(&t);
                    d.insert_before(*sibling, id);
                }
            }
        }
    }

    fn add_attrs_if_missing(&self, target: &u32, attrs: Vec<Attribute>) {
        let mut d = self.dom.borrow_mut();
        if let Some(Kind::Element(i)) = d.node(*target).map(|n| n.kind) {
            if let Some(el) = d.elems.get_mut(i as usize) {
                el.absorb(attrs);
            }
        }
    }

    fn remove_from_parent(&self, target: &u32) {
        self.dom.borrow_mut().detach(*target);
    }

    fn reparent_children(&self, node: &u32, new_parent: &u32) {
        let mut d = self.dom.borrow_mut();
        while let Some(child) = d.node(*node).map(|n| n.first).filter(|c| *c != NONE) {
            d.append_child(*new_parent, child);
        }
    }
}
