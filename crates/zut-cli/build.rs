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
//! - **Start-up code first** (release builds): `startup-order/<target>.txt`
//!   lists the functions a `zut -p` turn runs, and the linker places them
//!   together at the start of the text segment. The kernel maps a binary's
//!   pages 64 KiB at a time around each one touched; with the start-up code
//!   spread over 30 MB of text, a one-turn run kept about 10 MiB of it
//!   resident, packed it keeps about 2. The names carry the compiler's
//!   hashes (which depend on the target), so a list only matches builds for
//!   its target by the rustc it was made with (its first line); other
//!   builds skip it. `scripts/startup-order [--target T]` makes it again;
//!   `ZUT_NO_STARTUP_ORDER=1` turns it off.
//! - **The static release build** (`x86_64-unknown-linux-musl`,
//!   docs/install.md): linked by rustc's own lld (as the glibc target is by
//!   default), which can order the start-up code, and with packed relative
//!   relocations (rustc's bundled musl 1.2.5 applies them in a static PIE).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder of start-up function lists (one per target), next to this
/// file.
const ORDER_DIR: &str = "startup-order";

/// The static release target.
const MUSL: &str = "x86_64-unknown-linux-musl";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={ORDER_DIR}");
    println!("cargo:rerun-if-env-changed=ZUT_NO_RELR");
    println!("cargo:rerun-if-env-changed=ZUT_NO_STARTUP_ORDER");
    let target = std::env::var("TARGET").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    let release = std::env::var("PROFILE").as_deref() == Ok("release");
    let order = release && !flag_set("ZUT_NO_STARTUP_ORDER");
    if target == host && target.ends_with("-linux-gnu") {
        if !flag_set("ZUT_NO_RELR") && glibc_version().is_some_and(|v| v >= (2, 36)) {
            println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
        }
        // rustc links this target with its own lld by default (Rust 1.90);
        // GNU ld has no ordering option.
        if order && target == "x86_64-unknown-linux-gnu" && !custom_linker() {
            order_startup_code(&target);
        }
    } else if target == MUSL && !custom_linker() {
        let Some(gcc_ld) = rust_lld_dir(&host) else {
            return;
        };
        println!("cargo:rustc-link-arg-bins=-fuse-ld=lld");
        println!("cargo:rustc-link-arg-bins=-B{}", gcc_ld.display());
        if !flag_set("ZUT_NO_RELR") {
            println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
        }
        if order {
            order_startup_code(&target);
        }
    }
}

/// Passes `startup-order/<target>.txt` to the linker when it was made by
/// this rustc.
fn order_startup_code(target: &str) {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let path = Path::new(&dir)
        .join(ORDER_DIR)
        .join(format!("{target}.txt"));
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

/// The folder with rustc's `ld.lld` wrapper for a C compiler driver
/// (`-B` it and `-fuse-ld=lld` link with rustc's lld), if the toolchain
/// has it.
fn rust_lld_dir(host: &str) -> Option<PathBuf> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()?;
    let sysroot = String::from_utf8(out.stdout).ok()?;
    let dir = Path::new(sysroot.trim())
        .join("lib/rustlib")
        .join(host)
        .join("bin/gcc-ld");
    dir.join("ld.lld").is_file().then_some(dir)
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
