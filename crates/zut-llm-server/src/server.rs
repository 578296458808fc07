//! The HTTP server: accept loop, request recording, script playback.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::body::ChannelBody;
use crate::script::{Body, Script};

/// One request the server received.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// HTTP method.
    pub method: String,
    /// Path (and query).
    pub path: String,
    /// Headers, names lowercased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// Body parsed as JSON (`Value::Null` when it is not JSON).
    pub body: Value,
    /// Raw body text.
    pub raw_body: String,
}

impl RecordedRequest {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
}

struct State {
    scripts: VecDeque<Arc<Script>>,
    requests: Vec<RecordedRequest>,
    /// Requests received, recorded or not.
    received: usize,
    record: bool,
    cycle: bool,
}

impl Default for State {
    fn default() -> Self {
        Self {
            scripts: VecDeque::new(),
            requests: Vec::new(),
            received: 0,
            record: true,
            cycle: false,
        }
    }
}

struct Shared {
    state: Mutex<State>,
    shutdown: CancellationToken,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A poisoned lock only means a test thread panicked; the data is still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A running scripted server; stopped when dropped.
pub struct LlmServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl LlmServer {
    /// Bind `127.0.0.1:0` and start serving on the current tokio runtime.
    pub async fn start() -> std::io::Result<LlmServer> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            shutdown: CancellationToken::new(),
        });
        tokio::spawn(accept_loop(listener, shared.clone()));
        Ok(LlmServer { addr, shared })
    }

    /// Base URL, `http://127.0.0.1:<port>` (Anthropic clients post to `/v1/messages` under it).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Base URL for OpenAI-compatible clients, `http://127.0.0.1:<port>/v1`.
    pub fn openai_base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Queue a script; scripts answer requests in push order.
    pub fn push(&self, script: Script) {
        self.shared.lock().scripts.push_back(Arc::new(script));
    }

    /// When on, a consumed script is queued again at the back (for benchmarks
    /// that send many requests).
    pub fn set_cycle(&self, on: bool) {
        self.shared.lock().cycle = on;
    }

    /// When off, requests are only counted ([`LlmServer::request_count`]),
    /// not recorded: a long benchmark run then keeps no memory per request.
    /// On by default.
    pub fn set_record(&self, on: bool) {
        self.shared.lock().record = on;
    }

    /// Every request recorded so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock().requests.clone()
    }

    /// The recorded requests from index `start` on (cheaper than
    /// [`LlmServer::requests`] for polling).
    pub fn requests_since(&self, start: usize) -> Vec<RecordedRequest> {
        let state = self.shared.lock();
        state.requests.get(start..).unwrap_or_default().to_vec()
    }

    /// Number of requests received so far, recorded or not.
    pub fn request_count(&self) -> usize {
        self.shared.lock().received
    }

    /// Number of scripts not yet consumed.
    pub fn pending(&self) -> usize {
        self.shared.lock().scripts.len()
    }
}

impl Drop for LlmServer {
    fn drop(&mut self) {
        self.shared.shutdown.cancel();
    }
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let accepted = tokio::select! {
            _ = shared.shutdown.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let Ok((stream, _)) = accepted else {
            continue;
        };
        // Frames are small writes: with Nagle's algorithm on, a write while
        // the previous one is unacknowledged waits for the client's delayed
        // ACK (up to 40 ms on Linux) on a kept-alive connection.
        let _ = stream.set_nodelay(true);
        let shared = shared.clone();
        tokio::spawn(async move {
            let service = service_fn(|req| handle(req, shared.clone()));
            let conn = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                _ = shared.shutdown.cancelled() => {}
                _ = conn => {}
            }
        });
    }
}

async fn handle(
    req: Request<Incoming>,
    shared: Arc<Shared>,
) -> Result<Response<ChannelBody>, Infallible> {
    let method = req.method().to_string();
    let path = req
        .uri()
        .path_and_query()
        .map(|p| p.to_string())
        .unwrap_or_default();
    let headers = req
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_ascii_lowercase(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let raw = match req.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => Bytes::new(),
    };
    let raw_body = String::from_utf8_lossy(&raw).into_owned();
    let body: Value = serde_json::from_str(&raw_body).unwrap_or(Value::Null);
    let include_usage = body
        .pointer("/stream_options/include_usage")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let script = {
        let mut state = shared.lock();
        state.received += 1;
        if state.record {
            state.requests.push(RecordedRequest {
                method,
                path,
                headers,
                body,
                raw_body: raw_body.clone(),
            });
        }
        // The first queued script whose `when`/`unless` accept this body
        // (scripts without them accept any).
        let script = state
            .scripts
            .iter()
            .position(|s| s.matches(&raw_body))
            .and_then(|i| state.scripts.remove(i));
        if let (Some(script), true) = (&script, state.cycle) {
            state.scripts.push_back(script.clone());
        }
        script
    };
    let script = script.unwrap_or_else(|| {
        Arc::new(Script::status(500).message("zut-llm-server: no script queued for this request"))
    });
    Ok(respond(&script, include_usage, shared.shutdown.clone()).await)
}

