//! Stopping extensions: `shutdown` + EOF, grace, SIGTERM, SIGKILL, always
//! to the whole process group so no grandchild survives.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::{timeout, timeout_at, Instant};
use zut_protocol::{encode_line, HostFrame};

use crate::extension::Extension;
use crate::shared::Shared;

/// Least time each process gets once the shared deadline has passed.
const MIN_WAIT: Duration = Duration::from_millis(100);

/// Stops every extension with one shared `grace` deadline, concurrently.
pub(crate) async fn stop_all(shared: &Shared, grace: Duration) {
    shared.shutting_down.store(true, Ordering::Release);
    let exts = shared.extensions();
    let deadline = Instant::now() + grace;
    for ext in exts.iter().filter(|e| !e.theme_only) {
        let _ = ext
            .outbox
            .push_request(encode_line(&HostFrame::Shutdown), None);
        ext.outbox.close();
    }
    let term_to_kill = shared.config.timeouts.term_to_kill;
    let handles: Vec<_> = exts
        .iter()
        .filter(|e| !e.theme_only)
        .cloned()
        .map(|ext| {
            tokio::spawn(async move {
                let exited = wait_exit_until(&ext, deadline).await;
                if !exited {
                    ext.log_marker("did not exit after shutdown; sending SIGTERM");
                }
                terminate(&ext, Duration::ZERO, term_to_kill).await;
            })
        })
        .collect();
    for h in handles {
        let _ = h.await;
    }
    // The processes are gone; their readers may not have seen EOF yet.
    // Mark them disconnected now so nothing reports them as running.
    for ext in exts.iter().filter(|e| !e.theme_only) {
        ext.mark_dead();
        ext.settle(crate::diagnostics::Readiness::Ready);
        shared.registry().remove_extension(ext.idx);
        ext.fail_all_pending();
    }
}

/// Waits for the process to exit until `deadline` (at least [`MIN_WAIT`]).
async fn wait_exit_until(ext: &Extension, deadline: Instant) -> bool {
    let deadline = deadline.max(Instant::now() + MIN_WAIT);
    let mut rx = ext.exit.subscribe();
    let done = timeout_at(deadline, rx.wait_for(Option::is_some))
        .await
        .is_ok();
    done
}

async fn wait_exit(ext: &Extension, within: Duration) -> bool {
    let mut rx = ext.exit.subscribe();
    let done = timeout(within, rx.wait_for(Option::is_some)).await.is_ok();
    done
}

/// Gives the process `grace` to exit by itself, then SIGTERMs its group,
/// waits `term_to_kill`, then SIGKILLs the group. Processes left in the
/// group after the leader exited (grandchildren) get the same treatment.
pub(crate) async fn terminate(ext: &Arc<Extension>, grace: Duration, term_to_kill: Duration) {
    let Some(pgid) = ext.pgid else {
        return;
    };
    #[cfg(unix)]
    {
        use crate::process::{group_alive, signal_group, SIGKILL, SIGTERM};
        let mut exited = ext.exit.borrow().is_some() || wait_exit(ext, grace).await;
        if !exited {
            signal_group(pgid, SIGTERM);
            exited = wait_exit(ext, term_to_kill).await;
            if !exited {
                ext.log_marker("did not exit after SIGTERM; sending SIGKILL");
                signal_group(pgid, SIGKILL);
                wait_exit(ext, Duration::from_secs(2)).await;
            }
        }
        if group_alive(pgid) {
            signal_group(pgid, SIGTERM);
            let until = Instant::now() + term_to_kill;
            while group_alive(pgid) && Instant::now() < until {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            if group_alive(pgid) {
                signal_group(pgid, SIGKILL);
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (pgid, grace, term_to_kill);
    }
}
