//! Frame decoding throughput (target: >= 500,000 typical extension frames/s
//! on one core).
//!
//! `decode/typical_mix` decodes a mix of the frames a running extension
//! actually sends (notify, status, tool_result with text, an
//! event_intercept reply, register_tool with a schema, ...); criterion
//! reports it as elements (= frames) per second. The per-frame benches show
//! which frame types dominate. `encode/*` covers the host's side of a tool
//! call (encoding `tool_call` / `event_intercept`) for comparison.
//!
//! `decode_cpu/typical_mix` is the same loop timed with the thread's CPU
//! clock instead of the wall clock, so the "one core" figure stays
//! meaningful on a loaded machine (preemption does not count).
//!
//! `decode_host/typical_mix` is the other direction, what an SDK decodes
//! (`tool_call`, lifecycle `event`s, `event_intercept`, `command_invoked`).
//!
//! After criterion (when run with `--bench`), the bench times
//! `ZUT_BENCH_ROUNDS` (default 15) rounds of 100,000 frames of each mix on
//! the thread CPU clock and prints, for `scripts/bench/run`:
//! `ZUT-BENCH decode_ext frames_per_cpu_s_median=.. min=.. max=..` and the
//! same for `decode_host`.
//!
//! Run: `cargo bench -p zut-protocol --bench decode` (or `scripts/bench/run`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{criterion_group, Criterion, Throughput};
use serde_json::json;
use zut_protocol::{
    decode_ext_frame, decode_host_frame, encode_line, EventIntercept, HostFrame, ToolCall,
};

/// Typical extension -> host frames, each exactly as an SDK writes it
/// (one line, LF-terminated), with a name for the per-frame benches.
const FRAMES: &[(&str, &[u8])] = &[
    (
        "notify",
        b"{\"type\":\"notify\",\"level\":\"info\",\"message\":\"refreshed cache (12 entries)\"}\n",
    ),
    (
        "tool_result_text",
        b"{\"type\":\"tool_result\",\"id\":\"000000000042\",\"content\":[{\"type\":\"text\",\"text\":\"Berlin: 16C, fog\"}]}\n",
    ),
    (
        "intercept_allow",
        b"{\"type\":\"event_intercept_response\",\"id\":\"000000000043\"}\n",
    ),
    (
        "intercept_rewrite",
        b"{\"type\":\"event_intercept_response\",\"id\":\"000000000044\",\"modified_args\":{\"command\":\"git push --force-with-lease\",\"timeout\":120}}\n",
    ),
    (
        "status",
        b"{\"type\":\"status\",\"key\":\"progress\",\"level\":\"success\",\"text\":\"2/4 tasks checked\"}\n",
    ),
    (
        "register_tool",
        b"{\"type\":\"register_tool\",\"name\":\"weather\",\"description\":\"Get the weather.\",\"schema\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}}\n",
    ),
    (
        "command_response",
        b"{\"type\":\"command_response\",\"id\":\"000000000045\",\"action\":\"display\",\"text\":\"3 todos open\"}\n",
    ),
    (
        "widget",
        b"{\"type\":\"widget\",\"id\":\"todos\",\"position\":\"above_input\",\"title\":\"Todos\",\"lines\":[\"[ ] write benches\",\"[x] read spec\",\"[ ] report\"]}\n",
    ),
];

/// Typical host -> extension frames, as the host writes them.
const HOST_FRAMES: &[(&str, &[u8])] = &[
    (
        "tool_call",
        b"{\"type\":\"tool_call\",\"id\":\"000000000042\",\"name\":\"weather\",\"args\":{\"city\":\"Berlin\",\"units\":\"metric\"}}\n",
    ),
    (
        "event_turn_start",
        b"{\"type\":\"event\",\"event\":\"turn_start\",\"step\":3}\n",
    ),
    (
        "event_tool_call",
        b"{\"type\":\"event\",\"event\":\"tool_call\",\"tool_id\":\"toolu_01\",\"tool_name\":\"bash\",\"tool_args\":{\"command\":\"cargo test\"}}\n",
    ),
    (
        "event_assistant_message",
        b"{\"type\":\"event\",\"event\":\"assistant_message\",\"text\":\"I ran the tests; two failed in parser.rs, fixing now.\"}\n",
    ),
    (
        "event_intercept",
        b"{\"type\":\"event_intercept\",\"id\":\"000000000043\",\"event\":\"tool_call\",\"tool_id\":\"toolu_02\",\"tool_name\":\"bash\",\"tool_args\":{\"command\":\"git push\"}}\n",
    ),
    (
        "command_invoked",
        b"{\"type\":\"command_invoked\",\"id\":\"000000000044\",\"name\":\"todo\",\"args\":\"add write benches\"}\n",
    ),
];

fn bench_decode(c: &mut Criterion) {
    // A frame that fails to decode would make the figure meaningless.
    for (name, line) in FRAMES {
        if let Err(e) = decode_ext_frame(line) {
            panic!("bench frame {name} does not decode: {e}");
        }
    }

    let mut g = c.benchmark_group("decode");
    g.throughput(Throughput::Elements(FRAMES.len() as u64));
    g.bench_function("typical_mix", |b| {
        b.iter(|| {
            for (_, f) in FRAMES {
                std::hint::black_box(decode_ext_frame(std::hint::black_box(f)).ok());
            }
        })
    });
    g.throughput(Throughput::Elements(1));
    for (name, line) in FRAMES {
        g.bench_function(*name, |b| {
            b.iter(|| std::hint::black_box(decode_ext_frame(std::hint::black_box(line)).ok()))
        });
    }
    g.finish();
}

