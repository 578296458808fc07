//! Declared permissions: a confined extension can do exactly what it
//! declared; malformed permissions stop only that extension; undeclared
//! ones run unconfined unless the host is strict.

use std::time::Duration;

use serde_json::json;
use zut_ext_host::{Confinement, Manifest};
use zut_test_support::{write_manifest, TestEnv};

use crate::common::*;

fn supported() -> bool {
    let s = zut_sandbox::status();
    if s.enforced() && s.seccomp {
        return true;
    }
    let why = format!("permission tests skipped: {}", s.line());
    if std::env::var_os("CI").is_some() {
        panic!("{why}");
    }
    eprintln!("{why}");
    false
}

/// Probes run by the fixture before its handshake; results land in
/// `probe.json` in its own (writable) directory.
const PROBES: &str = r#"
import socket, subprocess, ctypes
R = {}
def attempt(key, f):
    try:
        R[key] = "ok:" + str(f())
    except Exception as e:
        R[key] = "denied:" + type(e).__name__ + ":" + str(e)
P = json.loads(open("paths.json").read())
attempt("write_declared", lambda: open(P["declared"] + "/ok.txt", "w").write("x"))
attempt("write_home", lambda: open(P["home"] + "/pwned", "w").write("x"))
attempt("read_project", lambda: open(P["project_file"]).read())
attempt("read_secret", lambda: open(P["secret"]).read())
attempt("read_declared", lambda: open(P["readable"]).read())
def connect():
    s = socket.create_connection(("127.0.0.1", P["port"]), timeout=2)
    s.close()
    return "connected"
attempt("connect", connect)
attempt("exec_undeclared", lambda: subprocess.run(["/bin/true"], check=True).returncode)
attempt("exec_declared", lambda: subprocess.run(["/bin/echo", "hi"], capture_output=True, check=True).stdout)
libc = ctypes.CDLL(None, use_errno=True)
R["ptrace"] = str(libc.ptrace(16, 1, 0, 0)) + ":" + str(ctypes.get_errno())
R["env"] = sorted(k for k in os.environ if k not in ("PWD",))
open("probe.json", "w").write(json.dumps(R))
hello()
send({"type": "ready"})
serve()
"#;

struct Fixture {
    dir: std::path::PathBuf,
    declared: std::path::PathBuf,
    home_dir: std::path::PathBuf,
}

fn fixture(
    env: &TestEnv,
    name: &str,
    permissions: Option<serde_json::Value>,
    port: u16,
) -> Fixture {
    let dir = env.global_dir(name);
    py_ext(&dir, name, PROBES);
    let mut manifest = json!({"name": name, "version": "1.0.0", "exec": "./ext.py"});
    if let Some(p) = permissions {
        manifest["permissions"] = p;
    }
    write_manifest(&dir, &manifest);
    let declared = env.project.join("out");
    std::fs::create_dir_all(&declared).unwrap();
    std::fs::write(env.project.join("readme.txt"), "project file").unwrap();
    let secret_dir = env.project.parent().unwrap().join(format!("secret-{name}"));
    std::fs::create_dir_all(&secret_dir).unwrap();
    std::fs::write(secret_dir.join("key"), "SECRET").unwrap();
    let readable = env.project.join("out/readable.txt");
    std::fs::write(&readable, "readable").unwrap();
    let home_dir = env.project.parent().unwrap().join(format!("home-{name}"));
    std::fs::create_dir_all(&home_dir).unwrap();
    std::fs::write(
        dir.join("paths.json"),
        json!({
            "declared": declared,
            "home": home_dir,
            "project_file": env.project.join("readme.txt"),
            "secret": secret_dir.join("key"),
            "readable": readable,
            "port": port,
        })
        .to_string(),
    )
    .unwrap();
    Fixture {
        dir,
        declared,
        home_dir,
    }
}

