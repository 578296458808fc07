//! Request building in a long session (issue 24): a 500-turn conversation
//! with 2,000 tool results (reads of 150 files, many read again, `bash`
//! and `grep` output; ~5.7 MiB of result text), loaded into a real
//! [`Agent`]. Each sample builds what one model call sends: the system
//! prompt, the projected transcript (stale reads, tool-result budget), the
//! tool list, the provider's JSON body, and its bytes.
//!
//! Cases: `projection+budget` (the default), `off` (both turned off: the
//! whole transcript is copied and encoded, as before issue 24); then the
//! `/btw` side kit (taken at every job boundary) and a side request's body.
//!
//! Prints `ZUT-BENCH long_session_<case> n=.. median_us=.. p90_us=.. cpu_mean_us=.. body_bytes=..`
//! (wall time per request; `cpu_mean_us`: this thread's CPU time per
//! request, which a loaded machine does not inflate; the median of each
//! phase: the `Request`, the body — the bytes `Provider::request_bytes`
//! writes, or with `ZUT_BENCH_TREE=1` the JSON tree, then its bytes)
//! then `ZUT-BENCH long_session_<case>_peak_rss_kib=..` (VmHWM of this
//! process so far: the transcript plus every body built; the default case
//! runs first).
//!
//! Run: `cargo bench -p zut-agent --bench long_session`
//! (`ZUT_BENCH_SAMPLES`, default 200).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use serde_json::json;
use zut_agent::{Agent, AgentConfig};
use zut_providers::{Message, Part, Provider, ProviderOptions, Role};

const TURNS: usize = 500;
const RESULTS_PER_TURN: usize = 4;
const FILES: usize = 150;

fn file_text(file: usize, version: usize) -> String {
    let mut s = String::with_capacity(4096);
    let mut n = 1;
    while s.len() < 3500 + (file % 7) * 300 {
        s.push_str(&format!(
            "{n:>6}\tfn item_{file}_{n}() -> u32 {{ {version} + {n} }} // padding text\n"
        ));
        n += 1;
    }
    s
}

fn transcript() -> Vec<Message> {
    let mut out = Vec::with_capacity(TURNS * 4);
    let mut k = 0usize;
    for turn in 0..TURNS {
        out.push(Message::user_text(format!(
            "turn {turn}: please look at the next part of the code and fix what is wrong"
        )));
        let mut calls = Vec::new();
        let mut results = Vec::new();
        for j in 0..RESULTS_PER_TURN {
            k += 1;
            let id = format!("call_{turn}_{j}");
            let (name, args, text) = match k % 4 {
                0 | 1 => {
                    let f = (k * 7) % FILES;
                    (
                        "read",
                        json!({"path": format!("src/mod_{f}.rs")}),
                        file_text(f, turn),
                    )
                }
                2 => (
                    "bash",
                    json!({"command": format!("cargo test -p crate_{}", k % 13)}),
                    format!(
                        "running 12 tests\n{}test result: ok\n",
                        "test x ... ok\n".repeat(150)
                    ),
                ),
                _ => (
                    "grep",
                    json!({"pattern": format!("item_{}", k % 50), "path": "src"}),
                    format!("src/mod_{}.rs:12: fn item\n", k % 50).repeat(40),
                ),
            };
            calls.push(Part::ToolCall {
                id: id.clone(),
                name: name.into(),
                args,
            });
            results.push(Part::ToolResult {
                call_id: id,
                is_error: false,
                content: vec![Part::Text { text }],
            });
        }
        let mut assistant = vec![Part::Text {
            text: format!("Looking at part {turn}."),
        }];
        assistant.extend(calls);
        out.push(Message {
            role: Role::Assistant,
            content: assistant,
        });
        out.push(Message {
            role: Role::User,
            content: results,
        });
        out.push(Message {
            role: Role::Assistant,
            content: vec![Part::Text {
                text: format!("Done with part {turn}: the tests pass."),
            }],
        });
    }
    out.push(Message::user_text("and the last question"));
    out
}

