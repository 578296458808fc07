//! Starting extensions: discovery, spawning, handshake, readiness.

use std::sync::Arc;

use tokio::io::BufReader;
use zut_protocol::limits::MAX_INBOUND_LINE;
use zut_protocol::HelloAck;

use crate::diagnostics::Readiness;
use crate::discovery::{discover, plan, Candidate, DiscoveryOptions, Planned};
use crate::extension::Extension;
use crate::handshake::{read_hello, send_hello_ack};
use crate::line_reader::LineReader;
use crate::load_error::LoadError;
use crate::log_file::ExtLog;
use crate::manifest::{ExecSpec, Manifest};
use crate::process::{spawn, LaunchSpec};
use crate::shared::Shared;

/// What one load pass did.
#[derive(Debug, Default)]
pub(crate) struct LoadPass {
    pub errors: Vec<LoadError>,
    pub planned: Vec<Planned>,
    pub shadowed: Vec<Candidate>,
    pub started: usize,
}

/// Loads every enabled extension concurrently, then waits for readiness
/// with one shared deadline.
pub(crate) async fn load_all(shared: &Arc<Shared>) -> LoadPass {
    let cfg = &shared.config;
    let discovery = discover(&DiscoveryOptions {
        cwd: cfg.cwd.clone(),
        home: cfg.home.clone(),
        ext_paths: cfg.ext_paths.clone(),
        no_ext: cfg.no_ext,
    });
    let planned = plan(&discovery.candidates);
    let mut pass = LoadPass {
        shadowed: discovery.shadowed,
        ..LoadPass::default()
    };
    let mut handles = Vec::new();
    for (idx, entry) in planned.iter().enumerate() {
        match entry {
            Planned::Invalid(c, e) => pass.errors.push(LoadError::manifest(&c.dir, e)),
            Planned::Disabled(..) | Planned::Duplicate(..) => {}
            Planned::Load(c, m) => {
                let shared = Arc::clone(shared);
                let (c, m) = (c.clone(), m.clone());
                handles.push(tokio::spawn(
                    async move { load_one(&shared, idx, c, m).await },
                ));
            }
        }
    }
    for h in handles {
        match h.await {
            Ok(Ok(())) => pass.started += 1,
            Ok(Err(e)) => pass.errors.push(e),
            Err(join) => pass.errors.push(LoadError {
                dir: Default::default(),
                name: None,
                message: format!("extension loader task failed: {join}"),
            }),
        }
    }
    pass.planned = planned;
    wait_ready(shared).await;
    pass
}

/// Spawns one extension and runs its handshake. On success the extension
/// is registered and its reader, writer and waiter tasks are running.
async fn load_one(
    shared: &Arc<Shared>,
    idx: usize,
    cand: Candidate,
    manifest: Manifest,
) -> Result<(), LoadError> {
    let dir = cand.dir.clone();
    if manifest.is_theme_only(&dir) {
        let ext = Extension::new(idx, manifest, dir, cand.scope, None, None, true);
        shared.insert_extension(Arc::new(ext));
        return Ok(());
    }
    let log_path = shared.config.home.log_path(&manifest.name);
    let log = ExtLog::open(&log_path)
        .map_err(|e| LoadError::start(&manifest, &dir, &format!("open log: {e}"), None))?;
    let fail = |msg: &str| LoadError::start(&manifest, &dir, msg, Some(&log_path));
    log.start_marker(&manifest.name, &manifest.version);
    let exec = manifest.exec_spec(&dir);
    let sandbox = sandbox_for(&shared.config, &manifest, &dir, &exec).map_err(|e| fail(&e))?;
    if let Some(sb) = &sandbox {
        log.marker(&format!("confined: {}", sb.policy().summary()));
        for note in sb.notes() {
            log.marker(&format!("sandbox not enforced here: {note}"));
        }
    }
    let mut busy_waits = BUSY_RETRY_MS.iter();
    let child = loop {
        let stderr = log
            .stderr_handle()
            .map_err(|e| fail(&format!("open log: {e}")))?;
        match spawn(LaunchSpec {
            exec: &exec,
            args: &manifest.args,
            dir: &dir,
            stderr,
            sandbox: sandbox.clone(),
        }) {
            Ok(process) => break process,
            Err(e) if is_text_busy(&e) => match busy_waits.next() {
                Some(ms) => {
                    log.marker(&format!("start: {e}; retrying in {ms} ms"));
                    tokio::time::sleep(std::time::Duration::from_millis(*ms)).await;
                }
                None => return Err(fail(&spawn_error(&exec, &manifest.exec, &e))),
            },
            Err(e) => return Err(fail(&spawn_error(&exec, &manifest.exec, &e))),
        }
    };
    let zut_process::Process { mut child, guard } = child;
    let pgid = child.id();
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(fail("child pipes unavailable"));
    };
    let mut stdin = stdin;
    let mut reader = LineReader::new(
        BufReader::with_capacity(64 * 1024, stdout),
        MAX_INBOUND_LINE,
    );
    let log_str = log_path.display().to_string();
    let t = &shared.config.timeouts;
    let hello = read_hello(
        &mut reader,
        &mut child,
        &log_str,
        t.hello,
        t.exit_before_hello,
    )
    .await;
    let hello_name = match hello {
        Ok(name) => name,
        Err(msg) => {
            kill_and_reap(pgid, &mut child).await;
            log.marker(&format!("handshake failed: {msg}"));
            return Err(fail(&msg));
        }
    };
    let ack = HelloAck {
        protocol_version: zut_protocol::PROTOCOL_VERSION,
        zut_version: shared.config.zut_version.clone(),
        provider: shared.config.provider.clone(),
        model: shared.config.model.clone(),
        cwd: shared.config.cwd.display().to_string(),
        extension_dir: dir.display().to_string(),
        data_dir: dir.display().to_string(),
        session: shared.session().session.clone(),
    };
    if let Err(msg) = send_hello_ack(&mut stdin, ack, &log_str).await {
        kill_and_reap(pgid, &mut child).await;
        log.marker(&format!("handshake failed: {msg}"));
        return Err(fail(&msg));
    }
    let ext = Arc::new(Extension::new(
        idx,
        manifest,
        dir,
        cand.scope,
        Some(log),
        pgid,
        false,
    ));
    if hello_name != ext.name {
        ext.warn(format!(
            "hello name {hello_name:?} does not match manifest name {:?}; using {:?}",
            ext.name, ext.name
        ));
    }
    shared.insert_extension(Arc::clone(&ext));
    crate::tasks::start_tasks(shared, &ext, child, guard, stdin, reader);
    Ok(())
}

