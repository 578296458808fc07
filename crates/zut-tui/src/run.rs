//! The event loop: terminal input (a reader thread), conversation events
//! and signals in, frames out. A frame is painted after each batch of
//! events — never on a timer, except the spinner while a turn runs — so
//! the screen keeps up with the model and an idle TUI does not wake up.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crossterm::event::Event;
use tokio::sync::mpsc;

use crate::app::{App, Effect};
use crate::history::History;
use crate::inline::InlineScreen;
use crate::theme::{ColorDepth, Theme};
use crate::tool_view::ToolCell;
use crate::{terminal, view, CommandOutcome, Controller, Status, TuiEvent};

/// Longest a batch of conversation events is applied before a frame.
const BATCH: Duration = Duration::from_millis(8);
/// Shortest interval between frames that only repaint extension chrome
/// (status rows, widgets, notes): an extension updating its status 1,000
/// times a second costs ~60 frames, not 1,000 (see [`crate::status::is_chrome`]).
const CHROME_FRAME: Duration = Duration::from_millis(16);
/// After a key, conversation events are taken as they come for this long
/// even while a chrome frame is deferred, so what answers a key (a
/// `panel_render`, say) paints at once; otherwise, while a chrome frame is
/// deferred, the loop does not wake for each event but takes them all when
/// the frame is due (1,000 `status` updates a second then cost ~60 wake-ups,
/// not 1,000: the wake-ups, not the drawing, were most of their CPU).
const INTERACTIVE: Duration = Duration::from_millis(100);

/// How the TUI starts.
#[derive(Debug, Default)]
pub struct Options {
    /// Status bar content (provider, model, cwd...).
    pub status: Status,
    /// Where prompt history is kept (per project).
    pub history_path: Option<PathBuf>,
    /// A prompt to submit at once (`zut "prompt"`).
    pub initial_prompt: Option<String>,
    /// Working directory for `!cmd`.
    pub cwd: PathBuf,
    /// Whether extension `alert`s ring the bell (config
    /// `terminal_alerts_enabled`).
    pub alerts_enabled: bool,
    /// Config `theme` (`auto` when empty).
    pub theme: String,
    /// `$ZUT_HOME/themes`.
    pub themes_dir: Option<PathBuf>,
    /// `$ZUT_HOME/config.json`, where `/theme` saves the choice.
    pub config_path: Option<PathBuf>,
}

