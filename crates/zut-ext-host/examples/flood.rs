//! One extension floods the host with `notify` frames while another
//! answers tool calls.
//!
//! Targets, during a flood of 1,000,000 `notify` frames: host resident
//! memory under 64 MiB, and the other extension's tool call completes in
//! under 50 ms median.
//!
//! Two `bench_ext` extensions: `flooder` (`--flood <count>`) and `echo`
//! (`--echo`). The example starts the host, drains the UI channel like a
//! front end (counting the notes), calls `flood_start`, and until the
//! flooder's final `status` (`done <count>`) has come through the UI
//! channel it calls `echo` over and over (`--gap-ms` pause between calls,
//! default 2), timing each call. A sampler reads `VmRSS` every 10 ms;
//! `VmHWM` is the process's peak.
//!
//! `$ZUT_HOME` may hold those two extensions (named `flooder` and `echo`);
//! without it a temporary home is made.
//!
//! ```text
//! cargo run --release --locked -p zut-ext-host --example flood -- --count 1000000
//! ```
//!
//! Prints `ZUT-BENCH flood count=.. received=.. secs=.. frames_per_s=..
//! calls=.. median_ms=.. p90_ms=.. max_ms=.. rss_kib_max=.. hwm_kib=..`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use zut_ext_host::{ToolContent, UiKind};

fn main() {
    let count: u64 = common::arg_num("count", 1_000_000);
    let gap_ms: u64 = common::arg_num("gap-ms", 2);
    let limit_s: u64 = common::arg_num("timeout-s", 300);
    let home = common::BenchHome::from_env_or(|home, bin| {
        common::write_bench_manifest(home, "echo", bin, &["--echo"]);
        let count = count.to_string();
        common::write_bench_manifest(home, "flooder", bin, &["--flood", &count]);
    });
    let rt = common::runtime();
    rt.block_on(async move {
        let (tx, mut rx) = zut_ext_host::ui_channel();
        let notes = Arc::new(AtomicU64::new(0));
        let (done_tx, done_rx) = tokio::sync::watch::channel(None::<String>);
        let n2 = Arc::clone(&notes);
        tokio::spawn(async move {
            while let Some(ev) = rx.recv().await {
                match ev.kind {
                    UiKind::Notify { .. } if ev.extension == "flooder" => {
                        n2.fetch_add(1, Ordering::Relaxed);
                    }
                    UiKind::Status { key, text, .. } if key == "flood" => {
                        done_tx.send_replace(Some(text));
                    }
                    _ => {}
                }
            }
        });
        let (host, report) = zut_ext_host::ExtensionHost::start(home.config(), tx).await;
        for e in &report.errors {
            eprintln!("load error: {e}");
        }
        if let Err(e) = common::check_all_ready(&host, 2) {
            eprintln!("flood: {e}");
            std::process::exit(1);
        }
        let rss_before = common::proc_status_kib(0, "VmRSS").unwrap_or(0);

        // RSS sampler.
        let rss_max = Arc::new(AtomicU64::new(rss_before));
        let r2 = Arc::clone(&rss_max);
        let sampler = tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(10));
            loop {
                tick.tick().await;
                if let Some(kib) = common::proc_status_kib(0, "VmRSS") {
                    r2.fetch_max(kib, Ordering::Relaxed);
                }
            }
        });

        let started = Instant::now();
        let out = host.call_tool("flood_start", json!({})).await;
        assert!(!out.is_error, "flood_start failed: {out:?}");

        let mut lat_ms = Vec::new();
        let deadline = started + Duration::from_secs(limit_s);
        while done_rx.borrow().is_none() && Instant::now() < deadline {
            let t = Instant::now();
            let out = host
                .call_tool("echo", json!({"text": "still there?"}))
                .await;
            lat_ms.push(t.elapsed().as_secs_f64() * 1e3);
            assert!(
                matches!(out.content.first(), Some(ToolContent::Text(t)) if t == "still there?"),
                "echo during the flood failed: {out:?}"
            );
            tokio::time::sleep(Duration::from_millis(gap_ms)).await;
        }
        let secs = started.elapsed().as_secs_f64();
        sampler.abort();
        let done = done_rx.borrow().clone();
        let received = notes.load(Ordering::Relaxed);
        let hwm = common::proc_status_kib(0, "VmHWM").unwrap_or(0);
        let lat = common::sorted(&lat_ms);
        println!(
            "runtime: {}; flooder said {:?}; RSS before the flood {rss_before} KiB",
            common::runtime_name(),
            done.as_deref().unwrap_or("(nothing: timed out)")
        );
        println!(
            "ZUT-BENCH flood count={count} received={received} secs={secs:.2} frames_per_s={:.0} calls={} median_ms={:.3} p90_ms={:.3} max_ms={:.3} rss_kib_max={} hwm_kib={hwm}",
            received as f64 / secs,
            lat.len(),
            common::pct(&lat, 0.5),
            common::pct(&lat, 0.9),
            common::pct(&lat, 1.0),
            rss_max.load(Ordering::Relaxed),
        );
        host.shutdown_with_grace(Duration::from_millis(500)).await;
        if done.is_none() || received != count {
            eprintln!("flood: incomplete ({received} of {count} notes received)");
            std::process::exit(1);
        }
    });
}
