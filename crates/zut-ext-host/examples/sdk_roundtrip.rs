//! Python and TypeScript SDK figures through the real host: spawn to
//! `ready` and `tool_call` round trips.
//!
//! For each extension directory given (default: the `notes` examples of
//! `sdk/python` and `sdk/typescript`), `--starts` times: start a host with
//! only that `--ext` path and time `ExtensionHost::start` (spawn,
//! handshake, registration, `ready`); then, on one host, `--calls` calls of
//! the tool `note_list` (a trivial handler) timed one by one after 100
//! unmeasured ones. Prints
//! `ZUT-BENCH sdk <dir> start_median_ms=.. call_median_us=.. call_p90_us=..`
//! (`--calls 0`: start only, for extensions without `note_list`).
//!
//! ```text
//! cargo run --release -p zut-ext-host --example sdk_roundtrip -- [--starts 10] [--calls 2000] [DIR...]
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let mut starts = 10usize;
    let mut calls = 2000usize;
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--starts" => starts = args.next().unwrap().parse().unwrap(),
            "--calls" => calls = args.next().unwrap().parse().unwrap(),
            _ => dirs.push(PathBuf::from(a).canonicalize().unwrap()),
        }
    }
    if dirs.is_empty() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        dirs.push(
            root.join("sdk/python/examples/notes")
                .canonicalize()
                .unwrap(),
        );
        dirs.push(
            root.join("sdk/typescript/examples/notes")
                .canonicalize()
                .unwrap(),
        );
    }
    let rt = common::runtime();
    for dir in dirs {
        let home = tempfile::tempdir().unwrap();
        let config = || {
            let mut c = common::config_for(home.path(), home.path());
            c.ext_paths = vec![dir.clone()];
            c.no_ext = true;
            c
        };
        let mut start_ms = Vec::new();
        for _ in 0..starts {
            let t = Instant::now();
            let (host, _) = rt.block_on(common::start_host(config()));
            start_ms.push(t.elapsed().as_secs_f64() * 1e3);
            assert_eq!(host.reports().len(), 1, "{} did not load", dir.display());
            rt.block_on(host.shutdown());
        }
        if calls == 0 {
            println!(
                "ZUT-BENCH sdk {} start_median_ms={:.1}",
                dir.display(),
                median(&mut start_ms)
            );
            continue;
        }
        let (host, _) = rt.block_on(common::start_host(config()));
        let mut call_us = Vec::with_capacity(calls);
        rt.block_on(async {
            for i in 0..calls + 100 {
                let t = Instant::now();
                let out = host.call_tool("note_list", json!({})).await;
                assert!(!out.is_error, "note_list failed");
                if i >= 100 {
                    call_us.push(t.elapsed().as_secs_f64() * 1e6);
                }
            }
        });
        rt.block_on(host.shutdown());
        let p90 = {
            let mut v = call_us.clone();
            v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            v[v.len() * 9 / 10]
        };
        println!(
            "ZUT-BENCH sdk {} start_median_ms={:.1} call_median_us={:.1} call_p90_us={:.1}",
            dir.display(),
            median(&mut start_ms),
            median(&mut call_us),
            p90
        );
    }
}
