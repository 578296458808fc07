//! A very large session resumes in bounded memory: the reader streams the
//! file and keeps only the effective transcript (everything since the last
//! compaction), so peak memory does not grow with the file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Read;
use std::path::Path;

use zut_session::{read_from, ReadOptions};

/// Rows generated on the fly: meta, then `cycles` × (`per_cycle` messages of
/// ~1 KiB + a state row + a compaction row).
struct Rows {
    cycles: usize,
    per_cycle: usize,
    cycle: usize,
    msg: usize,
    buf: Vec<u8>,
    pos: usize,
    produced: u64,
    started: bool,
}

impl Rows {
    fn refill(&mut self) -> bool {
        self.buf.clear();
        self.pos = 0;
        let pad = "lorem ipsum dolor sit amet ".repeat(38);
        if !self.started {
            self.started = true;
            self.buf.extend_from_slice(br#"{"type":"meta","meta":{"id":"big","cwd":"/p","model":"m","provider":"p","started":"2026-12-01T10:00:00Z","version":"1"}}"#);
            self.buf.push(b'\n');
            return true;
        }
        if self.cycle == self.cycles {
            return false;
        }
        if self.msg < self.per_cycle {
            let role = if self.msg.is_multiple_of(2) {
                "user"
            } else {
                "assistant"
            };
            self.buf.extend_from_slice(
                format!(
                    r#"{{"type":"message","message":{{"role":"{role}","content":[{{"text":"{} {pad}"}}],"time":"2026-12-01T10:00:00Z"}}}}"#,
                    self.msg
                )
                .as_bytes(),
            );
            self.msg += 1;
        } else {
            self.buf.extend_from_slice(
                format!(
                    r#"{{"type":"extension_state","extension":"e","state":{{"cycle":{}}}}}
{{"type":"compaction","messages":[{{"role":"user","content":[{{"text":"summary {}"}}],"time":"2026-12-01T10:00:00Z","meta":{{"compaction":"true"}}}}]}}"#,
                    self.cycle, self.cycle
                )
                .as_bytes(),
            );
            self.msg = 0;
            self.cycle += 1;
        }
        self.buf.push(b'\n');
        true
    }
}

impl Read for Rows {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.pos == self.buf.len() && !self.refill() {
            return Ok(0);
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        self.produced += n as u64;
        Ok(n)
    }
}

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}

#[test]
fn a_huge_file_with_compactions_reads_in_bounded_memory() {
    let before = peak_rss_kib();
    // 64 cycles × 1,000 messages of ~1 KiB: about 66 MiB of rows.
    let mut rows = Rows {
        cycles: 64,
        per_cycle: 1000,
        cycle: 0,
        msg: 0,
        buf: Vec::new(),
        pos: 0,
        produced: 0,
        started: false,
    };
    let snap = read_from(
        Path::new("huge.jsonl"),
        &mut rows,
        ReadOptions { fork_at: Some(1) },
    )
    .unwrap();
    assert!(rows.produced > 64 * 1024 * 1024, "{} bytes", rows.produced);
    assert_eq!(snap.compactions, 64);
    assert_eq!(snap.messages.len(), 1);
    assert_eq!(snap.states["e"].get(), r#"{"cycle":63}"#);
    let grown_mib = (peak_rss_kib() - before) / 1024;
    // Keeping every message would need well over 100 MiB; one cycle is ~2.
    assert!(grown_mib < 32, "peak memory grew by {grown_mib} MiB");
}
