//! What an MCP tool call through zut adds over the server's own time
//! (issue 23: ≤ 0.2 ms).
//!
//! `cargo run --release -p zut-mcp --example roundtrip [calls]`
//!
//! One FastMCP server (the official Python `mcp` package,
//! `tests/fixtures/fastmcp_server.py`) is called `calls` times (default
//! 2000, after 200 warm-up calls) with `shout {"text": "hello"}`, two ways,
//! interleaved in blocks of 100:
//!
//! - **bare**: JSON-RPC lines written to the server's stdin and its answer
//!   read from stdout by hand: the server's own time plus the pipes, the
//!   least any client can take;
//! - **zut**: `McpManager::call_tool("mcp__py__shout", …)` (lookup, rmcp,
//!   timeout and cancellation wiring, result mapping), the path the agent's
//!   tool calls take.
//!
//! Prints the median and p90 of each and the difference of the medians.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio_util::sync::CancellationToken;
use zut_mcp::{McpManager, McpOptions, McpSettings, ServerStatus};

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fastmcp_server.py")
}

/// The server driven by hand over its pipes.
struct Bare {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    stdout: BufReader<tokio::process::ChildStdout>,
    next: u64,
}

impl Bare {
    async fn start() -> Self {
        let mut child = tokio::process::Command::new("python3")
            .arg(fixture())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("python3 with the mcp package");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut b = Self {
            child,
            stdin,
            stdout,
            next: 0,
        };
        b.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "bare", "version": "0"}}),
        )
        .await;
        b.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        b
    }

    async fn send(&mut self, v: &Value) {
        let mut line = serde_json::to_vec(v).unwrap();
        line.push(b'\n');
        self.stdin.write_all(&line).await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let mut line = String::new();
        loop {
            line.clear();
            if self.stdout.read_line(&mut line).await.unwrap() == 0 {
                panic!("the server closed its stdout");
            }
            let v: Value = serde_json::from_str(&line).unwrap();
            if v.get("id") == Some(&json!(id)) {
                return v;
            }
        }
    }

    async fn call(&mut self) -> Duration {
        let t = Instant::now();
        let v = self
            .request(
                "tools/call",
                json!({"name": "shout", "arguments": {"text": "hello"}}),
            )
            .await;
        let d = t.elapsed();
        assert!(v.to_string().contains("HELLO"), "{v}");
        d
    }
}

async fn zut_manager(home: &std::path::Path, project: &std::path::Path) -> McpManager {
    std::fs::write(
        home.join("config.json"),
        json!({"mcpServers": {"py": {"command": "python3", "args": [fixture()]}}}).to_string(),
    )
    .unwrap();
    let mgr = McpManager::start(McpOptions {
        home: home.to_path_buf(),
        project: project.to_path_buf(),
        settings: McpSettings::default(),
        env: Arc::new(|k| std::env::var(k).ok()),
        jail: zut_tools::JailSwitch::default(),
        elicitation: zut_mcp::Elicitation::default(),
    });
    mgr.wait_settled(Duration::from_secs(60)).await;
    let status = mgr.servers().into_iter().next().map(|s| s.status);
    assert_eq!(
        status,
        Some(ServerStatus::Ready),
        "the server did not start"
    );
    mgr
}

async fn zut_call(mgr: &McpManager, cancel: &CancellationToken) -> Duration {
    let t = Instant::now();
    let r = mgr
        .call_tool("mcp__py__shout", json!({"text": "hello"}), cancel, None)
        .await;
    let d = t.elapsed();
    assert!(!r.is_error, "{r:?}");
    d
}

fn summary(v: &mut [Duration]) -> (f64, f64) {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    (ms(v[v.len() / 2]), ms(v[v.len() * 9 / 10]))
}

#[tokio::main]
async fn main() {
    let calls: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2000);
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let mut bare = Bare::start().await;
    let mgr = zut_manager(home.path(), project.path()).await;
    let cancel = CancellationToken::new();
    for _ in 0..200 {
        bare.call().await;
        zut_call(&mgr, &cancel).await;
    }
    let (mut b, mut z) = (Vec::new(), Vec::new());
    while b.len() < calls {
        for _ in 0..100 {
            b.push(bare.call().await);
        }
        for _ in 0..100 {
            z.push(zut_call(&mgr, &cancel).await);
        }
    }
    let (bm, b90) = summary(&mut b);
    let (zm, z90) = summary(&mut z);
    println!("calls: {} each, `shout` on a FastMCP stdio server", b.len());
    println!("bare JSON-RPC over the pipes: median {bm:.3} ms, p90 {b90:.3} ms");
    println!("zut McpManager::call_tool:    median {zm:.3} ms, p90 {z90:.3} ms");
    println!(
        "FIGURE mcp round trip: zut adds {:.3} ms (median) over the server's own time (target ≤ 0.2 ms)",
        zm - bm
    );
    mgr.shutdown().await;
    let _ = bare.child.kill().await;
}
