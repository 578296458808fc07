//! The TUI's own cost of extension surfaces: 1,000 `status` updates from
//! one extension applied and painted once (the loop coalesces a batch into
//! one frame), and a `panel_render` applied and composed into a frame.
//! Process-level latency (key press to the extension's stdin) is not
//! measured here.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use zut_protocol::PanelContent;
use zut_tui::app::App;
use zut_tui::history::History;
use zut_tui::theme::{ColorDepth, Theme};
use zut_tui::{view, Status};
use zut_types::AgentEvent;

fn app() -> App {
    App::new(
        Theme::new(ColorDepth::TrueColor),
        (120, 40),
        Status::default(),
        History::default(),
    )
}

fn bench(c: &mut Criterion) {
    c.bench_function("status_1000_updates_then_one_frame", |b| {
        let mut a = app();
        let events: Vec<AgentEvent> = (0..1000)
            .map(|i| AgentEvent::ExtStatus {
                extension: "flood".into(),
                key: "k".into(),
                level: "info".into(),
                text: format!("progress {i}/1000"),
            })
            .collect();
        b.iter(|| {
            for ev in &events {
                a.agent(ev);
            }
            let live = view::compose(&mut a, Instant::now());
            view::to_buffer(&live, 120)
        });
    });
    c.bench_function("panel_render_to_frame", |b| {
        let mut a = app();
        let lines: Vec<String> = (0..30).map(|i| format!("  item {i}")).collect();
        a.agent(&AgentEvent::ExtPanelOpen {
            extension: "todo".into(),
            panel: PanelContent {
                id: "p".into(),
                title: "Todos".into(),
                lines: lines.clone(),
                footer: "esc close".into(),
            },
        });
        let mut n = 0usize;
        b.iter(|| {
            n += 1;
            let mut lines = lines.clone();
            lines[n % 30] = format!("▸ item {}", n % 30);
            a.agent(&AgentEvent::ExtPanelRender {
                extension: "todo".into(),
                panel_id: "p".into(),
                title: String::new(),
                lines,
                footer: "esc close".into(),
            });
            let live = view::compose(&mut a, Instant::now());
            view::to_buffer(&live, 120)
        });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
