//! Time from "prompt ready" (just before `Provider::stream`) to the first
//! byte of the request arriving on the server's socket, per wire, once
//! the connection is open and the credentials cached (SigV4 keys from an
//! STS `AssumeRole`, a Vertex service-account JWT already exchanged):
//!
//! ```text
//! cargo build --release -p zut-providers --example first_byte
//! target/release/examples/first_byte [ITERATIONS]
//! ```
//!
//! The server is a blocking thread per connection in the same process
//! (so both instants come from one clock), answering a token or STS call,
//! a Bedrock event stream or an SSE reply with a short text.

// A benchmark of its own making: a failed setup step is a panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::mpsc::{channel, Sender};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;
use zut_llm_server::{Block, Format, Script};
use zut_providers::{
    resolve, BedrockCredentials, CloudAuth, Message, Provider, ProviderConfig, ProviderOptions,
    Reasoning, Request,
};

const PRIVATE_KEY: &str = include_str!("../tests/fixtures/vertex-test-key.pem");

struct Replies {
    bedrock: Vec<u8>,
    gemini: Vec<u8>,
    chat: Vec<u8>,
}

fn response(content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

fn connection(mut stream: TcpStream, replies: &Replies, tx: &Sender<(Instant, String)>) {
    let _ = stream.set_nodelay(true);
    let mut buf = Vec::new();
    let mut chunk = [0u8; 64 * 1024];
    loop {
        // One request: the instant its first byte is read.
        let mut first = None;
        let (head_end, length) = loop {
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
                let length = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .unwrap_or(0);
                break (end + 4, length);
            }
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    first.get_or_insert_with(Instant::now);
                    buf.extend_from_slice(&chunk[..n]);
                }
            }
        };
        while buf.len() < head_end + length {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        let request: Vec<u8> = buf.drain(..head_end + length).collect();
        let text = String::from_utf8_lossy(&request).into_owned();
        let line = text.lines().next().unwrap_or_default().to_string();
        let reply = if line.contains("/token") {
            response(
                "application/json",
                br#"{"access_token": "ya29.bench", "expires_in": 3600, "token_type": "Bearer"}"#,
            )
        } else if text.contains("Action=AssumeRole") {
            response(
                "text/xml",
                b"<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>ASIABENCH</AccessKeyId>\
                  <SecretAccessKey>s</SecretAccessKey><SessionToken>t</SessionToken>\
                  <Expiration>2099-01-01T00:00:00Z</Expiration></Credentials></AssumeRoleResult></AssumeRoleResponse>",
            )
        } else if line.contains("converse-stream") {
            response("application/vnd.amazon.eventstream", &replies.bedrock)
        } else if line.contains("chat/completions") {
            response("text/event-stream", &replies.chat)
        } else {
            response("text/event-stream", &replies.gemini)
        };
        if let Some(at) = first {
            let _ = tx.send((at, line));
        }
        if stream.write_all(&reply).is_err() {
            return;
        }
    }
}

fn request() -> Request {
    Request {
        model: String::new(),
        system: "You are a benchmark.".into(),
        messages: vec![Message::user_text("Say ok.")],
        tools: Vec::new(),
        max_tokens: 1024,
        reasoning: Reasoning::Off,
    }
}

fn env_of(vars: Vec<(&'static str, String)>) -> impl Fn(&str) -> Option<String> {
    move |k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone())
}