async fn respond(
    script: &Script,
    include_usage: bool,
    shutdown: CancellationToken,
) -> Response<ChannelBody> {
    if let Some(ms) = script.delay_ms {
        tokio::select! {
            _ = shutdown.cancelled() => {}
            _ = tokio::time::sleep(Duration::from_millis(ms)) => {}
        }
    }
    let frames = crate::render::wire_frames(script, include_usage);
    let content_type = match &script.body {
        Body::Error { .. } | Body::Json { .. } => "application/json",
        Body::EventStream { .. }
        | Body::Reply {
            format: crate::script::Format::Bedrock,
            ..
        } => "application/vnd.amazon.eventstream",
        _ => "text/event-stream",
    };
    let (tx, rx) = mpsc::channel(16);
    let hang_before_headers = script.hang_after == Some(0);
    let mut builder = Response::builder()
        .status(script.status)
        .header("content-type", content_type)
        .header("cache-control", "no-cache");
    for (name, value) in &script.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    if hang_before_headers {
        // Never answer: wait until the client disconnects or the server stops.
        shutdown.cancelled().await;
    }
    let knobs = Knobs {
        cut_after: script.cut_after,
        hang_after: script.hang_after,
        chunk_bytes: script.chunk_bytes,
        event_delay_ms: script.event_delay_ms,
    };
    tokio::spawn(feed(knobs, frames, tx, shutdown));
    match builder.body(ChannelBody { rx }) {
        Ok(response) => response,
        Err(_) => {
            let (_tx, rx) = mpsc::channel(1);
            let mut response = Response::new(ChannelBody { rx });
            *response.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
            response
        }
    }
}

/// The playback knobs of a script ([`feed`] runs on its own task).
struct Knobs {
    cut_after: Option<usize>,
    hang_after: Option<usize>,
    chunk_bytes: Option<usize>,
    event_delay_ms: Option<u64>,
}

async fn feed(
    script: Knobs,
    frames: Vec<Bytes>,
    tx: mpsc::Sender<Result<Bytes, std::io::Error>>,
    shutdown: CancellationToken,
) {
    let limit = match (script.cut_after, script.hang_after) {
        (Some(c), Some(h)) => c.min(h),
        (Some(c), None) => c,
        (None, Some(h)) => h,
        (None, None) => usize::MAX,
    };
    let sent: Vec<Bytes> = frames.into_iter().take(limit).collect();
    let pause = script.event_delay_ms.map(Duration::from_millis);
    let chunks: Vec<Bytes> = match script.chunk_bytes {
        Some(n) => {
            let all = Bytes::from(sent.concat());
            (0..all.len())
                .step_by(n)
                .map(|i| all.slice(i..(i + n).min(all.len())))
                .collect()
        }
        None => sent,
    };
    for chunk in chunks {
        if let Some(pause) = pause {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = tokio::time::sleep(pause) => {}
            }
        }
        if tx.send(Ok(chunk)).await.is_err() {
            return;
        }
    }
    let hang = script
        .hang_after
        .is_some_and(|h| h <= script.cut_after.unwrap_or(usize::MAX));
    if hang {
        tokio::select! {
            _ = shutdown.cancelled() => {}
            _ = tx.closed() => {}
        }
    } else if script.cut_after.is_some() {
        // Let hyper take and flush every frame first: an error aborts the
        // connection and drops whatever is still buffered, so cutting right
        // away could lose frames the script promised to deliver.
        let drained = async {
            while tx.capacity() < tx.max_capacity() {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        };
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tx.closed() => return,
            _ = drained => {}
        }
        let _ = tx
            .send(Err(std::io::Error::new(
                std::io::ErrorKind::ConnectionAborted,
                "zut-llm-server: stream cut by script",
            )))
            .await;
    }
}
