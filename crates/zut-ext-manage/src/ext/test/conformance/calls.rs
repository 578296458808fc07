//! The steps after `ready`: each tool, each command, each interceptor,
//! subscribed events, shutdown and leftover processes.

use super::*;

impl Checker<'_> {
    pub(super) async fn tools(&mut self, reg: &Registered) {
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

    pub(super) async fn commands(&mut self, reg: &Registered) {
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

    pub(super) async fn interceptors(&mut self, reg: &Registered) {
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

    pub(super) async fn events(&mut self, reg: &Registered) {
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

    pub(super) async fn shutdown(&mut self) {
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
