//! The session's reference store: `web-<n>` ids for search results
//! (sources: a URL and title) and opened pages (cached: opening the same
//! URL again reuses the page). In memory only; least recently used entries
//! go first when the entry count or byte budget is reached.

use std::collections::HashMap;
use std::sync::Arc;

use crate::limits::{MAX_STORE_BYTES, MAX_STORE_ENTRIES};
use crate::page::Page;

/// What a reference points to.
#[derive(Debug, Clone)]
pub enum Entry {
    /// A search result, not fetched yet.
    Source {
        /// Its URL.
        url: String,
        /// Its title.
        title: String,
    },
    /// An opened page.
    Page(Arc<Page>),
}

impl Entry {
    fn size(&self) -> usize {
        match self {
            Self::Source { url, title } => url.len() + title.len(),
            Self::Page(p) => p.size(),
        }
    }
}

struct Slot {
    entry: Entry,
    used: u64,
}

/// The store.
#[derive(Default)]
pub struct Store {
    next: u64,
    clock: u64,
    slots: HashMap<u64, Slot>,
    /// Page URL → id of its page entry.
    pages: HashMap<String, u64>,
    bytes: usize,
}

/// Parses `web-<n>`.
pub fn parse_ref(r: &str) -> Option<u64> {
    let n = r.trim().strip_prefix("web-")?;
    if n.is_empty() || n.len() > 19 || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// Formats id `n` as `web-<n>`.
pub fn ref_name(n: u64) -> String {
    format!("web-{n}")
}

impl Store {
    /// Adds `entry`; returns its id. A page of the same URL replaces the
    /// older page entry.
    pub fn add(&mut self, entry: Entry) -> u64 {
        if let Entry::Page(p) = &entry {
            if let Some(old) = self.pages.remove(&p.url) {
                self.remove(old);
            }
        }
        self.next += 1;
        let id = self.next;
        self.clock += 1;
        self.bytes += entry.size();
        if let Entry::Page(p) = &entry {
            self.pages.insert(p.url.clone(), id);
        }
        self.slots.insert(
            id,
            Slot {
                entry,
                used: self.clock,
            },
        );
        self.evict(id);
        id
    }

    /// The entry `id`, marked as used.
    pub fn get(&mut self, id: u64) -> Option<Entry> {
        self.clock += 1;
        let slot = self.slots.get_mut(&id)?;
        slot.used = self.clock;
        Some(slot.entry.clone())
    }

    /// The cached page of `url` and its id, if any.
    pub fn page_for(&mut self, url: &str) -> Option<(u64, Arc<Page>)> {
        let id = *self.pages.get(url)?;
        match self.get(id)? {
            Entry::Page(p) => Some((id, p)),
            Entry::Source { .. } => None,
        }
    }

    /// Forgets everything (ids keep counting up: old ids stay dead).
    pub fn clear(&mut self) {
        self.slots.clear();
        self.pages.clear();
        self.bytes = 0;
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    fn remove(&mut self, id: u64) {
        if let Some(slot) = self.slots.remove(&id) {
            self.bytes -= slot.entry.size();
            if let Entry::Page(p) = &slot.entry {
                if self.pages.get(&p.url) == Some(&id) {
                    self.pages.remove(&p.url);
                }
            }
        }
    }

    /// Drops least recently used entries (never `keep`) while over budget.
    fn evict(&mut self, keep: u64) {
        while self.slots.len() > MAX_STORE_ENTRIES || self.bytes > MAX_STORE_BYTES {
            let oldest = self
                .slots
                .iter()
                .filter(|(id, _)| **id != keep)
                .min_by_key(|(_, s)| s.used)
                .map(|(id, _)| *id);
            match oldest {
                Some(id) => self.remove(id),
                None => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn src(i: usize) -> Entry {
        Entry::Source {
            url: format!("https://example.com/{i}"),
            title: String::new(),
        }
    }

    #[test]
    fn refs_parse_strictly() {
        assert_eq!(parse_ref("web-12"), Some(12));
        for bad in [
            "web-",
            "web-x",
            "12",
            "web--1",
            "web-1 2",
            "web-99999999999999999999",
        ] {
            assert_eq!(parse_ref(bad), None, "{bad}");
        }
    }

    #[test]
    fn least_recently_used_entries_are_evicted() {
        let mut s = Store::default();
        let first = s.add(src(0));
        for i in 1..MAX_STORE_ENTRIES {
            s.add(src(i));
        }
        assert!(s.get(first).is_some()); // now recently used
        s.add(src(999));
        assert_eq!(s.len(), MAX_STORE_ENTRIES);
        assert!(s.get(first).is_some());
        assert!(s.get(2).is_none());
        s.clear();
        assert!(s.is_empty() && s.get(first).is_none());
    }

    #[test]
    fn pages_are_cached_by_url() {
        let mut s = Store::default();
        let p = Arc::new(Page::new(
            "https://a/".into(),
            None,
            "text",
            "x".into(),
            vec![],
            None,
        ));
        let a = s.add(Entry::Page(p.clone()));
        assert_eq!(s.page_for("https://a/").unwrap().0, a);
        let b = s.add(Entry::Page(p));
        assert!(s.get(a).is_none());
        assert_eq!(s.page_for("https://a/").unwrap().0, b);
    }
}