/// CPU time this thread has run, in ns (`/proc/thread-self/schedstat`):
/// unlike wall time, not inflated by other processes on a loaded machine.
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let samples: usize = std::env::var("ZUT_BENCH_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let dir = tempfile::tempdir().unwrap();
    let (home, project) = (dir.path().join("home"), dir.path().join("project"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    let opts = ProviderOptions {
        provider: Some("anthropic".into()),
        model: Some("claude-sonnet-4-5".into()),
        base_url: Some("http://127.0.0.1:9".into()),
        api_key: Some("sk-bench".into()),
        ..Default::default()
    };
    let cfg = zut_providers::resolve(&opts, &|_| None, &home).unwrap();
    let mut agent = Agent::new(
        Provider::new(cfg).unwrap(),
        None,
        AgentConfig::new(&project, &home),
    );
    let messages = transcript();
    let result_bytes: usize = messages
        .iter()
        .flat_map(|m| &m.content)
        .map(|p| match p {
            Part::ToolResult { content, .. } => zut_agent::result_budget::text_bytes(content),
            _ => 0,
        })
        .sum();
    eprintln!(
        "{} messages, {} tool results, {} KiB of result text",
        messages.len(),
        TURNS * RESULTS_PER_TURN,
        result_bytes / 1024
    );
    agent.replace_transcript(messages);
    let tree = std::env::var_os("ZUT_BENCH_TREE").is_some();
    for (case, on) in [("projection+budget", true), ("off", false)] {
        let ls = &mut agent.config_mut().long_session;
        ls.stale_read_projection = on;
        ls.result_budget = on;
        let mut times = Vec::with_capacity(samples);
        // Phases: the request (system prompt, projection, tools), the
        // wire's JSON value, its bytes.
        let mut phases = [(); 3].map(|()| Vec::with_capacity(samples));
        let mut body_bytes = 0;
        let mut cpu_ns = 0;
        for _ in 0..samples {
            let cpu = thread_cpu_ns();
            let t = Instant::now();
            let request = agent.next_request();
            let t1 = t.elapsed();
            // What `Provider::stream` sends (on the Anthropic wire, written
            // straight from the request; `ZUT_BENCH_TREE=1`: through the
            // JSON tree, as before).
            let (t2, bytes) = if tree {
                let body = agent.provider().request_body(&request);
                let t2 = t.elapsed();
                (t2, serde_json::to_vec(&body).unwrap())
            } else {
                let bytes = agent.provider().request_bytes(&request).unwrap();
                (t.elapsed(), bytes)
            };
            let t3 = t.elapsed();
            cpu_ns += thread_cpu_ns() - cpu;
            times.push(t3.as_micros() as u64);
            phases[0].push(t1.as_micros() as u64);
            phases[1].push((t2 - t1).as_micros() as u64);
            phases[2].push((t3 - t2).as_micros() as u64);
            body_bytes = bytes.len();
            std::hint::black_box(bytes);
            std::hint::black_box(request);
        }
        times.sort_unstable();
        for p in &mut phases {
            p.sort_unstable();
        }
        println!(
            "ZUT-BENCH long_session_{case} n={samples} median_us={} p90_us={} cpu_mean_us={} \
             body_bytes={body_bytes} (median request_us={} body_us={} bytes_us={})",
            times[samples / 2],
            times[samples * 9 / 10],
            cpu_ns / 1000 / samples as u64,
            phases[0][samples / 2],
            phases[1][samples / 2],
            phases[2][samples / 2],
        );
        println!(
            "ZUT-BENCH long_session_{case}_peak_rss_kib={}",
            peak_rss_kib()
        );
    }
    // `/btw`: the kit the worker takes at every job boundary, and the side
    // request built from it (projection and budget on).
    let ls = &mut agent.config_mut().long_session;
    ls.stale_read_projection = true;
    ls.result_budget = true;
    let transcript = agent.transcript().to_vec();
    let mut kit_times = Vec::with_capacity(samples);
    let mut side_times = Vec::with_capacity(samples);
    for _ in 0..samples {
        let t = Instant::now();
        let kit = agent.side_kit();
        kit_times.push(t.elapsed().as_micros() as u64);
        let t = Instant::now();
        let request = kit.request(&transcript, "which files changed?");
        let bytes = agent.provider().request_bytes(&request).unwrap();
        side_times.push(t.elapsed().as_micros() as u64);
        std::hint::black_box(bytes);
    }
    kit_times.sort_unstable();
    side_times.sort_unstable();
    println!(
        "ZUT-BENCH long_session_side_kit n={samples} median_us={} p90_us={}",
        kit_times[samples / 2],
        kit_times[samples * 9 / 10]
    );
    println!(
        "ZUT-BENCH long_session_side_request n={samples} median_us={} p90_us={}",
        side_times[samples / 2],
        side_times[samples * 9 / 10]
    );
}
