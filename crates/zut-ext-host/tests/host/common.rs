#![allow(dead_code)]
//! Shared harness: fixture extensions (Python and sh scripts on real
//! pipes), a host with short timers, and a UI sink that records events.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::Notify;
use zut_ext_host::{
    ui_channel, ExtensionHost, ExtensionReport, HostConfig, StartReport, Timeouts, UiEvent, UiKind,
    ZutHome,
};
use zut_test_support::{python3_shebang, write_executable, write_manifest, TestEnv};

/// Python helpers prepended to every Python fixture. Every line the
/// extension receives is appended to `received.jsonl` in its directory
/// (its working directory) and its pid is written to `pid`.
const PRELUDE: &str = r#"
import sys, json, os, time, signal, threading
open("pid", "w").write(str(os.getpid()))
LOCK = threading.Lock()

def send(o):
    with LOCK:
        sys.stdout.write(json.dumps(o) + "\n")
        sys.stdout.flush()

def raw(data):
    sys.stdout.flush()
    if isinstance(data, str):
        data = data.encode()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()

def recv():
    line = sys.stdin.readline()
    if not line:
        return None
    with open("received.jsonl", "a") as f:
        f.write(line)
    return json.loads(line)

def hello(name=None, version=2):
    send({"type": "hello", "protocol_version": version, "name": name or NAME})
    return recv()

def frames():
    while True:
        f = recv()
        if f is None:
            return
        yield f

def text(f, t):
    return {"type": "tool_result", "id": f["id"], "content": [{"type": "text", "text": t}]}

def serve(on=lambda f: None):
    for f in frames():
        if f["type"] == "shutdown":
            return
        r = on(f)
        if isinstance(r, dict):
            send(r)
        elif isinstance(r, list):
            for x in r:
                send(x)

def serve_threaded(on):
    """Like serve, but each frame is handled on its own thread."""
    def run(f):
        r = on(f)
        if isinstance(r, dict):
            send(r)
    for f in frames():
        if f["type"] == "shutdown":
            return
        threading.Thread(target=run, args=(f,), daemon=True).start()
"#;

/// Writes a Python extension `name` into `dir`: the prelude, then `body`.
pub fn py_ext(dir: &Path, name: &str, body: &str) -> PathBuf {
    let script = format!(
        "{}\nNAME = {}\n{PRELUDE}\n{body}\n",
        python3_shebang(),
        json!(name)
    );
    write_executable(dir, "ext.py", &script);
    write_manifest(
        dir,
        &json!({"name": name, "version": "1.0.0", "exec": "./ext.py"}),
    );
    dir.to_path_buf()
}

/// A Python extension that says hello, registers `tools` (each echoing
/// `<name>:<args>`), sends `ready` and serves until shutdown.
pub fn echo_ext(dir: &Path, name: &str, tools: &[&str]) -> PathBuf {
    let regs: String = tools
        .iter()
        .map(|t| {
            format!(
                "send({{\"type\": \"register_tool\", \"name\": {}, \"schema\": {{\"type\": \"object\"}}}})\n",
                json!(t)
            )
        })
        .collect();
    py_ext(
        dir,
        name,
        &format!(
            "hello()\n{regs}send({{\"type\": \"ready\"}})\n\
             serve(lambda f: text(f, f[\"name\"] + \":\" + json.dumps(f[\"args\"], sort_keys=True)) if f[\"type\"] == \"tool_call\" else None)\n"
        ),
    )
}

/// Writes a `/bin/sh` extension `name` into `dir`.
pub fn sh_ext(dir: &Path, name: &str, body: &str) -> PathBuf {
    write_executable(dir, "run.sh", &format!("#!/bin/sh\n{body}\n"));
    write_manifest(
        dir,
        &json!({"name": name, "version": "1.0.0", "exec": "./run.sh"}),
    );
    dir.to_path_buf()
}

