//! The allow-list proxy: per-request overhead (median of 500 sequential
//! HTTP requests, each on a new connection, direct against through the
//! proxy) and resident memory with 200 concurrent CONNECT tunnels open.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use zut_sandbox::proxy::{AllowList, Proxy};

const N: usize = 500;
const CONNS: usize = 200;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

async fn server() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = l.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((mut c, _)) = l.accept().await else {
                continue;
            };
            tokio::spawn(async move {
                let mut buf = [0u8; 2048];
                let mut got = Vec::new();
                loop {
                    let n = c.read(&mut buf).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    got.extend_from_slice(&buf[..n]);
                    if got.windows(4).any(|w| w == b"\r\n\r\n") {
                        break;
                    }
                }
                let _ = c
                    .write_all(
                        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
                    )
                    .await;
                // `/hold` (sent through a tunnel) stays open until the
                // client closes; other requests end here.
                if got.windows(5).any(|w| w == b"/hold") {
                    let _ = c.read(&mut buf).await;
                }
            });
        }
    });
    port
}

async fn request(addr: &str, target: &str) -> Duration {
    let t = Instant::now();
    let mut c = TcpStream::connect(addr).await.unwrap();
    c.set_nodelay(true).unwrap();
    c.write_all(format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut out = Vec::new();
    c.read_to_end(&mut out).await.unwrap();
    assert!(out.ends_with(b"ok"), "{}", String::from_utf8_lossy(&out));
    t.elapsed()
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let port = server().await;
        let proxy = Proxy::start(AllowList {
            domains: vec!["127.0.0.1".into()],
            policy: "bench".into(),
        })
        .unwrap();
        let direct_addr = format!("127.0.0.1:{port}");
        let proxy_addr = proxy.addr().to_string();
        let url = format!("http://127.0.0.1:{port}/x");
        for _ in 0..50 {
            request(&direct_addr, "/x").await;
            request(&proxy_addr, &url).await;
        }
        let mut direct = Vec::new();
        let mut proxied = Vec::new();
        for _ in 0..N {
            direct.push(request(&direct_addr, "/x").await);
            proxied.push(request(&proxy_addr, &url).await);
        }
        let (a, b) = (median(direct), median(proxied));
        println!("HTTP request, direct:        median {:.3} ms over {N}", a.as_secs_f64() * 1e3);
        println!("HTTP request, through proxy: median {:.3} ms over {N}", b.as_secs_f64() * 1e3);
        println!("proxy overhead per request: {:+.3} ms", (b.as_secs_f64() - a.as_secs_f64()) * 1e3);

        let before = rss_kib();
        let mut tunnels = Vec::new();
        for _ in 0..CONNS {
            let mut c = TcpStream::connect(&proxy_addr).await.unwrap();
            c.write_all(format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").as_bytes())
                .await
                .unwrap();
            let mut buf = [0u8; 64];
            let n = c.read(&mut buf).await.unwrap();
            assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
            // One request through the tunnel so both directions carry data.
            c.write_all(b"GET /hold HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
            let n = c.read(&mut buf).await.unwrap();
            assert!(n > 0);
            tunnels.push(c);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        let after = rss_kib();
        println!(
            "{CONNS} concurrent tunnels open: process RSS {:.1} MiB -> {:.1} MiB ({:+.2} MiB, which includes the bench's own {CONNS} client and {CONNS} server sockets)",
            before as f64 / 1024.0,
            after as f64 / 1024.0,
            (after as f64 - before as f64) / 1024.0
        );
        drop(tunnels);
    });
}
