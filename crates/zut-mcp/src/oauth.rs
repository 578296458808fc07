//! OAuth 2.1 for remote servers on rmcp's `auth` module: protected-resource
//! and authorization-server metadata discovery, dynamic client
//! registration, PKCE, refresh. Credentials live in
//! [`crate::oauth_store`] (0600, atomic writes).
//!
//! `zut mcp login <name>` ([`login`]) listens on a loopback port for the
//! redirect and, at the same time, reads a pasted redirect URL from stdin,
//! so it works when the browser runs on another machine.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationRequest, CredentialStore, OAuthState,
    StoredCredentials,
};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

use crate::config::OAuthConfig;
use crate::oauth_store::{AuthFile, ServerCredentials};

/// rmcp's credential store on `$ZUT_HOME/mcp-auth.json`, one server's entry.
pub struct FileCredentialStore {
    home: PathBuf,
    server: String,
    url: String,
}

impl FileCredentialStore {
    /// The store of `server` (at `url`) under `home`.
    pub fn new(home: &Path, server: &str, url: &str) -> Self {
        Self {
            home: home.to_path_buf(),
            server: server.to_string(),
            url: url.to_string(),
        }
    }
}

fn store_err(e: impl std::fmt::Display) -> AuthError {
    AuthError::InternalError(format!("credential store: {e}"))
}

#[async_trait::async_trait]
impl CredentialStore for FileCredentialStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let file = AuthFile::load(&self.home);
        let Some(entry) = file.servers.get(&self.server).filter(|e| e.url == self.url) else {
            return Ok(None);
        };
        Ok(serde_json::from_value(entry.credentials.clone()).ok())
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let entry = ServerCredentials {
            url: self.url.clone(),
            client_id: credentials.client_id.clone(),
            credentials: serde_json::to_value(&credentials).map_err(store_err)?,
        };
        AuthFile::update(&self.home, &self.server, Some(entry)).map_err(store_err)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        AuthFile::update(&self.home, &self.server, None).map_err(store_err)
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The access token for `server` at `url`: the stored one while it is
/// fresh, else refreshed through the authorization server; `None` without
/// usable credentials (the connection then gets a 401 and the server shows
/// `needs-login`).
pub async fn bearer_for(home: &Path, server: &str, url: &str) -> Option<String> {
    let file = AuthFile::load(home);
    let entry = file.servers.get(server).filter(|e| e.url == url)?;
    let creds = &entry.credentials;
    let token = creds.get("token_response")?;
    let access = token.get("access_token")?.as_str()?.to_string();
    let expires_in = token.get("expires_in").and_then(|v| v.as_u64());
    let received = creds.get("token_received_at").and_then(|v| v.as_u64());
    match (expires_in, received) {
        (Some(exp), Some(at)) if at + exp <= now() + 60 => {}
        _ => return Some(access),
    }
    crate::tls::install_provider();
    let mut manager = AuthorizationManager::new(url).await.ok()?;
    manager.set_credential_store(FileCredentialStore::new(home, server, url));
    if !manager.initialize_from_store().await.ok()? {
        return None;
    }
    manager.get_access_token().await.ok()
}

/// How `login` talks to the user.
pub struct LoginIo {
    /// Receives the authorization URL (print it, open a browser).
    pub show_url: Box<dyn FnMut(&str) + Send>,
    /// Pasted redirect URLs (`None`: only the loopback listener).
    pub pasted: Option<tokio::sync::mpsc::Receiver<String>>,
}

impl LoginIo {
    /// The terminal: prints the URL, tries a browser unless `no_browser`,
    /// reads a pasted redirect URL from stdin.
    pub fn terminal(no_browser: bool) -> Self {
        let (tx, rx) = tokio::sync::mpsc::channel(1);
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let line = line.trim().to_string();
                if line.starts_with("http") && tx.send(line).await.is_err() {
                    break;
                }
            }
        });
        Self {
            show_url: Box::new(move |url| {
                crate::cli::out(&format!(
                    "Open this URL to authorize zut:\n\n  {url}\n\n\
                     Waiting for the redirect. If the browser runs elsewhere, paste the URL it was \
                     redirected to (http://127.0.0.1:…/callback?code=…) here and press Enter."
                ));
                if !no_browser {
                    let _ = std::process::Command::new("xdg-open")
                        .arg(url)
                        .stdin(std::process::Stdio::null())
                        .stdout(std::process::Stdio::null())
                        .stderr(std::process::Stdio::null())
                        .spawn();
                }
            }),
            pasted: Some(rx),
        }
    }
}

/// Runs the authorization code flow with PKCE for `server` at `url` and
/// stores the tokens.
pub async fn login(
    home: &Path,
    server: &str,
    url: &str,
    cfg: OAuthConfig,
    mut io: LoginIo,
) -> Result<(), String> {
    crate::tls::install_provider();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", cfg.callback_port.unwrap_or(0)))
        .await
        .map_err(|e| format!("cannot listen on a loopback port: {e}"))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let redirect = format!("http://127.0.0.1:{port}/callback");
    let mut manager = AuthorizationManager::new(url)
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    manager.set_credential_store(FileCredentialStore::new(home, server, url));
    let mut state = OAuthState::Unauthorized(manager);
    let mut request = AuthorizationRequest::new(redirect.clone()).with_client_name("zut");
    if let Some(id) = &cfg.client_id {
        request = request.with_preregistered_client(id.clone());
    }
    if !cfg.scopes.is_empty() {
        request = request.with_scopes(cfg.scopes.clone());
    }
    state
        .start_authorization(request)
        .await
        .map_err(|e| format!("starting authorization with {url}: {e}"))?;
    let OAuthState::Session(session) = &state else {
        return Err("the authorization did not start".into());
    };
    (io.show_url)(session.get_authorization_url());
    let callback = tokio::select! {
        r = accept_callback(&listener, port) => r?,
        Some(line) = async {
            match io.pasted.as_mut() {
                Some(rx) => rx.recv().await,
                None => std::future::pending().await,
            }
        } => line,
    };
    session
        .handle_callback_url(&callback)
        .await
        .map_err(|e| format!("exchanging the authorization code: {e}"))?;
    Ok(())
}

/// Waits for the browser's GET on the loopback listener; answers it with
/// a short page and returns the full redirect URL.
async fn accept_callback(listener: &tokio::net::TcpListener, port: u16) -> Result<String, String> {
    loop {
        let (mut sock, _) = listener.accept().await.map_err(|e| e.to_string())?;
        let mut buf = vec![0u8; 8192];
        let mut len = 0;
        while len < buf.len() {
            match sock.read(&mut buf[len..]).await {
                Ok(0) | Err(_) => break,
                Ok(n) => len += n,
            }
            if buf[..len].windows(4).any(|w| w == b"\r\n\r\n") {
                break;
            }
        }
        let head = String::from_utf8_lossy(&buf[..len]).to_string();
        let target = head
            .lines()
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap_or("")
            .to_string();
        if !target.starts_with("/callback") {
            let _ = sock
                .write_all(
                    b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                )
                .await;
            continue;
        }
        let body = "zut: authorization received. You can close this tab.";
        let _ = sock
            .write_all(
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                )
                .as_bytes(),
            )
            .await;
        return Ok(format!("http://127.0.0.1:{port}{target}"));
    }
}
