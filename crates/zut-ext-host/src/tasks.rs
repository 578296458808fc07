//! The four tasks of a running extension: writer (stdin), reader
//! (stdout), waiter (process exit) and the `panel_key` pacer's timer.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use tokio::io::AsyncBufRead;
use tokio::process::{Child, ChildStdin};

use crate::diagnostics::Readiness;
use crate::extension::Extension;
use crate::frames::handle_frame;
use crate::line_reader::{LineRead, LineReader};
use crate::log_file::rfc3339_now;
use crate::shared::Shared;
use crate::ui::UiKind;

/// Why an extension's stdout stopped.
#[derive(Debug)]
enum Disconnect {
    Eof,
    TooLong,
    ReadError(String),
    /// The host was dropped.
    HostGone,
}

pub(crate) fn start_tasks<R>(
    shared: &Arc<Shared>,
    ext: &Arc<Extension>,
    mut child: Child,
    guard: zut_process::GroupGuard,
    stdin: ChildStdin,
    reader: LineReader<R>,
) where
    R: AsyncBufRead + Unpin + Send + 'static,
{
    // Writer.
    let w_ext = Arc::clone(ext);
    tokio::spawn(async move {
        if let Some(err) = w_ext.outbox.run_writer(stdin).await {
            w_ext.log_marker(&format!("write to extension failed: {err}"));
            w_ext.fail_all_pending();
        }
    });
    // Waiter: owns the child, logs and publishes how it ended. An exit
    // that is not part of a shutdown is also a doctor diagnostic.
    let x_ext = Arc::clone(ext);
    let x_shared = Arc::downgrade(shared);
    tokio::spawn(async move {
        let how = match child.wait().await {
            Ok(status) => crate::process::describe_exit(status),
            Err(e) => format!("wait failed: {e}"),
        };
        // The guard (disarmed: shutdown ends the group) holds the sandbox
        // resources until the leader is gone; a confined extension's
        // helpers that left its group go with it.
        guard.kill_stragglers();
        drop(guard);
        let stopping = x_shared
            .upgrade()
            .is_none_or(|s| s.shutting_down.load(Ordering::Acquire));
        if stopping {
            x_ext.log_marker(&format!("process exited: {how}"));
        } else {
            x_ext.warn_always(format!("process exited: {how}"));
        }
        x_ext.exit.send_replace(Some(how));
    });
    // Pacer: writes a panel's next key when the extension did not draw
    // the panel within the pace; ends when the extension is gone.
    let p_ext = Arc::clone(ext);
    let pace = shared.config.timeouts.panel_key_pace;
    tokio::spawn(async move { p_ext.run_pacer(pace).await });
    // Reader. It holds the host only weakly, so dropping the last
    // `ExtensionHost` drops `Shared`, whose `Drop` kills the process groups.
    let r_shared = Arc::downgrade(shared);
    let r_ext = Arc::clone(ext);
    let idle = shared.config.timeouts.auto_ready_idle;
    tokio::spawn(async move {
        let why = read_loop(&r_shared, &r_ext, reader, idle).await;
        match r_shared.upgrade() {
            Some(shared) => on_disconnect(&shared, &r_ext, why).await,
            None => {
                r_ext.mark_dead();
                r_ext.settle(Readiness::Ready);
                r_ext.fail_all_pending();
                r_ext.outbox.close();
            }
        }
    });
}

async fn read_loop<R: AsyncBufRead + Unpin>(
    shared: &Weak<Shared>,
    ext: &Arc<Extension>,
    mut reader: LineReader<R>,
    idle: std::time::Duration,
) -> Disconnect {
    let mut window_end = tokio::time::Instant::now() + idle;
    let mut seen_in_window = false;
    loop {
        let read = if ext.readiness().is_settled() {
            reader.next_line().await
        } else {
            match tokio::time::timeout_at(window_end, reader.next_line()).await {
                Ok(r) => r,
                Err(_) => {
                    if !seen_in_window && ext.settle(Readiness::AutoReady) {
                        ext.diagnose("no ready frame; auto-ready after idle");
                        ext.log_marker("no ready frame; auto-readying after idle (legacy SDK?)");
                    }
                    seen_in_window = false;
                    window_end = tokio::time::Instant::now() + idle;
                    continue;
                }
            }
        };
        ext.touch();
        match read {
            Ok(LineRead::Line(line)) => {
                seen_in_window = true;
                let Some(shared) = shared.upgrade() else {
                    return Disconnect::HostGone;
                };
                handle_frame(&shared, ext, &line).await;
            }
            Ok(LineRead::Eof) => return Disconnect::Eof,
            Ok(LineRead::TooLong) => return Disconnect::TooLong,
            Err(e) => return Disconnect::ReadError(e.to_string()),
        }
    }
}

async fn on_disconnect(shared: &Arc<Shared>, ext: &Arc<Extension>, why: Disconnect) {
    match &why {
        Disconnect::TooLong => ext.warn_always(format!(
            "frame exceeds the {} MiB line limit ({} bytes); extension disconnected and stopped",
            zut_protocol::limits::MAX_INBOUND_LINE / (1024 * 1024),
            zut_protocol::limits::MAX_INBOUND_LINE
        )),
        Disconnect::ReadError(e) => ext.warn_always(format!(
            "read from extension failed: {e}; extension disconnected"
        )),
        Disconnect::Eof | Disconnect::HostGone => {}
    }
    ext.mark_dead();
    ext.settle(Readiness::Ready);
    shared.registry().remove_extension(ext.idx);
    ext.fail_all_pending();
    ext.outbox.close();
    ext.log_counters();
    ext.log_marker(&format!(
        "extension {} read loop exited at {}",
        ext.name,
        rfc3339_now()
    ));
    shared.ui(&ext.name, UiKind::ChromeClear).await;
    if !shared.shutting_down.load(Ordering::Acquire) {
        let grace = match why {
            Disconnect::TooLong => std::time::Duration::ZERO,
            _ => shared.config.timeouts.exit_before_hello,
        };
        crate::shutdown::terminate(ext, grace, shared.config.timeouts.term_to_kill).await;
    }
}