/// Runs the TUI until the user quits or a signal ends it; returns the exit
/// status (0, or 128 + the signal).
pub async fn run(
    mut ctrl: Box<dyn Controller>,
    mut events: mpsc::UnboundedReceiver<TuiEvent>,
    opts: Options,
) -> i32 {
    let theme = Theme::new(ColorDepth::detect(&|k| std::env::var(k).ok()));
    terminal::install_panic_hook();
    let top = match terminal::enter() {
        Ok(t) => t,
        Err(e) => {
            terminal::restore();
            eprintln!("zut: the interactive mode needs a terminal: {e}");
            return 1;
        }
    };
    let size = crossterm::terminal::size().unwrap_or((80, 24));
    let mut screen = InlineScreen::new(std::io::stdout(), size, top);
    let mut app = App::new(theme, size, opts.status, History::load(opts.history_path));
    app.alerts_enabled = opts.alerts_enabled;
    crate::themes::start(
        &mut app,
        &opts.theme,
        opts.themes_dir.as_deref(),
        opts.config_path.clone(),
    );
    let themes_dir = opts.themes_dir.clone();
    // syntect's grammars load on the first code block, not at start (2.3
    // MiB resident measured with scripts/bench/tui).
    let (key_tx, mut keys) = mpsc::unbounded_channel::<Event>();
    std::thread::spawn(move || {
        while let Ok(ev) = crossterm::event::read() {
            if key_tx.send(ev).is_err() {
                break;
            }
        }
    });
    let (shell_tx, mut shell_rx) = mpsc::unbounded_channel::<(String, String, bool)>();
    let (files_tx, mut files_rx) = mpsc::unbounded_channel::<Vec<String>>();
    let mut signals = Signals::new();

    let mut pending: Vec<Effect> = Vec::new();
    if let Some(p) = opts.initial_prompt.filter(|p| !p.trim().is_empty()) {
        app.history.push(&p);
        pending.extend(app.enqueue(p));
    }
    let mut status = 0;
    // Whether everything since the last frame was extension chrome, and
    // when that frame was painted (chrome-only frames are rate-limited).
    let mut chrome_only = false;
    let mut last_paint: Option<Instant> = None;
    let mut last_key: Option<Instant> = None;
    // A turn ended (or a resumed conversation was painted): freed memory
    // goes back to the system once the frame is out and nothing runs.
    let mut trim_due = false;
    'outer: loop {
        for effect in pending.drain(..) {
            match effect {
                Effect::Prompt(text) => ctrl.prompt(text),
                Effect::Command { name, args } => {
                    app.push_note("info", format!("/{name} running…"));
                    ctrl.command(name, args);
                }
                Effect::Abort => ctrl.abort(),
                Effect::PanelKey {
                    extension,
                    panel_id,
                    key,
                    text,
                } => ctrl.panel_key(&extension, &panel_id, &key, &text),
                Effect::PanelClose {
                    extension,
                    panel_id,
                } => ctrl.panel_close(&extension, &panel_id),
                Effect::Copy(text) => {
                    let _ = osc52(screen.writer(), &text);
                }
                Effect::Suspend => {
                    let _ = screen.invalidate();
                    let _ = screen.writer().flush();
                    let _ = terminal::suspend();
                    let (w, h) = crossterm::terminal::size().unwrap_or(app.size);
                    app.resize(w, h);
                    let _ = screen.resize((w, h));
                    screen.set_top(h.saturating_sub(1));
                }
                Effect::Redraw => {
                    let _ = screen.invalidate();
                }
                Effect::Shell(cmd) => {
                    let tx = shell_tx.clone();
                    let cwd = opts.cwd.clone();
                    app.push_note("info", format!("running !{cmd}"));
                    tokio::spawn(async move {
                        let (out, failed) = crate::shell::run(&cmd, &cwd).await;
                        let _ = tx.send((cmd, out, failed));
                    });
                }
                Effect::ListFiles => {
                    let tx = files_tx.clone();
                    let cwd = opts.cwd.clone();
                    std::thread::spawn(move || {
                        let _ = tx.send(crate::files::list(&cwd));
                    });
                }
                Effect::ListMentions => {
                    // MCP resources complete as `@server:uri` (the `@`
                    // kept: picking one inserts the mention as is), asked
                    // again on each `@` as servers become ready.
                    app.mentions = ctrl
                        .mention_candidates()
                        .into_iter()
                        .map(|m| format!("@{m}"))
                        .collect();
                }
                Effect::OpenPicker(kind) => ctrl.open_picker(kind),
                Effect::Pick { kind, value } => ctrl.pick(kind, value),
                Effect::AnswerElicitation { request_id, answer } => {
                    if let Err(e) = ctrl.answer_elicitation(request_id, answer) {
                        app.push_note("error", format!("MCP form not sent: {e}"));
                    }
                }
                Effect::OpenUrl(url) => {
                    if let Err(e) = crate::elicit_view::open_in_browser(&url) {
                        app.push_note("error", format!("could not open a browser ({e}): {url}"));
                    }
                }
                Effect::Approve {
                    request_id,
                    decision,
                } => ctrl.answer_approval(request_id, decision),
                Effect::RenameSession { path, title } => ctrl.rename_session(path, title),
                Effect::SearchSessions { all, query } => ctrl.search_sessions(all, query),
                Effect::Quit => break 'outer,
                Effect::SideQuestion(question) => {
                    if !ctrl.side_question(question.clone()) {
                        crate::btw::show(
                            &mut app,
                            &question,
                            Err("not available in this conversation".into()),
                            None,
                        );
                    }
                }
            }
        }
        // Paint (chrome-only changes at most every CHROME_FRAME).
        let deferred = chrome_only && last_paint.is_some_and(|t| t.elapsed() < CHROME_FRAME);
        if !deferred {
            let rows = app.transcript.take_rows();
            let live = view::compose(&mut app, Instant::now());
            let buf = view::to_buffer(&live, app.size.0);
            let painted = screen.frame(&rows, &buf, live.cursor);
            last_paint = Some(Instant::now());
            if app.bell_pending {
                // Between frames, never inside one.
                app.bell_pending = false;
                let _ = screen.writer().write_all(b"\x07");
                let _ = screen.writer().flush();
            }
            if painted.is_err() {
                // The terminal is gone (SIGHUP without the signal): leave.
                status = 129;
                break;
            }
        }
        if trim_due && !app.busy {
            trim_due = false;
            crate::memory::trim();
        }
        let next_chrome_frame = last_paint.unwrap_or_else(Instant::now) + CHROME_FRAME;
        // Anything but a chrome-only batch of agent events paints at once.
        chrome_only = false;
        let tick = app.animating();
        let expiry = app.expire_notes(Instant::now());
        let until_expiry = expiry.map(|t| t.saturating_duration_since(Instant::now()));
        // While a chrome frame waits, events wait too (unless a key was
        // just typed): they are taken in one batch when the frame is due.
        let hold_events = deferred && last_key.is_none_or(|t| t.elapsed() > INTERACTIVE);
        tokio::select! {
            ev = keys.recv() => {
                let Some(ev) = ev else { status = 129; break };
                last_key = Some(Instant::now());
                pending.extend(input(&mut app, &mut screen, ev));
                while let Ok(ev) = keys.try_recv() {
                    pending.extend(input(&mut app, &mut screen, ev));
                }
            }
            ev = events.recv(), if !hold_events => {
                let Some(ev) = ev else { break };
                let start = Instant::now();
                chrome_only = crate::status::is_chrome(&ev);
                trim_due |= ends_work(&ev);
                pending.extend(conversation(&mut app, ev, themes_dir.as_deref()));
                while start.elapsed() < BATCH {
                    match events.try_recv() {
                        Ok(ev) => {
                            chrome_only &= crate::status::is_chrome(&ev);
                            trim_due |= ends_work(&ev);
                            pending.extend(conversation(&mut app, ev, themes_dir.as_deref()));
                        }
                        Err(_) => break,
                    }
                }
            }
            done = shell_rx.recv() => {
                if let Some((cmd, out, failed)) = done {
                    let mut cell = ToolCell::new(String::new(), "bash".into());
                    cell.args = serde_json::json!({ "command": cmd });
                    cell.finish(failed, &out);
                    let rows = cell.rows(app.size.0 as usize, &app.theme, false);
                    app.notes.retain(|n| !n.text.starts_with("running !"));
                    app.transcript.push_block(rows);
                    ctrl.shell_context(crate::shell::context_text(&cmd, &out));
                    app.push_note("info", crate::shell::CONTEXT_NOTE);
                }
            }
            Some(files) = files_rx.recv() => {
                app.files = Some(files);
            }
            sig = signals.next() => {
                status = 128 + sig;
                break;
            }
            () = tokio::time::sleep(app.theme.spinner_interval), if tick => {}
            () = tokio::time::sleep_until(next_chrome_frame.into()), if deferred => {}
            () = tokio::time::sleep(until_expiry.unwrap_or_default()), if until_expiry.is_some() => {}
        }
    }
    ctrl.abort();
    let rows = app.transcript.take_rows();
    let _ = screen.leave(&rows);
    terminal::restore();
    status
}

