//! What spawning a child costs before its first request: the time of
//! [`Runtime::spawn`] (state directory, session file with its `meta` row,
//! the child's [`zut_agent::Agent`], its task on the runtime) and the
//! memory each queued child holds.
//!
//! The runtime's concurrency limit is 1 and the first child's request
//! hangs at a real `zut-llm-server`, so every later child stays queued
//! before its first request: the RSS growth over `ZUT_BENCH_CHILDREN`
//! children (default 200) divided by their number is the per-child cost.
//! Prints `ZUT-BENCH subagent_spawn n=.. median_us=.. p90_us=..` and
//! `ZUT-BENCH subagent_rss_per_child_kib=..`.
//!
//! Run: `cargo bench -p zut-agent --bench subagent_spawn`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use zut_agent::subagent::profiles::ProfileSet;
use zut_agent::subagent::runtime::{Runtime, SpawnSpec};
use zut_agent::AgentConfig;
use zut_llm_server::{LlmServer, Script};
use zut_providers::{Provider, ProviderOptions};

fn rss_kib() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    pages * 4
}

fn main() {
    let n: usize = std::env::var("ZUT_BENCH_CHILDREN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let server_rt = tokio::runtime::Runtime::new().unwrap();
    let server = server_rt.block_on(LlmServer::start()).unwrap();
    server.set_record(false);
    server.push(Script::hang());
    let opts = ProviderOptions {
        provider: Some("anthropic".into()),
        model: Some("bench-model".into()),
        base_url: Some(server.url()),
        api_key: Some("sk-bench".into()),
        ..Default::default()
    };
    let config = zut_providers::resolve(&opts, &|_| None, &home).unwrap();
    let provider = Provider::new(config).unwrap();
    let mut agent_config = AgentConfig::new(&project, &home);
    agent_config.builtin_tools = vec!["read".into(), "grep".into()];

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let runtime = Runtime::new(home.clone(), ProfileSet::default(), 1, Duration::from_secs(600));
        let spec = |i: usize| SpawnSpec {
            task: format!("bench task {i}"),
            profile: None,
            model: None,
            reasoning: None,
            worktree: false,
            timeout: None,
            max_turns: None,
            required: false,
        };
        // The first child takes the only slot and hangs in its request.
        runtime
            .spawn(spec(0), &provider, None, &agent_config, None, None)
            .await
            .unwrap();
        for _ in 0..50 {
            tokio::task::yield_now().await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        let before = rss_kib();
        let mut times = Vec::with_capacity(n);
        for i in 1..=n {
            let t = Instant::now();
            runtime
                .spawn(spec(i), &provider, None, &agent_config, None, None)
                .await
                .unwrap();
            times.push(t.elapsed());
            // Let the child's task run up to its queue wait.
            tokio::task::yield_now().await;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        let after = rss_kib();
        let queued = runtime
            .children()
            .iter()
            .filter(|c| c.status().state.as_str() == "queued")
            .count();
        assert_eq!(queued, n, "every later child waits before its first request");
        times.sort();
        let median = times[n / 2].as_micros();
        let p90 = times[n * 9 / 10].as_micros();
        println!("ZUT-BENCH subagent_spawn n={n} median_us={median} p90_us={p90}");
        println!(
            "ZUT-BENCH subagent_rss_per_child_kib={} (rss {before} -> {after} KiB over {n} queued children)",
            after.saturating_sub(before) / n as u64
        );
        runtime.stop_all();
    });
    drop(server);
}
