//! Streaming-parse throughput of the Gemini and Bedrock wires: a 1 MB
//! assistant reply sent in 10-byte deltas (`zut-llm-server`'s rendering:
//! one SSE event per delta for Gemini, with `usageMetadata` on each as
//! Gemini sends it; one binary event-stream frame per delta for Bedrock),
//! decoded by `parse_stream` from 16 KiB chunks.
//!
//! Throughput is in bytes of assistant text (1 MB per iteration).
//!
//! `cargo bench -p zut-providers --bench cloud -- --quick`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use zut_llm_server::{Block, Format, Script};
use zut_providers::{parse_stream, StreamEvent, Wire};

const REPLY_BYTES: usize = 1_000_000;
const DELTA_BYTES: usize = 10;
const CHUNK_BYTES: usize = 16 * 1024;

/// 1 MB of code-like text (JSON escapes, some non-ASCII), as `benches/sse.rs`.
fn reply_text() -> String {
    let line = "    let s = \"h\u{e9}llo\\tw\u{f6}rld\"; // \u{2192} {x: 1}\n\tfn f(a: &str) -> bool { a.is_empty() }\n";
    let mut text = String::with_capacity(REPLY_BYTES + line.len());
    while text.len() < REPLY_BYTES {
        text.push_str(line);
    }
    let mut end = REPLY_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text
}

fn bench(c: &mut Criterion) {
    let texts = [
        ("code", reply_text()),
        ("plain", "0123456789".repeat(REPLY_BYTES / 10)),
    ];
    for (kind, text) in &texts {
        let mut group = c.benchmark_group(format!("decode_{kind}"));
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.sample_size(10);
        for (name, format, wire) in [
            ("gemini", Format::Gemini, Wire::Gemini),
            ("bedrock", Format::Bedrock, Wire::Bedrock),
        ] {
            let body = Script::reply(format, vec![Block::text(text.as_str())])
                .delta_bytes(DELTA_BYTES)
                .render_bytes();
            eprintln!(
                "{name}/{kind}: {} bytes of text in {DELTA_BYTES}-byte deltas = {} bytes on the wire",
                text.len(),
                body.len()
            );
            match parse_stream(wire, body.chunks(CHUNK_BYTES), &mut |_| {}) {
                Ok(c) => assert_eq!(&c.message.text(), text, "{name}: text mismatch"),
                Err(e) => panic!("{name}: {e}"),
            }
            group.bench_function(name, |b| {
                b.iter(|| {
                    let mut streamed = 0usize;
                    let completion = parse_stream(wire, body.chunks(CHUNK_BYTES), &mut |event| {
                        if let StreamEvent::TextDelta(delta) = event {
                            streamed += delta.len();
                        }
                    });
                    assert!(completion.is_ok() && streamed == text.len());
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
