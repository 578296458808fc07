//! The interactive mode: the run is set up as in the other modes, the
//! extension host starts in the background (the first frame never waits
//! for it; a prompt submitted earlier waits in the queue), and the
//! terminal is handed to `zut-tui`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use zut_agent::controller::{CommandOutcome as Outcome, JobOutcome};
use zut_agent::{Agent, AgentEvent};
use zut_ext_host::{ui_channel, ExtensionHost};
use zut_protocol::EventName;
use zut_providers::Part;
use zut_tui::{CommandInfo, CommandOutcome, Controller, TuiEvent};

use crate::agent_mode::{session, setup};
use crate::args::GlobalArgs;

/// A request from the TUI to the conversation thread.
enum Request {
    Prompt(String),
    Command(String, String),
    Abort,
    PanelKey {
        extension: String,
        panel_id: String,
        key: String,
        text: String,
    },
    PanelClose {
        extension: String,
        panel_id: String,
    },
    OpenPicker(zut_tui::pickers::PickerKind),
    Pick(zut_tui::pickers::PickerKind, String),
    Approve(u64, zut_agent::approval::ApprovalDecision),
    Rename(String, String),
    Search(bool, String),
}

/// The TUI's handle on the conversation thread: requests go in order
/// through a channel, so the TUI never waits for the conversation.
struct ChannelController {
    tx: mpsc::UnboundedSender<Request>,
}

impl Controller for ChannelController {
    fn prompt(&mut self, text: String) {
        let _ = self.tx.send(Request::Prompt(text));
    }

    fn command(&mut self, name: String, args: String) {
        let _ = self.tx.send(Request::Command(name, args));
    }

    fn abort(&mut self) {
        let _ = self.tx.send(Request::Abort);
    }

    fn panel_key(&mut self, extension: &str, panel_id: &str, key: &str, text: &str) {
        let _ = self.tx.send(Request::PanelKey {
            extension: extension.to_string(),
            panel_id: panel_id.to_string(),
            key: key.to_string(),
            text: text.to_string(),
        });
    }

    fn panel_close(&mut self, extension: &str, panel_id: &str) {
        let _ = self.tx.send(Request::PanelClose {
            extension: extension.to_string(),
            panel_id: panel_id.to_string(),
        });
    }

    fn open_picker(&mut self, kind: zut_tui::pickers::PickerKind) {
        let _ = self.tx.send(Request::OpenPicker(kind));
    }

    fn pick(&mut self, kind: zut_tui::pickers::PickerKind, value: String) {
        let _ = self.tx.send(Request::Pick(kind, value));
    }

    fn answer_approval(
        &mut self,
        request_id: u64,
        decision: zut_agent::approval::ApprovalDecision,
    ) {
        let _ = self.tx.send(Request::Approve(request_id, decision));
    }

    fn rename_session(&mut self, path: String, title: String) {
        let _ = self.tx.send(Request::Rename(path, title));
    }

    fn search_sessions(&mut self, all: bool, query: String) {
        let _ = self.tx.send(Request::Search(all, query));
    }
}

