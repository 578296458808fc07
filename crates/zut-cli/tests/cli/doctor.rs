//! `zut ext doctor` (cli.md §2.2) against real extension processes:
//! `/bin/sh`, Python and Node scripts and the Rust `hello` example, with a
//! temporary `$ZUT_HOME`. Conformance cases are named by id in the test
//! names (L11, B2–B9, C1–C6, D1–D5).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;

use common::{script_extension, write_executable, write_manifest, zut, TestEnv};
use serde_json::json;
use zut_test_support::{install_rust_example, process_alive, python_extension};

/// A `/bin/sh` extension: says hello as `hello_name`, copies `hello_ack`
/// to its stderr (the log), prints `frames` (one JSON or raw line each),
/// then waits for stdin to close.
fn sh_ext(dir: &Path, name: &str, hello_name: &str, frames: &[&str]) {
    let mut body = format!(
        "#!/bin/sh\necho '{{\"type\":\"hello\",\"protocol_version\":2,\"name\":\"{hello_name}\"}}'\nread ack\necho \"ack: $ack\" >&2\n"
    );
    for f in frames {
        body.push_str(&format!("echo '{f}'\n"));
    }
    body.push_str("cat >/dev/null\n");
    script_extension(dir, name, "run.sh", &body);
}

const READY: &str = r#"{"type":"ready"}"#;

fn cmd(name: &str) -> String {
    format!(r#"{{"type":"register_command","name":"{name}","description":"d"}}"#)
}

fn tool(name: &str) -> String {
    format!(
        r#"{{"type":"register_tool","name":"{name}","description":"d","schema":{{"type":"object","properties":{{}}}}}}"#
    )
}

/// The block of the row whose first line starts with `head`.
fn block<'a>(out: &'a str, head: &str) -> &'a str {
    let start = out
        .find(&format!("\n{head}"))
        .unwrap_or_else(|| panic!("no block {head:?} in:\n{out}"))
        + 1;
    let rest = &out[start..];
    let end = rest.find("\n\n").map_or(rest.len(), |e| e + 1);
    &rest[..end]
}

/// Every `pid: N` printed; none of them may still be running.
fn assert_no_leaked_pids(out: &str) -> usize {
    let pids: Vec<i32> = out
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pid: "))
        .map(|p| p.parse().unwrap())
        .collect();
    for pid in &pids {
        assert!(!process_alive(*pid), "extension pid {pid} survived doctor");
    }
    pids.len()
}

