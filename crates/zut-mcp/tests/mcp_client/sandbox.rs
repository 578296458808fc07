//! The sandbox of stdio MCP servers, attacked for real: a server script
//! (tests/fixtures/fake_server.py, mode `files`) is asked to read a secret
//! and files outside its scope and to write outside the project. Under the
//! jail (a jailed session, or `sandbox: "jail"`) and under declared
//! `permissions` the kernel refuses; unjailed it works, and flipping the
//! session's jail restarts the server under the new policy.
//!
//! Linux only (Landlock, seccomp). When the kernel has no Landlock the
//! tests print why and skip, unless `CI` is set (then they fail).
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use common::{have, ready, wait_status};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use zut_mcp::{McpManager, McpOptions, McpSettings, ServerStatus};

const SECRET_KEY: &str = "FAKE-PRIVATE-KEY-0123456789";
const SECRET_AUTH: &str = "FAKE-AUTH-TOKEN-9876543210";

fn supported() -> bool {
    let s = zut_sandbox::status();
    if s.enforced() && s.seccomp {
        return true;
    }
    let why = format!("sandbox tests skipped: {}", s.line());
    if std::env::var_os("CI").is_some() {
        panic!("{why}");
    }
    eprintln!("{why}");
    false
}

/// A project, a fake `$HOME` with an SSH key, `$ZUT_HOME` with an
/// `auth.json`, and a directory outside both — none under `/tmp` (the
/// jail makes `/tmp` writable).
struct Env {
    _root: tempfile::TempDir,
    ws: PathBuf,
    home: PathBuf,
    zut_home: PathBuf,
    outside: PathBuf,
}

impl Env {
    fn new() -> Env {
        let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        std::fs::create_dir_all(&base).unwrap();
        let root = tempfile::Builder::new()
            .prefix("mcp-jail-")
            .tempdir_in(&base)
            .unwrap();
        let r = root.path().canonicalize().unwrap();
        let (ws, home, outside) = (r.join("ws"), r.join("home"), r.join("outside"));
        let zut_home = home.join(".zut");
        for d in [&ws, &home, &outside, &zut_home, &home.join(".ssh")] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(home.join(".ssh/id_ed25519"), SECRET_KEY).unwrap();
        std::fs::write(zut_home.join("auth.json"), SECRET_AUTH).unwrap();
        std::fs::write(outside.join("victim.txt"), "original\n").unwrap();
        std::fs::write(ws.join("inside.txt"), "inside\n").unwrap();
        Env {
            _root: root,
            ws,
            home,
            zut_home,
            outside,
        }
    }

    fn spec(&self) -> zut_sandbox::JailSpec {
        zut_sandbox::JailSpec {
            cwd: self.ws.clone(),
            home: Some(self.home.clone()),
            zut_home: Some(self.zut_home.clone()),
            ..Default::default()
        }
    }

    fn start(&self, servers: Value, jail: &zut_tools::JailSwitch) -> McpManager {
        std::fs::write(
            self.zut_home.join("config.json"),
            serde_json::to_string(&json!({ "mcpServers": servers })).unwrap(),
        )
        .unwrap();
        McpManager::start(McpOptions {
            home: self.zut_home.clone(),
            project: self.ws.clone(),
            settings: McpSettings::default(),
            env: Arc::new(|k| std::env::var(k).ok()),
            jail: jail.clone(),
            elicitation: zut_mcp::Elicitation::default(),
        })
    }

    fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.zut_home.join(format!("logs/mcp-{name}.log")))
            .unwrap_or_default()
    }
}

/// The system interpreter (readable under declared permissions, unlike a
/// version manager's shim under `$HOME`).
fn python() -> String {
    for p in ["/usr/bin/python3", "/usr/local/bin/python3"] {
        if Path::new(p).exists() {
            return p.to_string();
        }
    }
    "python3".to_string()
}

fn files_server(extra: Value) -> Value {
    let mut v = json!({
        "command": python(),
        "args": [common::fake_server().display().to_string(), "files"],
    });
    if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
        o.extend(e.clone());
    }
    v
}

async fn call(mgr: &McpManager, server: &str, tool: &str, args: Value) -> (bool, String) {
    let r = mgr
        .call_tool(
            &format!("mcp__{server}__{tool}"),
            args,
            &CancellationToken::new(),
            None,
        )
        .await;
    (r.is_error, r.text())
}