/// Runs the interactive mode; returns the exit status.
pub fn run(args: &GlobalArgs) -> i32 {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return fail(
            "the interactive mode needs a terminal on stdin and stdout; \
             use -p, --stream or --json (see zut --help)",
        );
    }
    let mut setup = match setup::build(args) {
        Ok(s) => s,
        Err(e) => return fail(&format!("{e:#}")),
    };
    if let Err(e) = &setup.provider {
        return fail(e);
    }
    // `--no-yolo`: every tool call waits for the confirmation dialog; the
    // thinking indicator needs the reasoning deltas; interception blocks
    // are shown with their reasons.
    setup.agent.confirm_tools = args.no_yolo;
    setup.agent.reasoning_events = true;
    setup.agent.interception_events = true;
    let initial_prompt = Some(args.prompt.join(" ")).filter(|p| !p.trim().is_empty());
    // The session is opened before the terminal is taken over, so a busy or
    // unreadable file is reported on a normal screen.
    let (zut_home, cwd) = (setup.agent.system.zut_home.clone(), setup.agent.cwd.clone());
    // `-r` without an id: a new session, and the sessions picker at once.
    let pick_session = args.resume.as_deref() == Some("");
    let mut chosen = args.clone();
    if pick_session {
        chosen.resume = None;
    }
    let opened = match session::choice(&chosen, &zut_home, &cwd) {
        Err(e) => return fail(&e),
        Ok(None) => None,
        Ok(Some(c)) => match session::open(
            &c,
            &zut_home,
            &cwd,
            &setup.host_provider,
            &setup.host_model,
            initial_prompt.as_deref().unwrap_or(""),
        ) {
            Ok(o) => Some(o),
            Err(e) => return fail(&e),
        },
    };
    let info = opened
        .as_ref()
        .map(|o| session::attach_to_host(o, &mut setup.host));
    let runtime = || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    };
    let (rt, conv_rt) = match (runtime(), runtime()) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return fail(&format!("starting the runtime: {e}")),
    };
    let cwd = setup.agent.cwd.clone();
    // config.json's `terminal_alerts_enabled` and the context window
    // (setup::build already reported any problem with the files).
    let (alerts_enabled, context_window, theme) =
        match crate::settings::load(args, setup.host.home.root()) {
            Ok(s) => (
                s.terminal_alerts_enabled.value,
                s.context_window.value,
                s.theme.value,
            ),
            Err(_) => (true, None, String::new()),
        };
    let status = zut_tui::Status {
        provider: setup.host_provider.clone(),
        model: setup.host_model.clone(),
        reasoning: args.reasoning.clone().unwrap_or_default(),
        cwd: shown_path(&cwd),
        loading_extensions: !args.no_ext || !args.ext.is_empty(),
        context_window,
        ..Default::default()
    };
    let opts = zut_tui::Options {
        status,
        history_path: Some(history_path(setup.host.home.root(), &cwd)),
        initial_prompt,
        alerts_enabled,
        cwd,
        theme,
        themes_dir: Some(setup.host.home.root().join("themes")),
        config_path: Some(setup.host.home.root().join("config.json")),
    };
    // The conversation (model calls, tools, extensions) runs on its own
    // thread, so rendering never waits behind it.
    let (ev_tx, ev_rx) = mpsc::unbounded_channel();
    let (req_tx, req_rx) = mpsc::unbounded_channel();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        conv_rt.block_on(conversation(
            setup,
            opened,
            info,
            ev_tx,
            req_rx,
            pick_session,
        ));
        let _ = done_tx.send(());
    });
    let ctrl = ChannelController { tx: req_tx };
    let status = rt.block_on(zut_tui::run(Box::new(ctrl), ev_rx, opts));
    // The controller is gone: the conversation thread stops its extensions.
    let _ = done_rx.recv_timeout(Duration::from_secs(3));
    status
}

