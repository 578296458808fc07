//! One task per server: connect, list, watch, restart with backoff after a
//! crash, stop with zut.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::service::Peer;
use rmcp::RoleClient;
use serde_json::Value;

use crate::catalog::{prompts_from, resources_from, tools_from, Catalog};
use crate::connect::{connect, ConnectCtx, ConnectError};
use crate::slot::Slot;
use crate::status::ServerStatus;

/// Consecutive failed starts before zut gives up on a server.
pub const MAX_ATTEMPTS: u32 = 5;
/// A connection that lived this long resets the failure count.
const STABLE: Duration = Duration::from_secs(60);

/// What the supervisor needs besides the slot.
pub(crate) struct Env {
    pub project: std::path::PathBuf,
    pub home: std::path::PathBuf,
    pub startup_timeout: Duration,
    pub env: crate::manager::EnvLookup,
    /// The session's jail switch (stdio servers' sandbox).
    pub jail: zut_tools::JailSwitch,
    /// Elicitation: declared or not, and who answers.
    pub elicitation: crate::elicit::Elicitation,
    /// Holds the first start ([`crate::gate`]).
    pub gate: crate::gate::StartGate,
}

fn backoff(failures: u32) -> Duration {
    let ms = 500u64.saturating_mul(1 << failures.saturating_sub(1).min(6));
    Duration::from_millis(ms.min(30_000))
}

