//! Helpers shared by the zut-mcp integration tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
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

/// `node_modules` of the npm prefix `.ci/run` installs into.
pub fn node_modules() -> Option<PathBuf> {
    let base = std::env::var_os("ZUT_MCP_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("zut-ci-mcp/node_modules"));
    let ok = base
        .join("@modelcontextprotocol/server-everything/dist/index.js")
        .is_file()
        && base
            .join("@modelcontextprotocol/server-filesystem/dist/index.js")
            .is_file();
    if !ok {
        if std::env::var_os("CI").is_some() {
            panic!(
                "the npm MCP servers are required under CI (.ci/run installs them into {})",
                base.display()
            );
        }
        eprintln!(
            "skipped: npm MCP servers not installed in {}",
            base.display()
        );
        return None;
    }
    Some(base)
}

pub fn everything(nm: &std::path::Path) -> String {
    nm.join("@modelcontextprotocol/server-everything/dist/index.js")
        .display()
        .to_string()
}

pub fn have_python_mcp() -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import mcp.client.stdio, mcp.server"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        if std::env::var_os("CI").is_some() {
            panic!("the Python `mcp` package is required under CI");
        }
        eprintln!("skipped: the Python `mcp` package is not installed");
    }
    ok
}

/// An asker answering from a script, recording what it was asked.
pub fn scripted_asker(
    answers: Vec<zut_types::ElicitationAnswer>,
) -> (
    zut_mcp::Asker,
    Arc<Mutex<Vec<zut_types::ElicitationRequest>>>,
) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    let answers = Arc::new(Mutex::new(std::collections::VecDeque::from(answers)));
    let asker: zut_mcp::Asker = Arc::new(move |req| {
        log.lock().unwrap().push(req);
        let a = answers
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or_else(zut_types::ElicitationAnswer::cancel);
        Box::pin(async move { a })
    });
    (asker, asked)
}

pub fn content(v: Value) -> serde_json::Map<String, Value> {
    v.as_object().unwrap().clone()
}
