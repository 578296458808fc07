//! Appending one `message` row (serialisation + the `write` system call).
//! Target: < 50 µs median.

use criterion::{criterion_group, criterion_main, Criterion};
use zut_session::{Block, NewSession, Role, SessionMessage, SessionWriter};

fn append_message(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let mut w = SessionWriter::create(dir.path(), NewSession::default())
        .unwrap_or_else(|e| panic!("create: {e}"));
    let text = "lorem ipsum dolor sit amet ".repeat(40);
    let msg = SessionMessage::new(Role::Assistant, vec![Block::text(text)]);
    c.bench_function("append_message_row_1k", |b| {
        b.iter(|| w.append_message(&msg).unwrap_or_else(|e| panic!("{e}")))
    });
}

criterion_group!(benches, append_message);
criterion_main!(benches);