async fn read(mgr: &McpManager, server: &str, path: &Path) -> (bool, String) {
    call(
        mgr,
        server,
        "readfile",
        json!({"path": path.display().to_string()}),
    )
    .await
}

async fn write(mgr: &McpManager, server: &str, path: &Path) -> (bool, String) {
    call(
        mgr,
        server,
        "writefile",
        json!({"path": path.display().to_string(), "text": "pwned"}),
    )
    .await
}

fn sandbox_of(mgr: &McpManager, name: &str) -> Option<&'static str> {
    mgr.servers()
        .into_iter()
        .find(|s| s.name == name)
        .and_then(|s| s.sandbox)
}

/// The escapes a jailed server must not make, and the work it still does.
async fn assert_jailed(env: &Env, mgr: &McpManager, name: &str) {
    let (err, text) = read(mgr, name, &env.home.join(".ssh/id_ed25519")).await;
    assert!(err, "a jailed server read the SSH key: {text}");
    assert!(!text.contains(SECRET_KEY), "{text}");
    assert!(text.contains("Permission denied"), "{text}");
    let (err, text) = read(mgr, name, &env.zut_home.join("auth.json")).await;
    assert!(err && !text.contains(SECRET_AUTH), "{text}");
    let (err, text) = write(mgr, name, &env.outside.join("new.txt")).await;
    assert!(err, "{text}");
    assert!(!env.outside.join("new.txt").exists(), "{text}");
    let (err, text) = write(mgr, name, &env.outside.join("victim.txt")).await;
    assert!(err, "{text}");
    assert_eq!(
        std::fs::read_to_string(env.outside.join("victim.txt")).unwrap(),
        "original\n"
    );
    let (err, text) = write(mgr, name, &env.home.join(".bashrc")).await;
    assert!(err && !env.home.join(".bashrc").exists(), "{text}");
    // `..` out of the project is the same refusal.
    let sneaky = env.ws.join("../outside/sneaky.txt");
    let (err, text) = write(mgr, name, &sneaky).await;
    assert!(err && !env.outside.join("sneaky.txt").exists(), "{text}");
    // Allowed: writing in the project, reading outside it (not a secret).
    let (err, text) = write(mgr, name, &env.ws.join("ok.txt")).await;
    assert!(!err, "{text}");
    assert_eq!(
        std::fs::read_to_string(env.ws.join("ok.txt")).unwrap(),
        "pwned"
    );
    let (err, text) = read(mgr, name, &env.outside.join("victim.txt")).await;
    assert!(!err && text == "original\n", "{text}");
    assert_eq!(sandbox_of(mgr, name), Some("jailed"));
    assert!(env.log(name).contains("confined: "), "{}", env.log(name));
}

#[tokio::test]
async fn a_jailed_session_jails_its_stdio_servers() {
    if !supported() || !have("python3", "python3") {
        return;
    }
    let env = Env::new();
    let jail = zut_tools::JailSwitch::new(env.spec(), true);
    let mgr = env.start(json!({ "files": files_server(json!({})) }), &jail);
    ready(&mgr, "files").await;
    assert_jailed(&env, &mgr, "files").await;
    mgr.shutdown().await;
}

#[tokio::test]
async fn sandbox_jail_confines_a_server_of_an_unjailed_session() {
    if !supported() || !have("python3", "python3") {
        return;
    }
    let env = Env::new();
    let jail = zut_tools::JailSwitch::new(env.spec(), false);
    let mgr = env.start(
        json!({
            "jailed": files_server(json!({"sandbox": "jail"})),
            "free": files_server(json!({})),
        }),
        &jail,
    );
    ready(&mgr, "jailed").await;
    ready(&mgr, "free").await;
    assert_jailed(&env, &mgr, "jailed").await;
    // The other server of the same unjailed session runs with zut's rights.
    let (err, text) = read(&mgr, "free", &env.home.join(".ssh/id_ed25519")).await;
    assert!(!err && text == SECRET_KEY, "{text}");
    assert_eq!(sandbox_of(&mgr, "free"), Some("unconfined"));
    mgr.shutdown().await;
}

