//! OAuth 2.1 for remote servers on rmcp's `auth` module: protected-resource
//! and authorization-server metadata discovery, dynamic client
//! registration, PKCE, refresh. Credentials live in
//! [`crate::oauth_store`].

use std::path::Path;

use crate::oauth_store::AuthFile;

/// The access token for `server` at `url`, refreshed when it has expired
/// and a refresh token exists; `None` without stored credentials.
pub async fn bearer_for(home: &Path, server: &str, url: &str) -> Option<String> {
    let file = AuthFile::load(home);
    let entry = file.servers.get(server)?;
    if entry.url != url {
        return None;
    }
    crate::oauth_flow::access_token(home, server, entry).await
}
