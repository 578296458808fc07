//! A real `zut rpc` process driven over pipes, shared by the RPC tests
//! (`tests/cli/rpc*.rs`).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use zut_llm_server::LlmServer;

use crate::common::*;

/// A running `zut rpc` with a reader thread collecting stdout lines.
pub struct Rpc {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// While set, the reader thread stops reading stdout (the pipe fills).
    paused: Arc<AtomicBool>,
    stderr: Arc<Mutex<String>>,
}

impl Rpc {
    /// `zut rpc` against `server` (anthropic, model `test-model`, no
    /// discovered extensions) with `extra` flags and `envs`.
    pub fn start(env: &TestEnv, server: &LlmServer, extra: &[&str], envs: &[(&str, &str)]) -> Self {
        let mut cmd = zut_cmd(env, &["rpc"]);
        cmd.args([
            "--provider",
            "anthropic",
            "--base-url",
            &server.url(),
            "--api-key",
            "sk-rpc",
            "--model",
            "test-model",
            "--no-ext",
        ])
        .args(extra)
        .env_remove("ZUTCORE_RPC_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        let paused = Arc::new(AtomicBool::new(false));
        let gate = paused.clone();
        std::thread::spawn(move || {
            // Small reads, so a pause leaves zut's output in the pipe.
            let mut r = BufReader::with_capacity(256, stdout);
            loop {
                while gate.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(5));
                }
                let mut line = String::new();
                match r.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                let line = line.trim_end_matches('\n').to_string();
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut err_pipe = child.stderr.take().unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err_pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let stdin = child.stdin.take();
        Self {
            child,
            stdin,
            lines,
            paused,
            stderr,
        }
    }

    /// Stops reading zut's stdout (a client that no longer reads).
    pub fn pause_reading(&self) {
        self.paused.store(true, Ordering::SeqCst);
    }

    /// Reads zut's stdout again.
    pub fn resume_reading(&self) {
        self.paused.store(false, Ordering::SeqCst);
    }

    /// Waits (up to 15 s) until stderr contains `needle`.
    pub fn wait_stderr(&self, needle: &str) {
        let deadline = Instant::now() + Duration::from_secs(15);
        while !self.stderr.lock().unwrap().contains(needle) {
            assert!(
                Instant::now() < deadline,
                "{needle:?} not on stderr: {}",
                self.stderr.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Sends `signal` to the process.
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on our own child's pid.
        let rc = unsafe { libc::kill(self.child.id() as i32, signal) };
        assert_eq!(rc, 0);
    }

    pub fn send(&mut self, v: Value) {
        self.send_raw(&v.to_string());
    }

    pub fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    pub fn next(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(15))
            .expect("no output line within 15 s");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON: {line:?}: {e}"))
    }

    /// Lines up to and including the first one matching `pred`.
    pub fn until(&self, pred: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut out = Vec::new();
        loop {
            let v = self.next();
            let stop = pred(&v);
            out.push(v);
            if stop {
                return out;
            }
        }
    }

    /// The response with `id` (other lines are returned before it).
    pub fn response(&self, id: &str) -> (Vec<Value>, Value) {
        let mut lines = self.until(|v| v["type"] == "response" && v["id"] == id);
        let r = lines.pop().unwrap();
        (lines, r)
    }

    pub fn request(&mut self, v: Value) -> Value {
        let id = v["id"].as_str().unwrap().to_string();
        self.send(v);
        self.response(&id).1
    }

    pub fn close(&mut self) {
        self.stdin.take();
    }

    /// Closes stdin and returns the exit code and every remaining line.
    pub fn finish(mut self) -> (i32, Vec<Value>, String) {
        self.close();
        self.wait()
    }

    /// Every remaining line, then the exit code and stderr (stdin as is).
    pub fn wait(mut self) -> (i32, Vec<Value>, String) {
        let mut rest = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(15)) {
            rest.push(serde_json::from_str(&line).unwrap());
        }
        let status = self.child.wait().unwrap();
        // The stderr thread ends with the pipe.
        std::thread::sleep(Duration::from_millis(20));
        let stderr = self.stderr.lock().unwrap().clone();
        (status.code().unwrap_or(-1), rest, stderr)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

pub fn types(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .map(|v| v["type"].as_str().unwrap_or("?").to_string())
        .collect()
}

pub fn is_done(v: &Value) -> bool {
    v["type"] == "done"
}

/// A Python extension `name` in the env's scratch dir: the hello line is
/// sent, then `on_msg` (Python, with `m` the parsed frame and `send`) runs
/// for every frame; `hello_ack` → `on_ack` (registrations), then `ready`.
pub fn py_ext(env: &TestEnv, name: &str, on_ack: &str, on_msg: &str) -> PathBuf {
    let dir = root(env).join("exts").join(name);
    let body = format!(
        r#"import json, sys, os, time
def send(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
send({{"type":"hello","name":"{name}","version":"1","protocol_version":2}})
for line in sys.stdin:
    m = json.loads(line)
    t = m.get("type")
    if t == "hello_ack":
{ack}
        send({{"type":"ready"}})
        continue
    if t == "shutdown":
        open(os.path.join(os.environ.get("MARK_DIR", "."), "{name}.shutdown"), "w").write("1")
        break
{body}
"#,
        ack = indent(on_ack, 8),
        body = indent(on_msg, 4)
    );
    zut_test_support::python_extension(&dir, name, &body)
}

pub fn indent(code: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    let lines: Vec<String> = code
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("{pad}{l}"))
        .collect();
    if lines.is_empty() {
        format!("{pad}pass")
    } else {
        lines.join("\n")
    }
}

pub fn root(env: &TestEnv) -> PathBuf {
    env.home.parent().unwrap().to_path_buf()
}

pub fn ext_arg(dir: &Path) -> String {
    dir.display().to_string()
}

pub fn rss_of(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap()
}
