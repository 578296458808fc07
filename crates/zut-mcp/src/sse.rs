//! The legacy HTTP+SSE transport (protocol 2024-11-05, `type: "sse"`):
//! a GET opens an event stream whose first `endpoint` event names the URL
//! messages are POSTed to; replies arrive as `message` events.

use std::sync::Arc;

use futures::StreamExt;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleClient;
use tokio::sync::mpsc;

/// Largest event accepted (larger ones are dropped and logged).
const MAX_EVENT: usize = 16 * 1024 * 1024;

/// Failures of the legacy transport.
#[derive(Debug, thiserror::Error)]
pub enum SseError {
    /// HTTP 401.
    #[error("HTTP 401: authorization required")]
    Unauthorized,
    /// Another HTTP status.
    #[error("HTTP {0}")]
    Status(u16),
    /// The response is not an event stream (e.g. an HTML page).
    #[error("the response is not an event stream (content type {0:?})")]
    NotEventStream(String),
    /// The stream ended before the `endpoint` event.
    #[error("the event stream ended before its `endpoint` event")]
    NoEndpoint,
    /// The endpoint URL is invalid.
    #[error("invalid endpoint: {0}")]
    BadEndpoint(String),
    /// Network errors.
    #[error("{0}")]
    Http(#[from] reqwest::Error),
}

/// An open legacy SSE connection.
pub struct SseTransport {
    client: reqwest::Client,
    endpoint: Arc<str>,
    auth: Option<String>,
    rx: mpsc::Receiver<RxJsonRpcMessage<RoleClient>>,
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl SseTransport {
    /// Opens the event stream and waits for the `endpoint` event.
    pub async fn connect(
        client: reqwest::Client,
        url: &str,
        auth: Option<String>,
    ) -> Result<Self, SseError> {
        let base = url::Url::parse(url).map_err(|e| SseError::BadEndpoint(e.to_string()))?;
        let mut req = client
            .get(url)
            .header(reqwest::header::ACCEPT, "text/event-stream");
        if let Some(t) = &auth {
            req = req.bearer_auth(t);
        }
        let resp = req.send().await?;
        match resp.status().as_u16() {
            401 => return Err(SseError::Unauthorized),
            s if !(200..300).contains(&s) => return Err(SseError::Status(s)),
            _ => {}
        }
        let ctype = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        if !ctype.starts_with("text/event-stream") {
            return Err(SseError::NotEventStream(ctype));
        }
        let mut events = sse_stream::SseStream::from_bytes_stream(resp.bytes_stream());
        let endpoint = loop {
            match events.next().await {
                Some(Ok(ev)) if ev.event.as_deref() == Some("endpoint") => {
                    let data = ev.data.unwrap_or_default();
                    break base
                        .join(data.trim())
                        .map_err(|e| SseError::BadEndpoint(format!("{data}: {e}")))?;
                }
                Some(Ok(_)) => continue,
                _ => return Err(SseError::NoEndpoint),
            }
        };
        let (tx, rx) = mpsc::channel(64);
        let reader = tokio::spawn(async move {
            while let Some(Ok(ev)) = events.next().await {
                if !matches!(ev.event.as_deref(), None | Some("message")) {
                    continue;
                }
                let Some(data) = ev.data else { continue };
                if data.len() > MAX_EVENT {
                    tracing::warn!("mcp sse: dropped a {} byte event", data.len());
                    continue;
                }
                match serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(&data) {
                    Ok(msg) => {
                        if tx.send(msg).await.is_err() {
                            break;
                        }
                    }
                    Err(e) => tracing::debug!("mcp sse: ignored an unparsable event: {e}"),
                }
            }
        });
        Ok(Self {
            client,
            endpoint: endpoint.as_str().into(),
            auth,
            rx,
            reader,
        })
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseError;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let client = self.client.clone();
        let endpoint = self.endpoint.clone();
        let auth = self.auth.clone();
        async move {
            let mut req = client.post(&*endpoint).json(&item);
            if let Some(t) = &auth {
                req = req.bearer_auth(t);
            }
            let resp = req.send().await?;
            match resp.status().as_u16() {
                401 => Err(SseError::Unauthorized),
                s if !(200..300).contains(&s) => Err(SseError::Status(s)),
                _ => Ok(()),
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        self.rx.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.reader.abort();
        Ok(())
    }
}
