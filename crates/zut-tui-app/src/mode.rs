//! The interactive mode: the conversation opens from the [`Launch`] the
//! front end prepared, the extension host starts in the background (the
//! first frame never waits for it; a prompt submitted earlier waits in the
//! queue), and the terminal is handed to `zut-tui`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::runtime::Handle;
use tokio::sync::mpsc;
use zut_agent::controller::{CommandOutcome as Outcome, JobOutcome};
use zut_agent::conversation::SessionRequest;
use zut_agent::{AgentEvent, ControllerEvent, EventStream, UiEvents};
use zut_ext_host::ExtensionHost;
use zut_protocol::EventName;
use zut_providers::Part;
use zut_tui::pickers::PickerKind;
use zut_tui::{CommandInfo, CommandOutcome, TuiEvent};

use crate::session::Place;

/// The TUI's handle on the conversation: the controller's own operations,
/// called from the TUI's thread (they never block); the few that wait for
/// a job (commands, session moves, pickers) run on the conversation's
/// runtime and answer with [`TuiEvent`]s.
struct TuiController {
    ctrl: zut_agent::Controller,
    rt: Handle,
    tx: mpsc::UnboundedSender<TuiEvent>,
    place: Arc<Mutex<Place>>,
    config: Arc<zut_agent::AgentConfig>,
    /// `/yolo`: tool calls wait for the confirmation dialog (`--no-yolo`).
    confirm_tools: AtomicBool,
}

impl zut_tui::Controller for TuiController {
    fn prompt(&mut self, text: String) {
        self.ctrl.prompt(vec![Part::Text { text }], None);
    }

    fn shell_context(&mut self, text: String) {
        self.ctrl.add_user_context(text);
    }

    fn answer_elicitation(
        &mut self,
        request_id: u64,
        answer: zut_agent::ElicitationAnswer,
    ) -> Result<(), String> {
        self.ctrl.answer_elicitation(request_id, answer)
    }

    fn mention_candidates(&mut self) -> Vec<String> {
        self.ctrl.mcp_mention_candidates()
    }

    fn side_question(&mut self, question: String) -> bool {
        let ask = self.ctrl.side_question(question.clone());
        let tx = self.tx.clone();
        self.rt.spawn(async move {
            let (answer, usage) = match ask.await {
                Ok(a) => {
                    let mut text = a.text;
                    if !a.wanted_tools.is_empty() {
                        text.push_str(&format!(
                            "\n\n(the model asked to run {}; /btw runs no tools: ask in \
                             the conversation instead)",
                            a.wanted_tools.join(", ")
                        ));
                    }
                    let usage = zut_agent::UsageEvent {
                        this: a.usage,
                        cumulative: a.usage,
                    };
                    (Ok(text), Some(usage))
                }
                Err(e) => (Err(e), None),
            };
            let _ = tx.send(TuiEvent::SideAnswer {
                question,
                answer,
                usage,
            });
        });
        true
    }

    fn command(&mut self, name: String, args: String) {
        match name.as_str() {
            "new" => {
                let (ctrl, tx, place) = (self.ctrl.clone(), self.tx.clone(), self.place.clone());
                self.rt.spawn(async move {
                    crate::session::new_session(&ctrl, &place, &tx).await;
                });
            }
            "yolo" => self.yolo(&args),
            "subagents" => crate::subagents::command(&self.ctrl, &args, &self.tx),
            "orchestrator" => crate::subagents::orchestrator(&self.ctrl, &args, &self.tx),
            _ => {
                // Commands answer on their own task, so Esc (an abort) and
                // panel keys are not stuck behind a slow extension.
                let (ctrl, tx, cfg) = (self.ctrl.clone(), self.tx.clone(), self.config.clone());
                self.rt.spawn(async move {
                    let (label, outcome) = run_command(&ctrl, &name, &args, &tx, &cfg).await;
                    let _ = tx.send(TuiEvent::CommandDone { label, outcome });
                });
            }
        }
    }

    fn abort(&mut self) {
        self.ctrl.abort();
    }