fn input(app: &mut App, screen: &mut InlineScreen<std::io::Stdout>, ev: Event) -> Vec<Effect> {
    match ev {
        Event::Key(k) => app.key(&k, Instant::now()),
        Event::Paste(text) => app.paste(&text),
        Event::Resize(w, h) => {
            app.resize(w, h);
            let _ = screen.resize((w, h));
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Events after which memory is given back (see [`crate::memory`]).
fn ends_work(ev: &TuiEvent) -> bool {
    matches!(ev, TuiEvent::JobFinished | TuiEvent::Replay(_))
}

fn conversation(app: &mut App, ev: TuiEvent, themes_dir: Option<&std::path::Path>) -> Vec<Effect> {
    match ev {
        TuiEvent::Agent(ev) => app.agent(&ev),
        TuiEvent::ExtensionsReady { commands, errors } => {
            app.set_extension_commands(commands);
            app.status.loading_extensions = false;
            crate::load_errors::show(app, &errors);
            Vec::new()
        }
        TuiEvent::Replay(events) => {
            for ev in &events {
                app.transcript.apply(ev, &app.theme);
            }
            app.transcript
                .apply(&zut_types::AgentEvent::Done, &app.theme);
            Vec::new()
        }
        TuiEvent::Info(text) => {
            app.transcript.notice(&text, app.theme.dim);
            Vec::new()
        }
        TuiEvent::JobStarted => {
            app.busy = true;
            if app.status.busy_since.is_none() {
                app.status.busy_since = Some(Instant::now());
            }
            Vec::new()
        }
        TuiEvent::JobFinished => app.job_finished(),
        TuiEvent::SideAnswer {
            question,
            answer,
            usage,
        } => {
            crate::btw::show(app, &question, answer, usage.as_ref());
            Vec::new()
        }
        TuiEvent::Picker(p) => {
            app.picker = Some(crate::pickers::slots::arrived(app, p));
            Vec::new()
        }
        TuiEvent::ToolGuards(names) => {
            app.chrome.intercepts.tool_guards = names;
            Vec::new()
        }
        TuiEvent::MessageGuards(names) => {
            app.transcript.message_guards = names;
            Vec::new()
        }
        TuiEvent::ExtensionThemes(files) => {
            crate::themes::extension_themes(app, themes_dir, &files);
            Vec::new()
        }
        TuiEvent::Settings { model, reasoning } => {
            app.status.model = model;
            app.status.reasoning = reasoning;
            Vec::new()
        }
        TuiEvent::PickerUpdate(p) => {
            crate::pickers::update(app, p);
            Vec::new()
        }
        TuiEvent::Jail(line) => {
            app.status.jail = line;
            Vec::new()
        }
        TuiEvent::Provider(p) => {
            app.status.provider = p;
            Vec::new()
        }
        TuiEvent::SessionTotals(t) => {
            app.status.set_totals(&t);
            Vec::new()
        }
        TuiEvent::Subagent { id, event } => crate::subagents_view::event(app, &id, event),
        TuiEvent::Orchestrating(on) => {
            app.status.orchestrator = on;
            Vec::new()
        }
        TuiEvent::Scheduled { id, message } => crate::goal_view::scheduled(app, &id, message),
        TuiEvent::CommandDone { label, outcome } => {
            let running = format!("{label} running…");
            app.notes.retain(|n| n.text != running);
            match outcome {
                CommandOutcome::Prompt(text) => return app.enqueue(text),
                CommandOutcome::Insert(text) => app.editor.insert(&text),
                CommandOutcome::Display(text) => app.transcript.notice(&text, app.theme.text),
                CommandOutcome::Noop => {}
                CommandOutcome::Status(text) => {
                    app.push_status("ok", format!("✓ {text}"), Instant::now());
                }
                CommandOutcome::Error(e) => app.push_status("error", e, Instant::now()),
            }
            Vec::new()
        }
    }
}

/// Writes `text` to the clipboard with OSC 52.
fn osc52<W: Write>(out: &mut W, text: &str) -> std::io::Result<()> {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(text);
    write!(out, "\u{1b}]52;c;{b64}\u{7}")?;
    out.flush()
}

/// SIGTERM, SIGHUP and SIGINT end the TUI cleanly.
struct Signals {
    #[cfg(unix)]
    streams: Vec<(i32, tokio::signal::unix::Signal)>,
}

impl Signals {
    fn new() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let streams = [
                (libc::SIGTERM, SignalKind::terminate()),
                (libc::SIGHUP, SignalKind::hangup()),
                (libc::SIGINT, SignalKind::interrupt()),
            ]
            .into_iter()
            .filter_map(|(n, k)| signal(k).ok().map(|s| (n, s)))
            .collect();
            Self { streams }
        }
        #[cfg(not(unix))]
        Self {}
    }

    /// The next signal's number.
    async fn next(&mut self) -> i32 {
        #[cfg(unix)]
        {
            if self.streams.is_empty() {
                return std::future::pending().await;
            }
            let futs = self.streams.iter_mut().map(|(n, s)| {
                let n = *n;
                Box::pin(async move {
                    s.recv().await;
                    n
                })
            });
            futures_select_all(futs).await
        }
        #[cfg(not(unix))]
        std::future::pending().await
    }
}

/// The first of several futures to finish.
async fn futures_select_all<F: std::future::Future<Output = i32> + Unpin>(
    futs: impl Iterator<Item = F>,
) -> i32 {
    let mut futs: Vec<F> = futs.collect();
    std::future::poll_fn(move |cx| {
        for f in &mut futs {
            if let std::task::Poll::Ready(n) = std::pin::Pin::new(f).poll(cx) {
                return std::task::Poll::Ready(n);
            }
        }
        std::task::Poll::Pending
    })
    .await
}
