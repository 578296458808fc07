//! [`ExtensionHost`]: the public face of the extension host.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use serde_json::Value;
use zut_protocol::{encode_line, Event, HostFrame, PanelClose, PanelKey, SessionInfo};

use crate::calls::{CommandError, CommandReply};
use crate::config::HostConfig;
use crate::diagnostics::{ExtensionReport, Registration, SlotState};
use crate::discovery::{Candidate, Planned};
use crate::extension::dropped_events_diagnostic;
use crate::intercept::{AssistantVerdict, ToolCallVerdict, TurnStartVerdict};
use crate::load_error::LoadError;
use crate::loader::load_all;
use crate::registry::{CommandInfo, ToolDef};
use crate::shared::Shared;
use crate::tool_result::ToolOutcome;
use crate::ui::UiSender;

/// A running set of extensions. Cheap to clone; all clones share one host,
/// also across [`ExtensionHost::reload`]. When the last clone is dropped
/// without [`ExtensionHost::shutdown`], every extension process group is
/// killed (safety net).
#[derive(Clone)]
pub struct ExtensionHost {
    config: Arc<HostConfig>,
    /// The current generation of extensions; replaced by a reload.
    current: Arc<RwLock<Arc<Shared>>>,
}

/// What [`ExtensionHost::start`] did.
#[derive(Debug, Default)]
pub struct StartReport {
    /// One entry per extension that failed to load (fail-soft).
    pub errors: Vec<LoadError>,
    /// Every candidate and what was decided for it, in load order.
    pub planned: Vec<Planned>,
    /// Global directories hidden by a project directory of the same name.
    pub shadowed: Vec<Candidate>,
}

/// Counts of a [`ExtensionHost::reload`].
#[derive(Debug, Default)]
pub struct ReloadReport {
    /// Extensions stopped (theme-only ones included).
    pub stopped: usize,
    /// Extensions registered after the reload.
    pub loaded: usize,
    /// Of those, ready when the wait ended (`ready` frame or auto-ready;
    /// not those that hit the ready timeout).
    pub ready: usize,
    /// Load errors.
    pub errors: Vec<LoadError>,
}

impl ExtensionHost {
    /// Discovers, starts and handshakes every enabled extension
    /// concurrently, then waits (3 s shared deadline) for readiness.
    /// One-way UI frames are sent on `ui`, which the caller must drain.
    pub async fn start(config: HostConfig, ui: UiSender) -> (Self, StartReport) {
        let shared = Arc::new(Shared::new(config.clone(), ui));
        let pass = load_all(&shared).await;
        let report = StartReport {
            errors: pass.errors,
            planned: pass.planned,
            shadowed: pass.shadowed,
        };
        let host = Self {
            config: Arc::new(config),
            current: Arc::new(RwLock::new(shared)),
        };
        (host, report)
    }

