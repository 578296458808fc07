//! Writing to stdout and stderr without panicking when the reader is gone
//! (`zut -p "…" | head -c0`): the helpers live in `zut_ext_manage::stdio`
//! and are shared here; `crate::errln!` is that crate's macro, imported at
//! the crate root.

pub use zut_ext_manage::stdio::{line, text};

/// The exit status of a subcommand: its own, or 1 after printing the error
/// as `zut: …` on stderr.
pub fn exit_code(result: anyhow::Result<i32>) -> i32 {
    result.unwrap_or_else(|e| {
        crate::errln!("zut: {e:#}");
        1
    })
}

/// The status of a command that ends with a message: the message on
/// stdout and 0, or the error as `zut: …` on stderr and 1.
pub fn report(result: Result<String, impl std::fmt::Display>) -> i32 {
    match result {
        Ok(message) => {
            line(&message);
            0
        }
        Err(e) => {
            crate::errln!("zut: {e}");
            1
        }
    }
}

/// The value after `flag` on the command line, or an error naming the flag.
pub fn flag_value<'a>(
    it: &mut impl Iterator<Item = &'a String>,
    flag: &str,
) -> anyhow::Result<&'a String> {
    it.next()
        .ok_or_else(|| anyhow::anyhow!("{flag} requires a value"))
}
