//! The config.json keys of issue 20 item 7, with the real `zut` binary
//! against the local LLM server over real HTTP (and TLS): `http_proxy`
//! (model calls and the commands zut runs go through it; the environment
//! wins), `insecure`/`--insecure` (only for an explicit base URL, never a
//! preset's own or an environment variable's), `lsp_enabled`, and the Go
//! original's keys zut does not read, each listed with its reason.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use common::*;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use zut_llm_server::{LlmServer, Script};

const PROXY_VARS: [&str; 8] = [
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
];

/// `host:port` of the test server.
fn addr(server: &LlmServer) -> String {
    server.url().trim_start_matches("http://").to_string()
}

/// `zut <args>` with no proxy variables and no discovery.
fn cmd(env: &TestEnv, args: &[&str]) -> std::process::Command {
    let mut c = zut_cmd(env, args);
    for k in PROXY_VARS {
        c.env_remove(k);
    }
    c.env("ZUT_NO_DISCOVERY", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// A forward HTTP proxy that sends every connection to `upstream` and
/// records the first request line of each: its URL (`http://user:pw@…`).
async fn forward_proxy(upstream: String) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let (upstream, log) = (upstream.clone(), log.clone());
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match client.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let line = String::from_utf8_lossy(&head)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_string();
                log.lock().unwrap().push(line);
                let Ok(mut up) = TcpStream::connect(&upstream).await else {
                    return;
                };
                if up.write_all(&head).await.is_ok() {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut up).await;
                }
            });
        }
    });
    (format!("http://user:pw@127.0.0.1:{port}"), seen)
}

#[tokio::test]
async fn http_proxy_in_config_json_carries_model_calls_and_commands() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let (proxy, seen) = forward_proxy(addr(&server)).await;
    std::fs::write(
        env.home.join("config.json"),
        json!({"http_proxy": proxy, "theme": "dark"}).to_string(),
    )
    .unwrap();
    // The base URL's host does not resolve: only the proxy can reach it.
    let base = "http://llm.zut-test.invalid/v1";
    server.push(Script::openai_tool_call(
        "call_1",
        "bash",
        r#"{"command":"echo proxy=$HTTP_PROXY","timeout":10}"#,
    ));
    server.push(Script::openai_text("Reached through the proxy."));
    let run = |extra: &[(&str, &str)]| {
        let mut c = cmd(
            &env,
            &[
                "--provider",
                "openai-compatible",
                "--base-url",
                base,
                "--model",
                "test",
                "--no-session",
                "-p",
                "hi",
            ],
        );
        for (k, v) in extra {
            c.env(k, v);
        }
        c
    };
    let r = output_blocking(run(&[])).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("Reached through the proxy."), "{r:?}");
    let lines = seen.lock().unwrap().clone();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("POST http://llm.zut-test.invalid/v1/chat/completions ")),
        "{lines:?}"
    );
    // The commands zut runs inherit it, as the Go original's do.
    let reqs = server.requests();
    assert!(
        reqs[1].raw_body.contains(&format!("proxy={proxy}")),
        "{}",
        reqs[1].raw_body
    );

    // The environment wins over the file.
    let (other, other_seen) = forward_proxy(addr(&server)).await;
    server.push(Script::openai_text("Through the other one."));
    let before = seen.lock().unwrap().len();
    let r = output_blocking(run(&[("HTTP_PROXY", &other)])).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("Through the other one."));
    assert_eq!(other_seen.lock().unwrap().len(), 1);
    assert_eq!(seen.lock().unwrap().len(), before);

    // `zut config` says where it comes from, never the password.
    let r = output_blocking(cmd(&env, &["config"])).await;
    let port = proxy.rsplit(':').next().unwrap();
    assert!(
        r.stdout.contains(&format!(
            "http proxy      http://user:***@127.0.0.1:{port}  [file "
        )),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("pw@"), "{}", r.stdout);
    assert!(
        !r.stdout.contains("http_proxy:"),
        "not ignored: {}",
        r.stdout
    );

    // A proxy zut cannot use is an error naming the file and the key.
    std::fs::write(
        env.home.join("config.json"),
        r#"{"http_proxy": "socks5://127.0.0.1:1080"}"#,
    )
    .unwrap();
    let r = output_blocking(run(&[])).await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr
            .contains("config.json: http_proxy: \"socks5\" proxies are not supported"),
        "{}",
        r.stderr
    );
}

/// A TLS server with the self-signed certificate of `tests/fixtures/tls`,
/// in front of `upstream`; its `https://127.0.0.1:<port>`.
async fn tls_front(upstream: String) -> String {
    use tokio_rustls::rustls;
    use tokio_rustls::rustls::pki_types::pem::PemObject;
    use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tls");
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(dir.join("cert.pem"))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_file(dir.join("key.pem")).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(certs, key)
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, upstream) = (acceptor.clone(), upstream.clone());
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let Ok(mut up) = TcpStream::connect(&upstream).await else {
                    return;
                };
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut up).await;
            });
        }
    });
    format!("https://127.0.0.1:{port}")
}

