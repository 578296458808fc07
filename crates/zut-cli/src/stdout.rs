//! Writing results to stdout without panicking when the reader is gone.
//!
//! `println!` panics when stdout is a pipe whose reader has exited
//! (`zut -p "…" | head -c0`, a closed `| true`): Rust ignores SIGPIPE, so
//! the write fails with `EPIPE` instead of ending the process. A consumer
//! that leaves early is not an error of zut's: the text is dropped and the
//! run's own exit status stands.

use std::io::Write;

/// Writes `text` and a newline to stdout; a failed write is ignored.
pub fn line(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out
        .write_all(text.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
}

/// Writes `text` as is to stdout; a failed write is ignored.
pub fn text(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}
