//! A fake host for SDK tests: plays zut's side of the protocol over real
//! OS pipes, either against `Extension::run_with` on a thread or against a
//! spawned extension process.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::OnceLock;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use serde_json::Value;
use zut_ext_sdk::{Extension, SdkError};
use zut_protocol::{decode_ext_frame, encode_line, ExtFrame, HelloAck, HostFrame};

/// Upper bound on waiting for one frame. It only turns a hang into a
/// failure; no test asserts on elapsed time.
const HANG_GUARD: Duration = Duration::from_secs(20);

/// One line written by the extension, decoded twice: as a typed frame and
/// as raw JSON (to assert on exact keys).
#[derive(Debug, Clone)]
pub struct Line {
    pub frame: ExtFrame,
    pub json: Value,
}

enum Peer {
    Thread(JoinHandle<Result<(), SdkError>>),
    Process(Child),
}

/// The host side of one extension connection.
pub struct Host {
    to_ext: Option<Box<dyn Write + Send>>,
    lines: Receiver<String>,
    peer: Option<Peer>,
}

impl Host {
    /// Runs `ext` on a thread via `run_with` over two OS pipes.
    pub fn start(ext: Extension) -> Self {
        let (ext_stdin, host_out) = std::io::pipe().unwrap();
        let (host_in, ext_stdout) = std::io::pipe().unwrap();
        let run = thread::spawn(move || ext.run_with(BufReader::new(ext_stdin), ext_stdout));
        Self {
            to_ext: Some(Box::new(host_out)),
            lines: read_lines(host_in),
            peer: Some(Peer::Thread(run)),
        }
    }

    /// Spawns `command` with piped stdin/stdout (stderr inherited).
    pub fn spawn(mut command: Command) -> Self {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {command:?}: {e}"));
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        Self {
            to_ext: Some(Box::new(stdin)),
            lines: read_lines(stdout),
            peer: Some(Peer::Process(child)),
        }
    }

    /// Writes one frame to the extension.
    pub fn send(&mut self, frame: &HostFrame) {
        let line = encode_line(frame);
        self.send_bytes(&line);
    }

    /// Writes raw bytes to the extension.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let out = self.to_ext.as_mut().expect("stdin already closed");
        out.write_all(bytes).unwrap();
        out.flush().unwrap();
    }

    /// Closes the extension's stdin (EOF).
    pub fn close_stdin(&mut self) {
        self.to_ext = None;
    }

    /// The next line the extension wrote.
    pub fn next(&self) -> Line {
        self.try_next().expect("extension closed stdout")
    }

    /// The next line, or `None` once the extension closed stdout.
    pub fn try_next(&self) -> Option<Line> {
        match self.lines.recv_timeout(HANG_GUARD) {
            Ok(raw) => {
                let json: Value = serde_json::from_str(&raw)
                    .unwrap_or_else(|e| panic!("extension wrote non-JSON {raw:?}: {e}"));
                let frame = decode_ext_frame(raw.as_bytes())
                    .unwrap_or_else(|e| panic!("extension wrote a bad frame {raw:?}: {e}"));
                Some(Line { frame, json })
            }
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => panic!("no frame from the extension (hang guard)"),
        }
    }

    /// Skips lines until one of type `kind` arrives.
    pub fn until(&self, kind: &str) -> Line {
        loop {
            let line = self.next();
            if line.json["type"] == kind {
                return line;
            }
        }
    }

    /// Expects `hello` and returns it.
    pub fn expect_hello(&self) -> Line {
        let hello = self.next();
        assert_eq!(hello.json["type"], "hello", "first frame: {}", hello.json);
        hello
    }

    /// Reads `hello`, answers `ack`, and returns every frame up to and
    /// including `ready`.
    pub fn handshake_with(&mut self, ack: HelloAck) -> Vec<Line> {
        self.expect_hello();
        self.send(&HostFrame::HelloAck(ack));
        let mut frames = Vec::new();
        loop {
            let line = self.next();
            let done = line.frame == ExtFrame::Ready;
            frames.push(line);
            if done {
                return frames;
            }
        }
    }

    /// Handshake with a default protocol-2 `hello_ack`.
    pub fn handshake(&mut self) -> Vec<Line> {
        self.handshake_with(ack())
    }

    /// Sends `shutdown`, expects `shutdown_ack` (skipping other frames),
    /// then EOF and a clean end of the extension.
    pub fn shutdown(mut self) {
        self.send(&HostFrame::Shutdown);
        self.until("shutdown_ack");
        self.close_stdin();
        while self.try_next().is_some() {}
        self.finish().expect("extension ended with an error");
    }

    /// Waits for the extension to end; `Err` carries its error text.
    pub fn finish(mut self) -> Result<(), String> {
        self.close_stdin();
        match self.peer.take() {
            Some(Peer::Thread(run)) => run.join().expect("run panicked").map_err(|e| e.to_string()),
            Some(Peer::Process(mut child)) => {
                let status = child.wait().unwrap();
                if status.success() {
                    Ok(())
                } else {
                    Err(format!("extension exited with {status}"))
                }
            }
            None => Ok(()),
        }
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        self.to_ext = None;
        if let Some(Peer::Process(child)) = self.peer.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn read_lines(from: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// A protocol-2 `hello_ack` with test metadata.
pub fn ack() -> HelloAck {
    HelloAck {
        protocol_version: 2,
        zut_version: "0.0.0-test".into(),
        provider: "anthropic".into(),
        model: "claude-test".into(),
        cwd: "/tmp/project".into(),
        ..HelloAck::default()
    }
}

/// Frame types of `lines`, in order.
pub fn types(lines: &[Line]) -> Vec<String> {
    lines
        .iter()
        .map(|l| l.json["type"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// `examples/extensions/<name>`.
pub fn example_dir(name: &str) -> PathBuf {
    zut_test_support::workspace_root()
        .join("examples/extensions")
        .join(name)
}

/// Path of a Rust example binary, building only the example packages (so
/// unrelated crates being edited cannot break these tests).
pub fn example_bin(name: &str) -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| {
        // `scripts/test` built every workspace binary already.
        if zut_test_support::bins_already_built() {
            return;
        }
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .args([
                "build",
                "--quiet",
                "-p",
                "zut-example-hello",
                "-p",
                "zut-example-guard",
                "-p",
                "zut-example-todo",
            ])
            .current_dir(zut_test_support::workspace_root())
            .status()
            .unwrap();
        assert!(status.success(), "building the example extensions failed");
    });
    let path = zut_test_support::target_bin_dir().join(name);
    assert!(path.is_file(), "{} not built", path.display());
    path
}

/// Whether `program` can be run (for the Python and Node examples).
pub fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Reads `extension.json` of an example.
pub fn manifest(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("extension.json")).unwrap()).unwrap()
}
