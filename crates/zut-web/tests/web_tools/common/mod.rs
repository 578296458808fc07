//! A fixture web server on 127.0.0.1 (std threads, raw HTTP/1.1): pages,
//! redirects, faults and search backend answers, by path.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the server answers for a path.
pub enum Reply {
    /// Status, headers, body.
    Full(u16, Vec<(String, String)>, Vec<u8>),
    /// Headers with a huge Content-Length, then the body chunk forever.
    Endless(Vec<u8>),
    /// Headers, then one byte every 100 ms forever.
    Drip,
    /// Accepts and never answers.
    Silent,
}

impl Reply {
    pub fn html(body: &str) -> Self {
        Self::typed("text/html; charset=utf-8", body.as_bytes().to_vec())
    }
    pub fn typed(ct: &str, body: Vec<u8>) -> Self {
        Self::Full(200, vec![("Content-Type".into(), ct.into())], body)
    }
    pub fn redirect(to: &str) -> Self {
        Self::Full(302, vec![("Location".into(), to.into())], Vec::new())
    }
    pub fn status(code: u16, ct: &str, body: &str) -> Self {
        Self::Full(
            code,
            vec![("Content-Type".into(), ct.into())],
            body.as_bytes().to_vec(),
        )
    }
}

type Handler = Arc<dyn Fn(&str, &str) -> Reply + Send + Sync>;

/// A running fixture server; `requests` records `METHOD path` and headers.
pub struct Fixture {
    pub port: u16,
    pub requests: Arc<Mutex<Vec<String>>>,
}

impl Fixture {
    /// Serves `handler(path, raw_request)` on 127.0.0.1 (a free port).
    pub fn start(handler: impl Fn(&str, &str) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let handler: Handler = Arc::new(handler);
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = requests.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { continue };
                let handler = handler.clone();
                let log = log.clone();
                std::thread::spawn(move || serve(conn, &*handler, &log));
            }
        });
        Self { port, requests }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

fn serve(
    mut conn: TcpStream,
    handler: &(dyn Fn(&str, &str) -> Reply + Send + Sync),
    log: &Mutex<Vec<String>>,
) {
    conn.set_read_timeout(Some(Duration::from_secs(10))).ok();
    let mut buf = Vec::new();
    let mut byte = [0u8; 1024];
    let head_end = loop {
        let Ok(n) = conn.read(&mut byte) else { return };
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&byte[..n]);
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    // Read a body announced by Content-Length (POST backends).
    let len = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
        })
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let Ok(n) = conn.read(&mut byte) else { break };
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&byte[..n]);
    }
    let raw = String::from_utf8_lossy(&buf).to_string();
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    log.lock().unwrap().push(raw.clone());
    match handler(&path, &raw) {
        Reply::Full(code, headers, body) => {
            let mut out = format!(
                "HTTP/1.1 {code} X\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (k, v) in headers {
                out.push_str(&format!("{k}: {v}\r\n"));
            }
            out.push_str("\r\n");
            let _ = conn.write_all(out.as_bytes());
            let _ = conn.write_all(&body);
        }
        Reply::Endless(chunk) => {
            let _ = conn.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 52428800\r\nConnection: close\r\n\r\n",
            );
            let mut sent = 0;
            while sent < 52_428_800 {
                if conn.write_all(&chunk).is_err() {
                    return;
                }
                sent += chunk.len();
            }
        }
        Reply::Drip => {
            let _ = conn.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n<p>",
            );
            loop {
                std::thread::sleep(Duration::from_millis(100));
                if conn.write_all(b"a").is_err() {
                    return;
                }
            }
        }
        Reply::Silent => {
            std::thread::sleep(Duration::from_secs(30));
        }
    }
}

/// A minimal one-page PDF (Helvetica) showing `text`, with a correct xref.
pub fn pdf(text: &str) -> Vec<u8> {
    let content = format!("BT /F1 24 Tf 72 700 Td ({text}) Tj ET");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>".to_string(),
        format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_string(),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// `n` MiB of HTML paragraphs, gzip-compressed (a compression bomb).
pub fn gzip_bomb(mib: usize) -> Vec<u8> {
    use flate2::write::GzEncoder;
    let chunk =
        "<p>aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa</p>\n"
            .repeat(13_000);
    let chunk = &chunk.as_bytes()[..1024 * 1024];
    let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for _ in 0..mib {
        enc.write_all(chunk).unwrap();
    }
    enc.finish().unwrap()
}
