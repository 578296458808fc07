//! Peak memory of one `web_open` of a 2 MB page: a child process serves the
//! page (the Underscore.js reference, body repeated to 2 MB) on 127.0.0.1;
//! this process opens it and prints its peak RSS (VmHWM) before and after.
//! Run: `cargo run --release -p zut-web --example web_open_rss`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};

fn vm_hwm_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn serve() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pages/underscore.html");
    let html = std::fs::read_to_string(path).unwrap();
    let start = html.find("<body").unwrap();
    let start = start + html[start..].find('>').unwrap() + 1;
    let end = html.rfind("</body>").unwrap();
    let mut page = html[..start].to_string();
    while page.len() < 2_000_000 {
        page.push_str(&html[start..end]);
    }
    page.push_str(&html[end..]);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    println!("{} {}", listener.local_addr().unwrap().port(), page.len());
    std::io::stdout().flush().unwrap();
    for conn in listener.incoming() {
        let mut conn = conn.unwrap();
        let mut buf = [0u8; 4096];
        let _ = conn.read(&mut buf);
        let head = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", page.len());
        let _ = conn.write_all(head.as_bytes());
        let _ = conn.write_all(page.as_bytes());
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if std::env::args().nth(1).as_deref() == Some("serve") {
        return serve();
    }
    let mut child = Command::new(std::env::current_exe().unwrap())
        .arg("serve")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let mut parts = line.split_whitespace();
    let port: u16 = parts.next().unwrap().parse().unwrap();
    let size: usize = parts.next().unwrap().parse().unwrap();
    let rt = zut_web::WebRuntime::new(zut_web::WebConfig {
        allow_hosts: vec![zut_web::AllowedHost::parse("127.0.0.1").unwrap()],
        ..Default::default()
    });
    let before = vm_hwm_kib();
    let ctx = zut_tools::ToolContext::new(std::env::temp_dir());
    let args = serde_json::json!({"url": format!("http://127.0.0.1:{port}/")});
    let out = rt.run("web_open", &args, &ctx).await;
    let after = vm_hwm_kib();
    let _ = child.kill();
    let _ = child.wait();
    let text = out.text_content();
    println!(
        "web_open of a {size}-byte page: error={} output {} bytes; peak RSS {:.1} MiB before, {:.1} MiB after",
        out.is_error,
        text.len(),
        before as f64 / 1024.0,
        after as f64 / 1024.0
    );
}