fn fail(msg: &str) -> i32 {
    crate::errln!("zut: {msg}");
    1
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

/// Starts the extensions, then serves the TUI's requests in order
/// through the conversation controller.
async fn conversation(
    setup: setup::RunSetup,
    opened: Option<zut_session::Opened>,
    info: Option<zut_protocol::SessionInfo>,
    tx: mpsc::UnboundedSender<TuiEvent>,
    mut requests: mpsc::UnboundedReceiver<Request>,
    pick_session: bool,
) {
    // A resumed conversation is painted before extensions start.
    if let Some(snap) = opened.as_ref().and_then(|o| o.snapshot.as_ref()) {
        replay(snap, &tx);
    }
    let mut place = crate::tui_session::Place {
        zut_home: setup.agent.system.zut_home.clone(),
        cwd: setup.agent.cwd.clone(),
        current: opened.as_ref().map(|o| o.writer.path().to_path_buf()),
        all_scope: false,
    };
    if pick_session {
        // `-r` without an id: the picker does not wait for extensions.
        let _ = tx.send(TuiEvent::Picker(crate::tui_session::sessions(
            &place, false,
        )));
    }
    // Extension frames are forwarded from the start, so an extension that
    // draws while starting never waits for the controller.
    let (ui_tx, mut ui_rx) = ui_channel();
    let ui_fwd = tx.clone();
    let drain = tokio::spawn(async move {
        while let Some(ev) = ui_rx.recv().await {
            if let Some(a) = AgentEvent::from_ui_extended(&ev) {
                let _ = ui_fwd.send(TuiEvent::Agent(a));
            }
        }
    });
    let (host, report) = ExtensionHost::start(setup.host, ui_tx).await;
    let host = Arc::new(host);
    // protocol.md §10.3: session_start, then session_opened with a session.
    host.emit_session_event(EventName::SESSION_START, info.clone());
    if info.is_some() {
        host.emit_session_event(EventName::SESSION_OPENED, info);
    }
    let errors = report.errors.iter().map(ToString::to_string).collect();
    // Skills are rediscovered with the commands (start-up, /reload-ext).
    let skill_config = Arc::new(setup.agent.clone());
    let _ = tx.send(TuiEvent::ExtensionsReady {
        commands: extension_commands(&host, &skill_config),
        errors,
    });
    let _ = tx.send(TuiEvent::ExtensionThemes(extension_themes(&host)));
    let _ = tx.send(TuiEvent::ToolGuards(
        host.interceptors(EventName::TOOL_CALL),
    ));
    let _ = tx.send(TuiEvent::MessageGuards(
        host.interceptors(EventName::ASSISTANT_MESSAGE),
    ));
    let Ok(provider) = setup.provider else {
        return;
    };
    let mut agent = Agent::new(provider, Some(host.clone()), setup.agent);
    if let Some(o) = opened {
        agent.attach_session(o.writer, o.snapshot.as_ref());
    }
    let (mut ctrl, mut events) = crate::tui_session::start(agent, &tx);
    // `/yolo`: tool calls run without asking (the default) or wait for the
    // confirmation dialog (`--no-yolo`).
    let mut confirm_tools = skill_config.confirm_tools;
    while let Some(req) = requests.recv().await {
        match req {
            Request::Prompt(text) => {
                ctrl.prompt(vec![Part::Text { text }], None);
            }
            Request::Abort => {
                ctrl.abort();
            }
            Request::PanelKey {
                extension,
                panel_id,
                key,
                text,
            } => ctrl.panel_key(&extension, &panel_id, &key, &text),
            Request::PanelClose {
                extension,
                panel_id,
            } => ctrl.panel_close(&extension, &panel_id),
            Request::Approve(id, decision) => {
                ctrl.answer_approval(id, decision);
            }
            Request::OpenPicker(kind) => {
                crate::tui_session::open(&ctrl, &mut place, kind, &tx, &skill_config)
            }
            Request::Search(all, query) => crate::tui_session::search(&place, all, query, &tx),
            Request::Rename(path, title) => {
                crate::tui_session::rename(&mut ctrl, &mut events, &place, &path, &title, &tx)
                    .await;
            }
            Request::Command(name, _) if name == "new" => {
                crate::tui_session::new_session(&mut ctrl, &mut events, &mut place, &tx).await;
                let _ = tx.send(TuiEvent::CommandDone {
                    label: "/new".into(),
                    outcome: CommandOutcome::Noop,
                });
            }
            Request::Command(name, args) if name == "yolo" => {
                let outcome = match args.trim() {
                    "" => Ok(!confirm_tools),
                    "on" => Ok(false),
                    "off" => Ok(true),
                    other => Err(format!("/yolo {other:?}: use /yolo, /yolo on or /yolo off")),
                };
                let outcome = match outcome {
                    Ok(confirm) => {
                        confirm_tools = confirm;
                        ctrl.set_confirm_tools(confirm);
                        CommandOutcome::Status(if confirm {
                            "yolo off: each tool call waits for your answer".into()
                        } else {
                            "yolo on: tool calls run without asking".into()
                        })
                    }
                    Err(e) => CommandOutcome::Error(e),
                };
                let _ = tx.send(TuiEvent::CommandDone {
                    label: "/yolo".into(),
                    outcome,
                });
            }
            Request::Pick(kind, value) => {
                crate::tui_session::pick(&mut ctrl, &mut events, &mut place, kind, &value, &tx)
                    .await;
            }
            Request::Command(name, args) => {
                // Commands answer on their own task, so Esc (an abort) and
                // panel keys are not stuck behind a slow extension.
                let (ctrl, tx, cfg) = (ctrl.clone(), tx.clone(), skill_config.clone());
                tokio::spawn(async move {
                    let (label, outcome) = run_command(&ctrl, &name, &args, &tx, &cfg).await;
                    let _ = tx.send(TuiEvent::CommandDone { label, outcome });
                });
            }
        }
    }
    ctrl.abort();
    let agent = ctrl.shutdown().await;
    if let Some(mut agent) = agent {
        if let Some(Err(e)) = agent.close_session() {
            let _ = tx.send(TuiEvent::Info(format!("saving the session failed: {e}")));
        }
    }
    drop(ctrl);
    host.shutdown().await;
    drop(host);
    let _ = tokio::time::timeout(Duration::from_secs(1), drain).await;
    let _ = tokio::time::timeout(Duration::from_secs(1), events).await;
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
    let outcome = match ctrl.command(name, args, None).await {
        Err(e) => CommandOutcome::Error(e),
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
                        let _ = tx.send(TuiEvent::ExtensionsReady {
                            commands: extension_commands(host, skill_config),
                            errors: r.errors.clone(),
                        });
                        let _ = tx.send(TuiEvent::ExtensionThemes(extension_themes(host)));
                        let _ = tx.send(TuiEvent::ToolGuards(
                            host.interceptors(EventName::TOOL_CALL),
                        ));
                        let _ = tx.send(TuiEvent::MessageGuards(
                            host.interceptors(EventName::ASSISTANT_MESSAGE),
                        ));
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
            if name == "model" || name == "reasoning" {
                let st = ctrl.state();
                let _ = tx.send(TuiEvent::Settings {
                    model: st.model,
                    reasoning: st.reasoning,
                });
            }
            CommandOutcome::Status(text)
        }
    };
    (label, outcome)
}

