//! Opening a connection: stdio child, streamable HTTP or legacy HTTP+SSE,
//! then `initialize`.

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransport, StreamableHttpClientTransportConfig,
};
use rmcp::{RoleClient, ServiceExt};
use tokio::process::Child;

use crate::config::TransportConfig;
use crate::handler::Handler;
use crate::slot::Slot;

/// A live connection.
pub(crate) struct Connection {
    pub running: RunningService<RoleClient, Handler>,
    pub child: Option<Child>,
    /// The stdio child's group guard (disarmed): its sandbox's pids cgroup.
    pub guard: Option<zut_process::GroupGuard>,
    /// Whether the session was jailed when it started (for servers whose
    /// confinement follows the session: restarted when that changes).
    pub jailed_at_start: bool,
}

impl Connection {
    /// A connection to a remote (HTTP or SSE) server: no child, never jailed.
    fn remote(running: RunningService<RoleClient, Handler>) -> Self {
        Self {
            running,
            child: None,
            guard: None,
            jailed_at_start: false,
        }
    }
}

/// The error of a remote server that wants an OAuth login first.
fn needs_login(url: &str, slot: &Slot) -> ConnectError {
    ConnectError::NeedsLogin(format!(
        "{url} requires authorization: run `zut mcp login {}`",
        slot.config.name
    ))
}

/// Why a connection could not be opened.
pub(crate) enum ConnectError {
    /// The server wants OAuth: `zut mcp login`.
    NeedsLogin(String),
    /// Anything else (retried with backoff).
    Failed(String),
}

pub(crate) struct ConnectCtx<'a> {
    pub slot: &'a Arc<Slot>,
    pub project: &'a std::path::Path,
    pub home: &'a std::path::Path,
    pub env: &'a (dyn Fn(&str) -> Option<String> + Send + Sync),
    /// The session's jail switch.
    pub jail: &'a zut_tools::JailSwitch,
    /// Whether (and who) answers elicitations.
    pub elicitation: &'a crate::elicit::Elicitation,
}

pub(crate) async fn connect(cx: &ConnectCtx<'_>) -> Result<Connection, ConnectError> {
    let slot = cx.slot;
    let transport = slot
        .config
        .transport
        .expanded(cx.env)
        .map_err(|e| ConnectError::Failed(format!("configuration: {e}")))?;
    let handler = Handler {
        slot: Arc::downgrade(slot),
        project: cx.project.to_path_buf(),
        home: cx.home.to_path_buf(),
        elicitation: cx.elicitation.clone(),
        urls: Default::default(),
    };
    match transport {
        TransportConfig::Stdio { command, args, env } => {
            let started = crate::launch::start_stdio(crate::launch::StdioStart {
                config: slot.config.clone(),
                command,
                args,
                env,
                home: cx.home.to_path_buf(),
                project: cx.project.to_path_buf(),
                jail: cx.jail.clone(),
            })
            .await
            .map_err(ConnectError::Failed)?;
            let crate::launch::Started {
                mut child,
                guard,
                confined,
                jailed_at_start,
            } = started;
            slot.set_confined(Some(confined));
            if let Some(pid) = child.id() {
                slot.pgid.store(pid, std::sync::atomic::Ordering::Relaxed);
            }
            let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
                return Err(ConnectError::Failed("no stdio pipes".into()));
            };
            match handler.serve((stdout, stdin)).await {
                Ok(running) => Ok(Connection {
                    running,
                    child: Some(child),
                    guard: Some(guard),
                    jailed_at_start,
                }),
                Err(e) => {
                    let exit = match tokio::time::timeout(
                        std::time::Duration::from_millis(200),
                        child.wait(),
                    )
                    .await
                    {
                        Ok(Ok(status)) => format!(" ({})", crate::launch::describe_exit(status)),
                        _ => String::new(),
                    };
                    crate::launch::stop(&mut child, std::time::Duration::from_millis(100)).await;
                    guard.kill_stragglers();
                    let jailed = if confined == "unconfined" {
                        String::new()
                    } else {
                        format!(" (it ran {confined}: see docs/mcp.md, Sandbox)")
                    };
                    Err(ConnectError::Failed(format!(
                        "initialize failed: {e}{exit}{jailed}; see {}",
                        slot.log.display()
                    )))
                }
            }
        }
        TransportConfig::Http { url, headers } => {
            let auth = crate::oauth::bearer_for(cx.home, &slot.config.name, &url).await;
            let client = http_client(&headers)?;
            let mut config = StreamableHttpClientTransportConfig::with_uri(url.clone());
            if let Some(token) = auth {
                config = config.auth_header(token);
            }
            let transport = StreamableHttpClientTransport::with_client(client, config);
            match handler.serve(transport).await {
                Ok(running) => Ok(Connection::remote(running)),
                Err(e) if e.is_authorization_required() || e.auth_challenge().is_some() => {
                    Err(needs_login(&url, slot))
                }
                Err(e) => Err(ConnectError::Failed(format!("{url}: {e}"))),
            }
        }
        TransportConfig::Sse { url, headers } => {
            let auth = crate::oauth::bearer_for(cx.home, &slot.config.name, &url).await;
            let client = http_client(&headers)?;
            let transport = crate::sse::SseTransport::connect(client, &url, auth)
                .await
                .map_err(|e| match e {
                    crate::sse::SseError::Unauthorized => needs_login(&url, slot),
                    other => ConnectError::Failed(format!("{url}: {other}")),
                })?;
            match handler.serve(transport).await {
                Ok(running) => Ok(Connection::remote(running)),
                Err(e) => Err(ConnectError::Failed(format!("{url}: {e}"))),
            }
        }
    }
}

/// A reqwest client with the configured headers on every request.
pub(crate) fn http_client(
    headers: &BTreeMap<String, String>,
) -> Result<reqwest::Client, ConnectError> {
    crate::tls::install_provider();
    let mut map = reqwest::header::HeaderMap::new();
    for (k, v) in headers {
        let name = reqwest::header::HeaderName::from_bytes(k.as_bytes())
            .map_err(|e| ConnectError::Failed(format!("header {k}: {e}")))?;
        let value = reqwest::header::HeaderValue::from_str(v)
            .map_err(|e| ConnectError::Failed(format!("header {k}: {e}")))?;
        map.insert(name, value);
    }
    reqwest::Client::builder()
        .default_headers(map)
        .build()
        .map_err(|e| ConnectError::Failed(format!("HTTP client: {e}")))
}
