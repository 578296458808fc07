//! The conformance run: spawn, handshake, registration, each tool, each
//! command, each interceptor, subscribed events, shutdown, leftovers.
//! Every step adds checks to the [`Report`]; nothing here needs a model.

use std::collections::{BTreeMap, HashSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};
use zut_ext_host::{Manifest, BUILTIN_TOOL_NAMES, RESERVED_TOOL_NAMES};
use zut_protocol::limits::{AUTO_READY_IDLE, INTERCEPT_TIMEOUT, READY_TIMEOUT, SHUTDOWN_GRACE};
use zut_protocol::{
    CommandInvoked, ContentBlock, Event, EventIntercept, ExtFrame, HelloAck, HostFrame,
    PanelContent, ToolCall, LIFECYCLE_EVENTS,
};

mod calls;
mod frames;
mod handshake;

use super::report::Report;
use super::samples::sample;
use super::wire::{group_alive, kill_group, Read, Wire};

/// Largest `details` zut persists (protocol §8.5).
const MAX_DETAILS: usize = 256 * 1024;
/// What to run.
pub struct Options {
    /// The extension directory (absolute).
    pub dir: PathBuf,
    /// `--args name=JSON`: arguments for named tools instead of a sample.
    pub tool_args: BTreeMap<String, Value>,
    /// Deadline for the hello and for each command/tool reply.
    pub timeout: Duration,
    /// The project directory sent in `hello_ack`.
    pub cwd: PathBuf,
}

#[derive(Default)]
struct Registered {
    commands: Vec<String>,
    tools: Vec<(String, Option<Value>, bool)>,
    events: Vec<String>,
    intercept: Vec<String>,
}

/// For an executable missing from a Rust or Go source tree (`zut ext new
/// --lang rust|go` before its build step): "; not built yet? …" with the
/// build command. Empty otherwise.
fn unbuilt_hint(dir: &Path, exec: &str) -> String {
    let name = Path::new(exec).file_name().map(|n| n.to_string_lossy());
    let lang = if dir.join("Cargo.toml").is_file() {
        crate::ext::new::Lang::Rust
    } else if dir.join("go.mod").is_file() {
        crate::ext::new::Lang::Go
    } else {
        return String::new();
    };
    match name {
        Some(name) if !dir.join(exec).exists() => crate::ext::new::build_step(lang, &name)
            .map(|b| format!("; not built yet? build it first: {b}"))
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// Runs every check against the extension in `opts.dir`.
pub async fn run(opts: &Options, report: &mut Report) {
    report.dir = opts.dir.display().to_string();
    report.extension = opts
        .dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let manifest = match Manifest::read(&opts.dir).and_then(|m| m.validate(&opts.dir).map(|()| m)) {
        Ok(m) => m,
        Err(e) => {
            report.fail("manifest", "protocol §2 manifest", e.to_string());
            return;
        }
    };
    report.extension = manifest.name.clone();
    if manifest.is_theme_only(&opts.dir) {
        report.pass(
            "manifest",
            "protocol §2.2 theme-only",
            "theme-only extension: no process to check",
        );
        return;
    }
    report.pass(
        "manifest",
        "protocol §2 manifest",
        format!("{} {}", manifest.name, manifest.version),
    );
    let log = match tempfile::NamedTempFile::new() {
        Ok(f) => f,
        Err(e) => {
            report.fail(
                "spawn",
                "protocol §4.1 launch",
                format!("temporary stderr log: {e}"),
            );
            return;
        }
    };
    let spec = manifest.exec_spec(&opts.dir);
    let started = Instant::now();
    let mut wire = match Wire::spawn(&spec, &manifest.args, &opts.dir, log.path()) {
        Ok(w) => w,
        Err(e) => {
            report.fail(
                "spawn",
                "protocol §4.1 launch",
                format!(
                    "cannot start {:?}: {e}{}",
                    manifest.exec,
                    unbuilt_hint(&opts.dir, &manifest.exec)
                ),
            );
            return;
        }
    };
    let pgid = wire.pgid;
    let mut checker = Checker {
        wire: &mut wire,
        report,
        panels: HashSet::new(),
        to_close: Vec::new(),
        closed_panels: 0,
        opts,
    };
    checker.session(&manifest, started).await;
    wire.kill().await;
    if group_alive(pgid) {
        kill_group(pgid);
    }
    report.stderr_tail = tail(log.path(), 12);
}

struct Checker<'a> {
    wire: &'a mut Wire,
    report: &'a mut Report,
    panels: HashSet<String>,
    /// Panels opened spontaneously (e.g. by a tool waiting for the user): the tester closes them like Esc.
    to_close: Vec<String>,
    /// How many panels the tester closed so far.
    closed_panels: usize,
    opts: &'a Options,
}

impl Checker<'_> {
    async fn session(&mut self, manifest: &Manifest, started: Instant) {
        if !self.handshake(manifest, started).await {
            return;
        }
        let Some(reg) = self.registration(started).await else {
            return;
        };
        self.tools(&reg).await;
        self.commands(&reg).await;
        self.interceptors(&reg).await;
        self.events(&reg).await;
        self.shutdown().await;
    }
}

/// Problems of a `tool_result.content` (§8.4): (failures: bad images,
/// unknown blocks; warnings: no content, empty texts).
fn content_problems(content: &[ContentBlock]) -> (Vec<String>, Vec<String>) {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    if content.is_empty() {
        notes.push("empty content (zut shows \"(extension returned no content)\")".to_string());
    }
    for (i, b) in content.iter().enumerate() {
        match b.kind.as_str() {
            "text" if b.text.as_deref().unwrap_or("").is_empty() => {
                notes.push(format!("block {i}: empty text (dropped)"))
            }
            "text" => {}
            "image" => {
                let data = b.data.as_deref().unwrap_or("");
                if let Err(e) = base64::engine::general_purpose::STANDARD.decode(data) {
                    out.push(format!(
                        "block {i}: image data is not standard base64 ({e})"
                    ));
                }
                if b.mime_type.as_deref().unwrap_or("").is_empty() {
                    out.push(format!("block {i}: image without mime_type"));
                }
            }
            other => out.push(format!("block {i}: unknown block type {other:?}")),
        }
    }
    (out, notes)
}

fn clip(s: &str) -> String {
    const MAX: usize = 120;
    if s.chars().count() <= MAX {
        return s.to_string();
    }
    let cut: String = s.chars().take(MAX).collect();
    format!("{cut}…")
}

fn tail(path: &Path, n: usize) -> Vec<String> {
    let text = std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..]
        .iter()
        .map(|l| clip(l))
        .collect()
}
