//! Remote servers over HTTP against a local Python server: 401 (login
//! offered), 404, HTML, a stream dropped mid-call, and OAuth 2.1 (dynamic
//! registration, PKCE, loopback redirect or pasted URL, refresh).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::BufRead;
use std::path::PathBuf;
use std::time::Duration;

use common::*;
use serde_json::json;
use tokio_util::sync::CancellationToken;
use zut_mcp::oauth::LoginIo;
use zut_mcp::oauth_store::AuthFile;
use zut_mcp::{McpSettings, ServerStatus};

struct HttpServer {
    child: std::process::Child,
    port: u16,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn http_server() -> HttpServer {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/http_servers.py");
    let mut child = std::process::Command::new("python3")
        .arg(script)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    HttpServer {
        port: line.trim().parse().unwrap(),
        child,
    }
}

fn url(s: &HttpServer, path: &str) -> String {
    format!("http://127.0.0.1:{}{path}", s.port)
}

fn failed(s: &ServerStatus) -> bool {
    matches!(s, ServerStatus::Failed(_) | ServerStatus::NeedsLogin(_))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_faults() {
    if !have("python3", "python3") {
        return;
    }
    let srv = http_server();
    let d = Dirs::new(json!({
        "four01": {"type": "http", "url": url(&srv, "/401")},
        "four04": {"type": "http", "url": url(&srv, "/404")},
        "html": {"type": "http", "url": url(&srv, "/html")},
        "drop": {"type": "http", "url": url(&srv, "/drop")},
        "sse404": {"type": "sse", "url": url(&srv, "/404")},
        "ssehtml": {"type": "sse", "url": url(&srv, "/html")}
    }));
    let settings = McpSettings {
        tool_timeout: Duration::from_secs(5),
        startup_timeout: Duration::from_secs(5),
        ..Default::default()
    };
    let mgr = d.start(settings);
    let st = wait_status(&mgr, "four01", failed).await;
    assert!(
        matches!(&st, ServerStatus::NeedsLogin(r) if r.contains("zut mcp login four01")),
        "{st:?}"
    );
    let st = wait_status(&mgr, "four04", failed).await;
    assert!(format!("{st:?}").contains("404"), "{st:?}");
    let st = wait_status(&mgr, "html", failed).await;
    assert!(matches!(st, ServerStatus::Failed(_)), "{st:?}");
    let st = wait_status(&mgr, "sse404", failed).await;
    assert!(format!("{st:?}").contains("HTTP 404"), "{st:?}");
    let st = wait_status(&mgr, "ssehtml", failed).await;
    assert!(format!("{st:?}").contains("not an event stream"), "{st:?}");
    ready(&mgr, "drop").await;
    let r = mgr
        .call_tool(
            "mcp__drop__echo",
            json!({}),
            &CancellationToken::new(),
            None,
        )
        .await;
    assert!(r.is_error, "{r:?}");
    mgr.shutdown().await;
}

/// Follows the authorization URL like a browser would, up to the redirect
/// to zut's loopback listener; returns that redirect URL.
fn authorize(auth_url: &str) -> String {
    reqwest::blocking_free_get(auth_url)
}

mod reqwest {
    /// A tiny HTTP/1.1 GET (no redirects) returning the Location header.
    pub fn blocking_free_get(url: &str) -> String {
        use std::io::{Read, Write};
        let rest = url.strip_prefix("http://").unwrap();
        let (host, path) = rest.split_once('/').unwrap();
        let mut s = std::net::TcpStream::connect(host).unwrap();
        write!(
            s,
            "GET /{path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n\r\n"
        )
        .unwrap();
        let mut resp = String::new();
        s.read_to_string(&mut resp).unwrap();
        resp.lines()
            .find_map(|l| {
                l.strip_prefix("location: ")
                    .or_else(|| l.strip_prefix("Location: "))
            })
            .unwrap_or_else(|| panic!("no redirect: {resp}"))
            .trim()
            .to_string()
    }

    /// GET `url` and return the status line.
    pub fn get_status(url: &str) -> String {
        use std::io::{Read, Write};
        let rest = url.strip_prefix("http://").unwrap();
        let (host, path) = rest.split_once('/').unwrap();
        let mut s = std::net::TcpStream::connect(host).unwrap();
        write!(
            s,
            "GET /{path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n\r\n"
        )
        .unwrap();
        let mut resp = String::new();
        s.read_to_string(&mut resp).unwrap();
        resp.lines().next().unwrap_or("").to_string()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oauth_login_loopback_paste_and_refresh() {
    if !have("python3", "python3") {
        return;
    }
    let srv = http_server();
    let mcp_url = url(&srv, "/mcp");
    let d = Dirs::new(json!({"secure": {"type": "http", "url": mcp_url}}));
    let home = d.home.path().to_path_buf();
    let mgr = d.start(McpSettings::default());
    let st = wait_status(&mgr, "secure", failed).await;
    assert!(matches!(st, ServerStatus::NeedsLogin(_)), "{st:?}");

    // 1. The browser reaches the loopback listener.
    let io = LoginIo {
        show_url: Box::new(|auth_url: &str| {
            let auth_url = auth_url.to_string();
            std::thread::spawn(move || {
                let redirect = authorize(&auth_url);
                assert!(redirect.starts_with("http://127.0.0.1:"), "{redirect}");
                let status = reqwest::get_status(&redirect);
                assert!(status.contains("200"), "{status}");
            });
        }),
        pasted: None,
    };
    zut_mcp::oauth::login(&home, "secure", &mcp_url, Default::default(), io)
        .await
        .unwrap();
    let file = AuthFile::load(&home);
    let entry = &file.servers["secure"];
    assert!(
        entry.client_id.starts_with("client-"),
        "dynamic registration: {}",
        entry.client_id
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(home.join("mcp-auth.json"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    assert!(mgr.reconnect("secure"));
    ready(&mgr, "secure").await;
    let r = mgr
        .call_tool(
            "mcp__secure__whoami",
            json!({}),
            &CancellationToken::new(),
            None,
        )
        .await;
    assert_eq!(r.text(), "tok-1");

    // 2. No browser here: the redirect URL is pasted.
    let (tx, rx) = tokio::sync::mpsc::channel(1);
    let io = LoginIo {
        show_url: Box::new(move |auth_url: &str| {
            let auth_url = auth_url.to_string();
            let tx = tx.clone();
            std::thread::spawn(move || {
                let redirect = authorize(&auth_url);
                tx.blocking_send(redirect).unwrap();
            });
        }),
        pasted: Some(rx),
    };
    zut_mcp::oauth::login(&home, "secure", &mcp_url, Default::default(), io)
        .await
        .unwrap();
    assert_eq!(
        zut_mcp::oauth::bearer_for(&home, "secure", &mcp_url)
            .await
            .as_deref(),
        Some("tok-2")
    );

    // 3. An expired token is refreshed with the refresh token.
    let mut file = AuthFile::load(&home);
    let creds = &mut file.servers.get_mut("secure").unwrap().credentials;
    creds["token_received_at"] = json!(1_000);
    file.save(&home).unwrap();
    assert_eq!(
        zut_mcp::oauth::bearer_for(&home, "secure", &mcp_url)
            .await
            .as_deref(),
        Some("tok-3")
    );
    mgr.shutdown().await;
}
