//! The agent loop's own overhead per tool call: the real [`Agent`] against
//! a real `zut-llm-server` (in this process, on its own runtime thread)
//! and a real [`ExtensionHost`], on the current-thread runtime the agent
//! modes use.
//!
//! Every prompt is 10 model calls: the model calls the built-in `read` on a
//! small file 9 times, then answers (the scripts are queued once and cycle).
//! Cases:
//!
//! - `none`: the host has no extensions (as `zut -p` without any);
//! - `intercept4`: 4 Rust-SDK `bench_ext --intercept` extensions, each a
//!   pass-through `tool_call` interceptor, so every tool call goes through
//!   a chain of 4 interceptor round trips.
//!
//! Criterion times whole prompts (`loop/prompt_10_steps/<case>`). Then, with
//! `--bench`, the bench times every step of `ZUT_BENCH_PROMPTS` prompts per
//! case (default 200; the cases alternate prompt by prompt) from the agent's
//! own events, stamped as the sink receives them, and subtracts the model
//! and the tool:
//!
//! ```text
//! step      = turn_start(k+1)          - turn_start(k)
//! model     = usage(k)                 - request_started(k)   (HTTP round trip, server, SSE decoding)
//! tool      = tool_result(k)           - tool_execution_started(k)
//! overhead  = step - model - tool
//! ```
//!
//! `overhead` is everything else the loop does for one tool call: the
//! `turn_start` event, the tool snapshot, building the request (system
//! prompt with `AGENTS.md` lookup, transcript copy, JSON encoding of the
//! body), the assistant message, `tool_call` events to extensions,
//! `tool_call` interception, argument validation, the result into the
//! transcript, and the sink, which encodes every event as a JSON line as
//! `--json` does. It prints one line per figure and case:
//! `ZUT-BENCH loop_<figure>_<case> n=.. median_us=.. p90_us=..` (figures
//! `overhead`, `model`, `tool`, `intercept` = `tool_execution_started(k)` −
//! `turn_end(k)`, which is interception plus validation, and `prompt` for a
//! whole prompt), which `scripts/bench/agent` reads.
//!
//! The bench finds `bench_ext` through `$ZUT_BENCH_EXT`, or builds it
//! (`cargo build --release --locked -p zut-ext-sdk --example bench_ext`,
//! honouring `CARGO_TARGET_DIR`).
//!
//! Run: `cargo bench -p zut-agent --bench loop`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::Criterion;
use tokio_util::sync::CancellationToken;
use zut_agent::{Agent, AgentConfig, AgentEvent, PromptOutcome};
use zut_ext_host::{ExtensionHost, HostConfig, ZutHome};
use zut_llm_server::{LlmServer, Script};
use zut_providers::{Part, Provider, ProviderOptions, StopReason};

/// Tool calls per prompt (then one final answer).
const TOOL_CALLS: usize = 9;

/// One case: a host (maybe without extensions), a server, a provider.
struct Case {
    name: &'static str,
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    host: Arc<ExtensionHost>,
    provider: Provider,
    _server: LlmServer,
}

/// When each event of interest of one prompt reached the sink.
#[derive(Default)]
struct Marks {
    turn_start: Vec<Instant>,
    request: Vec<Instant>,
    usage: Vec<Instant>,
    turn_end: Vec<Instant>,
    exec: Vec<Instant>,
    result: Vec<Instant>,
}

