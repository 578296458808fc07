//! `zut auth login openrouter --oauth`: OpenRouter's published OAuth PKCE
//! flow for third-party applications (see `zut_providers::oauth_openrouter`).
//! zut listens on `127.0.0.1` (a free port) for the browser's redirect,
//! hands the authorization URL to the caller to show (it opens no browser
//! itself, so it works over SSH: open the URL anywhere that can reach this
//! machine's port, or forward it), exchanges the code for a key and saves
//! it to `auth.json`.
//! No other vendor's client id or identity headers are used.

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use zut_providers::oauth_openrouter as oauth;

/// How long zut waits for the browser (`ZUT_OAUTH_TIMEOUT_SECS` overrides).
const WAIT: Duration = Duration::from_secs(300);

/// Runs the flow; `show(url, callback)` tells the user where to authorize
/// before zut waits. Returns what happened (never the key).
pub fn login_openrouter(
    home: &Path,
    provider: &str,
    show: &dyn Fn(&str, &str),
) -> Result<String, String> {
    if zut_providers::preset(provider).map(|p| p.id) != Some("openrouter") {
        return Err(format!(
            "--oauth is offered for openrouter only (the one provider here that publishes an OAuth flow for third-party applications); use an API key for {provider}"
        ));
    }
    let env = |k: &str| std::env::var(k).ok();
    let base = oauth::base(&env);
    let pkce = oauth::pkce().map_err(|e| e.to_string())?;
    let listener = TcpListener::bind("127.0.0.1:0")
        .map_err(|e| format!("cannot listen for the callback: {e}"))?;
    let port = listener
        .local_addr()
        .map_err(|e| format!("cannot listen for the callback: {e}"))?
        .port();
    let callback = format!("http://localhost:{port}/callback");
    let url = oauth::authorize_url(&base, &callback, &pkce.challenge);
    show(&url, &callback);
    let wait = std::env::var("ZUT_OAUTH_TIMEOUT_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map(Duration::from_secs)
        .unwrap_or(WAIT);
    let code = wait_for_code(&listener, wait)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let key = rt
        .block_on(oauth::exchange(
            &base,
            &code,
            &pkce.verifier,
            Duration::from_secs(30),
        ))
        .map_err(|e| format!("OpenRouter did not give a key ({e}); nothing saved"))?;
    let path = zut_providers::credentials::save_key(home, "openrouter", &key)
        .map_err(|e| e.to_string())?;
    Ok(format!(
        "saved the key for openrouter to {} (authorized with OpenRouter's OAuth PKCE flow; manage it at openrouter.ai/settings/keys)",
        path.display()
    ))
}

/// Accepts connections until one brings `?code=` (other requests, e.g. a
/// favicon, get a 404) or `wait` is over.
fn wait_for_code(listener: &TcpListener, wait: Duration) -> Result<String, String> {
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot listen for the callback: {e}"))?;
    let deadline = Instant::now() + wait;
    while Instant::now() < deadline {
        match listener.accept() {
            Ok((stream, _)) => {
                if let Some(code) = answer(stream)? {
                    return Ok(code);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => return Err(format!("callback: {e}")),
        }
    }
    Err(format!(
        "no answer from the browser within {} s; nothing saved",
        wait.as_secs()
    ))
}

/// Reads one request; answers it; the code when it has one. An
/// `error=` from OpenRouter (the user refused) ends the flow.
fn answer(mut stream: TcpStream) -> Result<Option<String>, String> {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut buf = vec![0u8; 8192];
    let mut n = 0;
    while n < buf.len() {
        match stream.read(&mut buf[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => {
                n += k;
                if buf[..n].windows(4).any(|w| w == b"\r\n\r\n") {
                    break;
                }
            }
        }
    }
    let head = String::from_utf8_lossy(&buf[..n]);
    let target = head
        .lines()
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or("");
    let query = target.strip_prefix("/callback?").unwrap_or_default();
    let param = |name: &str| {
        query.split('&').find_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            (k == name).then(|| v.to_string())
        })
    };
    let mut reply = |status: &str, body: &str| {
        let _ = write!(
            stream,
            "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
    };
    if let Some(code) = param("code").filter(|c| !c.is_empty()) {
        reply(
            "200 OK",
            "<html><body><p>zut is authorized. You can close this tab.</p></body></html>",
        );
        return Ok(Some(code));
    }
    if let Some(error) = param("error") {
        reply(
            "200 OK",
            "<html><body><p>zut was not authorized.</p></body></html>",
        );
        return Err(format!("OpenRouter answered {error:?}; nothing saved"));
    }
    reply("404 Not Found", "not found");
    Ok(None)
}
