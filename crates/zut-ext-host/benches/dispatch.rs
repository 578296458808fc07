//! Host dispatch latency through real extension processes (Rust SDK,
//! `crates/zut-ext-sdk/examples/bench_ext.rs`, release build).
//!
//! - `dispatch/tool_call_roundtrip`: `ExtensionHost::call_tool("echo")`
//!   to one extension and back (target: median < 100 µs);
//! - `dispatch/intercept_none`: `intercept_tool_call` with no interceptor
//!   (the floor: no I/O);
//! - `dispatch/intercept_1`: `intercept_tool_call` with 1 pass-through
//!   interceptor (target: median < 80 µs);
//! - `dispatch/intercept_8`: a chain of 8 interceptor extensions
//!   (target: median < 0.6 ms);
//! - `dispatch/tool_call_roundtrip_raw`, `dispatch/intercept_1_raw`: the
//!   same against `bench_ext --raw`, which answers on its one reading
//!   thread without the SDK's runtime (the SDK hands the reading role to
//!   another thread and runs the handler where the frame was read): the
//!   difference to the SDK figures is the SDK's share, the
//!   rest is the host plus two pipe hops and process wake-ups.
//!
//! After criterion, the bench also times every call individually
//! (`ZUT_BENCH_SAMPLES` per case, default 2000, the cases interleaved
//! round-robin) and prints one line per case:
//! `ZUT-BENCH <case> n=.. median_us=.. p90_us=.. p99_us=..`, which
//! `scripts/bench/run` reads; criterion's own median is a median of
//! per-sample means.
//!
//! The bench builds `bench_ext` itself
//! (`cargo build --release -p zut-ext-sdk --example bench_ext`, honouring
//! `CARGO_TARGET_DIR`) unless `ZUT_BENCH_EXT` names a binary, and writes
//! its manifests into temporary `ZUT_HOME`s. `ZUT_BENCH_RT=multi` runs the
//! host on tokio's multi-threaded runtime instead of the current-thread one.
//!
//! Run: `cargo bench -p zut-ext-host --bench dispatch`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../examples/common/mod.rs"]
mod common;

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use criterion::Criterion;
use serde_json::{json, Value};
use zut_ext_host::{ExtensionHost, ToolCallVerdict, ToolContent};

struct Fixture {
    _home: tempfile::TempDir,
    host: ExtensionHost,
}

fn fixture(
    rt: &tokio::runtime::Runtime,
    bin: &std::path::Path,
    exts: &[(&str, &[&str])],
) -> Fixture {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    for (name, flags) in exts {
        common::write_bench_manifest(home.path(), name, bin, flags);
    }
    let config = common::config_for(home.path(), &project);
    let (host, _ui) = rt.block_on(common::start_host(config));
    let reports = host.reports();
    assert_eq!(
        reports.len(),
        exts.len(),
        "not every bench extension loaded"
    );
    for r in &reports {
        assert_eq!(
            r.readiness,
            zut_ext_host::Readiness::Ready,
            "{} did not send ready",
            r.name
        );
    }
    Fixture { _home: home, host }
}

fn args() -> Value {
    json!({"text": "hello from the bench", "n": 42})
}

async fn echo(host: &ExtensionHost) {
    let out = host.call_tool("echo", args()).await;
    debug_assert!(!out.is_error);
    std::hint::black_box(out);
}

async fn intercept(host: &ExtensionHost) {
    let v = host
        .intercept_tool_call("toolu_bench", "echo", &args())
        .await;
    debug_assert!(matches!(
        v,
        ToolCallVerdict::Allow {
            modified: false,
            ..
        }
    ));
    std::hint::black_box(v);
}

/// One case of the per-call timing: a name and a call to time.
type Case<'a> = (
    &'static str,
    Box<dyn Fn() -> Pin<Box<dyn Future<Output = ()> + 'a>> + 'a>,
);

/// Times `n` calls of every case one by one, in rounds of one call per
/// case, so that a change in machine load hits all cases alike
/// (differences between cases stay meaningful on a shared machine). The
/// order within a round is shuffled: the latency of a call depends on
/// what ran just before it (whether the CPUs were idle), and a fixed
/// order would favour some cases. `n / 10` unmeasured rounds first.
/// Returns sorted µs per case.
fn distributions(rt: &tokio::runtime::Runtime, n: usize, cases: &[Case<'_>]) -> Vec<Vec<f64>> {
    rt.block_on(async {
        for _ in 0..n / 10 {
            for (_, f) in cases {
                f().await;
            }
        }
        let mut v = vec![Vec::with_capacity(n); cases.len()];
        let mut order: Vec<usize> = (0..cases.len()).collect();
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..n {
            // Fisher-Yates with a xorshift generator (no `rand` dependency).
            for i in (1..order.len()).rev() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                order.swap(i, (seed % (i as u64 + 1)) as usize);
            }
            for &i in &order {
                let t = Instant::now();
                (cases[i].1)().await;
                v[i].push(t.elapsed().as_secs_f64() * 1e6);
            }
        }
        v.iter().map(|d| common::sorted(d)).collect()
    })
}

