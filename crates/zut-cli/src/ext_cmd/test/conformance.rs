//! The conformance run: spawn, handshake, registration, each tool, each
//! command, each interceptor, subscribed events, shutdown, leftovers.
//! Every step adds checks to the [`Report`]; nothing here needs a model.

use std::collections::{BTreeMap, HashSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};
use zut_ext_host::{Manifest, RESERVED_TOOL_NAMES};
use zut_protocol::limits::{AUTO_READY_IDLE, INTERCEPT_TIMEOUT, READY_TIMEOUT, SHUTDOWN_GRACE};
use zut_protocol::{
    CommandInvoked, ContentBlock, Event, EventIntercept, ExtFrame, HelloAck, HostFrame,
    PanelContent, ToolCall, LIFECYCLE_EVENTS,
};

use super::report::Report;
use super::samples::sample;
use super::wire::{group_alive, kill_group, Read, Wire};

/// Largest `details` zut persists (protocol §8.5).
const MAX_DETAILS: usize = 256 * 1024;
/// Built-in tool names an extension tool cannot take (protocol §8.1, seed list).
const BUILT_IN_TOOLS: &[&str] = &[
    "read",
    "write",
    "edit",
    "bash",
    "python",
    "worktree",
    "grep",
    "glob",
    "ast",
    "lsp",
    "web_search",
    "web_open",
    "web_find",
    "web_click",
    "schedule",
    "update_goal",
    "update_plan",
    "plan",
    "skill",
];

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
        crate::ext_cmd::new::Lang::Rust
    } else if dir.join("go.mod").is_file() {
        crate::ext_cmd::new::Lang::Go
    } else {
        return String::new();
    };
    match name {
        Some(name) if !dir.join(exec).exists() => crate::ext_cmd::new::build_step(lang, &name)
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

    async fn handshake(&mut self, manifest: &Manifest, started: Instant) -> bool {
        const RULE: &str = "protocol §5.1 hello";
        let hello = match self.wire.read(self.opts.timeout).await {
            Read::Frame(ExtFrame::Hello(h)) => h,
            Read::Frame(other) => {
                self.report.fail(
                    "handshake",
                    RULE,
                    format!("first frame must be hello (got {:?})", other.type_name()),
                );
                return false;
            }
            Read::Bad(line, e) => {
                self.report.fail(
                    "handshake",
                    "protocol §1 framing",
                    format!("stray output before hello: {} ({e})", clip(&line)),
                );
                return false;
            }
            Read::TooLong => {
                self.report.fail(
                    "handshake",
                    "protocol §1 framing",
                    "first line exceeds 4 MiB",
                );
                return false;
            }
            Read::Eof => {
                let status = self.wire.wait(Duration::from_secs(1)).await;
                let how = status.map_or("without exiting".to_string(), |s| format!("({s})"));
                self.report.fail(
                    "handshake",
                    RULE,
                    format!("extension closed stdout before hello {how}"),
                );
                return false;
            }
            Read::Timeout => {
                self.report.fail(
                    "handshake",
                    RULE,
                    format!("no hello within {} s", self.opts.timeout.as_secs_f32()),
                );
                return false;
            }
            Read::Error(e) => {
                self.report
                    .fail("handshake", RULE, format!("read hello: {e}"));
                return false;
            }
        };
        if hello.protocol_version != 2 {
            self.report.fail(
                "handshake",
                RULE,
                format!(
                    "unsupported protocol_version {} (want 2)",
                    hello.protocol_version
                ),
            );
            return false;
        }
        if hello.name.trim().is_empty() {
            self.report.fail("handshake", RULE, "hello.name is empty");
            return false;
        }
        let ms = started.elapsed().as_millis();
        self.report.pass(
            "handshake",
            RULE,
            format!("hello first, protocol 2, after {ms} ms"),
        );
        if hello.name == manifest.name {
            self.report.pass(
                "name",
                "protocol §5.1 name",
                format!("hello name {:?} matches the manifest", hello.name),
            );
        } else {
            self.report.warn(
                "name",
                "protocol §5.1 name",
                format!(
                    "hello name {:?} differs from the manifest name {:?} (zut uses the manifest's)",
                    hello.name, manifest.name
                ),
            );
        }
        let dir = self.opts.dir.display().to_string();
        let ack = HostFrame::HelloAck(HelloAck {
            protocol_version: 2,
            zut_version: format!("{} (ext test)", env!("CARGO_PKG_VERSION")),
            provider: String::new(),
            model: String::new(),
            cwd: self.opts.cwd.display().to_string(),
            extension_dir: dir.clone(),
            data_dir: dir,
            session: None,
        });
        if !self.wire.send(&ack).await {
            self.report.fail(
                "handshake",
                "protocol §5.2 hello_ack",
                "extension closed stdin before hello_ack",
            );
            return false;
        }
        true
    }

    async fn registration(&mut self, started: Instant) -> Option<Registered> {
        const RULE: &str = "protocol §5.3-5.5 registration and ready";
        let mut reg = Registered::default();
        let window = Instant::now();
        let mut idle_gap = false;
        loop {
            let left = READY_TIMEOUT.saturating_sub(window.elapsed());
            if left.is_zero() {
                self.report.fail(
                    "ready",
                    RULE,
                    format!(
                        "no ready within {} s (zut waits 3 s, then proceeds)",
                        READY_TIMEOUT.as_secs()
                    ),
                );
                return None;
            }
            let wait = left.min(AUTO_READY_IDLE);
            match self.wire.read(wait).await {
                Read::Timeout if wait == AUTO_READY_IDLE => idle_gap = true,
                Read::Timeout => {}
                Read::Frame(ExtFrame::Ready) => break,
                Read::Frame(ExtFrame::RegisterCommand(c)) => {
                    self.check_command_name(&c.name, &reg);
                    reg.commands.push(c.name);
                }
                Read::Frame(ExtFrame::RegisterTool(t)) => {
                    self.check_tool(&t.name, t.schema.as_ref(), &reg);
                    reg.tools.push((t.name, t.schema, t.deferred));
                }
                Read::Frame(ExtFrame::Subscribe(s)) => {
                    for i in &s.intercept {
                        if !zut_protocol::is_interceptable(i) {
                            self.report.warn(
                                "subscribe",
                                "protocol §6.4 subscribe",
                                format!("{i:?} cannot be intercepted (ignored by zut)"),
                            );
                        }
                    }
                    reg.events.extend(s.events);
                    reg.intercept.extend(
                        s.intercept
                            .into_iter()
                            .filter(|i| zut_protocol::is_interceptable(i)),
                    );
                }
                Read::Frame(other) => {
                    if !self.observe(other) {
                        return None;
                    }
                }
                other => {
                    self.read_failure("ready", other).await;
                    return None;
                }
            }
        }
        let ms = started.elapsed().as_millis();
        let what = format!(
            "{} command(s), {} tool(s), {} event(s), {} interceptor(s); ready {ms} ms after spawn",
            reg.commands.len(),
            reg.tools.len(),
            reg.events.len(),
            reg.intercept.len()
        );
        if idle_gap {
            self.report.warn("ready", RULE, format!(
                "{what}, but silent for over {} ms before ready: zut auto-readies then, and later tools miss the registry",
                AUTO_READY_IDLE.as_millis()
            ));
        } else {
            self.report.pass("ready", RULE, what);
        }
        Some(reg)
    }

    fn check_command_name(&mut self, name: &str, reg: &Registered) {
        const RULE: &str = "protocol §6.1 register_command";
        let label = format!("command /{name}");
        if name.trim().is_empty() || name.chars().any(char::is_whitespace) {
            self.report.fail(
                label,
                RULE,
                format!("command name {name:?} is empty or has whitespace (unreachable)"),
            );
        } else if name.starts_with('/') {
            self.report
                .fail(label, RULE, "register the name without its leading '/'");
        } else if reg.commands.iter().any(|c| c.eq_ignore_ascii_case(name)) {
            self.report.warn(
                label,
                RULE,
                "registered twice (names are case-insensitive): the later one is shadowed",
            );
        }
    }

    fn check_tool(&mut self, name: &str, schema: Option<&Value>, reg: &Registered) {
        const RULE: &str = "protocol §6.2/§8.1 register_tool";
        let label = format!("tool {name}");
        if name.trim().is_empty() || name.chars().any(char::is_whitespace) {
            self.report.fail(
                label,
                RULE,
                format!("tool name {name:?} is empty or has whitespace"),
            );
            return;
        }
        if RESERVED_TOOL_NAMES.contains(&name) || BUILT_IN_TOOLS.contains(&name) {
            self.report.warn(
                label.clone(),
                RULE,
                format!("{name:?} is a built-in or reserved tool name: zut's own tool wins"),
            );
        }
        if reg.tools.iter().any(|(t, _, _)| t == name) {
            self.report.warn(
                label.clone(),
                RULE,
                "registered twice: the later one is shadowed",
            );
        }
        let is_object = schema
            .and_then(Value::as_object)
            .is_some_and(|s| s.get("type").and_then(Value::as_str) == Some("object"));
        if !is_object {
            self.report.warn(label, RULE, "schema should be a JSON Schema object with \"type\": \"object\" (providers refuse others)");
        }
    }

    /// Checks a frame that is not the awaited reply; false when it ends the run.
    fn observe(&mut self, frame: ExtFrame) -> bool {
        match frame {
            ExtFrame::Hello(_) => {
                self.report
                    .fail("frames", "protocol §5.1 hello", "a second hello");
            }
            ExtFrame::OpenPanel(p) => {
                self.check_panel("open_panel", &p.panel);
                if !p.panel.id.trim().is_empty() {
                    self.to_close.push(p.panel.id);
                }
            }
            ExtFrame::PanelRender(p) => {
                if p.panel_id.trim().is_empty() {
                    self.report.fail(
                        "panel",
                        "protocol §6.17 panel_render",
                        "panel_render without panel_id",
                    );
                } else if !self.panels.contains(&p.panel_id) {
                    self.report.warn("panel", "protocol §6.17 panel_render", format!("panel_render for {:?}, which this extension did not open (ignored by zut)", p.panel_id));
                }
            }
            ExtFrame::PanelClose(p) => {
                self.panels.remove(&p.panel_id);
            }
            ExtFrame::Notify(n)
                if !matches!(n.level.as_str(), "info" | "success" | "warn" | "error") =>
            {
                self.report.warn(
                    "notify",
                    "protocol §6.8 notify",
                    format!("unknown level {:?} (shown as info)", n.level),
                );
            }
            ExtFrame::Status(s) if s.key.trim().is_empty() => {
                self.report.warn(
                    "status",
                    "protocol §6.9 status",
                    "status without key (ignored by zut)",
                );
            }
            ExtFrame::Widget(w) if w.id.trim().is_empty() => {
                self.report.warn(
                    "widget",
                    "protocol §6.10 widget",
                    "widget without id (ignored by zut)",
                );
            }
            ExtFrame::Alert(a) if a.kind != "bell" => {
                self.report.warn(
                    "alert",
                    "protocol §6.12 alert",
                    format!("unknown alert kind {:?} (ignored by zut)", a.kind),
                );
            }
            _ => {}
        }
        true
    }

    fn check_panel(&mut self, what: &str, panel: &PanelContent) {
        if panel.id.trim().is_empty() {
            self.report.fail(
                "panel",
                "protocol §6.16 open_panel",
                format!("{what} without a panel id"),
            );
        } else {
            self.panels.insert(panel.id.clone());
        }
    }

    async fn read_failure(&mut self, name: &str, read: Read) {
        match read {
            Read::Bad(line, e) => self.report.fail(
                name.to_string(),
                "protocol §1/§6 framing",
                format!("stray output on stdout: {} ({e})", clip(&line)),
            ),
            Read::TooLong => self.report.fail(
                name.to_string(),
                "protocol §1 framing",
                "a frame exceeds 4 MiB: zut disconnects the extension",
            ),
            Read::Eof => {
                let status = self.wire.wait(Duration::from_millis(500)).await;
                let how = status.map_or(String::new(), |s| format!(" ({s})"));
                self.report.fail(
                    name.to_string(),
                    "protocol §13.2 crash",
                    format!("extension exited{how}"),
                );
            }
            Read::Error(e) => self.report.fail(
                name.to_string(),
                "protocol §1 framing",
                format!("read: {e}"),
            ),
            Read::Timeout | Read::Frame(_) => {}
        }
    }

    /// Sends `frame` and waits for its answer (see [`Self::reply`]); a
    /// closed stdin fails check `name`. `None` when there is no answer.
    async fn request<T>(
        &mut self,
        name: &str,
        rule: &'static str,
        timeout: Duration,
        frame: HostFrame,
        pick: impl FnMut(ExtFrame) -> ControlFlow<T, ExtFrame>,
    ) -> Option<(T, Duration)> {
        if !self.wire.send(&frame).await {
            self.report.fail(name.to_string(), rule, "stdin closed");
            return None;
        }
        self.reply(name, rule, timeout, pick).await
    }

    /// Reads frames until `pick` takes one (`Break`; it hands the others
    /// back as `Continue`, and they are checked); `None` on failure (reported).
    async fn reply<T>(
        &mut self,
        name: &str,
        rule: &'static str,
        timeout: Duration,
        mut pick: impl FnMut(ExtFrame) -> ControlFlow<T, ExtFrame>,
    ) -> Option<(T, Duration)> {
        let start = Instant::now();
        loop {
            let left = timeout.saturating_sub(start.elapsed());
            if left.is_zero() {
                self.report.fail(
                    name.to_string(),
                    rule,
                    format!("no reply within {} s", timeout.as_secs_f32()),
                );
                return None;
            }
            match self.wire.read(left).await {
                Read::Frame(f) => {
                    let f = match pick(f) {
                        ControlFlow::Break(answer) => return Some((answer, start.elapsed())),
                        ControlFlow::Continue(f) => f,
                    };
                    if !self.observe(f) {
                        return None;
                    }
                    for panel_id in std::mem::take(&mut self.to_close) {
                        let close = HostFrame::PanelClose(zut_protocol::PanelClose { panel_id });
                        let _ = self.wire.send(&close).await;
                        self.closed_panels += 1;
                    }
                }
                Read::Timeout => {}
                other => {
                    self.read_failure(name, other).await;
                    return None;
                }
            }
        }
    }

    async fn tools(&mut self, reg: &Registered) {
        const RULE: &str = "protocol §6.5/§8.4 tool_result";
        for (i, (name, schema, deferred)) in reg.tools.iter().enumerate() {
            let label = format!("tool {name}");
            let (args, given) = match self.opts.tool_args.get(name) {
                Some(a) => (a.clone(), "given"),
                None => (sample(schema.as_ref().unwrap_or(&json!({}))), "sample"),
            };
            let id = format!("test-tool-{i}");
            let call = HostFrame::ToolCall(ToolCall {
                id: id.clone(),
                name: name.clone(),
                args: args.clone(),
            });
            let closed_before = self.closed_panels;
            let got = self
                .request(&label, RULE, self.opts.timeout, call, |f| match f {
                    ExtFrame::ToolResult(r) if r.id == id => ControlFlow::Break(r),
                    f => ControlFlow::Continue(f),
                })
                .await;
            let Some((result, took)) = got else { return };
            let (problems, notes) = content_problems(&result.content);
            let details = result
                .details
                .as_ref()
                .map(|d| serde_json::to_vec(d).map_or(0, |v| v.len()))
                .unwrap_or(0);
            let mut what = format!(
                "{given} args {} -> {} block(s) in {} ms",
                clip(&args.to_string()),
                result.content.len(),
                took.as_millis()
            );
            if *deferred {
                what.push_str(" (deferred)");
            }
            if self.closed_panels > closed_before {
                what.push_str(" (it opened a panel; the test closed it like Esc)");
            }
            if !problems.is_empty() {
                self.report
                    .fail(label, RULE, format!("{what}: {}", problems.join("; ")));
            } else if details > MAX_DETAILS {
                self.report.fail(label, "protocol §8.5 details", format!("{what}: details is {details} bytes, over 256 KiB: zut replaces the result with an error"));
            } else if !notes.is_empty() {
                self.report
                    .warn(label, RULE, format!("{what}: {}", notes.join("; ")));
            } else if result.is_error {
                let text = result
                    .content
                    .iter()
                    .filter_map(|b| b.text.clone())
                    .collect::<Vec<_>>()
                    .join(" ");
                self.report.warn(
                    label,
                    RULE,
                    format!(
                        "{what}: is_error: {} (give real arguments with --args {name}='{{...}}')",
                        clip(&text)
                    ),
                );
            } else {
                self.report.pass(label, RULE, what);
            }
        }
    }

    async fn commands(&mut self, reg: &Registered) {
        const RULE: &str = "protocol §6.7 command_response";
        for (i, name) in reg.commands.iter().enumerate() {
            let label = format!("command /{name}");
            let id = format!("test-command-{i}");
            let frame = HostFrame::CommandInvoked(CommandInvoked {
                id: id.clone(),
                name: name.clone(),
                args: String::new(),
            });
            let got = self
                .request(&label, RULE, self.opts.timeout, frame, |f| match f {
                    ExtFrame::CommandResponse(r) if r.id == id => ControlFlow::Break(r),
                    f => ControlFlow::Continue(f),
                })
                .await;
            let Some((resp, took)) = got else { return };
            let action = if resp.action.is_empty() {
                "noop"
            } else {
                resp.action.as_str()
            };
            let what = format!("action {action} in {} ms", took.as_millis());
            if !resp.error.is_empty() {
                self.report.warn(
                    label,
                    RULE,
                    format!(
                        "{what}, error {:?} (no arguments were given)",
                        clip(&resp.error)
                    ),
                );
                continue;
            }
            match action {
                "prompt" | "insert" | "display" | "noop" => self.report.pass(label, RULE, what),
                "open_panel" => match &resp.open_panel {
                    Some(p) if !p.id.trim().is_empty() => {
                        let id = p.id.clone();
                        self.report.pass(
                            label,
                            RULE,
                            format!("{what}, panel {id:?} with {} line(s)", p.lines.len()),
                        );
                        let close =
                            HostFrame::PanelClose(zut_protocol::PanelClose { panel_id: id });
                        let _ = self.wire.send(&close).await;
                    }
                    Some(_) => self.report.fail(
                        label,
                        "protocol §6.16 open_panel",
                        "open_panel without a panel id",
                    ),
                    None => self.report.warn(
                        label,
                        RULE,
                        "action open_panel without an open_panel object (nothing happens)",
                    ),
                },
                other => self
                    .report
                    .fail(label, RULE, format!("unknown action {other:?}")),
            }
        }
    }

    async fn interceptors(&mut self, reg: &Registered) {
        const RULE: &str = "protocol §11 event_intercept";
        let mut seen = HashSet::new();
        for (i, event) in reg.intercept.iter().enumerate() {
            if !seen.insert(event.clone()) {
                continue;
            }
            let label = format!("intercept {event}");
            let id = format!("test-intercept-{i}");
            let mut frame = EventIntercept {
                id: id.clone(),
                event: event.clone(),
                ..EventIntercept::default()
            };
            match event.as_str() {
                "tool_call" => {
                    frame.tool_id = "test-call".into();
                    frame.tool_name = "read".into();
                    frame.tool_args = Some(json!({"path": "README.md"}));
                }
                "turn_start" => frame.step = 1,
                _ => frame.text = "Hello from zut ext test.".into(),
            }
            let frame = HostFrame::EventIntercept(frame);
            let got = self
                .request(&label, RULE, INTERCEPT_TIMEOUT, frame, |f| match f {
                    ExtFrame::EventInterceptResponse(r) if r.id == id => ControlFlow::Break(r),
                    f => ControlFlow::Continue(f),
                })
                .await;
            let Some((resp, took)) = got else { return };
            let verdict = if resp.block {
                format!("block ({})", resp.reason)
            } else {
                "allow".to_string()
            };
            let what = format!(
                "{verdict} in {} ms (deadline {} s)",
                took.as_millis(),
                INTERCEPT_TIMEOUT.as_secs()
            );
            match &resp.modified_args {
                Some(v) if !v.is_object() && !resp.block => {
                    self.report.warn(
                        label,
                        "protocol §11.1 modified_args",
                        format!("{what}: modified_args must be a JSON object (ignored)"),
                    );
                }
                _ => self.report.pass(label, RULE, what),
            }
        }
    }

    async fn events(&mut self, reg: &Registered) {
        let mut sent = 0;
        for name in LIFECYCLE_EVENTS
            .iter()
            .filter(|e| reg.events.iter().any(|s| s == *e))
        {
            let mut ev = Event::named(*name);
            match *name {
                "turn_start" => ev.step = 1,
                "turn_end" => ev.stop = "end_turn".into(),
                "assistant_message" => ev.text = "Hello from zut ext test.".into(),
                "tool_call" | "tool_confirmation_requested" => {
                    ev.tool_id = "test-call".into();
                    ev.tool_name = "read".into();
                    ev.tool_args = Some(json!({"path": "README.md"}));
                    ev.tool_preview = "README.md".into();
                }
                _ => {}
            }
            if !self.wire.send(&HostFrame::Event(ev)).await {
                break;
            }
            sent += 1;
        }
        if sent == 0 {
            return;
        }
        // Give the handlers a moment, then make sure the extension still answers.
        tokio::time::sleep(Duration::from_millis(50)).await;
        if let Some(status) = self.wire.exited() {
            self.report.fail(
                "events",
                "protocol §10 events",
                format!("extension exited after {sent} event(s): {status}"),
            );
        } else {
            self.report.pass(
                "events",
                "protocol §10 events",
                format!("{sent} subscribed event(s) delivered, still running"),
            );
        }
    }

    async fn shutdown(&mut self) {
        const RULE: &str = "protocol §13.1 shutdown";
        let start = Instant::now();
        if !self.wire.send(&HostFrame::Shutdown).await {
            self.report
                .fail("shutdown", RULE, "stdin closed before shutdown");
            return;
        }
        let mut acked = false;
        loop {
            let left = SHUTDOWN_GRACE.saturating_sub(start.elapsed());
            match self.wire.read(left).await {
                Read::Frame(ExtFrame::ShutdownAck) => {
                    acked = true;
                    self.wire.close_stdin();
                }
                Read::Frame(f) => {
                    self.observe(f);
                }
                Read::Eof => break,
                Read::Timeout => break,
                other => {
                    self.read_failure("shutdown", other).await;
                    break;
                }
            }
        }
        self.wire.close_stdin();
        let left = SHUTDOWN_GRACE
            .saturating_sub(start.elapsed())
            .max(Duration::from_millis(100));
        let exited = self.wire.wait(left).await;
        let ms = start.elapsed().as_millis();
        match exited {
            None => self.report.fail(
                "shutdown",
                RULE,
                format!(
                    "still running {} s after shutdown: zut would SIGTERM it",
                    SHUTDOWN_GRACE.as_secs()
                ),
            ),
            Some(status) if !acked => self.report.warn(
                "shutdown",
                RULE,
                format!("exited ({status}) in {ms} ms without shutdown_ack"),
            ),
            Some(status) if !status.success() => self.report.warn(
                "shutdown",
                RULE,
                format!("shutdown_ack, then exit {status} (expected 0)"),
            ),
            Some(_) => self.report.pass(
                "shutdown",
                RULE,
                format!("shutdown_ack and exit 0 in {ms} ms"),
            ),
        }
        // Children of the extension (its process group) must be gone too.
        let deadline = Instant::now() + Duration::from_millis(300);
        while group_alive(self.wire.pgid) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if exited.is_some() {
            if group_alive(self.wire.pgid) {
                self.report.fail(
                    "processes",
                    "protocol §13.1 process group",
                    "processes of the extension's group are still running after it exited",
                );
            } else {
                self.report.pass(
                    "processes",
                    "protocol §13.1 process group",
                    "no process left behind",
                );
            }
        }
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
