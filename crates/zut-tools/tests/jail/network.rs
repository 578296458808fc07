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

/// A wheel of package `zutdemo` (module `zutdemo`, `X = 42`) built by hand
/// (a wheel is a zip with metadata), in a PEP 503 "simple" index layout.
fn local_index(root: &std::path::Path) {
    let script = r#"
import base64, hashlib, os, sys, zipfile
root = sys.argv[1]
os.makedirs(os.path.join(root, "simple", "zutdemo"), exist_ok=True)
name = "zutdemo-0.1-py3-none-any.whl"
files = {
    "zutdemo/__init__.py": b"X = 42\n",
    "zutdemo-0.1.dist-info/METADATA": b"Metadata-Version: 2.1\nName: zutdemo\nVersion: 0.1\n",
    "zutdemo-0.1.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: zut-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = []
for path, data in files.items():
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record.append(f"{path},sha256={digest},{len(data)}")
record.append("zutdemo-0.1.dist-info/RECORD,,")
files["zutdemo-0.1.dist-info/RECORD"] = ("\n".join(record) + "\n").encode()
with zipfile.ZipFile(os.path.join(root, "simple", "zutdemo", name), "w") as z:
    for path, data in files.items():
        z.writestr(path, data)
with open(os.path.join(root, "simple", "zutdemo", "index.html"), "w") as f:
    f.write(f'<html><body><a href="{name}">{name}</a></body></html>\n')
with open(os.path.join(root, "simple", "index.html"), "w") as f:
    f.write('<html><body><a href="zutdemo/">zutdemo</a></body></html>\n')
"#;
    let ok = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(root)
        .status()
        .unwrap()
        .success();
    assert!(ok, "building the test wheel failed");
}

/// `python3 -m http.server` over `root` on a free port; killed on drop.
struct IndexServer(std::process::Child, u16);

impl Drop for IndexServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(root: &std::path::Path) -> IndexServer {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = std::process::Command::new("python3")
        .args([
            "-m",
            "http.server",
            "--bind",
            "127.0.0.1",
            &port.to_string(),
        ])
        .current_dir(root)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    IndexServer(child, port)
}

#[tokio::test]
async fn pip_installs_into_a_workspace_venv_through_the_proxy() {
    if !supported() {
        return;
    }
    let env = Env::new();
    let index = tempfile::tempdir().unwrap();
    local_index(index.path());
    let server = serve(index.path());
    let ctx = env.ctx_with(env.policy(Network::Domains(vec!["127.0.0.1".into()])));
    let (err, text) = bash(
        &ctx,
        &format!(
            "python3 -m venv venv && venv/bin/pip install --disable-pip-version-check --no-cache-dir \
             --index-url http://127.0.0.1:{}/simple zutdemo && venv/bin/python -c 'import zutdemo; print(\"X =\", zutdemo.X)'",
            server.1
        ),
    )
    .await;
    if text.contains("ensurepip is not available") || text.contains("No module named venv") {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 venv missing in CI: {text}"
        );
        eprintln!("skipped: no venv/ensurepip: {text}");
        return;
    }
    assert!(!err, "{text}");
    assert!(
        text.contains("Successfully installed zutdemo-0.1"),
        "{text}"
    );
    assert!(text.contains("X = 42"), "{text}");
    assert!(env.ws.join("venv").is_dir());
}