    fn panel_key(&mut self, extension: &str, panel_id: &str, key: &str, text: &str) {
        self.ctrl.panel_key(extension, panel_id, key, text);
    }

    fn panel_close(&mut self, extension: &str, panel_id: &str) {
        self.ctrl.panel_close(extension, panel_id);
    }

    fn open_picker(&mut self, kind: PickerKind) {
        if kind == PickerKind::Mcp {
            return crate::mcp::open(&self.ctrl, &self.rt, &self.tx);
        }
        let (ctrl, tx, place, cfg) = (
            self.ctrl.clone(),
            self.tx.clone(),
            self.place.clone(),
            self.config.clone(),
        );
        self.rt.spawn(async move {
            crate::session::open(&ctrl, &place, kind, &tx, &cfg);
        });
    }

    fn pick(&mut self, kind: PickerKind, value: String) {
        if kind == PickerKind::Mcp {
            return crate::mcp::pick(&self.ctrl, &value, &self.tx);
        }
        let (ctrl, tx, place) = (self.ctrl.clone(), self.tx.clone(), self.place.clone());
        self.rt.spawn(async move {
            crate::session::pick(&ctrl, &place, kind, &value, &tx).await;
        });
    }

    fn answer_approval(
        &mut self,
        request_id: u64,
        decision: zut_agent::approval::ApprovalDecision,
    ) {
        self.ctrl.answer_approval(request_id, decision);
    }

    fn rename_session(&mut self, path: String, title: String) {
        let (ctrl, tx, place) = (self.ctrl.clone(), self.tx.clone(), self.place.clone());
        self.rt.spawn(async move {
            crate::session::rename(&ctrl, &place, &path, &title, &tx).await;
        });
    }

    fn search_sessions(&mut self, all: bool, query: String) {
        let place = self.place.lock().unwrap_or_else(|e| e.into_inner()).clone();
        crate::session::search(&place, all, query, &self.tx);
    }
}

impl TuiController {
    /// `/yolo [on|off]`: tool calls run without asking (the default) or
    /// wait for the confirmation dialog (`--no-yolo`).
    fn yolo(&mut self, args: &str) {
        let current = self.confirm_tools.load(Ordering::SeqCst);
        let outcome = match args.trim() {
            "" => Ok(!current),
            "on" => Ok(false),
            "off" => Ok(true),
            other => Err(format!("/yolo {other:?}: use /yolo, /yolo on or /yolo off")),
        };
        let outcome = match outcome {
            Ok(confirm) => {
                self.confirm_tools.store(confirm, Ordering::SeqCst);
                self.ctrl.set_confirm_tools(confirm);
                CommandOutcome::Status(if confirm {
                    "yolo off: each tool call waits for your answer".into()
                } else {
                    "yolo on: tool calls run without asking".into()
                })
            }
            Err(e) => CommandOutcome::Error(e),
        };
        let _ = self.tx.send(TuiEvent::CommandDone {
            label: "/yolo".into(),
            outcome,
        });
    }
}

/// What the front end (the CLI) decided for an interactive run, as plain
/// values: the conversation's setup, the session to open, and what the
/// first frame shows.
pub struct Launch {
    /// The conversation's setup (provider, agent and extension host).
    pub setup: zut_agent::conversation::Setup,
    /// The session file to open (`None`: no file).
    pub choice: Option<zut_session::Choice>,
    /// Open the sessions picker at once (`-r` without an id).
    pub pick_session: bool,
    /// The prompt given on the command line, submitted first.
    pub initial_prompt: Option<String>,
    /// The reasoning level asked for (status bar).
    pub reasoning: String,
    /// Whether extensions will load (the status bar says so meanwhile).
    pub loading_extensions: bool,
    /// config.json `terminal_alerts_enabled`.
    pub alerts_enabled: bool,
    /// The context window, when the settings give one.
    pub context_window: Option<u64>,
    /// The theme name.
    pub theme: String,
    /// Whether a resumed session goes on with the model it last used (the
    /// run did not choose its own provider or model).
    pub restore_model: bool,
}

