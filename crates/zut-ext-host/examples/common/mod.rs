//! Shared by the benchmark example binaries (`start_all`, `idle_host`,
//! `flood`) and `benches/dispatch.rs`: runtime choice, a UI drain, clocks,
//! `/proc` readers and a temporary `ZUT_HOME` filled with `bench_ext`
//! manifests.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use zut_ext_host::{ExtensionHost, HostConfig, UiReceiver, ZutHome};

/// The tokio runtime the benches use: `ZUT_BENCH_RT=multi` for the
/// multi-threaded scheduler (what `zut ext doctor` uses), anything else for
/// the current-thread one (what zut's agent modes use).
pub fn runtime() -> tokio::runtime::Runtime {
    let multi = std::env::var("ZUT_BENCH_RT").is_ok_and(|v| v == "multi");
    let mut b = if multi {
        tokio::runtime::Builder::new_multi_thread()
    } else {
        tokio::runtime::Builder::new_current_thread()
    };
    b.enable_all().build().expect("build tokio runtime")
}

/// Name of the runtime flavour [`runtime`] builds.
pub fn runtime_name() -> &'static str {
    if std::env::var("ZUT_BENCH_RT").is_ok_and(|v| v == "multi") {
        "multi_thread"
    } else {
        "current_thread"
    }
}

/// Drains the host's UI channel like a real UI would, counting events.
pub fn drain_ui(mut rx: UiReceiver) -> Arc<AtomicU64> {
    let count = Arc::new(AtomicU64::new(0));
    let c = Arc::clone(&count);
    tokio::spawn(async move {
        while rx.recv().await.is_some() {
            c.fetch_add(1, Ordering::Relaxed);
        }
    });
    count
}

/// A host configuration for `$ZUT_HOME` (from the environment) and the
/// current directory as project directory.
pub fn config_from_env() -> HostConfig {
    let cwd = std::env::current_dir().expect("current dir");
    HostConfig::new(ZutHome::from_env(), cwd)
}

/// A host configuration for `home`, with `project` as project directory.
pub fn config_for(home: &Path, project: &Path) -> HostConfig {
    HostConfig::new(ZutHome::new(home), project)
}

/// Starts a host and its UI drain.
pub async fn start_host(config: HostConfig) -> (ExtensionHost, Arc<AtomicU64>) {
    let (tx, rx) = zut_ext_host::ui_channel();
    let count = drain_ui(rx);
    let (host, report) = ExtensionHost::start(config, tx).await;
    for e in &report.errors {
        eprintln!("load error: {e}");
    }
    (host, count)
}

/// `CLOCK_MONOTONIC` in nanoseconds (comparable with Python's
/// `time.monotonic_ns()` in the harness).
pub fn monotonic_ns() -> u128 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u128 * 1_000_000_000 + ts.tv_nsec as u128
}

/// A `VmXxx:` field of `/proc/<pid>/status` in KiB (`pid` 0 = self).
pub fn proc_status_kib(pid: u32, field: &str) -> Option<u64> {
    let path = if pid == 0 {
        "/proc/self/status".to_string()
    } else {
        format!("/proc/{pid}/status")
    };
    let text = std::fs::read_to_string(path).ok()?;
    text.lines()
        .find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
}

/// Path of the release `bench_ext` binary: `$ZUT_BENCH_EXT` if set,
/// otherwise `<target>/release/examples/bench_ext`, built first with
/// `cargo build --release --locked -p zut-ext-sdk --example bench_ext` when
/// `build` is true.
pub fn bench_ext_binary(build: bool) -> PathBuf {
    if let Some(p) = std::env::var_os("ZUT_BENCH_EXT") {
        return PathBuf::from(p);
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| if t.is_absolute() { t } else { root.join(t) })
        .unwrap_or_else(|| root.join("target"));
    if build {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = std::process::Command::new(cargo)
            .args([
                "build",
                "--release",
                "--locked",
                "--quiet",
                "-p",
                "zut-ext-sdk",
                "--example",
                "bench_ext",
            ])
            .env("CARGO_TARGET_DIR", &target)
            .current_dir(&root)
            .status()
            .expect("run cargo build for bench_ext");
        assert!(status.success(), "building bench_ext failed");
    }
    let bin = target.join("release/examples/bench_ext");
    assert!(bin.is_file(), "{} not found", bin.display());
    bin
}

