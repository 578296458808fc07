//! Network `none`, and a domain allow-list through the proxy.

use std::io::{Read, Write};
use std::net::TcpListener;

use zut_sandbox::Network;

use crate::env::*;

/// A tiny HTTP server on 127.0.0.1 answering `ok <path>` to each request,
/// counting connections.
fn http_server() -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let h = hits.clone();
    std::thread::spawn(move || {
        for conn in l.incoming().flatten() {
            h.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut c = conn;
            let mut buf = [0u8; 4096];
            let n = c.read(&mut buf).unwrap_or(0);
            let req = String::from_utf8_lossy(&buf[..n]).to_string();
            let path = req.split(' ').nth(1).unwrap_or("?").to_string();
            let body = format!("ok {path}\n");
            let _ = write!(
                c,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (port, hits)
}

#[tokio::test]
async fn network_none_reaches_nothing_not_even_loopback() {
    if !supported() {
        return;
    }
    let env = Env::new();
    let (port, hits) = http_server();
    let (_, text) = bash(
        &env.ctx(),
        &format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo CONNECTED; curl -sS -m 3 http://example.com/ 2>&1 || true"),
    )
    .await;
    assert!(!text.contains("CONNECTED"), "{text}");
    assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 0, "{text}");
    assert!(
        text.contains("network access denied by the jail (network: none)"),
        "{text}"
    );
}

#[tokio::test]
async fn domain_allow_list_goes_through_the_proxy_only() {
    if !supported() {
        return;
    }
    let env = Env::new();
    let (port, hits) = http_server();
    let ctx = env.ctx_with(env.policy(Network::Domains(vec!["127.0.0.1".into()])));
    // Allowed host through the proxy: works.
    let (_, text) = bash(
        &ctx,
        &format!("curl -sS -m 5 http://127.0.0.1:{port}/allowed"),
    )
    .await;
    assert!(text.contains("ok /allowed"), "{text}");
    assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 1);
    // Another host through the proxy: 403 and the refusal named.
    let (_, text) = bash(
        &ctx,
        "curl -sS -m 5 http://example.org/ ; curl -sS -m 5 https://example.org/ 2>&1",
    )
    .await;
    assert!(
        text.contains(
            "connection to example.org:80 denied by the jail (allowed domains: 127.0.0.1)"
        ),
        "{text}"
    );
    assert!(
        text.contains("example.org:443"),
        "CONNECT refused too: {text}"
    );
    // Around the proxy: a direct connection to the (allowed!) host's port
    // is refused by the kernel.
    let (_, text) = bash(
        &ctx,
        &format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo CONNECTED; curl -sS -m 3 --noproxy '*' http://127.0.0.1:{port}/direct"),
    )
    .await;
    assert!(
        !text.contains("CONNECTED") && !text.contains("ok /direct"),
        "{text}"
    );
    assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 1, "{text}");
}