/// Runs the interactive application on this terminal until the user
/// quits; returns the exit status, or why it could not start (a busy or
/// unreadable session, no runtime).
pub fn run(launch: Launch) -> Result<i32, String> {
    let Launch {
        setup,
        choice,
        pick_session,
        initial_prompt,
        reasoning,
        loading_extensions,
        alerts_enabled,
        context_window,
        theme,
        restore_model,
    } = launch;
    let (zut_home, cwd) = (setup.agent.system.zut_home.clone(), setup.agent.cwd.clone());
    let runtime = || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    };
    let (rt, conv_rt) = match (runtime(), runtime()) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return Err(format!("starting the runtime: {e}")),
    };
    let status = zut_tui::Status {
        provider: setup.provider_name.clone(),
        model: setup.model.clone(),
        reasoning,
        cwd: shown_path(&cwd),
        loading_extensions,
        context_window,
        jail: jail_line(&setup.agent.jail),
        ..Default::default()
    };
    let home_root = setup.host.home.root().to_path_buf();
    let opts = zut_tui::Options {
        status,
        history_path: Some(history_path(&home_root, &cwd)),
        initial_prompt: initial_prompt.clone(),
        alerts_enabled,
        cwd: cwd.clone(),
        theme,
        themes_dir: Some(home_root.join("themes")),
        config_path: Some(home_root.join("config.json")),
    };
    let config = Arc::new(setup.agent.clone());
    // The session is opened before the terminal is taken over, so a busy or
    // unreadable file is reported on a normal screen. Extensions start on
    // the conversation's thread: the first frame never waits for them.
    let request = SessionRequest {
        choice,
        title: initial_prompt.unwrap_or_default(),
    };
    let conv = conv_rt.block_on(async { zut_agent::conversation::open(setup, request) })?;
    conv.controller.offer_side_questions();
    zut_models::switch::install(&conv.controller, &zut_home);
    let (tx, ev_rx) = mpsc::unbounded_channel();
    // A resumed conversation is painted before extensions start, and goes
    // on with the model it last used.
    if let Some(snap) = &conv.resumed {
        crate::replay::replay(snap, &tx);
        if restore_model {
            crate::models::restored(&conv.controller, &snap.meta, &zut_home, &tx);
        }
    }
    let place = Place {
        zut_home,
        cwd,
        current: conv.session.clone(),
        all_scope: false,
    };
    if pick_session {
        // `-r` without an id: the picker does not wait for extensions.
        let _ = tx.send(TuiEvent::Picker(crate::session::sessions(&place, false)));
    }
    let ctrl = conv.controller;
    // Scheduled tasks fire into the TUI's prompt queue.
    let scheduler = {
        let tx = tx.clone();
        conv_rt.spawn(zut_agent::schedule::engine().run(move |due| {
            let _ = tx.send(TuiEvent::Scheduled {
                id: due.id,
                message: due.message,
            });
        }))
    };
    let forward = conv_rt.spawn(forward(
        conv.events,
        ctrl.clone(),
        tx.clone(),
        config.clone(),
    ));
    // The conversation (model calls, tools, extensions) runs on its own
    // thread, so rendering never waits behind it.
    let (close_tx, close_rx) = tokio::sync::oneshot::channel::<()>();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let handle = conv_rt.handle().clone();
    {
        let (ctrl, tx) = (ctrl.clone(), tx.clone());
        std::thread::spawn(move || {
            conv_rt.block_on(async move {
                let _ = close_rx.await;
                if let Err(e) = ctrl.close().await {
                    let _ = tx.send(TuiEvent::Info(format!("saving the session failed: {e}")));
                }
                drop(ctrl);
                scheduler.abort();
                let _ = tokio::time::timeout(Duration::from_secs(1), forward).await;
            });
            let _ = done_tx.send(());
        });
    }
    let tui = TuiController {
        confirm_tools: AtomicBool::new(config.confirm_tools),
        ctrl,
        rt: handle,
        tx,
        place: Arc::new(Mutex::new(place)),
        config,
    };
    let status = rt.block_on(zut_tui::run(Box::new(tui), ev_rx, opts));
    // The TUI is gone: the conversation thread stops its extensions.
    let _ = close_tx.send(());
    let _ = done_rx.recv_timeout(Duration::from_secs(3));
    Ok(status)
}

