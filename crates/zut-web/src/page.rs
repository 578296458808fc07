//! A page as the tools keep it: its final URL, title, Markdown text (split
//! into lines) and numbered links. Built from a fetched body.

use crate::decode::{self, Kind};
use crate::fetch::{FetchError, Fetched};
use crate::html;
use crate::limits::MAX_PAGE_TEXT_BYTES;

/// An opened page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The final URL (after redirects).
    pub url: String,
    /// The title, if the page has one.
    pub title: Option<String>,
    /// What it was: `HTML`, `text` or `PDF`.
    pub kind: &'static str,
    /// Markdown (HTML) or the text, without trailing newline.
    pub text: String,
    /// Byte offset of each line's start in `text`.
    line_starts: Vec<usize>,
    /// Link targets; `[label][n]` in `text` is `links[n - 1]`.
    pub links: Vec<String>,
    /// Why the text is incomplete, if it is (body or text cut).
    pub note: Option<String>,
}

impl Page {
    /// A page from its parts.
    pub fn new(
        url: String,
        title: Option<String>,
        kind: &'static str,
        text: String,
        links: Vec<String>,
        note: Option<String>,
    ) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        if text.is_empty() {
            line_starts.clear();
        }
        Self {
            url,
            title,
            kind,
            text,
            line_starts,
            links,
            note,
        }
    }

    /// Number of lines.
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Line `n` (1-based), without its newline.
    pub fn line(&self, n: usize) -> Option<&str> {
        let start = *self.line_starts.get(n.checked_sub(1)?)?;
        let end = self.line_starts.get(n).map_or(self.text.len(), |e| e - 1);
        self.text.get(start..end)
    }

    /// Bytes this page holds (for the store's budget).
    pub fn size(&self) -> usize {
        self.url.len()
            + self.text.len()
            + self.links.iter().map(String::len).sum::<usize>()
            + self.line_starts.len() * std::mem::size_of::<usize>()
    }
}

/// Decodes and converts a fetched body into a page.
pub async fn from_fetched(f: Fetched, max_body: usize) -> Result<Page, FetchError> {
    let url = f.url.to_string();
    let (body, cut_decoding) =
        decode::content_encoding(&f.encoding, f.body, max_body).map_err(FetchError::Unavailable)?;
    let kind = decode::kind(&f.mime, &body).map_err(FetchError::Unavailable)?;
    let cut = f.truncated || cut_decoding;
    let body_note = cut.then(|| {
        format!(
            "the page is larger than {} MiB; only its start was read",
            max_body / (1024 * 1024)
        )
    });
    match kind {
        Kind::Pdf => {
            if cut {
                return Err(FetchError::Unavailable(format!(
                    "the PDF is larger than {} MiB",
                    max_body / (1024 * 1024)
                )));
            }
            let text = crate::pdf::text(body)
                .await
                .map_err(FetchError::Unavailable)?;
            let (text, cut_text) = cap_text(text);
            Ok(Page::new(
                url,
                None,
                "PDF",
                text,
                Vec::new(),
                cut_text.then(text_note),
            ))
        }
        Kind::Text => {
            let text = decode::text(&body, f.charset.as_deref(), false);
            drop(body);
            let text = clean_text(&text);
            if text.trim().is_empty() {
                return Err(FetchError::Unavailable("the page is empty".into()));
            }
            let (text, cut_text) = cap_text(text);
            let note = body_note.or(cut_text.then(text_note));
            Ok(Page::new(url, None, "text", text, Vec::new(), note))
        }
        Kind::Html => {
            let base = f.url;
            let conv = tokio::task::spawn_blocking(move || {
                html::body_to_markdown(body, f.charset.as_deref(), Some(&base))
            })
            .await
            .map_err(|_| FetchError::Unavailable("the HTML could not be converted".into()))?;
            if conv.markdown.trim().is_empty() {
                let why = if conv.scripts > 0 {
                    format!(
                        "the page has no readable text without JavaScript ({} scripts and no content); try a search result with a static version, or its documentation source",
                        conv.scripts
                    )
                } else {
                    "the page has no readable text".to_string()
                };
                return Err(FetchError::Unavailable(why));
            }
            let note = body_note
                .or(conv.nesting_cut.then(|| {
                    "the page nests its elements too deeply to be read whole; only its start was converted".to_string()
                }))
                .or(conv.truncated.then(text_note));
            Ok(Page::new(
                url,
                conv.title,
                "HTML",
                conv.markdown,
                conv.links,
                note,
            ))
        }
    }
}

fn text_note() -> String {
    format!(
        "the page's text is longer than {} MiB; only its start was kept",
        MAX_PAGE_TEXT_BYTES / (1024 * 1024)
    )
}

fn cap_text(mut text: String) -> (String, bool) {
    if text.len() <= MAX_PAGE_TEXT_BYTES {
        return (text, false);
    }
    let mut end = MAX_PAGE_TEXT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    (text, true)
}

/// Control characters (but tabs and newlines) dropped, CRLF made LF,
/// trailing spaces and trailing blank lines removed.
fn clean_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let line: String = line
            .chars()
            .filter(|c| *c == '\t' || !c.is_control())
            .collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    while out.ends_with('\n') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn lines_are_indexed() {
        let p = Page::new("u".into(), None, "text", "a\n\nbc".into(), vec![], None);
        assert_eq!(p.line_count(), 3);
        assert_eq!(p.line(1), Some("a"));
        assert_eq!(p.line(2), Some(""));
        assert_eq!(p.line(3), Some("bc"));
        assert_eq!(p.line(4), None);
        assert_eq!(p.line(0), None);
    }
}
