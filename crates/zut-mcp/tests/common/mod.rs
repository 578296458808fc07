//! Helpers shared by the zut-mcp integration tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use zut_mcp::{McpManager, McpOptions, McpSettings, ServerStatus};

/// The fake server script.
pub fn fake_server() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fake_server.py")
}

/// A stdio server entry running the fake server in `mode`.
pub fn fake(mode: &str, extra: &[&str]) -> Value {
    let mut args = vec![fake_server().display().to_string(), mode.to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    json!({"command": "python3", "args": args})
}

/// A home and a project directory with `servers` in config.json.
pub struct Dirs {
    pub home: tempfile::TempDir,
    pub project: tempfile::TempDir,
}

impl Dirs {
    pub fn new(servers: Value) -> Self {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join("config.json"),
            serde_json::to_string(&json!({ "mcpServers": servers })).unwrap(),
        )
        .unwrap();
        Self { home, project }
    }

    pub fn opts(&self, settings: McpSettings) -> McpOptions {
        McpOptions {
            home: self.home.path().to_path_buf(),
            project: self.project.path().to_path_buf(),
            settings,
            env: Arc::new(|k| std::env::var(k).ok()),
            jail: zut_tools::JailSwitch::default(),
            elicitation: zut_mcp::Elicitation::default(),
        }
    }

    pub fn start(&self, settings: McpSettings) -> McpManager {
        McpManager::start(self.opts(settings))
    }

    pub fn log(&self, name: &str) -> String {
        std::fs::read_to_string(
            self.home
                .path()
                .join("logs")
                .join(format!("mcp-{name}.log")),
        )
        .unwrap_or_default()
    }
}

/// Waits until `name` has status matching `pred` (at most 30 s).
pub async fn wait_status(
    mgr: &McpManager,
    name: &str,
    pred: impl Fn(&ServerStatus) -> bool,
) -> ServerStatus {
    for _ in 0..600 {
        if let Some(s) = mgr.servers().into_iter().find(|s| s.name == name) {
            if pred(&s.status) {
                return s.status;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "{name} never reached the expected status: {:?}",
        mgr.servers()
    );
}

pub async fn ready(mgr: &McpManager, name: &str) {
    wait_status(mgr, name, |s| *s == ServerStatus::Ready).await;
}

/// Whether python3 exists (skip message otherwise, fail under CI).
pub fn have(cmd: &str, what: &str) -> bool {
    let ok = std::process::Command::new(cmd)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        if std::env::var_os("CI").is_some() {
            panic!("{what} is required under CI");
        }
        eprintln!("skipped: {what} not available");
    }
    ok
}

pub fn file_contains(path: &Path, needle: &str) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| t.contains(needle))
}