fn bench_decode_host(c: &mut Criterion) {
    for (name, line) in HOST_FRAMES {
        if let Err(e) = decode_host_frame(line) {
            panic!("bench frame {name} does not decode: {e}");
        }
    }
    let mut g = c.benchmark_group("decode_host");
    g.throughput(Throughput::Elements(HOST_FRAMES.len() as u64));
    g.bench_function("typical_mix", |b| {
        b.iter(|| {
            for (_, f) in HOST_FRAMES {
                std::hint::black_box(decode_host_frame(std::hint::black_box(f)).ok());
            }
        })
    });
    g.finish();
}

fn bench_decode_cpu(c: &mut Criterion<ThreadCpuTime>) {
    let mut g = c.benchmark_group("decode_cpu");
    g.throughput(Throughput::Elements(FRAMES.len() as u64));
    g.bench_function("typical_mix", |b| {
        b.iter(|| {
            for (_, f) in FRAMES {
                std::hint::black_box(decode_ext_frame(std::hint::black_box(f)).ok());
            }
        })
    });
    g.finish();
}

fn bench_encode(c: &mut Criterion) {
    let args = json!({"city": "Berlin", "units": "metric"});
    let call = HostFrame::ToolCall(ToolCall {
        id: "000000000042".into(),
        name: "weather".into(),
        args: args.clone(),
    });
    let intercept = HostFrame::EventIntercept(EventIntercept {
        id: "000000000043".into(),
        event: "tool_call".into(),
        tool_id: "toolu_01".into(),
        tool_name: "weather".into(),
        tool_args: Some(args),
        ..Default::default()
    });
    let mut g = c.benchmark_group("encode");
    g.throughput(Throughput::Elements(1));
    g.bench_function("tool_call", |b| {
        b.iter(|| std::hint::black_box(encode_line(std::hint::black_box(&call))))
    });
    g.bench_function("event_intercept", |b| {
        b.iter(|| std::hint::black_box(encode_line(std::hint::black_box(&intercept))))
    });
    g.finish();
}

/// CPU time consumed by the benchmarking thread (`CLOCK_THREAD_CPUTIME_ID`).
struct ThreadCpuTime;

fn thread_cpu_now() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

impl Measurement for ThreadCpuTime {
    type Intermediate = Duration;
    type Value = Duration;

    fn start(&self) -> Duration {
        thread_cpu_now()
    }
    fn end(&self, start: Duration) -> Duration {
        thread_cpu_now().saturating_sub(start)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuNanos
    }
}

/// Formats CPU nanoseconds like criterion's wall-time formatter.
struct CpuNanos;

impl ValueFormatter for CpuNanos {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = if typical < 1e3 {
            (1.0, "ns(cpu)")
        } else if typical < 1e6 {
            (1e-3, "µs(cpu)")
        } else if typical < 1e9 {
            (1e-6, "ms(cpu)")
        } else {
            (1e-9, "s(cpu)")
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }

    fn scale_throughputs(
        &self,
        _typical: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let per = match throughput {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) | Throughput::Elements(n) => {
                *n as f64
            }
        };
        // values are ns per iteration -> elements per CPU-second, in K.
        values.iter_mut().for_each(|v| *v = per * 1e9 / *v / 1e3);
        match throughput {
            Throughput::Elements(_) => "Kelem/cpu-s",
            _ => "KB/cpu-s",
        }
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

/// Frames per CPU-second of `decode` over `frames`, for `rounds` rounds of
/// about 100,000 frames each; sorted.
fn rounds_per_cpu_s(
    frames: &[(&str, &[u8])],
    rounds: usize,
    decode: fn(&[u8]) -> bool,
) -> Vec<f64> {
    let reps = 100_000 / frames.len();
    let mut out: Vec<f64> = (0..rounds)
        .map(|_| {
            let t = thread_cpu_now();
            for _ in 0..reps {
                for (_, f) in frames {
                    assert!(decode(std::hint::black_box(f)));
                }
            }
            let cpu = thread_cpu_now().saturating_sub(t).as_secs_f64();
            (reps * frames.len()) as f64 / cpu
        })
        .collect();
    out.sort_by(f64::total_cmp);
    out
}

fn summary() {
    let rounds: usize = std::env::var("ZUT_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(15);
    let ext = rounds_per_cpu_s(FRAMES, rounds, |f| decode_ext_frame(f).is_ok());
    let host = rounds_per_cpu_s(HOST_FRAMES, rounds, |f| decode_host_frame(f).is_ok());
    for (name, v) in [("decode_ext", ext), ("decode_host", host)] {
        println!(
            "ZUT-BENCH {name} rounds={} frames_per_cpu_s_median={:.0} min={:.0} max={:.0}",
            v.len(),
            v[v.len() / 2],
            v[0],
            v[v.len() - 1]
        );
    }
}

criterion_group!(benches, bench_decode, bench_decode_host, bench_encode);
criterion_group! {
    name = cpu_benches;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = bench_decode_cpu
}

fn main() {
    benches();
    cpu_benches();
    Criterion::default().configure_from_args().final_summary();
    if std::env::args().any(|a| a == "--bench") {
        summary();
    }
}