/// Messages of a resumed session shown at start (the rest stay in the
/// file and in the model's context).
const REPLAYED_MESSAGES: usize = 40;

/// Sends the tail of a resumed conversation as agent events.
pub(crate) fn replay(snap: &zut_session::Snapshot, tx: &mpsc::UnboundedSender<TuiEvent>) {
    use zut_agent::transcript::{json_blocks, JsonBlock};
    let messages = zut_agent::session_bridge::to_provider(&snap.messages);
    let skip = messages.len().saturating_sub(REPLAYED_MESSAGES);
    let title = if snap.title.is_empty() {
        "untitled"
    } else {
        &snap.title
    };
    let mut note = format!("resumed session {title:?} ({} messages", messages.len());
    if skip > 0 {
        note.push_str(&format!(", the last {REPLAYED_MESSAGES} shown"));
    }
    note.push(')');
    let _ = tx.send(TuiEvent::Info(note));
    let mut events = Vec::new();
    let mut send = |ev: AgentEvent| events.push(ev);
    for m in &messages[skip..] {
        let blocks = json_blocks(&m.content);
        let text: Vec<JsonBlock> = blocks
            .iter()
            .filter(|b| matches!(b, JsonBlock::Text { .. } | JsonBlock::Image { .. }))
            .cloned()
            .collect();
        match m.role {
            zut_providers::Role::User => {
                if !text.is_empty() {
                    send(AgentEvent::UserMessage {
                        content: text,
                        time: String::new(),
                    });
                }
            }
            zut_providers::Role::Assistant => {
                if !text.is_empty() {
                    let joined = zut_tui::transcript::blocks_text(&text);
                    send(AgentEvent::AssistantStart);
                    send(AgentEvent::TextDelta { delta: joined });
                    send(AgentEvent::AssistantMessage {
                        content: text,
                        time: String::new(),
                    });
                }
            }
        }
        for b in blocks {
            match b {
                JsonBlock::ToolCall { id, name, args } => {
                    send(AgentEvent::ToolCall { id, name, args })
                }
                JsonBlock::ToolResult {
                    call_id,
                    is_error,
                    content,
                } => send(AgentEvent::ToolResult {
                    id: call_id,
                    is_error,
                    content,
                }),
                _ => {}
            }
        }
    }
    let _ = tx.send(TuiEvent::Replay(events));
}