#[tokio::test]
async fn insecure_applies_to_an_explicit_base_url_only() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let https = tls_front(addr(&server)).await;
    let base = format!("{https}/v1");
    let print = |extra: &[&str]| {
        let mut args = vec![
            "--provider",
            "openai-compatible",
            "--base-url",
            &base,
            "--model",
            "test",
            "--no-session",
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["-p", "hi"]);
        cmd(&env, &args)
    };

    // A self-signed certificate is refused...
    let r = output_blocking(print(&[])).await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.to_lowercase().contains("certificate"),
        "{}",
        r.stderr
    );
    assert!(server.requests().is_empty());

    // ...accepted with --insecure for this explicit --base-url...
    server.push(Script::openai_text("Over TLS, unchecked."));
    let r = output_blocking(print(&["--insecure"])).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("Over TLS, unchecked."));

    // ...and with config.json `insecure` (the Go original's key), also for
    // a models.json baseUrl.
    std::fs::write(env.home.join("config.json"), r#"{"insecure": true}"#).unwrap();
    std::fs::write(
        env.home.join("models.json"),
        json!({"providers": {"co": {"baseUrl": base, "api": "openai",
            "models": [{"id": "co-model"}]}}})
        .to_string(),
    )
    .unwrap();
    server.push(Script::openai_text("models.json over TLS."));
    let r = output_blocking(cmd(&env, &["--provider", "co", "--no-session", "-p", "hi"])).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("models.json over TLS."));
    let r = output_blocking(cmd(&env, &["config", "--provider", "co"])).await;
    assert!(
        r.stdout.contains("insecure tls    on  [file "),
        "{}",
        r.stdout
    );

    // A base URL from the environment is not explicit: checks stay on, a
    // warning says why, and nothing reaches the server.
    std::fs::remove_file(env.home.join("config.json")).unwrap();
    let n = server.requests().len();
    let mut c = cmd(
        &env,
        &[
            "--provider",
            "anthropic",
            "--api-key",
            "sk-test",
            "--model",
            "test-model",
            "--no-session",
            "--insecure",
            "-p",
            "hi",
        ],
    );
    c.env("ANTHROPIC_BASE_URL", &https);
    let r = output_blocking(c).await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("--insecure ignored: TLS checks are only skipped for an explicit --base-url or models.json baseUrl"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.to_lowercase().contains("certificate"),
        "{}",
        r.stderr
    );
    assert_eq!(server.requests().len(), n);

    // Nor a preset's own endpoint.
    let r = output_blocking(cmd(
        &env,
        &[
            "config",
            "--provider",
            "openai",
            "--api-key",
            "sk-x",
            "--insecure",
        ],
    ))
    .await;
    assert!(
        r.stdout.contains(
            "insecure tls    off  [default (asked for, but the base URL is not explicit)]"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("--insecure ignored") && r.stdout.contains("https://api.openai.com/v1"),
        "{}",
        r.stdout
    );
}

/// The built-in tools a request offered.
fn tools(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|t| t["function"]["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn lsp_enabled_false_works_as_no_lsp_and_go_keys_say_why_they_are_not_read() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let base = server.openai_base_url();
    let run = || {
        cmd(
            &env,
            &[
                "--provider",
                "openai-compatible",
                "--base-url",
                &base,
                "--model",
                "test",
                "--no-session",
                "-p",
                "hi",
            ],
        )
    };
    server.push(Script::openai_text("one"));
    let r = output_blocking(run()).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(tools(&server.requests()[0].body).contains(&"lsp".to_string()));

    std::fs::write(
        env.home.join("config.json"),
        r#"{"lsp_enabled": false, "fast_mode": true, "compact_mode": true,
            "respect_gitignore": false, "last_changelog_shown": "v1.2.3", "wat": 1}"#,
    )
    .unwrap();
    server.push(Script::openai_text("two"));
    let r = output_blocking(run()).await;
    assert_eq!(r.code, 0, "{r:?}");
    let offered = tools(&server.requests()[1].body);
    assert!(!offered.contains(&"lsp".to_string()), "{offered:?}");
    assert!(offered.contains(&"write".to_string()), "{offered:?}");

    let r = output_blocking(cmd(&env, &["config"])).await;
    assert!(
        r.stdout.contains("lsp             off  [file "),
        "{}",
        r.stdout
    );
    for line in [
        "  compact_mode: not read: a layout of the Go original's TUI",
        "  fast_mode: not read: zut does not ask OpenAI for its priority (fast) service tier",
        "  last_changelog_shown: not read: zut never fetches release notes",
        "  respect_gitignore: not read: zut's @ file picker always leaves out what .gitignore ignores",
        "  wat: unknown key",
    ] {
        assert!(r.stdout.contains(line), "{line:?} in {}", r.stdout);
    }
    assert!(!r.stdout.contains("lsp_enabled:"), "{}", r.stdout);
    assert!(
        !r.stdout.contains("not supported by zut yet"),
        "{}",
        r.stdout
    );
}
