//! `bench_ext`: the Rust-SDK extension used by zut's benchmarks
//! (`crates/zut-ext-host/benches/dispatch.rs`, `crates/zut-ext-host/examples/*`,
//! `scripts/bench/`). Not an example to copy: it only exists to be measured.
//!
//! Behaviour is chosen by the `args` of its manifest:
//!
//! - `--name <n>`: the name announced in `hello` (default `bench`); set it to
//!   the manifest name.
//! - `--echo`: registers tool `echo`, which returns its `text` argument (or
//!   the whole argument object as JSON) as a text result.
//! - `--intercept`: registers a pass-through `tool_call` interceptor (allow,
//!   unchanged).
//! - `--flood <count>`: registers tool `flood_start`; calling it starts a
//!   thread that writes `<count>` `notify` frames as fast as the SDK can, and
//!   returns at once. When the flood is over the extension sends one
//!   `status` frame with key `flood` and text `done <count>`.
//!
//! - `--raw`: with `--echo` / `--intercept`, bypasses the SDK's runtime
//!   and answers each request synchronously on the reading thread (the
//!   SDK hands reading to another thread per request). Only for
//!   separating the host's cost from the SDK's in `benches/dispatch.rs`.
//!
//! Without flags it registers nothing and just becomes ready (start-up and
//! idle benches).
//!
//! Build: `cargo build --release -p zut-ext-sdk --example bench_ext`.

use std::io::{BufRead, Write};

use serde_json::{json, Value};
use zut_ext_sdk::{Extension, Level, SdkError, ToolResult};
use zut_protocol::{decode_host_frame, HostFrame};

fn main() -> Result<(), SdkError> {
    let mut name = String::from("bench");
    let (mut echo, mut intercept, mut flood, mut raw) = (false, false, None::<u64>, false);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--name" => name = args.next().unwrap_or(name),
            "--echo" => echo = true,
            "--intercept" => intercept = true,
            "--raw" => raw = true,
            "--flood" => flood = args.next().and_then(|n| n.parse().ok()),
            other => eprintln!("bench_ext: ignoring unknown argument {other:?}"),
        }
    }

    if raw {
        return run_raw(&name, echo, intercept).map_err(SdkError::from);
    }

    let mut ext = Extension::new(name, "0.0.0-bench");
    if echo {
        ext.tool(
            "echo",
            "Returns its `text` argument.",
            json!({"type":"object","properties":{"text":{"type":"string"}}}),
            |args, _ctx| match args.get("text").and_then(Value::as_str) {
                Some(text) => ToolResult::text(text),
                None => ToolResult::text(args.to_string()),
            },
        );
    }
    if intercept {
        ext.intercept_tool_call(|_tool, _args| (true, String::new()));
    }
    if let Some(count) = flood {
        let handle = ext.handle();
        ext.tool(
            "flood_start",
            "Starts writing notify frames as fast as possible.",
            json!({"type":"object"}),
            move |_args, _ctx| {
                let handle = handle.clone();
                std::thread::spawn(move || {
                    let mut sent = 0u64;
                    for i in 0..count {
                        if handle.notify(Level::Info, format!("flood {i}")).is_err() {
                            break;
                        }
                        sent += 1;
                    }
                    let _ = handle.set_status("flood", format!("done {sent}"));
                });
                ToolResult::text(format!("flooding {count}"))
            },
        );
    }
    ext.run()
}

/// `--raw`: protocol v2 by hand, one request answered at a time on this
/// thread, one write per frame (like the SDK).
fn run_raw(name: &str, echo: bool, intercept: bool) -> std::io::Result<()> {
    let stdin = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    let mut send = |frame: Value| -> std::io::Result<()> {
        let mut line = serde_json::to_vec(&frame).map_err(std::io::Error::other)?;
        line.push(b'\n');
        out.write_all(&line)?;
        out.flush()
    };
    send(json!({"type": "hello", "protocol_version": 2, "name": name, "version": "0.0.0-bench"}))?;
    for line in stdin.split(b'\n') {
        let line = line?;
        match decode_host_frame(&line) {
            Ok(HostFrame::HelloAck(_)) => {
                if echo {
                    send(json!({"type": "register_tool", "name": "echo",
                        "description": "Returns its `text` argument.",
                        "schema": {"type": "object", "properties": {"text": {"type": "string"}}}}))?;
                }
                if intercept {
                    send(json!({"type": "subscribe", "intercept": ["tool_call"]}))?;
                }
                send(json!({"type": "ready"}))?;
            }
            Ok(HostFrame::ToolCall(call)) => {
                let text = match call.args.get("text").and_then(Value::as_str) {
                    Some(t) => t.to_string(),
                    None => call.args.to_string(),
                };
                send(json!({"type": "tool_result", "id": call.id,
                    "content": [{"type": "text", "text": text}]}))?;
            }
            Ok(HostFrame::EventIntercept(ev)) => {
                send(json!({"type": "event_intercept_response", "id": ev.id}))?;
            }
            Ok(HostFrame::Shutdown) => {
                send(json!({"type": "shutdown_ack"}))?;
                return Ok(());
            }
            _ => {}
        }
    }
    Ok(())
}