/// The sandbox of an extension: its declared permissions, the minimal
/// policy when the host is strict and it declares none, else `None`
/// (unconfined, as the Go original runs every extension).
fn sandbox_for(
    config: &crate::config::HostConfig,
    manifest: &Manifest,
    dir: &std::path::Path,
    exec: &ExecSpec,
) -> Result<Option<Arc<zut_sandbox::Prepared>>, String> {
    let declared = match manifest.permissions().map_err(|e| e.to_string())? {
        Some(d) => d,
        None if config.strict_sandbox => zut_sandbox::Declared::default(),
        None => return Ok(None),
    };
    let own = match exec {
        ExecSpec::Local(p) => vec![p.display().to_string()],
        ExecSpec::Path(cmd) => vec![cmd.clone()],
        ExecSpec::None => Vec::new(),
    };
    let vars = zut_sandbox::Vars {
        cwd: config.cwd.clone(),
        data_dir: dir.to_path_buf(),
        extension_dir: dir.to_path_buf(),
        home: std::env::var_os("HOME").map(Into::into),
        tmp: std::env::temp_dir(),
    };
    let policy = declared
        .to_policy(&manifest.name, &vars, &own)
        .map_err(|e| format!("permissions: {e}"))?;
    zut_sandbox::Prepared::new(policy)
        .map(|p| Some(Arc::new(p)))
        .map_err(|e| format!("sandbox: {e}"))
}

/// Waits before retrying a spawn that failed with ETXTBSY ("text file
/// busy"): the executable is open for writing somewhere. That happens
/// while an installer or a build is still writing it, and, briefly, when
/// another thread of the same process forks while holding a descriptor of
/// a file it just wrote (the child keeps it until its own exec). Both pass
/// in milliseconds, so the host retries for up to about 0.3 s in total.
const BUSY_RETRY_MS: [u64; 6] = [2, 5, 10, 25, 50, 200];

fn is_text_busy(err: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        err.raw_os_error() == Some(libc::ETXTBSY)
    }
    #[cfg(not(unix))]
    {
        let _ = err;
        false
    }
}

fn spawn_error(exec: &ExecSpec, written: &str, err: &std::io::Error) -> String {
    if is_text_busy(err) {
        return format!(
            "start {written:?}: {err}: the executable is still open for writing \
             (being installed or rebuilt?); gave up after {} retries",
            BUSY_RETRY_MS.len()
        );
    }
    match (exec, err.kind()) {
        (ExecSpec::Path(cmd), std::io::ErrorKind::NotFound) => {
            format!("exec: {cmd:?}: executable file not found in $PATH")
        }
        (ExecSpec::Local(path), std::io::ErrorKind::NotFound) => {
            format!(
                "fork/exec {}: no such file or directory (exec {written:?})",
                path.display()
            )
        }
        _ => format!("start {written:?}: {err}"),
    }
}

async fn kill_and_reap(pgid: Option<u32>, child: &mut tokio::process::Child) {
    #[cfg(unix)]
    if let Some(pgid) = pgid {
        crate::process::signal_group(pgid, crate::process::SIGKILL);
    }
    let _ = child.start_kill();
    let _ = child.wait().await;
}

/// Waits for every extension to settle, with one shared deadline; the
/// stragglers are force-marked ready (`ready-timeout`), not killed.
pub(crate) async fn wait_ready(shared: &Shared) {
    let deadline = tokio::time::Instant::now() + shared.config.timeouts.ready;
    // The deadline is absolute, so waiting one after the other costs no
    // more than the slowest extension.
    for ext in shared.extensions() {
        let mut rx = ext.readiness.subscribe();
        let settled = tokio::time::timeout_at(deadline, rx.wait_for(|r| r.is_settled())).await;
        if settled.is_err() && ext.settle(Readiness::ReadyTimeout) {
            ext.diagnose("timed out waiting for ready frame");
            ext.log_marker("timed out waiting for ready frame; proceeding");
        }
    }
}