    /// The current generation of extensions.
    fn shared(&self) -> Arc<Shared> {
        Arc::clone(&self.current.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// The configuration the host was started with.
    pub fn config(&self) -> &HostConfig {
        &self.config
    }

    /// Commands owned by live extensions, sorted case-insensitively.
    pub fn commands(&self) -> Vec<CommandInfo> {
        self.shared().registry().commands()
    }

    /// Tool definitions to offer the model (late registrations excluded
    /// until [`ExtensionHost::rebuild_tools`]), sorted by name. Deferred
    /// tools are included with `deferred: true`.
    pub fn tools(&self) -> Vec<ToolDef> {
        self.shared().registry().tools()
    }

    /// Makes tools registered after ready visible to [`ExtensionHost::tools`].
    pub fn rebuild_tools(&self) {
        self.shared().registry().rebuild();
    }

    /// Whether a live extension owns command `name` (case-insensitive).
    pub fn has_command(&self, name: &str) -> bool {
        self.shared().registry().command(name).is_some()
    }

    /// Sends `command_invoked` to the owner of `name` and waits (30 s) for
    /// its `command_response`.
    pub async fn invoke_command(
        &self,
        name: &str,
        args: &str,
    ) -> Result<CommandReply, CommandError> {
        crate::calls::invoke_command(&self.shared(), name, args).await
    }

    /// Calls an extension tool and waits (60 s) for its result. Never
    /// fails: problems become error results naming the extension. When the
    /// extension dies mid-call the error comes back at once.
    pub async fn call_tool(&self, name: &str, args: Value) -> ToolOutcome {
        crate::calls::call_tool(&self.shared(), name, args).await
    }

    /// Sends a lifecycle event to its subscribers (one-way, ordered per
    /// extension, never blocks).
    pub fn emit(&self, event: &Event) {
        crate::events::emit(&self.shared(), event)
    }

    /// Sends a session lifecycle event (`session_start`, `session_opened`,
    /// …); each subscriber receives only its own state snapshot.
    pub fn emit_session_event(&self, name: &str, session: Option<SessionInfo>) {
        crate::events::emit_session_event(&self.shared(), name, session)
    }

    /// Replaces the in-memory state snapshots (restored from a session).
    pub fn set_states(&self, states: HashMap<String, Value>) {
        self.shared().session().states = states;
    }

    /// Current in-memory state snapshots, by extension.
    pub fn states(&self) -> HashMap<String, Value> {
        self.shared().session().states.clone()
    }

    /// Runs `tool_call` interception.
    pub async fn intercept_tool_call(
        &self,
        tool_id: &str,
        tool_name: &str,
        args: &Value,
    ) -> ToolCallVerdict {
        crate::intercept::tool_call(&self.shared(), tool_id, tool_name, args).await
    }

    /// Runs `turn_start` interception.
    pub async fn intercept_turn_start(&self, step: u64) -> TurnStartVerdict {
        crate::intercept::turn_start(&self.shared(), step).await
    }

    /// Runs `assistant_message` interception.
    pub async fn intercept_assistant_message(&self, text: &str) -> AssistantVerdict {
        crate::intercept::assistant_message(&self.shared(), text).await
    }

    /// Names of the live extensions intercepting `event`, in load order
    /// (the TUI names them when a call is refused).
    pub fn interceptors(&self, event: &str) -> Vec<String> {
        self.shared()
            .extensions()
            .iter()
            .filter(|e| e.is_alive() && e.intercepts(event))
            .map(|e| e.name.clone())
            .collect()
    }

    /// Whether any live extension intercepts `event`.
    pub fn has_interceptors(&self, event: &str) -> bool {
        self.shared()
            .extensions()
            .iter()
            .any(|e| e.is_alive() && e.intercepts(event))
    }

    /// Forwards a key to the extension owning the focused panel, paced:
    /// one key per panel in flight until the extension draws that panel or
    /// [`Timeouts::panel_key_pace`](crate::Timeouts) passes; the others
    /// wait in order.
    pub fn panel_key(&self, extension: &str, panel_id: &str, key: &str, text: &str) {
        if let Some(ext) = self
            .shared()
            .extension_named(extension)
            .filter(|e| e.is_alive())
        {
            let frame = HostFrame::PanelKey(PanelKey {
                panel_id: panel_id.into(),
                key: key.into(),
                text: text.into(),
            });
            ext.panel_key(panel_id, encode_line(&frame));
        }
    }

    /// Tells an extension that the user closed its panel, at once: keys
    /// still queued for it are written first, in order.
    pub fn panel_close(&self, extension: &str, panel_id: &str) {
        if let Some(ext) = self
            .shared()
            .extension_named(extension)
            .filter(|e| e.is_alive())
        {
            let frame = HostFrame::PanelClose(PanelClose {
                panel_id: panel_id.into(),
            });
            ext.close_panel(panel_id, encode_line(&frame));
        }
    }

    /// Per-extension snapshot for `ext doctor`, in load order.
    pub fn reports(&self) -> Vec<ExtensionReport> {
        let shared = self.shared();
        let registry = shared.registry();
        shared
            .extensions()
            .iter()
            .map(|ext| {
                let st = ext.state();
                let settle = |regs: &[Registration], owns: &dyn Fn(&str) -> bool| {
                    regs.iter()
                        .enumerate()
                        .map(|(i, r)| {
                            let first = regs[..i]
                                .iter()
                                .all(|p| !p.name.eq_ignore_ascii_case(&r.name));
                            let active = r.state == SlotState::Active && first && owns(&r.name);
                            Registration {
                                name: r.name.clone(),
                                state: if active
                                    || (!ext.is_alive() && r.state == SlotState::Active && first)
                                {
                                    SlotState::Active
                                } else {
                                    SlotState::Shadowed
                                },
                            }
                        })
                        .collect::<Vec<_>>()
                };
                let commands = settle(&st.commands, &|n| registry.owns_command(ext.idx, n));
                let tools = settle(&st.tools, &|n| registry.owns_tool(ext.idx, n));
                let mut diagnostics = st.diagnostics.clone();
                diagnostics.extend(dropped_events_diagnostic(st.dropped_events));
                if st.suppressed_diagnostics > 0 {
                    diagnostics.push(format!(
                        "{} more diagnostics suppressed",
                        st.suppressed_diagnostics
                    ));
                }
                ExtensionReport {
                    name: ext.name.clone(),
                    version: ext.manifest.version.clone(),
                    dir: ext.dir.clone(),
                    scope: ext.scope,
                    exec: ext.manifest.exec.clone(),
                    log: ext.log_path(),
                    theme_only: ext.theme_only,
                    readiness: ext.readiness(),
                    alive: ext.is_alive(),
                    commands,
                    tools,
                    skill_files: ext.skill_files.clone(),
                    diagnostics,
                }
            })
            .collect()
    }

    /// Waits until no extension has sent anything (nor disconnected) for
    /// `quiet`, or until `max` has passed. `ext doctor` calls this after
    /// start-up so that registrations sent just after `ready` and
    /// extensions exiting right after it show in its snapshot.
    pub async fn settle(&self, quiet: std::time::Duration, max: std::time::Duration) {
        let shared = self.shared();
        let until = tokio::time::Instant::now() + max;
        loop {
            let latest = shared
                .extensions()
                .iter()
                .filter(|e| !e.theme_only)
                .map(|e| e.last_activity())
                .max();
            let Some(latest) = latest else {
                return;
            };
            let quiet_at = latest + quiet;
            let now = tokio::time::Instant::now();
            if quiet_at <= now || now >= until {
                return;
            }
            tokio::time::sleep_until(quiet_at.min(until)).await;
        }
    }

    /// Process ids of the running extensions (for tests and diagnostics).
    pub fn pids(&self) -> Vec<(String, u32)> {
        self.shared()
            .extensions()
            .iter()
            .filter(|e| e.is_alive() && e.exit.borrow().is_none())
            .filter_map(|e| e.pgid.map(|p| (e.name.clone(), p)))
            .collect()
    }

    /// Stops every extension: `shutdown` + EOF, then one shared grace of
    /// `timeouts.shutdown_grace` (2 s), then SIGTERM, 1 s, SIGKILL, each
    /// to the whole process group.
    pub async fn shutdown(&self) {
        self.shutdown_with_grace(self.shared().config.timeouts.shutdown_grace)
            .await
    }

    /// [`ExtensionHost::shutdown`] with another grace (doctor uses 500 ms).
    pub async fn shutdown_with_grace(&self, grace: std::time::Duration) {
        crate::shutdown::stop_all(&self.shared(), grace).await
    }

    /// Stops every extension, re-reads manifests (honouring `--no-ext`),
    /// starts the set again and waits for readiness. Registrations and
    /// late-tool flags start afresh; the remembered session is announced in
    /// `hello_ack` and replayed on `ready`.
    pub async fn reload(&mut self) -> ReloadReport {
        let old = self.shared();
        let stopped = old.extensions().len();
        self.shutdown().await;
        let fresh = Arc::new(Shared::new((*self.config).clone(), old.ui.clone()));
        *fresh.session() = old.session().clone();
        let pass = load_all(&fresh).await;
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::clone(&fresh);
        let exts = fresh.extensions();
        ReloadReport {
            stopped,
            loaded: exts.len(),
            ready: exts
                .iter()
                .filter(|e| {
                    matches!(
                        e.readiness(),
                        crate::diagnostics::Readiness::Ready
                            | crate::diagnostics::Readiness::AutoReady
                    )
                })
                .count(),
            errors: pass.errors,
        }
    }
}
