//! The interactive mode: the run is set up as in the other modes, the
//! extension host starts in the background (the first frame never waits
//! for it; a prompt submitted earlier waits in the queue), and the
//! terminal is handed to `zut-tui`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use zut_agent::{Agent, AgentEvent};
use zut_ext_host::{ui_channel, ExtensionHost};
use zut_protocol::EventName;
use zut_providers::Part;
use zut_tui::{CommandInfo, CommandOutcome, Controller, TuiEvent};

use crate::agent_mode::{session, setup};
use crate::args::GlobalArgs;

/// A request from the TUI to the conversation task.
enum Request {
    Prompt(String, CancellationToken),
    Command(String, String, CancellationToken),
}

/// The TUI's handle on the conversation task.
struct ChannelController {
    tx: mpsc::UnboundedSender<Request>,
    current: CancellationToken,
}

impl Controller for ChannelController {
    fn prompt(&mut self, text: String) {
        self.current = CancellationToken::new();
        let _ = self.tx.send(Request::Prompt(text, self.current.clone()));
    }

    fn command(&mut self, name: String, args: String) {
        self.current = CancellationToken::new();
        let _ = self
            .tx
            .send(Request::Command(name, args, self.current.clone()));
    }

    fn abort(&mut self) {
        self.current.cancel();
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
    let initial_prompt = Some(args.prompt.join(" ")).filter(|p| !p.trim().is_empty());
    // The session is opened before the terminal is taken over, so a busy or
    // unreadable file is reported on a normal screen.
    let (zut_home, cwd) = (setup.agent.system.zut_home.clone(), setup.agent.cwd.clone());
    let opened = match session::choice(args, &zut_home, &cwd) {
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
    if let Some(o) = &opened {
        session::attach_to_host(o, &mut setup.host);
    }
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
    let status = zut_tui::Status {
        provider: setup.host_provider.clone(),
        model: setup.host_model.clone(),
        reasoning: args.reasoning.clone().unwrap_or_default(),
        cwd: shown_path(&cwd),
        loading_extensions: !args.no_ext || !args.ext.is_empty(),
        ..Default::default()
    };
    let opts = zut_tui::Options {
        status,
        history_path: Some(history_path(setup.host.home.root(), &cwd)),
        initial_prompt,
        cwd,
    };
    // The conversation (model calls, tools, extensions) runs on its own
    // thread, so rendering never waits behind it.
    let (ev_tx, ev_rx) = mpsc::unbounded_channel();
    let (req_tx, req_rx) = mpsc::unbounded_channel();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        conv_rt.block_on(conversation(setup, opened, ev_tx, req_rx));
        let _ = done_tx.send(());
    });
    let ctrl = ChannelController {
        tx: req_tx,
        current: CancellationToken::new(),
    };
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
fn shown_path(p: &Path) -> String {
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

/// Starts the extensions, then serves the TUI's requests in order.
async fn conversation(
    setup: setup::RunSetup,
    opened: Option<zut_session::Opened>,
    tx: mpsc::UnboundedSender<TuiEvent>,
    mut requests: mpsc::UnboundedReceiver<Request>,
) {
    // A resumed conversation is painted before extensions start.
    if let Some(snap) = opened.as_ref().and_then(|o| o.snapshot.as_ref()) {
        replay(snap, &tx);
    }
    let (ui_tx, mut ui_rx) = ui_channel();
    let ui_fwd = tx.clone();
    let drain = tokio::spawn(async move {
        while let Some(ev) = ui_rx.recv().await {
            if let Some(a) = AgentEvent::from_ui(&ev) {
                let _ = ui_fwd.send(TuiEvent::Agent(a));
            }
        }
    });
    let (host, report) = ExtensionHost::start(setup.host, ui_tx).await;
    let host = Arc::new(host);
    // protocol.md §10.3: session_start, then session_opened with a session.
    let info = host.config().session.clone();
    host.emit_session_event(EventName::SESSION_START, info.clone());
    if info.is_some() {
        host.emit_session_event(EventName::SESSION_OPENED, info);
    }
    let commands = host
        .commands()
        .into_iter()
        .map(|c| CommandInfo {
            name: c.name,
            description: c.description,
            extension: Some(c.extension),
        })
        .collect();
    let errors = report.errors.iter().map(ToString::to_string).collect();
    let _ = tx.send(TuiEvent::ExtensionsReady { commands, errors });
    let Ok(provider) = setup.provider else {
        return;
    };
    let mut agent = Agent::new(provider, Some(host.clone()), setup.agent);
    if let Some(o) = opened {
        agent.attach_session(o.writer, o.snapshot.as_ref());
    }
    while let Some(req) = requests.recv().await {
        match req {
            Request::Prompt(text, cancel) => {
                let mut sink = |ev: AgentEvent| {
                    let _ = tx.send(TuiEvent::Agent(ev));
                };
                agent
                    .prompt(vec![Part::Text { text }], &cancel, &mut sink)
                    .await;
            }
            Request::Command(name, args, cancel) => {
                let (label, outcome) = run_command(&host, &name, &args, &cancel).await;
                let _ = tx.send(TuiEvent::CommandDone { label, outcome });
            }
        }
    }
    if let Some(Err(e)) = agent.close_session() {
        let _ = tx.send(TuiEvent::Info(format!("saving the session failed: {e}")));
    }
    drop(agent);
    host.shutdown().await;
    drop(host);
    let _ = tokio::time::timeout(Duration::from_secs(1), drain).await;
}

/// Runs an extension command; Esc (the token) stops waiting for it.
async fn run_command(
    host: &ExtensionHost,
    name: &str,
    args: &str,
    cancel: &CancellationToken,
) -> (String, CommandOutcome) {
    let reply = tokio::select! {
        r = host.invoke_command(name, args) => r,
        () = cancel.cancelled() => {
            return (format!("/{name}"), CommandOutcome::Error("cancelled".into()));
        }
    };
    let reply = match reply {
        Ok(r) => r,
        Err(e) => return (format!("/{name}"), CommandOutcome::Error(e.to_string())),
    };
    let label = format!("/{} ({})", reply.command, reply.extension);
    let r = reply.response;
    if !r.error.is_empty() {
        return (label, CommandOutcome::Error(r.error));
    }
    let outcome = match r.action.as_str() {
        "prompt" => CommandOutcome::Prompt(r.prompt),
        "insert" => CommandOutcome::Insert(r.insert),
        "display" => CommandOutcome::Display(r.display),
        "" | "noop" => CommandOutcome::Noop,
        "open_panel" => CommandOutcome::Error("panels are not supported by this build yet".into()),
        other => CommandOutcome::Error(format!("unknown action {other:?}")),
    };
    (label, outcome)
}

/// Messages of a resumed session shown at start (the rest stay in the
/// file and in the model's context).
const REPLAYED_MESSAGES: usize = 40;

/// Sends the tail of a resumed conversation as agent events.
fn replay(snap: &zut_session::Snapshot, tx: &mpsc::UnboundedSender<TuiEvent>) {
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
