//! Decode a 1 MB reply in 10-byte deltas N times in one wire, for
//! CPU-time measurements that a loaded machine does not distort as much
//! as wall time (`perf stat -e task-clock`):
//!
//! ```text
//! cargo build --release -p zut-providers --example decode_cpu
//! perf stat -e task-clock target/release/examples/decode_cpu gemini 20 [code]
//! ```
//!
//! Wires: `anthropic`, `openai`, `gemini`, `bedrock`, `responses`. The body is rendered
//! once before the loop; the figure to divide is the task clock minus a
//! run with 0 iterations.

use zut_llm_server::{Block, Format, Script};
use zut_providers::{parse_stream, StreamEvent, Wire};

fn main() {
    let mut args = std::env::args().skip(1);
    let wire_name = args.next().unwrap_or_else(|| "gemini".into());
    let iterations: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(10);
    let (format, wire) = match wire_name.as_str() {
        "anthropic" => (Format::Anthropic, Wire::Anthropic),
        "openai" => (Format::Openai, Wire::OpenAi),
        "bedrock" => (Format::Bedrock, Wire::Bedrock),
        "responses" => (Format::Responses, Wire::Responses),
        _ => (Format::Gemini, Wire::Gemini),
    };
    // `code`: the code-like text of `benches/sse.rs` (JSON escapes, non-ASCII).
    let text = if args.next().as_deref() == Some("code") {
        let line = "    let s = \"h\u{e9}llo\\tw\u{f6}rld\"; // \u{2192} {x: 1}\n\tfn f(a: &str) -> bool { a.is_empty() }\n";
        let mut t = line.repeat(1_000_000 / line.len() + 1);
        let mut end = 1_000_000;
        while !t.is_char_boundary(end) {
            end -= 1;
        }
        t.truncate(end);
        t
    } else {
        "0123456789".repeat(100_000)
    };
    let body = Script::reply(format, vec![Block::text(text.as_str())])
        .delta_bytes(10)
        .render_bytes();
    let mut total = 0usize;
    for _ in 0..iterations {
        let result = parse_stream(wire, body.chunks(16 * 1024), &mut |e| {
            if let StreamEvent::TextDelta(d) = e {
                total += d.len();
            }
        });
        if result.is_err() {
            std::process::exit(1);
        }
    }
    if total != text.len() * iterations {
        std::process::exit(2);
    }
}
