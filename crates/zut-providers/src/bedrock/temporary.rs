//! Temporary AWS keys that zut fetches itself, as the AWS CLI does: a
//! profile's `role_arn` (STS `AssumeRole`, signed with the keys of its
//! `source_profile` or of the environment), a web identity token
//! (`AssumeRoleWithWebIdentity`, unsigned), or an SSO login (the token
//! that `aws sso login` cached under `~/.aws/sso/cache`, exchanged at the
//! SSO portal's `GetRoleCredentials`).
//!
//! The keys stay in memory and are fetched again when less than five
//! minutes remain before they expire. Endpoints: STS at
//! `https://sts.{region}.amazonaws.com`, the portal at
//! `https://portal.sso.{sso_region}.amazonaws.com`, each overridable with
//! AWS's own variables (`AWS_ENDPOINT_URL_STS`, `AWS_ENDPOINT_URL_SSO`,
//! `AWS_ENDPOINT_URL`). Errors say what to fix (the file, the variable,
//! or `aws sso login --profile NAME`), never a secret.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::credentials::BedrockCredentials;
use super::process::Keys;

/// Keys this close to their expiry are fetched again.
const REFRESH_BEFORE: Duration = Duration::from_secs(300);
/// Time an STS or portal call may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Where temporary keys come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetch {
    /// STS `AssumeRole`, signed with `base`.
    AssumeRole {
        /// The role to assume.
        role_arn: String,
        /// `RoleSessionName`.
        session_name: String,
        /// The profile's `external_id`.
        external_id: Option<String>,
        /// The credentials that sign the call.
        base: Box<BedrockCredentials>,
        /// STS endpoint (no trailing slash).
        endpoint: String,
        /// Region the call is signed for.
        region: String,
    },
    /// STS `AssumeRoleWithWebIdentity` with the token read from a file
    /// (read again at each fetch: such files are rotated).
    WebIdentity {
        /// The role to assume.
        role_arn: String,
        /// `RoleSessionName`.
        session_name: String,
        /// The token file.
        token_file: PathBuf,
        /// The variable or profile that named the file, for errors.
        named_by: String,
        /// STS endpoint.
        endpoint: String,
    },
    /// A container credentials endpoint (ECS, EKS Pod Identity).
    Container {
        /// The URL to GET.
        url: String,
        /// The variable that gave it, for errors.
        named_by: String,
        /// `AWS_CONTAINER_AUTHORIZATION_TOKEN`.
        token: Option<String>,
        /// `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE` (wins over `token`).
        token_file: Option<PathBuf>,
    },
    /// The SSO portal's `GetRoleCredentials` with a cached SSO token.
    Sso {
        /// The profile, for `aws sso login --profile NAME`.
        profile: String,
        /// `sso_account_id`.
        account_id: String,
        /// `sso_role_name`.
        role_name: String,
        /// The token cache file (`~/.aws/sso/cache/<sha1>.json`).
        cache_file: PathBuf,
        /// Portal endpoint.
        endpoint: String,
    },
}

struct Cached {
    keys: Keys,
    expires: Option<SystemTime>,
}

/// Temporary keys fetched by zut and their cache.
#[derive(Clone)]
pub struct TemporaryCredentials {
    fetch: Arc<Fetch>,
    source: String,
    cache: Arc<tokio::sync::Mutex<Option<Cached>>>,
}

impl PartialEq for TemporaryCredentials {
    fn eq(&self, other: &Self) -> bool {
        self.fetch == other.fetch && self.source == other.source
    }
}

impl Eq for TemporaryCredentials {}

impl std::fmt::Debug for TemporaryCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TemporaryCredentials")
            .field("fetch", &self.fetch)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

impl TemporaryCredentials {
    /// `source` names the profile for errors (`profile ops in ~/.aws/config`).
    pub fn new(fetch: Fetch, source: &str) -> Self {
        Self {
            fetch: Arc::new(fetch),
            source: source.to_string(),
            cache: Arc::new(tokio::sync::Mutex::new(None)),
        }
    }

    /// How the keys are fetched.
    pub fn fetch(&self) -> &Fetch {
        &self.fetch
    }

    /// The keys to sign with now: cached, or fetched.
    pub(crate) async fn current(&self, client: &reqwest::Client) -> Result<Keys, String> {
        let mut cache = self.cache.lock().await;
        if let Some(c) = cache.as_ref() {
            if c.expires
                .is_none_or(|at| SystemTime::now() + REFRESH_BEFORE < at)
            {
                return Ok(c.keys.clone());
            }
        }
        let (keys, expires) = match self.fetch.as_ref() {
            Fetch::Sso { .. } => super::sso::role_credentials(&self.fetch, client).await,
            Fetch::Container { .. } => super::container::fetch(&self.fetch, client).await,
            _ => super::sts::assume(&self.fetch, client).await,
        }
        .map_err(|why| format!("cannot get AWS credentials for {}: {why}", self.source))?;
        *cache = Some(Cached {
            keys: keys.clone(),
            expires,
        });
        Ok(keys)
    }
}

/// The keys that sign a request with `credentials` (`None`: a bearer
/// token, nothing to sign with). Runs a `credential_process` off the
/// runtime's threads; fetches temporary keys over HTTP.
pub(crate) fn signing_keys<'a>(
    credentials: &'a BedrockCredentials,
    client: &'a reqwest::Client,
) -> Pin<Box<dyn Future<Output = Result<Option<Keys>, String>> + Send + 'a>> {
    Box::pin(async move {
        match credentials {
            BedrockCredentials::Bearer(_) => Ok(None),
            BedrockCredentials::Keys {
                access_key_id,
                secret_access_key,
                session_token,
            } => Ok(Some(Keys {
                access_key_id: access_key_id.clone(),
                secret_access_key: secret_access_key.clone(),
                session_token: session_token.clone(),
            })),
            BedrockCredentials::Process(p) => {
                let p = p.clone();
                tokio::task::spawn_blocking(move || p.current())
                    .await
                    .map_err(|e| e.to_string())?
                    .map(Some)
            }
            BedrockCredentials::Temporary(t) => t.current(client).await.map(Some),
        }
    })
}

/// A call's client-side limit.
pub(crate) fn timeout() -> Duration {
    TIMEOUT
}

/// Milliseconds since the epoch as a time.
pub(crate) fn from_millis(ms: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

/// A default `RoleSessionName`.
pub(crate) fn session_name() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    format!("zut-{secs}")
}
