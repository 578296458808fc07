//! Start-up to all ready, measured from host process start.
//!
//! Targets: 1 Rust-SDK extension ready in under 10 ms from host process
//! start; 32 of them in under 3x the time of 1.
//!
//! The example runs itself as a child process `--runs` times (after
//! `--warmup` unmeasured runs). Each child is the host process: it builds
//! the tokio runtime, calls [`zut_ext_host::ExtensionHost::start`] for
//! `$ZUT_HOME` (every extension spawned, handshaken and `ready`), checks
//! that `--n` extensions are ready and prints the `CLOCK_MONOTONIC` instant
//! at which that was true, plus its peak RSS (`VmHWM`). The parent takes
//! the instant just before spawning the child as "process start", so the
//! figure includes fork/exec, the dynamic loader, runtime set-up and
//! everything the host does. After reporting, the child shuts its
//! extensions down (not measured).
//!
//! `$ZUT_HOME` must hold exactly `--n` extensions (`scripts/bench/run`
//! installs copies of `bench_ext`); without `$ZUT_HOME` a temporary home
//! with `--n` plain `bench_ext` extensions is made.
//!
//! ```text
//! cargo run --release --locked -p zut-ext-host --example start_all -- --n 32 --runs 20
//! ```
//!
//! Prints one line for `scripts/bench/run`:
//! `ZUT-BENCH start_all n=.. runs=.. median_ms=.. p90_ms=.. min_ms=..
//! in_process_median_ms=.. hwm_kib_median=.. hwm_kib_max=..`.
//!
//! `--floor` measures, for comparison, what the machine needs without any
//! host: the example itself starts `--n` `bench_ext` processes at once
//! (plain `std::process::Command`, stdin closed) and waits until each has
//! written its `hello` line. That is the cost of creating the processes
//! and starting the SDK, which no host can avoid; it prints
//! `ZUT-BENCH spawn_floor n=.. runs=.. median_ms=.. p90_ms=.. min_ms=..`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    if common::arg_flag("child") {
        child();
    } else if common::arg_flag("floor") {
        floor();
    } else {
        parent();
    }
}

/// Starts `--n` bench_ext processes concurrently, without a host, and
/// times until all have sent `hello`.
fn floor() {
    let n: usize = common::arg_num("n", 1);
    let runs: usize = common::arg_num("runs", 20);
    let warmup: usize = common::arg_num("warmup", 2);
    let bin = common::bench_ext_binary(true);
    let once = || {
        let t0 = Instant::now();
        let mut children: Vec<_> = (0..n)
            .map(|i| {
                Command::new(&bin)
                    .args(["--name", &format!("bench{i:02}")])
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("spawn bench_ext")
            })
            .collect();
        for c in &mut children {
            let mut line = String::new();
            BufReader::new(c.stdout.take().expect("stdout"))
                .read_line(&mut line)
                .expect("read hello");
            assert!(line.contains("\"hello\""), "no hello: {line:?}");
        }
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        for mut c in children {
            let _ = c.wait();
        }
        ms
    };
    for _ in 0..warmup {
        once();
    }
    let v = common::sorted(
        &(0..runs)
            .map(|_| {
                let ms = once();
                std::thread::sleep(Duration::from_millis(20));
                ms
            })
            .collect::<Vec<_>>(),
    );
    println!(
        "ZUT-BENCH spawn_floor n={n} runs={runs} median_ms={:.2} p90_ms={:.2} min_ms={:.2}",
        common::pct(&v, 0.5),
        common::pct(&v, 0.9),
        common::pct(&v, 0.0),
    );
}

/// One measured host process.
fn child() {
    let t_main = common::monotonic_ns();
    let n: usize = common::arg_num("n", 1);
    let rt = common::runtime();
    let home = common::BenchHome::from_env_or(|_, _| panic!("the child needs $ZUT_HOME"));
    let config = home.config();
    rt.block_on(async {
        let (tx, rx) = zut_ext_host::ui_channel();
        common::drain_ui(rx);
        let (host, report) = zut_ext_host::ExtensionHost::start(config, tx).await;
        let ready_ns = common::monotonic_ns();
        for e in &report.errors {
            eprintln!("load error: {e}");
        }
        let ok = common::check_all_ready(&host, n);
        let hwm = common::proc_status_kib(0, "VmHWM").unwrap_or(0);
        let rss = common::proc_status_kib(0, "VmRSS").unwrap_or(0);
        match &ok {
            Ok(()) => {
                println!("READY ready_ns={ready_ns} main_ns={t_main} hwm_kib={hwm} rss_kib={rss}")
            }
            Err(e) => println!("FAILED {e}"),
        }
        host.shutdown_with_grace(Duration::from_millis(500)).await;
        if ok.is_err() {
            std::process::exit(1);
        }
    });
}

struct Run {
    total_ms: f64,
    in_process_ms: f64,
    hwm_kib: u64,
}

fn field(line: &str, key: &str) -> Option<u128> {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
}

fn run_once(exe: &std::path::Path, home: &std::path::Path, n: usize) -> Run {
    let mut cmd = Command::new(exe);
    cmd.args(["--child", "--n", &n.to_string()])
        .env("ZUT_HOME", home)
        .current_dir(home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped());
    let t0 = common::monotonic_ns();
    let mut child = cmd.spawn().expect("spawn start_all child");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("child stdout"))
        .read_line(&mut line)
        .expect("read child report");
    let status = child.wait().expect("wait for child");
    assert!(
        status.success() && line.starts_with("READY"),
        "child failed ({status}): {line}"
    );
    let ready = field(&line, "ready_ns").expect("ready_ns");
    let main = field(&line, "main_ns").expect("main_ns");
    Run {
        total_ms: (ready - t0) as f64 / 1e6,
        in_process_ms: (ready - main) as f64 / 1e6,
        hwm_kib: field(&line, "hwm_kib").unwrap_or(0) as u64,
    }
}

fn parent() {
    let n: usize = common::arg_num("n", 1);
    let runs: usize = common::arg_num("runs", 20);
    let warmup: usize = common::arg_num("warmup", 2);
    let home = common::BenchHome::from_env_or(|home, bin| {
        for i in 0..n {
            common::write_bench_manifest(home, &format!("bench{i:02}"), bin, &[]);
        }
    });
    let exe = std::env::current_exe().expect("current exe");
    for _ in 0..warmup {
        run_once(&exe, &home.path, n);
    }
    let mut results = Vec::with_capacity(runs);
    for _ in 0..runs {
        results.push(run_once(&exe, &home.path, n));
        std::thread::sleep(Duration::from_millis(20));
    }
    let total = common::sorted(&results.iter().map(|r| r.total_ms).collect::<Vec<_>>());
    let inproc = common::sorted(&results.iter().map(|r| r.in_process_ms).collect::<Vec<_>>());
    let hwm = common::sorted(&results.iter().map(|r| r.hwm_kib as f64).collect::<Vec<_>>());
    println!(
        "runtime: {}; {n} extension(s) in {}",
        common::runtime_name(),
        home.path.display()
    );
    println!(
        "ZUT-BENCH start_all n={n} runs={runs} median_ms={:.2} p90_ms={:.2} min_ms={:.2} in_process_median_ms={:.2} hwm_kib_median={:.0} hwm_kib_max={:.0}",
        common::pct(&total, 0.5),
        common::pct(&total, 0.9),
        common::pct(&total, 0.0),
        common::pct(&inproc, 0.5),
        common::pct(&hwm, 0.5),
        common::pct(&hwm, 1.0),
    );
}
