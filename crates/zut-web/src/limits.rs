//! Every bound of the web tools, in one place (documented in the README).

use std::time::Duration;

/// Whole-fetch time cap: connection, redirects and body.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(15);
/// Longest wait for the next piece of a response.
pub const READ_TIMEOUT: Duration = Duration::from_secs(8);
/// Largest body read, compressed and decoded alike (4 MiB).
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
/// Largest search backend response read (2 MiB).
pub const MAX_SEARCH_BODY_BYTES: usize = 2 * 1024 * 1024;
/// Search backend time cap.
pub const SEARCH_TIMEOUT: Duration = Duration::from_secs(15);
/// Whole time of a `provider` search (a model request with a search in it).
pub const PROVIDER_SEARCH_TIMEOUT: Duration = Duration::from_secs(120);
/// Redirects followed (each target checked like the first URL).
pub const MAX_REDIRECTS: usize = 5;
/// Longest URL accepted, in bytes.
pub const MAX_URL_BYTES: usize = 4096;
/// Longest search query, in characters.
pub const MAX_QUERY_CHARS: usize = 512;
/// Longest `web_find` pattern, in characters.
pub const MAX_PATTERN_CHARS: usize = 256;
/// Longest search result title, in characters.
pub const MAX_TITLE_CHARS: usize = 300;
/// Longest search result snippet, in characters.
pub const MAX_SNIPPET_CHARS: usize = 500;
/// Largest search tool output, in bytes.
pub const MAX_SEARCH_OUTPUT_BYTES: usize = 20 * 1024;
/// Page text shown per `web_open`/`web_click` call, in bytes.
pub const PAGE_WINDOW_BYTES: usize = 16 * 1024;
/// Largest Markdown kept for one page (2 MiB); the rest is cut with a note.
pub const MAX_PAGE_TEXT_BYTES: usize = 2 * 1024 * 1024;
/// Numbered links kept per page.
pub const MAX_LINKS: usize = 2000;
/// Element depth past which the HTML converter stops adding structure
/// (text below is still kept, without list or quote nesting).
pub const MAX_STRUCTURE_DEPTH: usize = 512;
/// The HTML parser's work (element names it asks for: its scope checks
/// walk the open elements, so its time grows like this, with the square
/// of the nesting depth) allowed for any page, plus
/// [`PARSE_WORK_PER_BYTE`] per byte: past it the rest of the page is
/// dropped with a note (a page nested 100,000 deep would take minutes).
pub const MAX_PARSE_WORK: u64 = 500_000_000;
/// See [`MAX_PARSE_WORK`].
pub const PARSE_WORK_PER_BYTE: u64 = 16;
/// Largest total a PDF's compressed streams may inflate to (64 MiB).
pub const MAX_PDF_INFLATED_BYTES: usize = 64 * 1024 * 1024;
/// Time cap of a PDF's text extraction.
pub const PDF_TIMEOUT: Duration = Duration::from_secs(20);
/// Nesting of lists and quotes that still indents.
pub const MAX_INDENT_LEVELS: usize = 8;
/// `web_find` matches shown.
pub const MAX_FIND_MATCHES: usize = 40;
/// Characters of context around a `web_find` match.
pub const FIND_CONTEXT_CHARS: usize = 120;
/// Entries in the reference store (search results and pages).
pub const MAX_STORE_ENTRIES: usize = 64;
/// Bytes of page text and URLs the reference store keeps (24 MiB).
pub const MAX_STORE_BYTES: usize = 24 * 1024 * 1024;