#[test]
fn no_extensions_prints_two_lines_on_stdout() {
    let env = TestEnv::new();
    let r = zut(&env, &["ext", "doctor"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout.lines().count(), 2, "{r:?}");
    assert!(r.stdout.contains("no extensions installed"), "{r:?}");
    assert!(r.stdout.contains("zut ext install"), "{r:?}");
    assert!(r.stderr.is_empty(), "{r:?}");
}

#[test]
fn l11_b2_b5_static_rows_statuses_and_load_errors() {
    let env = TestEnv::new();
    // B2: disabled project extension.
    write_manifest(
        &env.project_dir("disabled"),
        &json!({"name": "disabled", "exec": "./run.sh", "enabled": false}),
    );
    // B4: theme-only project extension.
    write_manifest(&env.project_dir("theme"), &json!({"name": "theme"}));
    std::fs::write(env.project_dir("theme").join("theme.json"), "{}").unwrap();
    // B3: invalid JSON.
    std::fs::create_dir_all(env.project_dir("bad")).unwrap();
    std::fs::write(
        env.project_dir("bad").join("extension.json"),
        "{\"name\": \"bad\",\n oops}",
    )
    .unwrap();
    // B5a: same directory name in both scopes.
    sh_ext(&env.project_dir("dup"), "dup", "dup", &[READY]);
    sh_ext(&env.global_dir("dup"), "dup", "dup", &[READY]);
    // B5b: a project directory without extension.json shadows nothing.
    std::fs::create_dir_all(env.project_dir("lonely")).unwrap();
    sh_ext(&env.global_dir("lonely"), "lonely", "lonely", &[READY]);
    // B5c: dot directories are ignored.
    sh_ext(&env.global_dir(".hidden"), "hidden", "hidden", &[READY]);

    let r = zut(&env, &["ext", "doctor"]);
    assert_eq!(r.code, 0, "{r:?}");
    let out = &r.stdout;
    assert!(out.starts_with("zut extension doctor\n\n"), "{out}");
    for needle in [
        "disabled [project] disabled",
        "theme [project] theme-only",
        "bad [project] error",
        "parse manifest:",
        "dup [global] shadowed",
        "dup [project] ok",
        "lonely [global] ok",
        "  type: theme-only",
    ] {
        assert!(out.contains(needle), "want {needle:?} in:\n{out}");
    }
    assert!(!out.contains("hidden"), "{out}");
    // The manifest-less project directory is an error row, not a shadow.
    let lonely = block(out, "lonely [project] error");
    assert!(lonely.contains("missing extension.json"), "{lonely}");
    // The parse error names the file, line and column.
    let bad = block(out, "bad [project] error");
    let file = env.project_dir("bad").join("extension.json");
    assert!(bad.contains(&file.display().to_string()), "{bad}");
    assert!(bad.contains("line 2"), "{bad}");
    assert!(!bad.contains("  log:"), "no exec, no log line: {bad}");
    let dis = block(out, "disabled [project] disabled");
    assert!(dis.contains("disabled in extension.json"), "{dis}");
    assert!(dis.contains("zut ext enable disabled"), "{dis}");
    let dup = block(out, "dup [global] shadowed");
    assert!(
        dup.contains(&env.project_dir("dup").display().to_string()),
        "{dup}"
    );
    // Load errors: the invalid manifest, prefixed `  ! `, naming its dir.
    let errors = &out[out.find("\nload errors:\n").expect("load errors section")..];
    assert!(
        errors.contains(&format!("  ! {}", env.project_dir("bad").display())),
        "{errors}"
    );
    assert!(errors.contains("parse manifest"), "{errors}");
    // B2: no process for the disabled one, and nothing survives doctor.
    assert!(!env.log_path("disabled").exists());
    assert_eq!(assert_no_leaked_pids(out), 2, "{out}");
}

#[test]
fn d1_rust_hello_example_is_ok_with_commands_tools_pid_and_log() {
    let env = TestEnv::new();
    install_rust_example("hello", &env.global_dir("hello"));
    let r = zut(&env, &["ext", "doctor"]);
    assert_eq!(r.code, 0, "{r:?}");
    let b = block(&r.stdout, "hello [global]");
    let dir = env.global_dir("hello");
    assert!(
        b.starts_with(&format!("hello [global] ok ({})\n", dir.display())),
        "{b}"
    );
    assert!(b.contains("  version: 1.0.0\n"), "{b}");
    assert!(b.contains("  exec: ./hello\n"), "{b}");
    assert!(
        b.contains(&format!("  log: {}\n", env.log_path("hello").display())),
        "{b}"
    );
    assert!(b.contains("  commands:\n"), "{b}");
    assert!(b.contains("    /hello (active)\n"), "{b}");
    // Registered from on_hello: the host's cwd reached the extension.
    assert!(b.contains("    /cwd (active)\n"), "{b}");
    assert!(b.contains("  tools:\n    greet (active)\n"), "{b}");
    assert!(!b.contains("warning"), "{b}");
    assert!(!r.stdout.contains("load errors:"), "{}", r.stdout);
    assert_eq!(assert_no_leaked_pids(&r.stdout), 1);
    // C9: the log got the start marker.
    assert!(env.log("hello").contains("[zut] starting hello/1.0.0"));
}

#[test]
fn d4_conflicts_and_builtins_are_shadowed_with_owner() {
    let env = TestEnv::new();
    let (a_cmd, a_tool) = (cmd("CaseTest"), tool("shared"));
    sh_ext(&env.global_dir("a"), "a", "a", &[&a_cmd, &a_tool, READY]);
    let (b_cmd, b_tool, b_help, b_read) =
        (cmd("casetest"), tool("shared"), cmd("HELP"), tool("read"));
    sh_ext(
        &env.global_dir("b"),
        "b",
        "b",
        &[&b_cmd, &b_tool, &b_help, &b_read, READY],
    );
    let r = zut(&env, &["ext", "doctor"]);
    assert_eq!(r.code, 0, "{r:?}");
    let a = block(&r.stdout, "a [global]");
    assert!(a.starts_with("a [global] ok"), "{a}");
    assert!(a.contains("    /CaseTest (active)\n"), "{a}");
    assert!(a.contains("    shared (active)\n"), "{a}");
    let b = block(&r.stdout, "b [global]");
    assert!(b.starts_with("b [global] warning"), "{b}");
    assert!(
        b.contains("    /casetest (shadowed) by extension \"a\" (as /CaseTest)\n"),
        "{b}"
    );
    assert!(
        b.contains("    shared (shadowed) by extension \"a\"\n"),
        "{b}"
    );
    assert!(
        b.contains("    /HELP (shadowed) by a built-in command\n"),
        "{b}"
    );
    assert!(
        b.contains("    read (shadowed) by a built-in or reserved tool name\n"),
        "{b}"
    );
    assert!(
        b.contains("  warning: command /casetest conflicts with another extension"),
        "{b}"
    );
    assert!(
        b.contains("  warning: tool shared conflicts with another extension"),
        "{b}"
    );
    assert!(b.contains("built-in"), "{b}");
    assert_no_leaked_pids(&r.stdout);
}

#[test]
fn doctor_checks_the_names_this_build_reserves() {
    // `subagent` is a built-in tool of the Go original that a default run
    // of this build does not offer: the extension may have it, and doctor
    // says so. `/goal` is a built-in command of this build (issue 24):
    // shadowed. `python` stays reserved (protocol.md §8.1) even without a
    // built-in; `lsp` is a built-in of this build.
    let env = TestEnv::new();
    let (goal, sub, python) = (cmd("goal"), tool("subagent"), tool("python"));
    let lsp = tool("lsp");
    sh_ext(
        &env.global_dir("c"),
        "c",
        "c",
        &[&goal, &sub, &lsp, &python, READY],
    );
    let r = zut(&env, &["ext", "doctor"]);
    assert_eq!(r.code, 0, "{r:?}");
    let c = block(&r.stdout, "c [global]");
    assert!(
        c.contains("    /goal (shadowed) by a built-in command\n"),
        "{c}"
    );
    assert!(c.contains("    subagent (active)\n"), "{c}");
    assert!(
        c.contains("    lsp (shadowed) by a built-in or reserved tool name\n"),
        "{c}"
    );
    assert!(
        c.contains("    python (shadowed) by a built-in or reserved tool name\n"),
        "{c}"
    );
}

#[test]
fn b3_invalid_manifests_say_what_and_where_while_others_load() {
    let env = TestEnv::new();
    write_manifest(&env.global_dir("noname"), &json!({"exec": "./run.sh"}));
    write_manifest(&env.global_dir("noexec"), &json!({"name": "noexec"}));
    write_manifest(
        &env.global_dir("badargs"),
        &json!({"name": "badargs", "exec": "./run.sh", "args": "--verbose"}),
    );
    // Exec escaping the extension directory (also through `..`).
    write_manifest(
        &env.global_dir("escape"),
        &json!({"name": "escape", "exec": "../ok/run.sh"}),
    );
    sh_ext(&env.global_dir("ok"), "ok", "ok", &[READY]);
    let r = zut(&env, &["ext", "doctor"]);
    assert_eq!(r.code, 0, "{r:?}");
    let out = &r.stdout;
    let noname = block(out, "noname [global] error");
    assert!(
        noname.contains("  error: manifest: name is required"),
        "{noname}"
    );
    assert!(noname.contains("\"name\""), "{noname}");
    let noexec = block(out, "noexec [global] error");
    assert!(
        noexec.contains("  error: manifest: exec is required"),
        "{noexec}"
    );
    assert!(noexec.contains("theme.json"), "{noexec}");
    let badargs = block(out, "badargs [global] error");
    assert!(badargs.contains("parse manifest:"), "{badargs}");
    assert!(
        badargs.contains("field \"args\" must be an array of strings, not a string"),
        "{badargs}"
    );
    // Rows with an exec show where the log would be.
    assert!(
        badargs.contains(&format!("  log: {}", env.log_path("badargs").display())),
        "{badargs}"
    );
    let escape = block(out, "escape [global] error");
    assert!(
        escape.contains("escapes the extension directory"),
        "{escape}"
    );
    assert!(out.contains("ok [global] ok"), "{out}");
    let errors = &out[out.find("\nload errors:\n").unwrap()..];
    for (dir, needle) in [
        ("noname", "name is required"),
        ("noexec", "exec is required"),
        ("badargs", "parse manifest"),
        ("escape", "escapes the extension directory"),
    ] {
        let want = format!("  ! {}: ", env.global_dir(dir).display());
        let line = errors
            .lines()
            .find(|l| l.starts_with(&want))
            .unwrap_or_else(|| panic!("no load error for {dir} in {errors}"));
        assert!(line.contains(needle), "{line}");
    }
    // Nothing was spawned for the escaping one.
    assert!(!env.log_path("escape").exists());
}

#[test]
fn c1_c4_c5_handshake_failures_are_not_loaded_with_log_and_hint() {
    let env = TestEnv::new();
    script_extension(
        &env.global_dir("broken"),
        "broken",
        "run.sh",
        "#!/bin/sh\necho 'compile failed' >&2\nexit 23\n",
    );
    python_extension(
        &env.global_dir("old"),
        "old",
        "import sys, time\nprint('{\"type\":\"hello\",\"protocol_version\":1,\"name\":\"old\"}', flush=True)\ntime.sleep(30)\n",
    );
    python_extension(
        &env.global_dir("chatty"),
        "chatty",
        "import sys\nprint('{\"type\":\"notify\",\"level\":\"info\",\"message\":\"hi\"}', flush=True)\nsys.stdin.read()\n",
    );
    let r = zut(&env, &["ext", "doctor"]);
    assert_eq!(r.code, 0, "{r:?}");
    let out = &r.stdout;
    let broken = block(out, "broken [global] not loaded");
    assert!(
        broken.contains("  note: failed to start: extension exited before hello: exit status 23"),
        "{broken}"
    );
    assert!(
        broken.contains(&format!("  log: {}", env.log_path("broken").display())),
        "{broken}"
    );
    assert!(
        broken.contains("  stderr (this run, from the log):\n    compile failed\n"),
        "{broken}"
    );
    let old = block(out, "old [global] not loaded");
    assert!(
        old.contains("unsupported extension protocol version 1"),
        "{old}"
    );
    assert!(
        old.contains("  hint: ") && old.contains("\"protocol_version\": 2"),
        "{old}"
    );
    let chatty = block(out, "chatty [global] not loaded");
    assert!(chatty.contains("first frame must be hello"), "{chatty}");
    assert!(chatty.contains("stdout"), "{chatty}");
    let errors = &out[out.find("\nload errors:\n").unwrap()..];
    assert!(
        errors.contains("  ! Extension broken failed to start.\n"),
        "{errors}"
    );
    assert!(
        errors.contains(&env.log_path("broken").display().to_string()),
        "{errors}"
    );
    // Continuation lines are indented by four spaces.
    assert!(
        errors.contains(&format!(
            "\n      extension directory: {}\n",
            env.global_dir("broken").display()
        )),
        "{errors}"
    );
    assert!(
        errors.contains("  ! Extension old failed to start."),
        "{errors}"
    );
    assert!(
        errors.contains("  ! Extension chatty failed to start."),
        "{errors}"
    );
}

#[test]
fn b8_b9_spawn_failures_get_a_fix_hint() {
    let env = TestEnv::new();
    write_manifest(
        &env.global_dir("nopath"),
        &json!({"name": "nopath", "exec": "zut-doctor-no-such-interpreter", "language": "python"}),
    );
    write_manifest(
        &env.global_dir("noexec-bit"),
        &json!({"name": "noexec-bit", "exec": "./run.sh"}),
    );
    std::fs::write(env.global_dir("noexec-bit").join("run.sh"), "#!/bin/sh\n").unwrap();
    write_manifest(
        &env.global_dir("missing"),
        &json!({"name": "missing", "exec": "bin/missing"}),
    );
    let r = zut(&env, &["ext", "doctor"]);
    assert_eq!(r.code, 0, "{r:?}");
    let out = &r.stdout;
    let nopath = block(out, "nopath [global] not loaded");
    assert!(nopath.contains("executable file not found"), "{nopath}");
    assert!(nopath.contains("is not on PATH"), "{nopath}");
    let bit = block(out, "noexec-bit [global] not loaded");
    assert!(bit.contains("chmod +x"), "{bit}");
    let missing = block(out, "missing [global] not loaded");
    assert!(
        missing.contains(&format!(
            "  hint: {} does not exist",
            env.global_dir("missing").join("bin/missing").display()
        )),
        "{missing}"
    );
    let errors = &out[out.find("\nload errors:\n").unwrap()..];
    assert!(errors.contains("declared language: \"python\""), "{errors}");
}

#[test]
fn malformed_and_unknown_frames_are_warnings() {
    let env = TestEnv::new();
    sh_ext(
        &env.global_dir("noisy"),
        "noisy",
        "noisy",
        &["this is not json", r#"{"type":"frobnicate"}"#, READY],
    );
    let r = zut(&env, &["ext", "doctor"]);
    assert_eq!(r.code, 0, "{r:?}");
    let b = block(&r.stdout, "noisy [global]");
    assert!(b.starts_with("noisy [global] warning"), "{b}");
    assert!(b.contains("  warning: malformed json frame"), "{b}");
    assert!(
        b.contains("  warning: unknown frame type \"frobnicate\""),
        "{b}"
    );
    assert!(env
        .log("noisy")
        .contains("[zut] malformed json from extension"));
}

#[test]
fn d2_auto_ready_d3_ready_timeout_and_notes() {
    let env = TestEnv::new();
    // D2: registers, never sends ready, goes quiet.
    let quiet_cmd = cmd("quiet");
    sh_ext(&env.global_dir("quiet"), "quiet", "quiet", &[&quiet_cmd]);
    // D3a: a notify every 100 ms, never ready (Node).
    write_manifest(
        &env.global_dir("busy"),
        &json!({"name": "busy", "exec": "node", "args": ["busy.js"], "language": "node"}),
    );
    std::fs::write(
        env.global_dir("busy").join("busy.js"),
        r#"
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
out({type: "hello", protocol_version: 2, name: "busy"});
let n = 0;
setInterval(() => out({type: "notify", level: "info", message: "tick " + ++n}), 100);
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
"#,
    )
    .unwrap();
    let r = zut(&env, &["ext", "doctor"]);
    assert_eq!(r.code, 0, "{r:?}");
    let quiet = block(&r.stdout, "quiet [global]");
    assert!(quiet.starts_with("quiet [global] auto-ready"), "{quiet}");
    assert!(
        quiet.contains("  warning: no ready frame; auto-ready after idle"),
        "{quiet}"
    );
    assert!(quiet.contains("    /quiet (active)"), "{quiet}");
    let busy = block(&r.stdout, "busy [global]");
    assert!(busy.starts_with("busy [global] ready-timeout"), "{busy}");
    assert!(
        busy.contains("  warning: timed out waiting for ready frame"),
        "{busy}"
    );
    // Not killed for being slow: still running at snapshot time.
    assert!(busy.contains("  pid: "), "{busy}");
    assert!(busy.contains("  notify: [info] tick 1\n"), "{busy}");
    assert!(busy.contains("more\n"), "{busy}");
    assert_eq!(assert_no_leaked_pids(&r.stdout), 2);
}

#[test]
fn c6_d5_name_mismatch_late_tool_and_exit_after_ready() {
    let env = TestEnv::new();
    sh_ext(&env.global_dir("named"), "named", "other-name", &[READY]);
    let late = tool("late_tool");
    sh_ext(&env.global_dir("late"), "late", "late", &[READY, &late]);
    script_extension(
        &env.global_dir("quitter"),
        "quitter",
        "run.sh",
        "#!/bin/sh\necho '{\"type\":\"hello\",\"protocol_version\":2,\"name\":\"quitter\"}'\nread ack\necho '{\"type\":\"ready\"}'\necho 'giving up: no config' >&2\nexit 3\n",
    );
    let r = zut(&env, &["ext", "doctor"]);
    assert_eq!(r.code, 0, "{r:?}");
    let named = block(&r.stdout, "named [global]");
    assert!(named.starts_with("named [global] warning"), "{named}");
    assert!(named.contains("\"other-name\""), "{named}");
    assert!(named.contains("does not match manifest name"), "{named}");
    // Loaded under the manifest name: log file and all.
    assert!(env.log_path("named").exists());
    let late = block(&r.stdout, "late [global]");
    assert!(late.contains("    late_tool (active)"), "{late}");
    assert!(late.contains("registered after ready"), "{late}");
    let quitter = block(&r.stdout, "quitter [global]");
    assert!(quitter.starts_with("quitter [global] warning"), "{quitter}");
    assert!(quitter.contains("exited during the check"), "{quitter}");
    assert!(!quitter.contains("  pid: "), "{quitter}");
    assert!(quitter.contains("    giving up: no config\n"), "{quitter}");
}

#[test]
fn b6_same_manifest_name_in_project_and_global_starts_one() {
    let env = TestEnv::new();
    sh_ext(&env.project_dir("p-copy"), "twin", "twin", &[READY]);
    sh_ext(&env.global_dir("g-copy"), "twin", "twin", &[READY]);
    let r = zut(&env, &["ext", "doctor"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("twin [project] ok"), "{}", r.stdout);
    let g = block(&r.stdout, "twin [global]");
    assert!(g.starts_with("twin [global] not loaded"), "{g}");
    assert!(
        g.contains(&format!(
            "comes first in load order and is loaded instead: {} [project]",
            env.project_dir("p-copy").display()
        )),
        "{g}"
    );
    assert_eq!(assert_no_leaked_pids(&r.stdout), 1);
    // Exactly one process was started: one start marker in the shared log.
    assert_eq!(env.log("twin").matches("[zut] starting twin").count(), 1);
}

#[test]
fn b7_ext_flag_wins_and_no_ext_keeps_only_it() {
    let env = TestEnv::new();
    let installed_cmd = cmd("installed");
    sh_ext(
        &env.global_dir("dev"),
        "dev",
        "dev",
        &[&installed_cmd, READY],
    );
    sh_ext(&env.global_dir("other"), "other", "other", &[READY]);
    let dev_cmd = cmd("devcopy");
    sh_ext(&env.project.join("dev"), "dev", "dev", &[&dev_cmd, READY]);
    // (a)+(c): relative --ext against the working directory, wins.
    let r = zut(&env, &["ext", "doctor", "--ext", "./dev"]);
    assert_eq!(r.code, 0, "{r:?}");
    let cli = block(&r.stdout, "dev [cli]");
    assert!(
        cli.starts_with(&format!(
            "dev [cli] ok ({})",
            env.project.join("dev").display()
        )),
        "{cli}"
    );
    assert!(cli.contains("/devcopy (active)"), "{cli}");
    let inst = block(&r.stdout, "dev [global]");
    assert!(inst.starts_with("dev [global] not loaded"), "{inst}");
    assert!(inst.contains("[cli]"), "{inst}");
    assert!(r.stdout.contains("other [global] ok"), "{}", r.stdout);
    // hello_ack.extension_dir is absolute.
    let ack = env.log("dev");
    assert!(
        ack.contains(&format!(
            "\"extension_dir\":\"{}\"",
            env.project.join("dev").display()
        )),
        "{ack}"
    );
    // (b): --no-ext keeps only the --ext directory.
    let r = zut(&env, &["ext", "doctor", "--no-ext", "-e", "dev"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("dev [cli] ok"), "{}", r.stdout);
    assert!(!r.stdout.contains("[global]"), "{}", r.stdout);
    // --no-ext alone: nothing to check.
    let r = zut(&env, &["ext", "doctor", "--no-ext"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("no extensions to check"), "{r:?}");
}

#[test]
fn c8_cwd_flag_selects_project_and_hello_ack_has_empty_provider_model() {
    let env = TestEnv::new();
    let other = env.home.parent().unwrap().join("elsewhere");
    sh_ext(
        &other.join(".zut/extensions/local"),
        "local",
        "local",
        &[READY],
    );
    let r = zut(&env, &["ext", "doctor"]);
    assert!(r.stdout.contains("no extensions installed"), "{r:?}");
    let r = zut(&env, &["ext", "doctor", "--cwd", other.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("local [project] ok"), "{}", r.stdout);
    let log = env.log("local");
    assert!(
        log.contains(&format!("\"cwd\":\"{}\"", other.display())),
        "{log}"
    );
    assert!(log.contains("\"provider\":\"\""), "{log}");
    assert!(log.contains("\"model\":\"\""), "{log}");
    assert!(log.contains("\"protocol_version\":2"), "{log}");
    assert!(!log.contains("\"session\""), "{log}");
}

#[test]
fn usage_errors_exit_1() {
    let env = TestEnv::new();
    let r = zut(&env, &["ext", "doctor", "--wat"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr
            .contains("zut: unknown ext doctor option \"--wat\""),
        "{r:?}"
    );
    let r = zut(&env, &["ext", "doctor", "--ext"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stderr.contains("zut: --ext requires a value"), "{r:?}");
    let r = zut(&env, &["ext", "doctor", "--cwd", "/nonexistent/zut-doctor"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stderr.contains("not a directory"), "{r:?}");
    assert!(r.stdout.is_empty(), "{r:?}");
}

#[test]
fn ext_flag_on_a_missing_directory_is_an_error_row() {
    let env = TestEnv::new();
    let r = zut(&env, &["ext", "doctor", "-e", "nope"]);
    assert_eq!(r.code, 0, "{r:?}");
    let b = block(&r.stdout, "nope [cli] error");
    assert!(b.contains("missing extension.json"), "{b}");
    assert!(r.stdout.contains("\nload errors:\n  ! "), "{}", r.stdout);
}

#[test]
fn write_executable_helper_is_used_for_theme_with_exec() {
    // A theme file next to an exec: a normal extension, not theme-only.
    let env = TestEnv::new();
    sh_ext(&env.global_dir("both"), "both", "both", &[READY]);
    std::fs::write(env.global_dir("both").join("theme.json"), "{}").unwrap();
    write_executable(&env.global_dir("both"), "unused.sh", "#!/bin/sh\n");
    let r = zut(&env, &["ext", "doctor"]);
    assert!(r.stdout.contains("both [global] ok"), "{}", r.stdout);
    assert!(!r.stdout.contains("theme-only"), "{}", r.stdout);
}

#[test]
fn skill_path_problems_are_warnings() {
    let env = TestEnv::new();
    let dir = env.global_dir("bundle");
    sh_ext(&dir, "bundle", "bundle", &[READY]);
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("extension.json")).unwrap())
            .unwrap();
    manifest["skills"] = json!(["../elsewhere", "missing"]);
    write_manifest(&dir, &manifest);
    let r = zut(&env, &["ext", "doctor"]);
    assert_eq!(r.code, 0, "{r:?}");
    let b = block(&r.stdout, "bundle [global]");
    assert!(b.starts_with("bundle [global] warning"), "{b}");
    assert!(
        b.contains(
            "  warning: skill: skill path \"../elsewhere\" escapes the extension directory\n"
        ),
        "{b}"
    );
    assert!(
        b.contains("  warning: skill: skill path \"missing\": "),
        "{b}"
    );
    assert!(!r.stdout.contains("load errors:"), "{}", r.stdout);
}

/// Linux: an extension dies with zut even when zut is SIGKILLed and gets
/// no chance to stop it (parent-death signal), so no orphan survives.
#[cfg(target_os = "linux")]
#[test]
fn extensions_die_when_zut_is_killed() {
    use std::process::Stdio;
    let env = TestEnv::new();
    let dir = env.global_dir("stuck");
    // Never says hello: doctor waits (up to its 5 s hello timeout).
    script_extension(
        &dir,
        "stuck",
        "run.sh",
        "#!/bin/sh\necho $$ > pid\nexec sleep 60\n",
    );
    let mut child = common::zut_cmd(&env, &["ext", "doctor"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid_file = dir.join("pid");
    assert!(
        common::wait_until(20, || std::fs::read_to_string(&pid_file)
            .is_ok_and(|s| s.trim().parse::<i32>().is_ok())),
        "the extension never started"
    );
    let ext_pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(process_alive(ext_pid));
    common::send_signal(child.id(), "KILL");
    let _ = child.wait();
    assert!(
        common::wait_until(5, || !process_alive(ext_pid)),
        "extension {ext_pid} outlived a SIGKILLed zut"
    );
}