/// Writes `$home/extensions/<name>/extension.json` running `bin` with
/// `--name <name>` followed by `flags`.
pub fn write_bench_manifest(home: &Path, name: &str, bin: &Path, flags: &[&str]) {
    let dir = home.join("extensions").join(name);
    std::fs::create_dir_all(&dir).expect("create extension dir");
    let mut args = vec![serde_json::Value::from("--name"), name.into()];
    args.extend(flags.iter().map(|f| serde_json::Value::from(*f)));
    let manifest = serde_json::json!({
        "name": name,
        "version": "0.0.0-bench",
        "exec": bin.display().to_string(),
        "args": args,
        "language": "rust",
        "description": "benchmark extension",
    });
    std::fs::write(
        dir.join("extension.json"),
        serde_json::to_vec_pretty(&manifest).expect("encode manifest"),
    )
    .expect("write manifest");
}

/// Where a whole-process bench finds its extensions: `$ZUT_HOME` when set
/// (the caller, e.g. `scripts/bench/run`, installed them), otherwise a
/// temporary home filled by `fill` (kept alive by the returned guard).
pub struct BenchHome {
    /// The `ZUT_HOME` directory.
    pub path: PathBuf,
    _tmp: Option<tempfile::TempDir>,
}

impl BenchHome {
    /// `$ZUT_HOME` if set and non-empty, else a fresh temporary home in
    /// which `fill(home, bench_ext)` writes the manifests.
    pub fn from_env_or(fill: impl FnOnce(&Path, &Path)) -> Self {
        if let Some(h) = std::env::var_os("ZUT_HOME").filter(|h| !h.is_empty()) {
            return Self {
                path: PathBuf::from(h),
                _tmp: None,
            };
        }
        let tmp = tempfile::Builder::new()
            .prefix("zut-bench-home.")
            .tempdir()
            .expect("create temporary ZUT_HOME");
        let bin = bench_ext_binary(true);
        fill(tmp.path(), &bin);
        Self {
            path: tmp.path().to_path_buf(),
            _tmp: Some(tmp),
        }
    }

    /// A host configuration for this home. The project directory is the
    /// home itself, which has no `.zut/extensions`, so only the global
    /// scope loads.
    pub fn config(&self) -> HostConfig {
        config_for(&self.path, &self.path)
    }
}

/// Checks that `expect` extensions loaded and all sent `ready`; returns
/// a description of what is wrong otherwise.
pub fn check_all_ready(host: &ExtensionHost, expect: usize) -> Result<(), String> {
    let reports = host.reports();
    if reports.len() != expect {
        return Err(format!(
            "{} extensions loaded, expected {expect}",
            reports.len()
        ));
    }
    let late: Vec<&str> = reports
        .iter()
        .filter(|r| r.readiness != zut_ext_host::Readiness::Ready)
        .map(|r| r.name.as_str())
        .collect();
    if late.is_empty() {
        Ok(())
    } else {
        Err(format!("not ready: {}", late.join(", ")))
    }
}

/// Sorted copy of `v`.
pub fn sorted(v: &[f64]) -> Vec<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s
}

/// Nearest-rank percentile `p` (0..=1) of a sorted, non-empty slice.
pub fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Value of `--<name> <value>` among the process arguments.
pub fn arg_value(name: &str) -> Option<String> {
    let flag = format!("--{name}");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == flag {
            return args.next();
        }
        if let Some(v) = a.strip_prefix(&format!("{flag}=")) {
            return Some(v.to_string());
        }
    }
    None
}

/// `--<name> <number>`, or `default`.
pub fn arg_num<T: std::str::FromStr>(name: &str, default: T) -> T {
    arg_value(name)
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("--{name}: not a number: {v}"))
        })
        .unwrap_or(default)
}

/// Whether the bare flag `--<name>` was given.
pub fn arg_flag(name: &str) -> bool {
    let flag = format!("--{name}");
    std::env::args().skip(1).any(|a| a == flag)
}
