//! Figures of the embedded model catalog (issue 20: "the catalog adds
//! ≤ 0.3 ms to start-up and ≤ 1 MiB RSS, lazy parse"): the parse time of
//! the whole file and the memory the parsed catalog holds. Printed with
//! `--nocapture`; the bounds asserted are loose (a debug build on a shared
//! machine), the figures go to docs/benchmarks.md.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use zut_providers::catalog::{catalog, Catalog, CATALOG_JSON};

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

#[test]
fn catalog_parse_time_and_memory() {
    let before = rss_kib();
    let t = Instant::now();
    let c = catalog();
    let first = t.elapsed();
    let after = rss_kib();
    assert!(c.models.len() >= 50);
    // Steady parse time (the file is already in memory: it is embedded).
    let runs = 50;
    let t = Instant::now();
    for _ in 0..runs {
        let c = Catalog::parse(CATALOG_JSON).unwrap();
        assert!(!c.models.is_empty());
    }
    let each = t.elapsed() / runs;
    eprintln!(
        "figure: catalog ({} bytes, {} models): first use {first:?}, parse {each:?} each, RSS +{} KiB",
        CATALOG_JSON.len(),
        c.models.len(),
        after.saturating_sub(before)
    );
    assert!(
        after.saturating_sub(before) < 1024,
        "RSS grew {} KiB",
        after - before
    );
    assert!(each.as_millis() < 50, "{each:?}");
}
