//! Writing to stdout and stderr without panicking when the reader is gone
//! (`zut -p "…" | head -c0`): the helpers live in `zut_ext_manage::stdio`
//! and are shared here; `crate::errln!` is that crate's macro, imported at
//! the crate root.

pub use zut_ext_manage::stdio::{line, text};