#[tokio::test]
async fn declared_permissions_confine_a_server_to_its_paths() {
    if !supported() || !have("python3", "python3") {
        return;
    }
    let env = Env::new();
    let jail = zut_tools::JailSwitch::new(env.spec(), false);
    let fixtures = common::fake_server()
        .parent()
        .unwrap()
        .canonicalize()
        .unwrap();
    let mgr = env.start(
        json!({ "scoped": files_server(json!({"permissions": {
            "fs": {"read": [fixtures.display().to_string()], "write": ["${cwd}"]},
        }})) }),
        &jail,
    );
    let status = wait_status(&mgr, "scoped", |s| s.settled()).await;
    assert_eq!(status, ServerStatus::Ready, "{}", env.log("scoped"));
    assert_eq!(sandbox_of(&mgr, "scoped"), Some("permissions"));
    // Outside its declared paths even a plain file is unreadable.
    let (err, text) = read(&mgr, "scoped", &env.outside.join("victim.txt")).await;
    assert!(err && text.contains("Permission denied"), "{text}");
    let (err, text) = read(&mgr, "scoped", &env.home.join(".ssh/id_ed25519")).await;
    assert!(err && !text.contains(SECRET_KEY), "{text}");
    let (err, text) = write(&mgr, "scoped", &env.outside.join("new.txt")).await;
    assert!(err && !env.outside.join("new.txt").exists(), "{text}");
    // Its own scope works: the project, and its data directory.
    let (err, text) = read(&mgr, "scoped", &env.ws.join("inside.txt")).await;
    assert!(!err && text == "inside\n", "{text}");
    let (err, text) = write(&mgr, "scoped", &env.ws.join("out.txt")).await;
    assert!(!err, "{text}");
    let data = env.zut_home.join("mcp/scoped/state.txt");
    let (err, text) = write(&mgr, "scoped", &data).await;
    assert!(!err && data.exists(), "{text}");
    let log = env.log("scoped");
    assert!(
        log.contains(&format!(
            "[zut] confined: read: {}",
            data.parent().unwrap().display()
        )) && log.contains("network: none"),
        "{log}"
    );
    mgr.shutdown().await;
}

#[tokio::test]
async fn jail_and_unjail_restart_servers_that_follow_the_session() {
    if !supported() || !have("python3", "python3") {
        return;
    }
    let env = Env::new();
    let jail = zut_tools::JailSwitch::new(env.spec(), false);
    let mgr = env.start(
        json!({
            "follow": files_server(json!({})),
            "free": files_server(json!({"sandbox": "none"})),
        }),
        &jail,
    );
    ready(&mgr, "follow").await;
    ready(&mgr, "free").await;
    let (_, free_pid) = call(&mgr, "free", "pid", json!({})).await;
    let (err, text) = read(&mgr, "follow", &env.home.join(".ssh/id_ed25519")).await;
    assert!(!err && text == SECRET_KEY, "{text}");
    let (_, pid1) = call(&mgr, "follow", "pid", json!({})).await;

    // `/jail`: the server restarts under the jail.
    jail.set_jailed(true);
    let pid2 = restarted(&mgr, "follow", &pid1).await;
    assert_jailed(&env, &mgr, "follow").await;
    assert!(
        env.log("follow")
            .contains("the session was jailed: restarting under the jail"),
        "{}",
        env.log("follow")
    );
    // `sandbox: "none"` (a user server) keeps running, unconfined.
    let (_, free_again) = call(&mgr, "free", "pid", json!({})).await;
    assert_eq!(free_pid, free_again);
    let (err, _) = read(&mgr, "free", &env.home.join(".ssh/id_ed25519")).await;
    assert!(!err);

    // `/unjail`: back to zut's rights.
    jail.set_jailed(false);
    restarted(&mgr, "follow", &pid2).await;
    let (err, text) = read(&mgr, "follow", &env.home.join(".ssh/id_ed25519")).await;
    assert!(!err && text == SECRET_KEY, "{text}");
    assert_eq!(sandbox_of(&mgr, "follow"), Some("unconfined"));
    mgr.shutdown().await;
}

/// Waits until `name` answers `pid` with another process id than `old`.
async fn restarted(mgr: &McpManager, name: &str, old: &str) -> String {
    for _ in 0..200 {
        if mgr
            .servers()
            .iter()
            .any(|s| s.name == name && s.status == ServerStatus::Ready)
        {
            let (err, pid) = call(mgr, name, "pid", json!({})).await;
            if !err && pid != old {
                return pid;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{name} was not restarted: {:?}", mgr.servers());
}
