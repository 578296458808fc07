//! Frame decoding throughput (issue figure: >= 500,000 typical frames/s on one core).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use zut_protocol::decode_ext_frame;

const FRAMES: &[&[u8]] = &[
    br#"{"type":"notify","level":"info","message":"refreshed cache (12 entries)"}"#,
    br#"{"type":"tool_result","id":"000000000042","content":[{"type":"text","text":"Berlin: 16C, fog"}]}"#,
    br#"{"type":"event_intercept_response","id":"000000000043"}"#,
    br#"{"type":"status","key":"progress","level":"success","text":"2/4 tasks checked"}"#,
    br#"{"type":"register_tool","name":"weather","description":"Get the weather.","schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}"#,
];

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("decode");
    g.throughput(Throughput::Elements(FRAMES.len() as u64));
    g.bench_function("typical_frames", |b| {
        b.iter(|| {
            for f in FRAMES {
                std::hint::black_box(decode_ext_frame(f).ok());
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
