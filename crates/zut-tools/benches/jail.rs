//! Jailed `bash true` against unjailed: median of 200 calls each, through
//! `run_builtin` (the tool as the agent calls it). Prints the figures.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use zut_tools::{run_builtin, ToolContext};

const N: usize = 200;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

async fn run(ctx: &ToolContext) -> Duration {
    let args = json!({"command": "true", "timeout": 10});
    for _ in 0..10 {
        run_builtin("bash", &args, ctx).await;
    }
    let mut times = Vec::with_capacity(N);
    for _ in 0..N {
        let t = Instant::now();
        let out = run_builtin("bash", &args, ctx).await;
        times.push(t.elapsed());
        assert!(!out.is_error, "{}", out.text_content());
    }
    median(times)
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let plain = ToolContext::new(dir.path());
        let spec = zut_sandbox::JailSpec {
            cwd: dir.path().to_path_buf(),
            home: std::env::var_os("HOME").map(Into::into),
            ..Default::default()
        };
        let t = Instant::now();
        let prepared =
            Arc::new(zut_sandbox::Prepared::new(zut_sandbox::Policy::jail(&spec)).unwrap());
        let prepare = t.elapsed();
        let jailed = ToolContext::new(dir.path()).with_jail(Some(prepared));
        let a = run(&plain).await;
        let b = run(&jailed).await;
        println!("sandbox: {}", zut_sandbox::status().line());
        println!(
            "bash true, unjailed: median {:.3} ms over {N}",
            a.as_secs_f64() * 1e3
        );
        println!(
            "bash true, jailed:   median {:.3} ms over {N}",
            b.as_secs_f64() * 1e3
        );
        println!(
            "jail overhead per call: {:+.3} ms (jail built once per session: {:.3} ms)",
            (b.as_secs_f64() - a.as_secs_f64()) * 1e3,
            prepare.as_secs_f64() * 1e3
        );
    });
}
