//! Start-up checks: `hello`, registrations (names, schemas) and `ready`.

use super::*;

impl Checker<'_> {
    pub(super) async fn handshake(&mut self, manifest: &Manifest, started: Instant) -> bool {
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

    pub(super) async fn registration(&mut self, started: Instant) -> Option<Registered> {
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

    pub(super) fn check_command_name(&mut self, name: &str, reg: &Registered) {
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

    pub(super) fn check_tool(&mut self, name: &str, schema: Option<&Value>, reg: &Registered) {
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
        if RESERVED_TOOL_NAMES.contains(&name) || BUILTIN_TOOL_NAMES.contains(&name) {
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
}
