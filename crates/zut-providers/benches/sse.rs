//! Streaming-parse throughput: a 1 MB assistant reply sent in 10-byte
//! deltas, in each wire format.
//!
//! * `decode/<wire>`: the provider's parsing path alone (SSE framing, JSON
//!   decoding, assembly, one `StreamEvent` per delta) over the complete body,
//!   fed in 16 KiB chunks as a socket would deliver it.
//! * `decode_plain/<wire>`: the same with plain text (digits, no JSON
//!   escapes), as `scripts/bench/rpc` streams.
//! * `http/<wire>`: the same reply through [`Provider::stream`] over real HTTP
//!   from `zut-llm-server` on 127.0.0.1 (server rendering excluded: the body
//!   is pre-rendered and replayed raw).
//!
//! Throughput is reported in bytes of assistant text (1 MB per iteration),
//! the figure the 20 MB/s target is about; the wire body is 10-20 times larger.
//!
//! `cargo bench -p zut-providers --bench sse -- --quick` for a short run.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tokio_util::sync::CancellationToken;
use zut_llm_server::{Block, Format, LlmServer, Script};
use zut_providers::{
    parse_stream, Message, Provider, ProviderConfig, Reasoning, Request, StreamEvent, Wire,
};

const REPLY_BYTES: usize = 1_000_000;
const DELTA_BYTES: usize = 10;
const CHUNK_BYTES: usize = 16 * 1024;

/// 1 MB of code-like text: quotes, backslashes, newlines and tabs (JSON
/// escapes) and some non-ASCII.
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

fn body(format: Format, text: &str) -> String {
    Script::reply(format, vec![Block::text(text)])
        .delta_bytes(DELTA_BYTES)
        .render_body()
}

fn request() -> Request {
    Request {
        model: String::new(),
        system: String::new(),
        messages: vec![Message::user_text("go")],
        tools: Vec::new(),
        max_tokens: 1024,
        reasoning: Reasoning::Off,
    }
}

fn bench(c: &mut Criterion) {
    let text = reply_text();
    let formats = [
        ("anthropic", Format::Anthropic, Wire::Anthropic),
        ("openai", Format::Openai, Wire::OpenAi),
        ("responses", Format::Responses, Wire::Responses),
    ];

    let mut group = c.benchmark_group("decode");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(10);
    for (name, format, wire) in formats {
        let body = body(format, &text);
        eprintln!(
            "{name}: {} bytes of text in {DELTA_BYTES}-byte deltas = {} bytes on the wire",
            text.len(),
            body.len()
        );
        // Sanity: the whole text comes back.
        let completion = parse_stream(wire, body.as_bytes().chunks(CHUNK_BYTES), &mut |_| {});
        match completion {
            Ok(c) => assert_eq!(c.message.text(), text, "{name}: text mismatch"),
            Err(e) => panic!("{name}: {e}"),
        }
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut streamed = 0usize;
                let completion =
                    parse_stream(wire, body.as_bytes().chunks(CHUNK_BYTES), &mut |event| {
                        if let StreamEvent::TextDelta(delta) = event {
                            streamed += delta.len();
                        }
                    });
                assert!(completion.is_ok() && streamed == text.len());
            })
        });
    }
    group.finish();

    // The text of `scripts/bench/rpc` (digits: no JSON escapes), the
    // common case of prose, through the same path.
    let plain = "0123456789".repeat(REPLY_BYTES / 10);
    let mut group = c.benchmark_group("decode_plain");
    group.throughput(Throughput::Bytes(plain.len() as u64));
    group.sample_size(10);
    for (name, format, wire) in formats {
        let body = body(format, &plain);
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut streamed = 0usize;
                let completion =
                    parse_stream(wire, body.as_bytes().chunks(CHUNK_BYTES), &mut |event| {
                        if let StreamEvent::TextDelta(delta) = event {
                            streamed += delta.len();
                        }
                    });
                assert!(completion.is_ok() && streamed == plain.len());
            })
        });
    }
    group.finish();

    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => panic!("tokio runtime: {e}"),
    };
    let mut group = c.benchmark_group("http");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for (name, format, _) in formats {
        let server = match rt.block_on(LlmServer::start()) {
            Ok(server) => server,
            Err(e) => panic!("server: {e}"),
        };
        server.push(Script::raw_sse(body(format, &text)));
        server.set_cycle(true);
        let (preset, base) = match format {
            Format::Anthropic => ("anthropic", server.url()),
            Format::Openai => ("openai-compatible", server.openai_base_url()),
            Format::Responses => ("openai-responses", server.openai_base_url()),
            // Benchmarked in `benches/cloud.rs`.
            other => panic!("not an SSE chat format: {other:?}"),
        };
        let provider = match ProviderConfig::new(preset, &base, Some("bench-key"), "bench")
            .and_then(Provider::new)
        {
            Ok(p) => p,
            Err(e) => panic!("provider: {e}"),
        };
        let req = request();
        group.bench_function(name, |b| {
            b.to_async(&rt).iter(|| async {
                let cancel = CancellationToken::new();
                let result = provider.stream(&req, &cancel, &mut |_| {}).await;
                match result {
                    Ok(c) => assert_eq!(c.message.text().len(), text.len()),
                    Err(e) => panic!("{e}"),
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