fn providers(url: &str, dir: &Path) -> Vec<(&'static str, Provider)> {
    let mut out = Vec::new();
    let chat = ProviderConfig::new("openai-compatible", &format!("{url}/v1"), Some("k"), "m")
        .expect("chat config");
    out.push(("chat (no signing)", Provider::new(chat).expect("chat")));
    let keys = ProviderConfig::new("amazon-bedrock", url, None, "anthropic.claude-sonnet-4-5")
        .expect("bedrock config")
        .with_cloud(CloudAuth::bedrock(
            BedrockCredentials::Keys {
                access_key_id: "AKIDEXAMPLE".into(),
                secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
                session_token: None,
            },
            "us-east-1",
            "bench",
        ));
    out.push((
        "bedrock SigV4, static keys",
        Provider::new(keys).expect("bedrock"),
    ));
    std::fs::write(
        dir.join("config"),
        "[profile base]\naws_access_key_id = AKIDBASE\naws_secret_access_key = b\n\
         [profile role]\nrole_arn = arn:aws:iam::1:role/r\nsource_profile = base\n",
    )
    .expect("aws config");
    let opts = |provider: &str, model: &str| ProviderOptions {
        provider: Some(provider.into()),
        base_url: Some(url.to_string()),
        model: Some(model.into()),
        ..Default::default()
    };
    let env = env_of(vec![
        ("AWS_PROFILE", "role".into()),
        ("AWS_CONFIG_FILE", dir.join("config").display().to_string()),
        (
            "AWS_SHARED_CREDENTIALS_FILE",
            dir.join("none").display().to_string(),
        ),
        ("AWS_ENDPOINT_URL_STS", url.to_string()),
    ]);
    let role = resolve(
        &opts("amazon-bedrock", "anthropic.claude-sonnet-4-5"),
        &env,
        dir,
    )
    .expect("role config");
    out.push((
        "bedrock SigV4, AssumeRole cached",
        Provider::new(role).expect("role"),
    ));
    let sa = serde_json::json!({
        "type": "service_account",
        "project_id": "bench",
        "private_key_id": "kid",
        "private_key": PRIVATE_KEY,
        "client_email": "bench@bench.iam.gserviceaccount.com",
        "token_uri": format!("{url}/token"),
    });
    std::fs::write(dir.join("sa.json"), sa.to_string()).expect("sa");
    let env = env_of(vec![(
        "GOOGLE_APPLICATION_CREDENTIALS",
        dir.join("sa.json").display().to_string(),
    )]);
    let vertex = resolve(&opts("google-vertex", "gemini-2.5-flash"), &env, dir).expect("vertex");
    out.push((
        "vertex, JWT token cached",
        Provider::new(vertex).expect("vertex"),
    ));
    out
}

#[tokio::main]
async fn main() {
    let iterations: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    let replies = std::sync::Arc::new(Replies {
        bedrock: Script::reply(Format::Bedrock, vec![Block::text("ok")])
            .render_bytes()
            .to_vec(),
        gemini: Script::reply(Format::Gemini, vec![Block::text("ok")])
            .render_bytes()
            .to_vec(),
        chat: Script::reply(Format::Openai, vec![Block::text("ok")])
            .render_bytes()
            .to_vec(),
    });
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (replies, tx) = (replies.clone(), tx.clone());
            std::thread::spawn(move || connection(stream, &replies, &tx));
        }
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let req = request();
    let cancel = CancellationToken::new();
    println!(
        "{:<36} {:>10} {:>10} {:>10}",
        "wire", "median µs", "p90 µs", "max µs"
    );
    for (name, provider) in providers(&url, dir.path()) {
        // Warm-up: opens the connection, fetches and caches credentials.
        for _ in 0..3 {
            provider
                .stream(&req, &cancel, &mut |_| {})
                .await
                .expect("warm-up");
        }
        while rx.try_recv().is_ok() {}
        let mut samples = Vec::with_capacity(iterations);
        for _ in 0..iterations {
            let start = Instant::now();
            provider
                .stream(&req, &cancel, &mut |_| {})
                .await
                .expect("turn");
            let (first, line) = rx.recv_timeout(Duration::from_secs(5)).expect("a request");
            assert!(
                rx.try_recv().is_err(),
                "one request per turn once cached ({line})"
            );
            samples.push(first.saturating_duration_since(start));
        }
        samples.sort();
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        println!(
            "{name:<36} {:>10.0} {:>10.0} {:>10.0}",
            us(samples[samples.len() / 2]),
            us(samples[samples.len() * 9 / 10]),
            us(samples[samples.len() - 1])
        );
    }
}