/// Frames the extension in `dir` received so far (from `received.jsonl`).
pub fn received(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("received.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Received frames of one `type`.
pub fn received_of(dir: &Path, kind: &str) -> Vec<Value> {
    received(dir)
        .into_iter()
        .filter(|f| f["type"] == kind)
        .collect()
}

/// The pid the fixture in `dir` wrote, waiting briefly for it.
pub async fn pid_of(dir: &Path) -> i32 {
    let path = dir.join("pid");
    assert!(
        eventually(Duration::from_secs(10), || std::fs::read_to_string(&path)
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
            .is_some())
        .await,
        "no pid file in {}",
        dir.display()
    );
    std::fs::read_to_string(&path)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// Polls `f` every 20 ms until it holds or `within` passes.
pub async fn eventually(within: Duration, mut f: impl FnMut() -> bool) -> bool {
    let until = tokio::time::Instant::now() + within;
    loop {
        if f() {
            return true;
        }
        if tokio::time::Instant::now() >= until {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Short timers so the suite stays fast. Tests that prove "immediately,
/// not at the timeout" raise the relevant timer instead.
pub fn fast_timeouts() -> Timeouts {
    Timeouts {
        hello: Duration::from_secs(5),
        exit_before_hello: Duration::from_millis(500),
        auto_ready_idle: Duration::from_millis(250),
        ready: Duration::from_secs(3),
        command: Duration::from_secs(5),
        tool: Duration::from_secs(5),
        intercept: Duration::from_secs(2),
        shutdown_grace: Duration::from_millis(500),
        term_to_kill: Duration::from_millis(500),
        panel_key_pace: Duration::from_millis(50),
    }
}

/// A host configuration for `env` with [`fast_timeouts`].
pub fn config(env: &TestEnv) -> HostConfig {
    let mut cfg = HostConfig::new(ZutHome::new(&env.home), &env.project);
    cfg.timeouts = fast_timeouts();
    cfg
}

/// Records every UI event the host sends.
#[derive(Clone, Default)]
pub struct Ui {
    events: Arc<Mutex<Vec<UiEvent>>>,
    wake: Arc<Notify>,
}

impl Ui {
    /// Everything received so far.
    pub fn events(&self) -> Vec<UiEvent> {
        self.events.lock().unwrap().clone()
    }

    /// Events of `extension`.
    pub fn of(&self, extension: &str) -> Vec<UiKind> {
        self.events()
            .into_iter()
            .filter(|e| e.extension == extension)
            .map(|e| e.kind)
            .collect()
    }

    /// Waits until `pred` holds for the recorded events.
    pub async fn wait(&self, within: Duration, pred: impl Fn(&[UiEvent]) -> bool) -> bool {
        let until = tokio::time::Instant::now() + within;
        loop {
            let notified = self.wake.notified();
            if pred(&self.events.lock().unwrap()) {
                return true;
            }
            if tokio::time::timeout_at(until, notified).await.is_err() {
                return pred(&self.events.lock().unwrap());
            }
        }
    }

    /// Waits for a [`UiKind::ChromeClear`] from `extension`.
    pub async fn wait_chrome_clear(&self, extension: &str) -> bool {
        let name = extension.to_string();
        self.wait(Duration::from_secs(10), move |evs| {
            evs.iter()
                .any(|e| e.extension == name && e.kind == UiKind::ChromeClear)
        })
        .await
    }
}

/// A started host and everything a test needs to look at it.
pub struct Run {
    /// Temp `$ZUT_HOME` and project (kept alive for the host's lifetime).
    pub env: TestEnv,
    /// The host.
    pub host: ExtensionHost,
    /// What `start` reported.
    pub report: StartReport,
    /// Recorded UI events.
    pub ui: Ui,
}

impl Run {
    /// Starts a host on `env` with [`config`], tweaked by `tweak`.
    pub async fn start(env: TestEnv, tweak: impl FnOnce(&mut HostConfig)) -> Self {
        let mut cfg = config(&env);
        tweak(&mut cfg);
        let (tx, rx) = ui_channel();
        let ui = Ui::default();
        drain_into(rx, ui.clone());
        let (host, report) = ExtensionHost::start(cfg, tx).await;
        Self {
            env,
            host,
            report,
            ui,
        }
    }

    /// The doctor report of `name`.
    pub fn report_of(&self, name: &str) -> ExtensionReport {
        self.host
            .reports()
            .into_iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("no report for {name}"))
    }

    /// Load error texts joined, for assertion messages.
    pub fn errors(&self) -> Vec<String> {
        self.report
            .errors
            .iter()
            .map(|e| e.message.clone())
            .collect()
    }

    /// Stops the host.
    pub async fn stop(&self) {
        self.host.shutdown().await;
    }
}

/// Drains a UI receiver into `ui` on a background task.
pub fn drain_into(mut rx: zut_ext_host::UiReceiver, ui: Ui) {
    tokio::spawn(async move {
        while let Some(ev) = rx.recv().await {
            ui.events.lock().unwrap().push(ev);
            ui.wake.notify_waiters();
        }
    });
}

/// Whether the diagnostics of `r` contain `needle`.
pub fn has_diag(r: &ExtensionReport, needle: &str) -> bool {
    r.diagnostics.iter().any(|d| d.contains(needle))
}

/// The text of a tool outcome, for assertions.
pub fn outcome_text(o: &zut_ext_host::ToolOutcome) -> String {
    o.text()
}