/// The status bar's jail line: `Some` while tools are jailed.
fn jail_line(jail: &zut_tools::JailSwitch) -> Option<String> {
    jail.is_jailed().then(|| jail.describe())
}

/// `~/…` for paths under the home directory.
pub(crate) fn shown_path(p: &Path) -> String {
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        if let Ok(rest) = p.strip_prefix(&home) {
            return format!("~/{}", rest.display());
        }
    }
    p.display().to_string()
}

/// `$ZUT_HOME/history/<hash of cwd>.jsonl`.
fn history_path(home: &Path, cwd: &Path) -> PathBuf {
    // FNV-1a: stable across builds (unlike std's hasher).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in cwd.as_os_str().as_encoded_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    home.join("history").join(format!("{h:016x}.jsonl"))
}

/// Forwards the controller's events to the TUI; when the extensions are
/// up, their commands, themes and interceptors go too.
async fn forward(
    mut events: EventStream,
    ctrl: zut_agent::Controller,
    tx: mpsc::UnboundedSender<TuiEvent>,
    config: Arc<zut_agent::AgentConfig>,
) {
    while let Some(ev) = events.next().await {
        let out = match ev {
            ControllerEvent::Agent(a) => TuiEvent::Agent(a),
            ControllerEvent::Ui(u) => match AgentEvent::from_ui_extended(&u) {
                Some(a) => TuiEvent::Agent(a),
                None => continue,
            },
            ControllerEvent::JobStarted { .. } => TuiEvent::JobStarted,
            ControllerEvent::JobFinished { .. } => TuiEvent::JobFinished,
            ControllerEvent::ExtensionsReady { errors } => {
                if let Some(host) = ctrl.host() {
                    extensions_ready(&host, errors, &tx, &config);
                }
                continue;
            }
            ControllerEvent::Note(_) => continue,
            ControllerEvent::Subagent { id, event } => TuiEvent::Subagent { id, event },
        };
        if tx.send(out).is_err() {
            break;
        }
    }
}

/// Tells the TUI what the (re)loaded extensions offer.
fn extensions_ready(
    host: &ExtensionHost,
    errors: Vec<String>,
    tx: &mpsc::UnboundedSender<TuiEvent>,
    config: &zut_agent::AgentConfig,
) {
    let _ = tx.send(TuiEvent::ExtensionsReady {
        commands: extension_commands(host, config),
        errors,
    });
    let _ = tx.send(TuiEvent::ExtensionThemes(extension_themes(host)));
    let _ = tx.send(TuiEvent::ToolGuards(
        host.interceptors(EventName::TOOL_CALL),
    ));
    let _ = tx.send(TuiEvent::MessageGuards(
        host.interceptors(EventName::ASSISTANT_MESSAGE),
    ));
}

/// `theme.json` and `themes/theme.json` of every loaded extension
/// (sessions-themes-skills.md §2.1), as (extension name, file).
fn extension_themes(host: &ExtensionHost) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for r in host.reports() {
        for p in [
            r.dir.join("theme.json"),
            r.dir.join("themes").join("theme.json"),
        ] {
            if p.is_file() {
                out.push((r.name.clone(), p));
            }
        }
    }
    out
}

/// The extension commands for the popup, then `/skill:<name>` for every
/// skill a user may invoke (names and aliases; built-ins hidden,
/// sessions-themes-skills.md §3.4), marked `[skill]`.
fn extension_commands(host: &ExtensionHost, config: &zut_agent::AgentConfig) -> Vec<CommandInfo> {
    let mut out: Vec<CommandInfo> = host
        .commands()
        .into_iter()
        .map(|c| CommandInfo {
            name: c.name,
            description: c.description,
            extension: Some(c.extension),
        })
        .collect();
    let skills = zut_agent::skills::load(config, Some(host));
    for s in skills.visible() {
        for name in std::iter::once(&s.name).chain(&s.aliases) {
            out.push(CommandInfo {
                name: format!("skill:{name}"),
                description: s.description_or_placeholder().to_string(),
                extension: Some("skill".into()),
            });
        }
    }
    out
}

