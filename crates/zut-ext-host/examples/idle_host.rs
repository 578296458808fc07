//! Resident memory of an idle host with 10 extensions loaded.
//!
//! Target: under 10 MiB resident, host process only (the extensions are
//! separate processes; their RSS is printed for information).
//!
//! Starts the host for `$ZUT_HOME` (or a temporary home with `--n` plain
//! `bench_ext` extensions), checks that `--n` extensions are ready, emits
//! one lifecycle event, then sleeps `--sleep-ms` (default 2000) and reads
//! `VmRSS` / `VmHWM` of its own `/proc/self/status`.
//!
//! ```text
//! cargo run --release --locked -p zut-ext-host --example idle_host -- --n 10
//! ```
//!
//! Prints `ZUT-BENCH idle_host n=.. rss_kib=.. hwm_kib=.. ext_rss_kib_total=..`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

fn main() {
    let n: usize = common::arg_num("n", 10);
    let sleep_ms: u64 = common::arg_num("sleep-ms", 2000);
    let home = common::BenchHome::from_env_or(|home, bin| {
        for i in 0..n {
            common::write_bench_manifest(home, &format!("bench{i:02}"), bin, &[]);
        }
    });
    let rt = common::runtime();
    rt.block_on(async {
        let (host, _ui) = common::start_host(home.config()).await;
        if let Err(e) = common::check_all_ready(&host, n) {
            eprintln!("idle_host: {e}");
            std::process::exit(1);
        }
        // Something an idle agent does once: announce a session.
        host.emit_session_event("session_start", None);
        let after_start = common::proc_status_kib(0, "VmRSS").unwrap_or(0);
        tokio::time::sleep(Duration::from_millis(sleep_ms)).await;
        let rss = common::proc_status_kib(0, "VmRSS").unwrap_or(0);
        let hwm = common::proc_status_kib(0, "VmHWM").unwrap_or(0);
        let ext_rss: u64 = host
            .pids()
            .iter()
            .filter_map(|(_, pid)| common::proc_status_kib(*pid, "VmRSS"))
            .sum();
        println!(
            "runtime: {}; {n} extension(s) in {}; RSS right after start {after_start} KiB",
            common::runtime_name(),
            home.path.display()
        );
        println!(
            "ZUT-BENCH idle_host n={n} rss_kib={rss} hwm_kib={hwm} ext_rss_kib_total={ext_rss}"
        );
        host.shutdown_with_grace(Duration::from_millis(500)).await;
    });
}