async fn probe(dir: &std::path::Path) -> serde_json::Value {
    let path = dir.join("probe.json");
    assert!(
        eventually(Duration::from_secs(10), || path.exists()).await,
        "no probe.json; log: {}",
        std::fs::read_to_string(dir.join("received.jsonl")).unwrap_or_default()
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn listener() -> (std::net::TcpListener, u16) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    (l, port)
}

#[tokio::test]
async fn a_confined_extension_can_do_exactly_what_it_declared() {
    if !supported() {
        return;
    }
    let env = TestEnv::new();
    let (_l, port) = listener();
    let f = fixture(
        &env,
        "confined",
        Some(json!({
            "fs": {"write": ["${cwd}/out"]},
            "network": "none",
            "exec": ["/bin/echo"],
            "env": ["LANG"]
        })),
        port,
    );
    let run = Run::start(env, |_| {}).await;
    assert!(run.report.errors.is_empty(), "{:?}", run.report.errors);
    let r = probe(&f.dir).await;
    let s = |k: &str| r[k].as_str().unwrap_or_default().to_string();
    assert!(s("write_declared").starts_with("ok"), "{r}");
    assert!(f.declared.join("ok.txt").exists());
    assert!(s("write_home").starts_with("denied:PermissionError"), "{r}");
    assert!(!f.home_dir.join("pwned").exists());
    assert!(
        s("read_project").starts_with("denied"),
        "cwd was not declared readable: {r}"
    );
    assert!(s("read_secret").starts_with("denied"), "{r}");
    assert!(
        s("read_declared").starts_with("ok"),
        "write scopes are readable: {r}"
    );
    assert!(s("connect").starts_with("denied"), "{r}");
    assert!(s("exec_undeclared").starts_with("denied"), "{r}");
    assert!(s("exec_declared").starts_with("ok"), "{r}");
    assert_eq!(s("ptrace"), "-1:1", "{r}");
    let env_keys: Vec<String> = serde_json::from_value(r["env"].clone()).unwrap();
    assert!(
        env_keys.iter().all(|k| k == "LANG"),
        "only declared variables: {env_keys:?}"
    );
    run.stop().await;
}

#[tokio::test]
async fn malformed_permissions_stop_only_that_extension() {
    let env = TestEnv::new();
    let bad = env.global_dir("badperm");
    py_ext(&bad, "badperm", "hello()\nsend({'type': 'ready'})\nserve()");
    write_manifest(
        &bad,
        &json!({"name": "badperm", "version": "1", "exec": "./ext.py",
                "permissions": {"network": "sometimes", "fs": {"read": ["${nope}/x"]}}}),
    );
    let good = env.global_dir("goodone");
    echo_ext(&good, "goodone", &["ping"]);
    let run = Run::start(env, |_| {}).await;
    let err = run
        .report
        .errors
        .iter()
        .find(|e| e.dir == bad)
        .unwrap_or_else(|| panic!("no error for badperm: {:?}", run.report.errors));
    assert!(err.message.contains("permissions"), "{}", err.message);
    assert!(!bad.join("pid").exists(), "the extension was not started");
    assert_eq!(run.report_of("goodone").name, "goodone");
    let m = Manifest::read(&bad).unwrap();
    assert_eq!(Confinement::of(&m, false).label(), "invalid");
    run.stop().await;
}

#[tokio::test]
async fn undeclared_extensions_are_unconfined_unless_strict() {
    if !supported() {
        return;
    }
    let env = TestEnv::new();
    let (_l, port) = listener();
    let f = fixture(&env, "free", None, port);
    let m = Manifest::read(&f.dir).unwrap();
    assert_eq!(Confinement::of(&m, false), Confinement::Unconfined);
    assert_eq!(Confinement::of(&m, true), Confinement::Minimal);
    let run = Run::start(env, |_| {}).await;
    let r = probe(&f.dir).await;
    assert!(r["write_home"].as_str().unwrap().starts_with("ok"), "{r}");
    run.stop().await;

    let env = TestEnv::new();
    let f = fixture(&env, "strict", None, port);
    let run = Run::start(env, |c| c.strict_sandbox = true).await;
    let r = probe(&f.dir).await;
    assert!(
        r["write_home"].as_str().unwrap().starts_with("denied"),
        "{r}"
    );
    assert!(r["connect"].as_str().unwrap().starts_with("denied"), "{r}");
    run.stop().await;
}