/// Runs `/name args` through the controller (built-ins it owns, extension
/// commands, `/skill:<name>`); a model or reasoning change is sent back for
/// the status bar.
async fn run_command(
    ctrl: &zut_agent::Controller,
    name: &str,
    args: &str,
    tx: &mpsc::UnboundedSender<TuiEvent>,
    skill_config: &zut_agent::AgentConfig,
) -> (String, CommandOutcome) {
    let label = format!("/{name}");
    let home = &skill_config.system.zut_home;
    if name == "model" {
        if let Some(outcome) = crate::models::switch(ctrl, home, args, tx) {
            return (label, crate::settings::saved(ctrl, home, name, outcome));
        }
    }
    if name == "logout" {
        return (label, crate::models::logout(home, args));
    }
    let outcome = match ctrl.command(name, args, None).await {
        Err(e) => CommandOutcome::Error(e),
        Ok(Outcome::Queued(job)) if name == "goal" => {
            // `/goal` and `/goal history` answer with text; the other
            // forms show as goal_update lines and a turn.
            let _ = tx.send(TuiEvent::CommandDone {
                label: label.clone(),
                outcome: CommandOutcome::Noop,
            });
            match job.outcome().await {
                JobOutcome::Prompt(zut_agent::PromptOutcome::Completed { final_text, .. })
                    if zut_agent::goals::answers_with_text(args) =>
                {
                    CommandOutcome::Display(final_text)
                }
                _ => CommandOutcome::Noop,
            }
        }
        Ok(Outcome::Queued(job)) => {
            if name != "reload-ext" {
                return (label, CommandOutcome::Noop);
            }
            // Tell the TUI the job was taken before waiting for it.
            let _ = tx.send(TuiEvent::CommandDone {
                label: label.clone(),
                outcome: CommandOutcome::Noop,
            });
            match job.outcome().await {
                JobOutcome::Reload(r) => {
                    if let Some(host) = ctrl.host() {
                        extensions_ready(&host, r.errors.clone(), tx, skill_config);
                    }
                    CommandOutcome::Status(format!(
                        "reloaded: {} stopped, {} loaded ({} ready)",
                        r.stopped, r.loaded, r.ready
                    ))
                }
                other => CommandOutcome::Error(format!("reload: {other:?}")),
            }
        }
        Ok(Outcome::Display { text, .. }) | Ok(Outcome::Insert { text, .. }) => {
            // Already in the event stream (ext_display / ext_insert).
            let _ = text;
            CommandOutcome::Noop
        }
        Ok(Outcome::OpenPanel { .. }) | Ok(Outcome::Noop) => CommandOutcome::Noop,
        Ok(Outcome::Done(text)) => {
            if name.eq_ignore_ascii_case("mcp") && !args.trim().is_empty() {
                // The servers again, with the action's effect.
                let server = args.split_whitespace().nth(1).unwrap_or("");
                let _ = tx.send(TuiEvent::Picker(crate::mcp::servers_at(ctrl, server)));
                crate::mcp::refresh_when_settled(ctrl, &Handle::current(), tx);
            }
            if name.eq_ignore_ascii_case("jail") || name.eq_ignore_ascii_case("unjail") {
                let st = ctrl.jail();
                let _ = tx.send(TuiEvent::Jail(st.on.then_some(st.describe)));
            }
            if name == "model" || name == "reasoning" {
                let st = ctrl.state();
                let _ = tx.send(TuiEvent::Settings {
                    model: st.model,
                    reasoning: st.reasoning,
                });
                if !args.trim().is_empty() {
                    return (
                        label,
                        crate::settings::saved(ctrl, home, name, CommandOutcome::Status(text)),
                    );
                }
            }
            CommandOutcome::Status(text)
        }
    };
    (label, outcome)
}