/// Per-step figures in µs, and the whole prompt.
#[derive(Default)]
struct Figures {
    overhead: Vec<f64>,
    model: Vec<f64>,
    tool: Vec<f64>,
    intercept: Vec<f64>,
    prompt: Vec<f64>,
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

impl Figures {
    fn add(&mut self, m: &Marks, prompt: Duration) {
        assert_eq!(m.turn_start.len(), TOOL_CALLS + 1, "steps");
        assert_eq!(m.result.len(), TOOL_CALLS, "tool results");
        for k in 0..TOOL_CALLS {
            let step = m.turn_start[k + 1] - m.turn_start[k];
            let model = m.usage[k] - m.request[k];
            let tool = m.result[k] - m.exec[k];
            self.overhead.push(us(step) - us(model) - us(tool));
            self.model.push(us(model));
            self.tool.push(us(tool));
            self.intercept.push(us(m.exec[k] - m.turn_end[k]));
        }
        self.prompt.push(us(prompt));
    }
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn sorted(v: &[f64]) -> Vec<f64> {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

/// `$ZUT_BENCH_EXT`, or `<target>/release/examples/bench_ext` built first.
fn bench_ext_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("ZUT_BENCH_EXT") {
        return PathBuf::from(p);
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| if t.is_absolute() { t } else { root.join(t) })
        .unwrap_or_else(|| root.join("target"));
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
        .current_dir(&root)
        .status()
        .expect("run cargo to build bench_ext");
    assert!(status.success(), "building bench_ext failed");
    target.join("release/examples/bench_ext")
}

/// A manifest in `$ZUT_HOME/extensions/<name>/`, as `zut ext install` leaves it.
fn install(home: &Path, name: &str, bin: &Path, flags: &[&str]) {
    let dir = home.join("extensions").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let mut args = vec!["--name", name];
    args.extend_from_slice(flags);
    let manifest = serde_json::json!({
        "name": name,
        "version": "0.0.0-bench",
        "exec": bin,
        "args": args,
        "language": "rust",
        "description": "benchmark extension (crates/zut-ext-sdk/examples/bench_ext.rs)",
    });
    std::fs::write(dir.join("extension.json"), manifest.to_string()).unwrap();
}

/// The scripts of one prompt: 9 `read` calls, then an answer.
fn scripts() -> Vec<Script> {
    let mut out: Vec<Script> = (0..TOOL_CALLS)
        .map(|i| {
            Script::anthropic_tool_call(format!("toolu_{i:02}"), "read", r#"{"path":"small.txt"}"#)
        })
        .collect();
    out.push(Script::anthropic_text("Read it nine times."));
    out
}

fn case(
    name: &'static str,
    interceptors: usize,
    bin: &Path,
    rt: &tokio::runtime::Runtime,
    server_rt: &tokio::runtime::Runtime,
) -> Case {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(project.join("small.txt"), "small file contents\nline two\n").unwrap();
    for i in 0..interceptors {
        install(&home, &format!("icpt{i}"), bin, &["--intercept"]);
    }

    let server = server_rt.block_on(LlmServer::start()).unwrap();
    server.set_record(false);
    server.set_cycle(true);
    for s in scripts() {
        server.push(s);
    }
    let opts = ProviderOptions {
        provider: Some("anthropic".into()),
        model: Some("bench-model".into()),
        base_url: Some(server.url()),
        api_key: Some("sk-bench".into()),
        ..Default::default()
    };
    let config = zut_providers::resolve(&opts, &|_| None, &home).unwrap();
    let provider = Provider::new(config).unwrap();

    let mut hc = HostConfig::new(ZutHome::new(&home), &project);
    hc.provider = provider.name().to_string();
    hc.model = provider.model().to_string();
    hc.builtin_tools = zut_tools::BUILTIN_NAMES
        .iter()
        .map(|s| s.to_string())
        .collect();
    let host = rt.block_on(async {
        let (tx, mut rx) = zut_ext_host::ui_channel();
        tokio::spawn(async move { while rx.recv().await.is_some() {} });
        let (host, report) = ExtensionHost::start(hc, tx).await;
        assert!(report.errors.is_empty(), "load errors: {:?}", report.errors);
        host
    });
    assert_eq!(host.reports().len(), interceptors, "extensions loaded");
    assert_eq!(
        host.has_interceptors("tool_call"),
        interceptors > 0,
        "interceptors registered"
    );
    Case {
        name,
        _dir: dir,
        home,
        project,
        host: Arc::new(host),
        provider,
        _server: server,
    }
}

/// One prompt with a fresh agent (as one `zut -p` run has); returns the
/// event marks and the prompt's duration.
async fn prompt(case: &Case, json: &mut Vec<u8>) -> (Marks, Duration) {
    let config = AgentConfig::new(&case.project, &case.home);
    let mut agent = Agent::new(case.provider.clone(), Some(case.host.clone()), config);
    let mut marks = Marks::default();
    json.clear();
    let mut sink = |ev: AgentEvent| {
        let now = Instant::now();
        match &ev {
            AgentEvent::TurnStart { .. } => marks.turn_start.push(now),
            AgentEvent::RequestStarted { .. } => marks.request.push(now),
            AgentEvent::Usage(_) => marks.usage.push(now),
            AgentEvent::TurnEnd { .. } => marks.turn_end.push(now),
            AgentEvent::ToolExecutionStarted { .. } => marks.exec.push(now),
            AgentEvent::ToolResult { .. } => marks.result.push(now),
            _ => {}
        }
        // What `--json` does with every event (minus the write to stdout).
        ev.write_json(json);
        json.push(b'\n');
    };
    let cancel = CancellationToken::new();
    let started = Instant::now();
    let outcome = agent
        .prompt(
            vec![Part::Text {
                text: "read small.txt nine times".into(),
            }],
            &cancel,
            &mut sink,
        )
        .await;
    let took = started.elapsed();
    assert!(
        matches!(
            outcome,
            PromptOutcome::Completed {
                stop: StopReason::EndTurn,
                ..
            }
        ),
        "{}: {outcome:?}",
        case.name
    );
    (marks, took)
}

fn main() {
    let benchmarking = std::env::args().any(|a| a == "--bench");
    let bin = bench_ext_binary();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // The server answers from its own thread, as a remote server would.
    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let cases = [
        case("none", 0, &bin, &rt, &server_rt),
        case("intercept4", 4, &bin, &rt, &server_rt),
    ];
    // Sanity: every tool call really succeeded.
    for c in &cases {
        let mut json = Vec::new();
        rt.block_on(prompt(c, &mut json));
        let text = String::from_utf8_lossy(&json);
        let results = text.matches(r#""type":"tool_result""#).count();
        let errors = text.matches(r#""is_error":true"#).count();
        assert_eq!((results, errors), (TOOL_CALLS, 0), "{}: {text}", c.name);
    }

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .sample_size(30)
        .configure_from_args();
    {
        let mut g = c.benchmark_group("loop");
        for case in &cases {
            g.bench_function(format!("prompt_10_steps/{}", case.name), |b| {
                b.to_async(&rt).iter(|| async {
                    let mut json = Vec::with_capacity(64 * 1024);
                    std::hint::black_box(prompt(case, &mut json).await);
                })
            });
        }
        g.finish();
    }
    c.final_summary();

    if benchmarking {
        let n: usize = std::env::var("ZUT_BENCH_PROMPTS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(200);
        let mut figures: Vec<Figures> = cases.iter().map(|_| Figures::default()).collect();
        let mut json = Vec::new();
        rt.block_on(async {
            for _ in 0..n / 10 {
                for case in &cases {
                    prompt(case, &mut json).await;
                }
            }
            for _ in 0..n {
                for (case, f) in cases.iter().zip(&mut figures) {
                    let (marks, took) = prompt(case, &mut json).await;
                    f.add(&marks, took);
                }
            }
        });
        for (case, f) in cases.iter().zip(&figures) {
            for (figure, v) in [
                ("overhead", &f.overhead),
                ("model", &f.model),
                ("tool", &f.tool),
                ("intercept", &f.intercept),
                ("prompt", &f.prompt),
            ] {
                let v = sorted(v);
                println!(
                    "ZUT-BENCH loop_{figure}_{} n={} median_us={:.1} p90_us={:.1} p99_us={:.1}",
                    case.name,
                    v.len(),
                    pct(&v, 0.5),
                    pct(&v, 0.9),
                    pct(&v, 0.99)
                );
            }
        }
    }

    for case in &cases {
        rt.block_on(case.host.shutdown());
    }
}
