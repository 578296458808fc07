//! `zut ext` help and routing (L16), and the top-level flag parser.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use common::*;

#[test]
fn l16_no_arg_and_help_print_help_on_stderr() {
    let env = TestEnv::new();
    for args in [
        &["ext"][..],
        &["ext", "help"],
        &["ext", "-h"],
        &["ext", "--help"],
    ] {
        let r = zut(&env, args);
        assert_eq!(r.code, 0, "{args:?} {r:?}");
        assert!(r.stderr.contains("zut ext install"), "{r:?}");
        assert!(r.stdout.is_empty(), "{r:?}");
    }
}

#[test]
fn l16_unknown_subcommand() {
    let env = TestEnv::new();
    let r = zut(&env, &["ext", "frob"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("zut ext list"), "help first: {r:?}");
    assert!(
        r.stderr.contains("zut: unknown ext subcommand: frob"),
        "{r:?}"
    );
    // There is no `zut ext update`.
    let r = zut(&env, &["ext", "update"]);
    assert!(r.stderr.contains("unknown ext subcommand: update"), "{r:?}");
}

#[test]
fn version_prints_the_version() {
    let env = TestEnv::new();
    let r = zut(&env, &["--version"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains(env!("CARGO_PKG_VERSION")), "{r:?}");
}

#[test]
fn unknown_flag_prints_help_and_fails() {
    let env = TestEnv::new();
    let r = zut(&env, &["--wat"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("--no-ext"), "help: {r:?}");
    assert!(r.stderr.contains("zut: unknown flag \"--wat\""), "{r:?}");
}

#[test]
fn ext_flag_requires_a_value() {
    let env = TestEnv::new();
    let r = zut(&env, &["--ext"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("zut: --ext requires a value"), "{r:?}");
}

#[test]
fn rpc_mode_spellings_are_accepted_and_need_credentials() {
    let env = TestEnv::new();
    // L18: `--mode rpc` is accepted by the parser (Go rejects it); `zut rpc`
    // rewrites to rpc mode. Without credentials RPC mode says what to do.
    for args in [&["--mode", "rpc"][..], &["rpc"], &["--rpc"]] {
        let r = zut(&env, args);
        assert_eq!(r.code, 1, "{args:?}");
        assert!(
            r.stderr.contains("no API key for provider anthropic"),
            "{args:?} {r:?}"
        );
        assert!(!r.stderr.contains("unknown flag"), "{r:?}");
    }
    // Print and JSON modes exist: without credentials they say what to do.
    for args in [
        &["-p", "hello"][..],
        &["--no-ext", "-e", "x", "--json", "hi"],
    ] {
        let r = zut(&env, args);
        assert_eq!(r.code, 1, "{args:?}");
        assert!(
            r.stderr.contains("no API key for provider anthropic"),
            "{r:?}"
        );
        assert!(r.stderr.contains("ANTHROPIC_API_KEY"), "{r:?}");
    }
    let r = zut(&env, &["--json", "-p", "x"]);
    assert!(r.stderr.contains("conflicting modes"), "{r:?}");
}