fn main() {
    let benchmarking = std::env::args().any(|a| a == "--bench");
    let bin = common::bench_ext_binary(true);
    let rt = common::runtime();

    let echo_fx = fixture(&rt, &bin, &[("echo", &["--echo"])]);
    let one = fixture(&rt, &bin, &[("icpt0", &["--intercept"])]);
    let names: Vec<String> = (0..8).map(|i| format!("icpt{i}")).collect();
    let eight_spec: Vec<(&str, &[&str])> = names
        .iter()
        .map(|n| (n.as_str(), &["--intercept"][..]))
        .collect();
    let eight = fixture(&rt, &bin, &eight_spec);
    let echo_raw = fixture(&rt, &bin, &[("echo", &["--raw", "--echo"])]);
    let one_raw = fixture(&rt, &bin, &[("icpt0", &["--raw", "--intercept"])]);

    // Sanity: the echoes really round-trip, the chains really allow.
    for fx in [&echo_fx, &echo_raw] {
        let out = rt.block_on(fx.host.call_tool("echo", json!({"text": "ping"})));
        assert!(!out.is_error, "echo failed: {out:?}");
        assert!(
            matches!(out.content.first(), Some(ToolContent::Text(t)) if t == "ping"),
            "unexpected echo result: {out:?}"
        );
    }
    for fx in [&one, &eight, &one_raw] {
        assert!(fx.host.has_interceptors("tool_call"));
        assert_eq!(
            rt.block_on(fx.host.intercept_tool_call("t", "echo", &json!({"a": 1}))),
            ToolCallVerdict::Allow {
                args: json!({"a": 1}),
                modified: false
            }
        );
    }

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();
    {
        let mut g = c.benchmark_group("dispatch");
        g.bench_function("tool_call_roundtrip", |b| {
            b.to_async(&rt).iter(|| echo(&echo_fx.host))
        });
        g.bench_function("intercept_none", |b| {
            b.to_async(&rt).iter(|| intercept(&echo_fx.host))
        });
        g.bench_function("intercept_1", |b| {
            b.to_async(&rt).iter(|| intercept(&one.host))
        });
        g.bench_function("intercept_8", |b| {
            b.to_async(&rt).iter(|| intercept(&eight.host))
        });
        g.bench_function("tool_call_roundtrip_raw", |b| {
            b.to_async(&rt).iter(|| echo(&echo_raw.host))
        });
        g.bench_function("intercept_1_raw", |b| {
            b.to_async(&rt).iter(|| intercept(&one_raw.host))
        });
        g.finish();
    }
    c.final_summary();

    if benchmarking {
        let n: usize = std::env::var("ZUT_BENCH_SAMPLES")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(2000);
        let cases: Vec<Case<'_>> = vec![
            (
                "tool_call_roundtrip",
                Box::new(|| Box::pin(echo(&echo_fx.host))),
            ),
            (
                "intercept_none",
                Box::new(|| Box::pin(intercept(&echo_fx.host))),
            ),
            ("intercept_1", Box::new(|| Box::pin(intercept(&one.host)))),
            ("intercept_8", Box::new(|| Box::pin(intercept(&eight.host)))),
            (
                "tool_call_roundtrip_raw",
                Box::new(|| Box::pin(echo(&echo_raw.host))),
            ),
            (
                "intercept_1_raw",
                Box::new(|| Box::pin(intercept(&one_raw.host))),
            ),
        ];
        let results = distributions(&rt, n, &cases);
        println!("runtime: {}", common::runtime_name());
        for ((name, _), v) in cases.iter().zip(&results) {
            println!(
                "ZUT-BENCH {name} n={} median_us={:.2} p90_us={:.2} p99_us={:.2}",
                v.len(),
                common::pct(v, 0.5),
                common::pct(v, 0.9),
                common::pct(v, 0.99)
            );
        }
    }

    for fx in [&echo_fx, &one, &eight, &echo_raw, &one_raw] {
        rt.block_on(fx.host.shutdown_with_grace(Duration::from_millis(500)));
    }
}
