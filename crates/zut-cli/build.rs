//! Links `zut` with packed relative relocations (DT_RELR) where the C
//! library that will load it supports them (glibc 2.36 or newer).
//!
//! The binary carries about 70,000 relative relocations (embedded
//! tree-sitter grammars, provider tables): as classic RELA entries they are
//! 1.7 MB that the dynamic loader reads and applies at every start; packed,
//! 20 KB. Measured in docs/benchmarks.md (issue 18 start-up). A binary with
//! DT_RELR does not load under an older glibc, so this is on only for native
//! glibc builds on a machine whose glibc is new enough; `ZUT_NO_RELR=1`
//! turns it off (for binaries shipped to older systems).

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=ZUT_NO_RELR");
    if std::env::var_os("ZUT_NO_RELR").is_some_and(|v| !v.is_empty() && v != "0") {
        return;
    }
    let target = std::env::var("TARGET").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    if target != host || !target.ends_with("-linux-gnu") {
        return;
    }
    if glibc_version().is_some_and(|v| v >= (2, 36)) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// The build machine's glibc version, from `getconf GNU_LIBC_VERSION`
/// (`glibc 2.36`).
fn glibc_version() -> Option<(u32, u32)> {
    let out = Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let version = text.trim().strip_prefix("glibc ")?;
    let mut parts = version.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts
        .next()?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .ok()?;
    Some((major, minor))
}
