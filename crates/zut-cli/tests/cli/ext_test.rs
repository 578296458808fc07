//! `zut ext test` against real extension processes: the SDK examples and
//! the hand-written ones pass; a set of broken extensions (Python scripts
//! like the host tests' misbehaving fixtures) fail with the right check
//! and message; bad arguments exit 2.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};

use common::{write_manifest, zut, TestEnv};
use serde_json::{json, Value};
use zut_test_support::{install_rust_example, python_extension, workspace_root};

fn dir_arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `zut ext test --json <dir> <extra>` and returns (exit code, report).
fn test_json(env: &TestEnv, dir: &Path, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["ext", "test", "--json", dir_arg(dir)];
    args.extend_from_slice(extra);
    let run = zut(env, &args);
    let report: Value = serde_json::from_str(run.stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "--json output is not JSON ({e}): {}\n{}",
            run.stdout, run.stderr
        )
    });
    (run.code, report)
}

/// The check named `name`: (status, message).
fn check(report: &Value, name: &str) -> (String, String) {
    let c = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check {name:?} in {report:#}"));
    (
        c["status"].as_str().unwrap().to_string(),
        c["message"].as_str().unwrap().to_string(),
    )
}

fn assert_fails(report: &Value, name: &str, needle: &str) {
    let (status, message) = check(report, name);
    assert_eq!(status, "fail", "{name}: {message}\n{report:#}");
    assert!(
        message.contains(needle),
        "{name}: {message:?} lacks {needle:?}"
    );
    assert_eq!(report["ok"], false);
}

/// A Python extension: `hello` as given, then `body` after the hello_ack.
fn broken(env: &TestEnv, name: &str, body: &str) -> PathBuf {
    let dir = env.project.join(name);
    let script = format!(
        "import json, sys, time, os, subprocess\n\
         def emit(o):\n    sys.stdout.write(json.dumps(o) + '\\n'); sys.stdout.flush()\n\
         {body}\n"
    );
    python_extension(&dir, name, &script)
}

const HELLO: &str = "emit({'type':'hello','protocol_version':2,'name':NAME}); sys.stdin.readline()";

fn hello(name: &str) -> String {
    HELLO.replace("NAME", &format!("{name:?}"))
}

/// Answers every request like a small working extension; `extra` runs per frame.
fn serve(extra: &str) -> String {
    format!(
        "for line in sys.stdin:\n    m = json.loads(line)\n{extra}\n    if m['type'] == 'shutdown':\n        emit({{'type':'shutdown_ack'}}); break\n"
    )
}

/// A Python extension that says hello as `name`, runs `registration` (its
/// `emit(...)` lines), sends `ready`, then serves frames with `per_frame`.
fn registered(env: &TestEnv, name: &str, registration: &str, per_frame: &str) -> PathBuf {
    broken(
        env,
        name,
        &format!(
            "{}\n{registration}\nemit({{'type':'ready'}})\n{}",
            hello(name),
            serve(per_frame)
        ),
    )
}

/// Runs `zut ext test --json <dir> <extra>`, asserts that check `name`
/// fails with `needle` in its message, and returns (exit code, report).
fn expect_fail(
    env: &TestEnv,
    dir: &Path,
    extra: &[&str],
    name: &str,
    needle: &str,
) -> (i32, Value) {
    let (code, report) = test_json(env, dir, extra);
    assert_fails(&report, name, needle);
    (code, report)
}

#[test]
fn sdk_and_script_examples_pass() {
    let env = TestEnv::new();
    let root = workspace_root();
    let mut dirs: Vec<PathBuf> = ["hello", "notes", "guard", "panel"]
        .iter()
        .flat_map(|e| {
            [
                root.join("sdk/python/examples").join(e),
                root.join("sdk/typescript/examples").join(e),
            ]
        })
        .collect();
    dirs.push(root.join("examples/extensions/hello-py"));
    dirs.push(root.join("examples/extensions/clock"));
    dirs.push(install_rust_example(
        "hello",
        &env.project.join("rust-hello"),
    ));
    for dir in dirs {
        let (code, report) = test_json(&env, &dir, &[]);
        assert_eq!(code, 0, "{}: {report:#}", dir.display());
        assert_eq!(report["ok"], true);
        assert_eq!(report["failed"], 0);
        assert!(report["passed"].as_u64().unwrap() >= 6, "{report:#}");
        for name in ["handshake", "ready", "shutdown", "processes"] {
            assert_eq!(check(&report, name).0, "pass", "{}: {name}", dir.display());
        }
    }
}

#[test]
fn text_report_names_rules_and_counts() {
    let env = TestEnv::new();
    let dir = workspace_root().join("sdk/python/examples/notes");
    let run = zut(&env, &["ext", "test", dir_arg(&dir)]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.starts_with("zut ext test: notes-python ("),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("pass  tool note_add"), "{}", run.stdout);
    assert!(
        run.stdout.contains("[protocol §5.1 hello]"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains(" passed, 0 failed, "), "{}", run.stdout);
}

#[test]
fn given_tool_arguments_are_used() {
    let env = TestEnv::new();
    let dir = workspace_root().join("sdk/python/examples/notes");
    let (code, report) = test_json(&env, &dir, &["--args", "note_add={\"text\":\"milk\"}"]);
    assert_eq!(code, 0);
    assert!(
        check(&report, "tool note_add")
            .1
            .starts_with("given args {\"text\":\"milk\"}"),
        "{report:#}"
    );
}

#[test]
fn handshake_failures() {
    let env = TestEnv::new();
    let cases = [
        (
            "stray",
            "print('starting up...')",
            "handshake",
            "stray output before hello",
        ),
        (
            "v1",
            "emit({'type':'hello','protocol_version':1,'name':'v1'})",
            "handshake",
            "unsupported protocol_version 1 (want 2)",
        ),
        (
            "notfirst",
            "emit({'type':'ready'})",
            "handshake",
            "first frame must be hello (got \"ready\")",
        ),
        (
            "dies",
            "sys.exit(3)",
            "handshake",
            "closed stdout before hello",
        ),
        (
            "noname",
            "emit({'type':'hello','protocol_version':2})",
            "handshake",
            "hello.name is empty",
        ),
        (
            "huge",
            "sys.stdout.write('x' * (4*1024*1024 + 10) + '\\n'); sys.stdout.flush(); time.sleep(5)",
            "handshake",
            "exceeds 4 MiB",
        ),
    ];
    for (name, body, check_name, needle) in cases {
        let dir = broken(&env, name, body);
        let (code, report) = expect_fail(&env, &dir, &[], check_name, needle);
        assert_eq!(code, 1, "{name}: {report:#}");
        assert_eq!(report["extension"], name);
    }
}

#[test]
fn manifest_errors_fail_first() {
    let env = TestEnv::new();
    let dir = env.project.join("badjson");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("extension.json"), "{\"name\": \"x\",").unwrap();
    let (code, report) = expect_fail(&env, &dir, &[], "manifest", "parse manifest");
    assert_eq!(code, 1);
    assert_eq!(report["checks"].as_array().unwrap().len(), 1);

    let noexec = env.project.join("noexec");
    write_manifest(&noexec, &json!({"name": "noexec"}));
    expect_fail(&env, &noexec, &[], "manifest", "exec is required");

    let missing = env.project.join("missing");
    write_manifest(
        &missing,
        &json!({"name": "missing", "exec": "zut-no-such-runtime-xyz"}),
    );
    expect_fail(&env, &missing, &[], "spawn", "cannot start");
}

#[test]
fn registration_and_stray_output_after_hello() {
    let env = TestEnv::new();
    let dir = registered(&env, "chatty", "print('registering...')", "");
    expect_fail(
        &env,
        &dir,
        &[],
        "ready",
        "stray output on stdout: registering...",
    );

    let dir = broken(
        &env,
        "neverready",
        &format!(
            "{}\nemit({{'type':'register_command','name':'x'}})\ntime.sleep(30)",
            hello("neverready")
        ),
    );
    expect_fail(&env, &dir, &[], "ready", "no ready within 3 s");

    let dir = registered(
        &env,
        "badnames",
        "emit({'type':'register_command','name':'/slash'})\nemit({'type':'register_command','name':'two words'})\n\
         emit({'type':'register_tool','name':'bash','schema':{'type':'object'}})",
        "    if m['type'] == 'tool_call': emit({'type':'tool_result','id':m['id'],'content':[{'type':'text','text':'ok'}]})\n    if m['type'] == 'command_invoked': emit({'type':'command_response','id':m['id'],'action':'noop'})",
    );
    let (code, report) = test_json(&env, &dir, &[]);
    assert_eq!(code, 1);
    let names: Vec<(String, String, String)> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().into(),
                c["status"].as_str().unwrap().into(),
                c["message"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert!(
        names.iter().any(|(n, s, m)| n == "command //slash"
            && s == "fail"
            && m.contains("without its leading '/'")),
        "{names:?}"
    );
    assert!(
        names
            .iter()
            .any(|(n, s, m)| n == "command /two words" && s == "fail" && m.contains("whitespace")),
        "{names:?}"
    );
    assert!(
        names
            .iter()
            .any(|(n, s, m)| n == "tool bash" && s == "warn" && m.contains("built-in")),
        "{names:?}"
    );
}

#[test]
fn name_mismatch_is_a_warning() {
    let env = TestEnv::new();
    let dir = broken(
        &env,
        "manifest-name",
        &format!(
            "{}\nemit({{'type':'ready'}})\n{}",
            hello("other-name"),
            serve("")
        ),
    );
    let (code, report) = test_json(&env, &dir, &[]);
    assert_eq!(code, 0, "{report:#}");
    let (status, message) = check(&report, "name");
    assert_eq!(status, "warn");
    assert!(
        message.contains("differs from the manifest name"),
        "{message}"
    );
    assert_eq!(report["warnings"], 1);
}

#[test]
fn replies_that_break_the_protocol() {
    let env = TestEnv::new();
    let tool = |name: &str, reply: &str| {
        registered(
            &env,
            name,
            "emit({'type':'register_tool','name':'t','schema':{'type':'object','properties':{'n':{'type':'integer'}},'required':['n']}})",
            &format!("    if m['type'] == 'tool_call':\n        assert m['args'] == {{'n': 1}}, m\n{reply}"),
        )
    };
    let cases = [
        // Only the silent one gets a short timeout: the others answer. (It
        // also bounds the hello: long enough for Python to start on a busy
        // machine.)
        ("silent", "        pass", "no reply within 2 s"),
        ("badimage", "        emit({'type':'tool_result','id':m['id'],'content':[{'type':'image','mime_type':'image/png','data':'%%%'}]})", "not standard base64"),
        ("crash", "        sys.exit(2)", "extension exited"),
        ("hugedetails", "        emit({'type':'tool_result','id':m['id'],'content':[{'type':'text','text':'ok'}],'details':'x'*300000})", "over 256 KiB"),
    ];
    for (name, reply, needle) in cases {
        let dir = tool(name, reply);
        let extra: &[&str] = if name == "silent" {
            &["--timeout", "2"]
        } else {
            &[]
        };
        expect_fail(&env, &dir, extra, "tool t", needle);
    }

    let action = registered(
        &env,
        "badaction",
        "emit({'type':'register_command','name':'go'})",
        "    if m['type'] == 'command_invoked': emit({'type':'command_response','id':m['id'],'action':'explode'})",
    );
    expect_fail(
        &env,
        &action,
        &[],
        "command /go",
        "unknown action \"explode\"",
    );
}

#[test]
fn slow_interceptor_misses_its_deadline() {
    let env = TestEnv::new();
    let dir = registered(
        &env,
        "slowguard",
        "emit({'type':'subscribe','intercept':['tool_call']})",
        "",
    );
    expect_fail(
        &env,
        &dir,
        &[],
        "intercept tool_call",
        "no reply within 5 s",
    );
}

#[test]
fn shutdown_and_leftover_processes() {
    let env = TestEnv::new();
    let stubborn = broken(
        &env,
        "stubborn",
        &format!(
            "{}\nemit({{'type':'ready'}})\nfor line in sys.stdin:\n    pass\ntime.sleep(30)",
            hello("stubborn")
        ),
    );
    expect_fail(
        &env,
        &stubborn,
        &[],
        "shutdown",
        "still running 2 s after shutdown",
    );

    let leaky = registered(
        &env,
        "leaky",
        "child = subprocess.Popen(['sleep', '30'])",
        "",
    );
    let (code, report) = expect_fail(
        &env,
        &leaky,
        &[],
        "processes",
        "still running after it exited",
    );
    assert_eq!(code, 1);
    assert_eq!(check(&report, "shutdown").0, "pass", "{report:#}");
}

#[test]
fn bad_arguments_exit_2() {
    let env = TestEnv::new();
    let run = zut(&env, &["ext", "test", "/no/such/dir/zut"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("not a directory"), "{}", run.stderr);
    let run = zut(&env, &["ext", "test", "--args", "t"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("TOOL=JSON"), "{}", run.stderr);
    let run = zut(&env, &["ext", "test", "--timeout", "soon"]);
    assert_eq!(run.code, 2);
    let run = zut(&env, &["ext", "test", "--help"]);
    assert_eq!(run.code, 0);
    assert!(run.stderr.contains("usage: zut ext test"), "{}", run.stderr);
}

#[test]
fn scenarios_run_real_turns_offline() {
    let env = TestEnv::new();
    for sdk in ["python", "typescript"] {
        let dir = workspace_root().join(format!("sdk/{sdk}/examples/notes"));
        let scenario = dir.join("scenario.json");
        let (code, report) = test_json(&env, &dir, &["--scenario", scenario.to_str().unwrap()]);
        assert_eq!(code, 0, "{report:#}");
        assert_eq!(
            check(&report, "scenario scenario.json step 1 note_add").0,
            "pass"
        );
        let (status, message) = check(&report, "scenario scenario.json step 2 note_list");
        assert_eq!(status, "pass");
        assert_eq!(message, "result \"buy milk\"");
    }
    // A wrong expectation fails with what came back.
    let dir = workspace_root().join("sdk/python/examples/notes");
    let wrong = env.project.join("wrong.json");
    std::fs::write(
        &wrong,
        r#"[{"steps":[{"tool":"note_add","args":{"text":"x"},"expect":{"contains":"nope"}}]},
                               {"steps":[{"tool":"note_add","expect":{"is_error":false}}]}]"#,
    )
    .unwrap();
    let (code, report) = test_json(&env, &dir, &["--scenario", wrong.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_fails(
        &report,
        "scenario wrong.json#1 step 1 note_add",
        "text does not contain \"nope\"; got \"noted (1 notes)\"",
    );
    assert_fails(
        &report,
        "scenario wrong.json#2 step 1 note_add",
        "is_error is true, expected false",
    );
}

#[test]
fn bad_scenario_files_exit_2_naming_the_file() {
    let env = TestEnv::new();
    let dir = workspace_root().join("sdk/python/examples/notes");
    let cases = [
        (
            "syntax.json",
            "{\"steps\": [",
            "syntax.json: EOF while parsing",
        ),
        ("shape.json", "{\"steps\": 3}", "shape.json: not a scenario"),
        ("empty.json", "{\"steps\": []}", "has no steps"),
        (
            "args.json",
            "{\"steps\": [{\"tool\": \"t\", \"args\": [1]}]}",
            "args must be a JSON object",
        ),
        (
            "typo.json",
            "{\"steps\": [{\"tool\": \"t\", \"expects\": {}}]}",
            "unknown field `expects`",
        ),
    ];
    for (file, body, needle) in cases {
        let path = env.project.join(file);
        std::fs::write(&path, body).unwrap();
        let run = zut(
            &env,
            &[
                "ext",
                "test",
                dir.to_str().unwrap(),
                "--scenario",
                path.to_str().unwrap(),
            ],
        );
        assert_eq!(run.code, 2, "{file}: {run:?}");
        assert!(run.stderr.contains(needle), "{file}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "nothing runs: {run:?}");
    }
    let run = zut(
        &env,
        &[
            "ext",
            "test",
            dir.to_str().unwrap(),
            "--scenario",
            "/no/such/scenario.json",
        ],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("/no/such/scenario.json"),
        "{}",
        run.stderr
    );
}
