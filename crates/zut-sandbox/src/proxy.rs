//! The domain allow-list proxy: an HTTP proxy on 127.0.0.1 that a confined
//! process is pointed at (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`) and
//! that is the only address it may reach (Landlock lets it connect to the
//! proxy's port only).
//!
//! It understands `CONNECT host:port` (HTTPS and any TLS: the bytes are
//! relayed, never decrypted) and absolute-form requests
//! (`GET http://host/path`, forwarded in origin form with
//! `Connection: close`, one request per connection). A host outside the
//! allow-list gets `403` with a body naming the refusal and the rule, and
//! is remembered for [`Proxy::take_denials`] so the caller can tell the
//! model.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Largest request head accepted.
const MAX_HEAD: usize = 64 * 1024;

/// A running proxy; stops when dropped.
pub struct Proxy {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
    denials: Arc<Mutex<Vec<String>>>,
}

/// Who may be reached and who to name in refusals.
#[derive(Debug, Clone)]
pub struct AllowList {
    /// Exact hosts, or `*.example.com` for its subdomains.
    pub domains: Vec<String>,
    /// The policy's name, for refusals (`the jail`).
    pub policy: String,
}

impl AllowList {
    /// Whether `host` is allowed.
    pub fn allows(&self, host: &str) -> bool {
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim_end_matches('.')
            .to_ascii_lowercase();
        self.domains.iter().any(|d| {
            let d = d.trim().to_ascii_lowercase();
            match d.strip_prefix("*.") {
                Some(suffix) => {
                    host.len() > suffix.len() + 1 && host.ends_with(&format!(".{suffix}"))
                }
                None => host == d,
            }
        })
    }

    fn refusal(&self, what: &str) -> String {
        format!(
            "connection to {what} denied by {} (allowed domains: {})",
            self.policy,
            if self.domains.is_empty() {
                "none".to_string()
            } else {
                self.domains.join(", ")
            }
        )
    }
}

impl Proxy {
    /// Binds 127.0.0.1 on a free port and serves on the current tokio
    /// runtime.
    pub fn start(allow: AllowList) -> std::io::Result<Proxy> {
        let std_listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        std_listener.set_nonblocking(true)?;
        let addr = std_listener.local_addr()?;
        let handle = tokio::runtime::Handle::try_current()
            .map_err(|e| std::io::Error::other(format!("the proxy needs a tokio runtime: {e}")))?;
        let denials = Arc::new(Mutex::new(Vec::new()));
        let allow = Arc::new(allow);
        let d2 = Arc::clone(&denials);
        let task = handle.spawn(async move {
            let listener = match TcpListener::from_std(std_listener) {
                Ok(l) => l,
                Err(e) => {
                    tracing::warn!(error = %e, "sandbox proxy: cannot listen");
                    return;
                }
            };
            loop {
                let Ok((conn, _)) = listener.accept().await else {
                    continue;
                };
                let allow = Arc::clone(&allow);
                let denials = Arc::clone(&d2);
                tokio::spawn(async move {
                    if let Err(e) = serve(conn, &allow, &denials).await {
                        tracing::debug!(error = %e, "sandbox proxy connection");
                    }
                });
            }
        });
        Ok(Proxy {
            addr,
            task,
            denials,
        })
    }

    /// The proxy's address (127.0.0.1:port).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The refusals since the last call, as texts naming host and rule.
    pub fn take_denials(&self) -> Vec<String> {
        self.denials
            .lock()
            .map(|mut d| std::mem::take(&mut *d))
            .unwrap_or_default()
    }

    /// The environment that points a child at the proxy.
    pub fn env(&self) -> Vec<(String, String)> {
        let url = format!("http://{}", self.addr);
        let mut out = Vec::new();
        for k in [
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "ALL_PROXY",
            "http_proxy",
            "https_proxy",
            "all_proxy",
        ] {
            out.push((k.to_string(), url.clone()));
        }
        for k in ["NO_PROXY", "no_proxy"] {
            out.push((k.to_string(), String::new()));
        }
        out
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One request head: method, target, version, header lines, and the bytes
/// read past the head.
struct Head {
    method: String,
    target: String,
    version: String,
    headers: Vec<(String, String)>,
    rest: Vec<u8>,
}

async fn read_head(conn: &mut TcpStream) -> std::io::Result<Option<Head>> {
    let mut buf: Vec<u8> = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    let end = loop {
        let n = conn.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        let from = buf.len().saturating_sub(3);
        buf.extend_from_slice(&chunk[..n]);
        if let Some(pos) = buf[from..].windows(4).position(|w| w == b"\r\n\r\n") {
            break from + pos + 4;
        }
        if buf.len() > MAX_HEAD {
            return Ok(None);
        }
    };
    let rest = buf.split_off(end);
    let text = String::from_utf8_lossy(&buf);
    let mut lines = text.split("\r\n");
    let first = lines.next().unwrap_or_default();
    let mut words = first.split(' ');
    let (Some(method), Some(target), Some(version)) = (words.next(), words.next(), words.next())
    else {
        return Ok(None);
    };
    let headers = lines
        .filter(|l| !l.is_empty())
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    Ok(Some(Head {
        method: method.to_string(),
        target: target.to_string(),
        version: version.to_string(),
        headers,
        rest,
    }))
}

async fn respond(conn: &mut TcpStream, status: &str, body: &str) -> std::io::Result<()> {
    let text = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    conn.write_all(text.as_bytes()).await?;
    conn.shutdown().await
}

/// `host` and port of `authority` (`host:port`, `[v6]:port`, `host`).
fn split_authority(authority: &str, default_port: u16) -> Option<(String, u16)> {
    if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(p) => p.parse().ok()?,
            None => default_port,
        };
        return Some((host.to_string(), port));
    }
    match authority.rsplit_once(':') {
        Some((h, p)) => Some((h.to_string(), p.parse().ok()?)),
        None => Some((authority.to_string(), default_port)),
    }
}

