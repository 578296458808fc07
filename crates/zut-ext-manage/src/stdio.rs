//! Writing to stdout and stderr without panicking when the reader is gone.
//!
//! `println!` and `eprintln!` panic when their stream is a pipe whose
//! reader has exited (`zut -p "…" | head -c0`, `zut ext doctor 2>&1 | head
//! -3`): Rust ignores SIGPIPE, so the write fails with `EPIPE` instead of
//! ending the process. A consumer that leaves early is not an error of
//! zut's: the text is dropped and the command's own exit status stands.
//! Everything in this crate and in the `zut` binary writes through
//! [`line`], [`text`] and [`errln!`](crate::errln).

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

/// `eprintln!` that ignores a failed write (see the module docs).
#[macro_export]
macro_rules! errln {
    () => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr());
    }};
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}
