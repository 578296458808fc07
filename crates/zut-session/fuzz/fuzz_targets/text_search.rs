//! The sessions picker's full-text search over a file's bytes: never
//! panics, whatever the bytes (torn JSON, invalid UTF-8) and the query;
//! a match's excerpt is valid text without control characters.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte says how long the query is; the rest is the file.
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    let n = usize::from(n % 16).min(rest.len());
    let (query, file) = rest.split_at(n);
    let query = String::from_utf8_lossy(query);
    if let Some(excerpt) = zut_session::find_in(file, &query) {
        assert!(!excerpt.chars().any(char::is_control), "{excerpt:?}");
    }
});