async fn serve(
    mut conn: TcpStream,
    allow: &AllowList,
    denials: &Mutex<Vec<String>>,
) -> std::io::Result<()> {
    let _ = conn.set_nodelay(true);
    let Some(head) = read_head(&mut conn).await? else {
        return respond(
            &mut conn,
            "400 Bad Request",
            "zut sandbox proxy: bad request\n",
        )
        .await;
    };
    let (host, port, forward) = if head.method.eq_ignore_ascii_case("CONNECT") {
        match split_authority(&head.target, 443) {
            Some((h, p)) => (h, p, None),
            None => return respond(&mut conn, "400 Bad Request", "bad CONNECT target\n").await,
        }
    } else if let Some(rest) = head.target.strip_prefix("http://") {
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        match split_authority(authority, 80) {
            Some((h, p)) => (h, p, Some(path.to_string())),
            None => return respond(&mut conn, "400 Bad Request", "bad request target\n").await,
        }
    } else {
        return respond(
            &mut conn,
            "400 Bad Request",
            "zut sandbox proxy: only CONNECT and absolute http:// requests are proxied\n",
        )
        .await;
    };
    if !allow.allows(&host) {
        let text = allow.refusal(&format!("{host}:{port}"));
        if let Ok(mut d) = denials.lock() {
            if d.len() < 100 {
                d.push(text.clone());
            }
        }
        return respond(
            &mut conn,
            "403 Forbidden",
            &format!("zut sandbox: {text}\n"),
        )
        .await;
    }
    let mut upstream = match TcpStream::connect((host.as_str(), port)).await {
        Ok(u) => u,
        Err(e) => {
            return respond(
                &mut conn,
                "502 Bad Gateway",
                &format!("zut sandbox proxy: cannot connect to {host}:{port}: {e}\n"),
            )
            .await
        }
    };
    let _ = upstream.set_nodelay(true);
    match forward {
        None => {
            conn.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                .await?;
        }
        Some(path) => {
            let mut out = format!("{} {} {}\r\n", head.method, path, head.version);
            for (k, v) in &head.headers {
                let lower = k.to_ascii_lowercase();
                if lower == "proxy-connection"
                    || lower == "proxy-authorization"
                    || lower == "connection"
                {
                    continue;
                }
                out.push_str(&format!("{k}: {v}\r\n"));
            }
            out.push_str("Connection: close\r\n\r\n");
            upstream.write_all(out.as_bytes()).await?;
        }
    }
    if !head.rest.is_empty() {
        upstream.write_all(&head.rest).await?;
    }
    tokio::io::copy_bidirectional(&mut conn, &mut upstream).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_list_matching() {
        let a = AllowList {
            domains: vec!["pypi.org".into(), "*.example.com".into()],
            policy: "the jail".into(),
        };
        assert!(a.allows("pypi.org"));
        assert!(a.allows("PyPI.org."));
        assert!(!a.allows("evil-pypi.org"));
        assert!(!a.allows("pypi.org.evil.com"));
        assert!(a.allows("api.example.com"));
        assert!(!a.allows("example.com"));
        assert!(!a.allows("badexample.com"));
    }

    #[test]
    fn authority_parsing() {
        assert_eq!(
            split_authority("a.com:8443", 443),
            Some(("a.com".into(), 8443))
        );
        assert_eq!(split_authority("a.com", 80), Some(("a.com".into(), 80)));
        assert_eq!(split_authority("[::1]:9", 80), Some(("::1".into(), 9)));
        assert_eq!(split_authority("a.com:x", 80), None);
    }
}
