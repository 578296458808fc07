//! Frames the tester did not ask for, reads that failed, and the
//! request/reply exchange every step uses.

use super::*;

impl Checker<'_> {
    /// Checks a frame that is not the awaited reply; false when it ends the run.
    pub(super) fn observe(&mut self, frame: ExtFrame) -> bool {
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

    pub(super) fn check_panel(&mut self, what: &str, panel: &PanelContent) {
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

    pub(super) async fn read_failure(&mut self, name: &str, read: Read) {
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
    pub(super) async fn request<T>(
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
    pub(super) async fn reply<T>(
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
}
