//! The live part of `zut ext doctor` (cli.md §2.2 step 3): the normal
//! start-up path of the extension host, a snapshot, a quick shutdown.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use zut_ext_host::{
    ui_channel, CommandInfo, ExtensionHost, ExtensionReport, HostConfig, LoadError, Planned, UiKind,
};

use super::scan::ScanInput;
use crate::interrupt::Interrupted;
use crate::Builtins;

/// Doctor's overall process budget: an extension that has not said
/// `hello` by then is stopped and reported (Go: a 5 s process context).
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(5);
/// How long doctor waits for `ready` (shared deadline).
pub const READY_TIMEOUT: Duration = Duration::from_secs(3);
/// Grace between `shutdown` and SIGTERM when doctor stops everything.
pub const SHUTDOWN_GRACE: Duration = Duration::from_millis(500);
/// After start-up, doctor waits until no extension has sent anything for
/// this long (at most [`SETTLE_MAX`]) before taking its snapshot.
pub const SETTLE_QUIET: Duration = Duration::from_millis(250);
/// Upper bound of that wait.
pub const SETTLE_MAX: Duration = Duration::from_secs(1);
/// `notify` frames kept per extension.
const MAX_NOTES: usize = 3;

/// A `notify` an extension sent during start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// `info`, `warn`, `error`, … as sent.
    pub level: String,
    /// The message.
    pub message: String,
}

/// `notify` frames of one extension: the first few, and how many in all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Notes {
    /// The first [`MAX_NOTES`].
    pub first: Vec<Note>,
    /// Total received.
    pub total: usize,
}

/// What the host reported, taken before shutdown.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// Per started (or theme-only) extension, in load order.
    pub reports: Vec<ExtensionReport>,
    /// Process ids of the extensions still running at snapshot time.
    pub pids: Vec<(String, u32)>,
    /// What discovery decided for every candidate.
    pub planned: Vec<Planned>,
    /// Load errors.
    pub errors: Vec<LoadError>,
    /// Command owners (for "shadowed by …").
    pub commands: Vec<CommandInfo>,
    /// `notify` frames by extension name.
    pub notes: Vec<(String, Notes)>,
    /// The built-in names the host was configured with.
    pub builtins: Builtins,
    /// The MCP servers and tool name clashes.
    pub mcp: super::mcp::McpReport,
}

impl Snapshot {
    /// The notes of extension `name`.
    pub fn notes_of(&self, name: &str) -> Option<&Notes> {
        self.notes.iter().find(|(n, _)| n == name).map(|(_, n)| n)
    }

    /// The pid of extension `name`, if its process was running.
    pub fn pid_of(&self, name: &str) -> Option<u32> {
        self.pids.iter().find(|(n, _)| n == name).map(|(_, p)| *p)
    }
}

/// The host configuration doctor uses: normal discovery (honouring
/// `--ext`/`--no-ext`/`--cwd`), empty provider and model in `hello_ack`,
/// the default built-ins, doctor's short timers.
pub fn config(input: &ScanInput, builtins: &Builtins) -> HostConfig {
    let mut config = HostConfig::new(input.home.clone(), input.cwd.clone());
    config.ext_paths = input.ext.clone();
    config.no_ext = input.no_ext;
    config.zut_version = env!("CARGO_PKG_VERSION").to_string();
    config.provider = String::new();
    config.model = String::new();
    config.builtin_commands = builtins.commands.clone();
    config.builtin_tools = builtins.tools.clone();
    config.timeouts.hello = HELLO_TIMEOUT;
    config.timeouts.ready = READY_TIMEOUT;
    config.timeouts.shutdown_grace = SHUTDOWN_GRACE;
    config
}

/// Starts every extension, snapshots, stops them all. Ctrl+C / SIGTERM
/// while starting abandons the run: dropping the host kills every
/// extension process group.
pub fn run(input: &ScanInput, builtins: &Builtins) -> anyhow::Result<Snapshot> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| anyhow::anyhow!("start async runtime: {e}"))?;
    let config = config(input, builtins);
    let (home, cwd) = (input.home.root().to_path_buf(), input.cwd.clone());
    let result = rt.block_on(async move {
        // MCP servers start on tasks of their own, next to the extensions.
        let (mcp, _) = zut_mcp::McpManager::start_default(&home, &cwd);
        run_async(config, builtins.clone(), mcp).await
    });
    rt.shutdown_timeout(Duration::from_secs(1));
    result
}

async fn run_async(
    config: HostConfig,
    builtins: Builtins,
    mcp: zut_mcp::McpManager,
) -> anyhow::Result<Snapshot> {
    let (ui_tx, mut ui_rx) = ui_channel();
    // Drain the UI channel (a full channel would stall the extensions'
    // readers) and keep the first notes of each extension.
    let notes: Arc<Mutex<Vec<(String, Notes)>>> = Arc::default();
    let sink = Arc::clone(&notes);
    let drain = tokio::spawn(async move {
        while let Some(ev) = ui_rx.recv().await {
            if let UiKind::Notify { level, message } = ev.kind {
                let mut all = sink.lock().unwrap_or_else(|e| e.into_inner());
                let pos = match all.iter().position(|(n, _)| *n == ev.extension) {
                    Some(p) => p,
                    None => {
                        all.push((ev.extension.clone(), Notes::default()));
                        all.len() - 1
                    }
                };
                let entry = &mut all[pos].1;
                entry.total += 1;
                if entry.first.len() < MAX_NOTES {
                    entry.first.push(Note { level, message });
                }
            }
        }
    });
    let signals = signals()?;
    let mut signals = std::pin::pin!(signals);
    let (host, report) = tokio::select! {
        started = ExtensionHost::start(config, ui_tx) => started,
        () = &mut signals => return Err(Interrupted.into()),
    };
    // Registrations sent right after `ready`, and extensions exiting right
    // after it, belong in the report: wait for a short quiet spell first.
    tokio::select! {
        () = host.settle(SETTLE_QUIET, SETTLE_MAX) => {}
        () = &mut signals => return Err(Interrupted.into()),
    }
    let mcp = tokio::select! {
        r = super::mcp::report(mcp, &builtins.tools, &host) => r,
        () = &mut signals => return Err(Interrupted.into()),
    };
    let snapshot = Snapshot {
        mcp,
        reports: host.reports(),
        pids: host.pids(),
        planned: report.planned,
        errors: report.errors,
        commands: host.commands(),
        notes: notes.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        builtins,
    };
    host.shutdown_with_grace(SHUTDOWN_GRACE).await;
    drop(host);
    drain.abort();
    Ok(snapshot)
}

/// Resolves on the first SIGINT or SIGTERM.
fn signals() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut int = signal(SignalKind::interrupt())?;
        let mut term = signal(SignalKind::terminate())?;
        Ok(async move {
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}