pub(crate) async fn run(slot: Arc<Slot>, env: Arc<Env>) {
    tokio::select! {
        () = env.gate.passed() => {}
        _ = slot.stop.cancelled() => {
            slot.set_status(ServerStatus::Stopped);
            return;
        }
    }
    let mut failures = 0u32;
    loop {
        slot.set_status(ServerStatus::Starting);
        let started = Instant::now();
        let cx = ConnectCtx {
            slot: &slot,
            project: &env.project,
            home: &env.home,
            env: &*env.env,
            jail: &env.jail,
            elicitation: &env.elicitation,
        };
        let attempt = tokio::select! {
            r = tokio::time::timeout(env.startup_timeout, connect(&cx)) => r,
            _ = slot.stop.cancelled() => {
                slot.set_status(ServerStatus::Stopped);
                slot.kill_now();
                return;
            }
        };
        let reason = match attempt {
            Ok(Ok(mut conn)) => {
                let told = slot
                    .elicitation_declared
                    .load(std::sync::atomic::Ordering::Acquire);
                if told != env.elicitation.modes().bits() {
                    // A front end came or went during the handshake:
                    // connect again before anything is offered (calls
                    // wait while the server is starting).
                    crate::fsutil::log_marker(
                        &env.home,
                        &slot.config.name,
                        "elicitation changed during the handshake: reconnecting",
                    );
                    let _ = close(&mut conn).await;
                    continue;
                }
                let peer = conn.running.peer().clone();
                let mut catalog = list_catalog(&slot, &peer).await;
                catalog.instructions = peer.peer_info().and_then(|i| i.instructions.clone());
                slot.set_catalog(catalog);
                slot.set_peer(Some(peer));
                slot.set_status(ServerStatus::Ready);
                crate::fsutil::log_marker(&env.home, &slot.config.name, "ready");
                let stop = tokio::select! {
                    _ = slot.stop.cancelled() => Some(true),
                    _ = slot.reconnect.notified() => Some(false),
                    _ = jail_flipped(&slot, &env.jail, &conn) => {
                        crate::fsutil::log_marker(
                            &env.home,
                            &slot.config.name,
                            if env.jail.is_jailed() {
                                "the session was jailed: restarting under the jail"
                            } else {
                                "the session was unjailed: restarting unconfined"
                            },
                        );
                        Some(false)
                    }
                    _ = wait_closed(&conn) => None,
                };
                if stop == Some(false) {
                    // Calls arriving now wait for the new connection
                    // instead of failing on a `ready` server with no peer.
                    slot.set_status(ServerStatus::Starting);
                }
                slot.set_peer(None);
                let exit = close(&mut conn).await;
                match stop {
                    Some(true) => {
                        slot.set_status(ServerStatus::Stopped);
                        crate::fsutil::log_marker(&env.home, &slot.config.name, "stopped");
                        return;
                    }
                    Some(false) => {
                        failures = 0;
                        continue;
                    }
                    None => {}
                }
                if started.elapsed() >= STABLE {
                    failures = 0;
                }
                format!("the connection closed{exit}")
            }
            Ok(Err(ConnectError::NeedsLogin(why))) => {
                slot.set_status(ServerStatus::NeedsLogin(why));
                // Waits for `reconnect` (after `zut mcp login`) or the end.
                tokio::select! {
                    _ = slot.stop.cancelled() => { slot.set_status(ServerStatus::Stopped); return; }
                    _ = slot.reconnect.notified() => { failures = 0; continue; }
                }
            }
            Ok(Err(ConnectError::Failed(why))) => why,
            Err(_) => {
                slot.kill_now();
                format!(
                    "did not answer initialize within {} ms",
                    env.startup_timeout.as_millis()
                )
            }
        };
        slot.kill_now();
        failures += 1;
        crate::fsutil::log_marker(&env.home, &slot.config.name, &format!("failed: {reason}"));
        if failures >= MAX_ATTEMPTS {
            slot.set_status(ServerStatus::Failed(format!(
                "{reason} (gave up after {MAX_ATTEMPTS} attempts)"
            )));
            tokio::select! {
                _ = slot.stop.cancelled() => { slot.set_status(ServerStatus::Stopped); return; }
                _ = slot.reconnect.notified() => { failures = 0; continue; }
            }
        }
        let wait = backoff(failures);
        slot.set_status(ServerStatus::Failed(format!(
            "{reason} (retrying in {} ms)",
            wait.as_millis()
        )));
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = slot.reconnect.notified() => {}
            _ = slot.stop.cancelled() => { slot.set_status(ServerStatus::Stopped); return; }
        }
        slot.restarts
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

async fn wait_closed(conn: &crate::connect::Connection) {
    // The service loop ends when the transport closes (EOF, crash).
    let peer = conn.running.peer().clone();
    loop {
        if peer.is_transport_closed() || conn.running.is_closed() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Resolves when the session's jail switch no longer matches what a
/// stdio server whose confinement follows the session started under
/// (`/jail`, `/unjail`); never for other servers.
async fn jail_flipped(
    slot: &Slot,
    jail: &zut_tools::JailSwitch,
    conn: &crate::connect::Connection,
) {
    if conn.child.is_none() || !crate::sandbox::follows_session(&slot.config) {
        return std::future::pending().await;
    }
    loop {
        if jail.is_jailed() != conn.jailed_at_start {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Closes the service and stops the child; `" (exit status 1)"` or `""`.
async fn close(conn: &mut crate::connect::Connection) -> String {
    let _ = conn
        .running
        .close_with_timeout(Duration::from_millis(500))
        .await;
    let mut exit = String::new();
    if let Some(child) = conn.child.as_mut() {
        if let Ok(Some(status)) = child.try_wait() {
            exit = format!(" ({})", crate::launch::describe_exit(status));
        }
        crate::launch::stop(child, Duration::from_millis(500)).await;
        if let Some(guard) = &conn.guard {
            guard.kill_stragglers();
        }
        if exit.is_empty() {
            if let Ok(Some(status)) = child.try_wait() {
                exit = format!(" ({})", crate::launch::describe_exit(status));
            }
        }
    }
    exit
}

/// Lists tools, prompts and resources the server's capabilities announce.
/// A failing list is logged and left empty.
pub(crate) async fn list_catalog(slot: &Slot, peer: &Peer<RoleClient>) -> Catalog {
    let caps = peer.peer_info().map(|i| i.capabilities.clone());
    let name = &slot.config.name;
    let mut catalog = Catalog::default();
    let has = |f: fn(&rmcp::model::ServerCapabilities) -> bool| caps.as_ref().is_none_or(f);
    if has(|c| c.tools.is_some()) {
        match peer.list_all_tools().await {
            Ok(tools) => {
                let values: Vec<Value> = tools
                    .iter()
                    .filter_map(|t| serde_json::to_value(t).ok())
                    .collect();
                let (ok, skipped) = tools_from(name, &values);
                catalog.tools = ok;
                catalog.skipped = skipped;
            }
            Err(e) => tracing::warn!("mcp {name}: tools/list failed: {e}"),
        }
    }
    if has(|c| c.prompts.is_some()) {
        if let Ok(prompts) = peer.list_all_prompts().await {
            let values: Vec<Value> = prompts
                .iter()
                .filter_map(|p| serde_json::to_value(p).ok())
                .collect();
            catalog.prompts = prompts_from(name, &values);
        }
    }
    if has(|c| c.resources.is_some()) {
        if let Ok(resources) = peer.list_all_resources().await {
            let values: Vec<Value> = resources
                .iter()
                .filter_map(|r| serde_json::to_value(r).ok())
                .collect();
            catalog.resources = resources_from(name, &values);
        }
    }
    catalog
}
