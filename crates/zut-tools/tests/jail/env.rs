//! A jail over temporary directories: a workspace, a fake `$HOME` with an
//! SSH key and an `auth.json` under a fake `$ZUT_HOME`, an outside dir.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::json;
use zut_sandbox::{JailSpec, Limits, Network, Policy, Prepared};
use zut_tools::{run_builtin, ToolContext, ToolOutput};

pub const SECRET_KEY: &str = "FAKE-PRIVATE-KEY-0123456789";
pub const SECRET_AUTH: &str = "FAKE-AUTH-TOKEN-9876543210";

pub struct Env {
    _root: tempfile::TempDir,
    pub ws: PathBuf,
    pub home: PathBuf,
    pub outside: PathBuf,
    pub zut_home: PathBuf,
}

/// Whether the kernel can enforce the jail; prints why not (and panics
/// under CI).
pub fn supported() -> bool {
    let s = zut_sandbox::status();
    if s.enforced() && s.seccomp {
        return true;
    }
    let why = format!("jail tests skipped: {}", s.line());
    if std::env::var_os("CI").is_some() {
        panic!("{why}");
    }
    eprintln!("{why}");
    false
}

impl Env {
    pub fn new() -> Env {
        // Outside /tmp: the jail makes /tmp writable.
        let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        std::fs::create_dir_all(&base).unwrap();
        let root = tempfile::Builder::new()
            .prefix("jail-")
            .tempdir_in(&base)
            .unwrap();
        let r = root.path().canonicalize().unwrap();
        let ws = r.join("ws");
        let home = r.join("home");
        let outside = r.join("outside");
        let zut_home = home.join(".zut");
        for d in [&ws, &home, &outside, &zut_home, &home.join(".ssh")] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(home.join(".ssh/id_ed25519"), SECRET_KEY).unwrap();
        std::fs::write(zut_home.join("auth.json"), SECRET_AUTH).unwrap();
        std::fs::write(outside.join("victim.txt"), "original\n").unwrap();
        std::fs::write(home.join("notes.txt"), "home notes\n").unwrap();
        Env {
            _root: root,
            ws,
            home,
            outside,
            zut_home,
        }
    }

    pub fn spec(&self, network: Network) -> JailSpec {
        JailSpec {
            cwd: self.ws.clone(),
            home: Some(self.home.clone()),
            zut_home: Some(self.zut_home.clone()),
            extra_secrets: Vec::new(),
            extra_writable: Vec::new(),
            network,
        }
    }

    pub fn policy(&self, network: Network) -> Policy {
        Policy::jail(&self.spec(network))
    }

    pub fn ctx_with(&self, policy: Policy) -> ToolContext {
        let prepared = Prepared::new(policy).unwrap();
        ToolContext::new(&self.ws).with_jail(Some(Arc::new(prepared)))
    }

    pub fn ctx(&self) -> ToolContext {
        self.ctx_with(self.policy(Network::None))
    }

    pub fn ctx_limited(&self, limits: Limits) -> ToolContext {
        let mut p = self.policy(Network::None);
        p.limits = limits;
        self.ctx_with(p)
    }
}

/// Runs `command` in jailed bash (30 s timeout); the output text.
pub async fn bash(ctx: &ToolContext, command: &str) -> (bool, String) {
    let out = run_builtin("bash", &json!({"command": command, "timeout": 30}), ctx).await;
    (out.is_error, out.text_content())
}

pub async fn tool(ctx: &ToolContext, name: &str, args: serde_json::Value) -> ToolOutput {
    run_builtin(name, &args, ctx).await
}

pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}
