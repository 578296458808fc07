//! The login flow and token refresh (filled in below).

use std::path::Path;

use crate::oauth_store::ServerCredentials;

/// A valid access token from `entry`, refreshing it if needed.
pub(crate) async fn access_token(
    _home: &Path,
    _server: &str,
    entry: &ServerCredentials,
) -> Option<String> {
    entry
        .credentials
        .get("token_response")
        .and_then(|t| t.get("access_token"))
        .and_then(|t| t.as_str())
        .map(str::to_string)
}
