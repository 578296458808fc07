//! Link settings of `zut` that make it start faster and smaller
//! (docs/benchmarks.md, issue 18 start-up):
//!
//! - **Packed relative relocations (DT_RELR)** where the C library that will
//!   load it supports them (glibc 2.36 or newer). The binary carries about
//!   70,000 relative relocations (embedded tree-sitter grammars, provider
//!   tables): as classic RELA entries they are 1.7 MB that the dynamic
//!   loader reads and applies at every start; packed, 20 KB. A binary with
//!   DT_RELR does not load under an older glibc, so this is on only for
//!   native glibc builds on a machine whose glibc is new enough;
//!   `ZUT_NO_RELR=1` turns it off (for binaries shipped to older systems).
//! - **Start-up code first** (release builds): `startup-order.txt` lists the
//!   functions a `zut -p` turn runs, and the linker places them together at
//!   the start of the text segment. The kernel maps a binary's pages 64 KiB
//!   at a time around each one touched; with the start-up code spread over
//!   30 MB of text, a one-turn run kept about 10 MiB of it resident, packed
//!   it keeps about 2. The names carry the compiler's hashes, so the list
//!   only matches builds by the rustc it was made with (its first line);
//!   other builds skip it. `scripts/startup-order` makes it again;
//!   `ZUT_NO_STARTUP_ORDER=1` turns it off.

use std::path::Path;
use std::process::Command;

/// The list of start-up functions, next to this file.
const ORDER_FILE: &str = "startup-order.txt";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={ORDER_FILE}");
    println!("cargo:rerun-if-env-changed=ZUT_NO_RELR");
    println!("cargo:rerun-if-env-changed=ZUT_NO_STARTUP_ORDER");
    let target = std::env::var("TARGET").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    if target != host || !target.ends_with("-linux-gnu") {
        return;
    }
    if !flag_set("ZUT_NO_RELR") && glibc_version().is_some_and(|v| v >= (2, 36)) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    if !flag_set("ZUT_NO_STARTUP_ORDER") && std::env::var("PROFILE").as_deref() == Ok("release") {
        order_startup_code(&target);
    }
}

/// Passes `startup-order.txt` to the linker when it was made by this
/// rustc and the link goes through rustc's own lld (the default linker of
/// x86_64 Linux since Rust 1.90; GNU ld has no such option).
fn order_startup_code(target: &str) {
    if target != "x86_64-unknown-linux-gnu" || custom_linker() {
        return;
    }
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let path = Path::new(&dir).join(ORDER_FILE);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return;
    };
    let made_by = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("# "))
        .unwrap_or_default();
    if made_by.is_empty() || rustc_version().as_deref() != Some(made_by) {
        return;
    }
    println!(
        "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
        path.display()
    );
    println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
}

/// Whether the build names a linker of its own (then it may not be lld).
fn custom_linker() -> bool {
    if std::env::var_os("RUSTC_LINKER").is_some() {
        return true;
    }
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    flags
        .split('\x1f')
        .any(|f| f.contains("linker") || f.contains("fuse-ld") || f.contains("link-self-contained"))
}

/// `rustc -V` of the compiler cargo uses (`rustc 1.95.0 (59807616e 2026-04-14)`).
fn rustc_version() -> Option<String> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc).arg("-V").output().ok()?;
    Some(String::from_utf8(out.stdout).ok()?.trim().to_string())
}

fn flag_set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0")
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
