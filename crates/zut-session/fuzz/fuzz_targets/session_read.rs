//! A whole session file through the strict streaming reader, the repair
//! and the fork-point state: errors are fine, panics are not.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::path::Path::new("fuzz.jsonl");
    let mut rows = Vec::new();
    let _ = zut_session::for_each_row(path, data, |_, row| {
        rows.push(row);
        Ok(())
    });
    let messages: Vec<zut_session::SessionMessage> = rows
        .into_iter()
        .filter_map(|r| match r {
            zut_session::Row::Message(m) => Some(m),
            _ => None,
        })
        .collect();
    let repaired = zut_session::repair(messages);
    assert!(!repaired.prefix.is_empty());
});
