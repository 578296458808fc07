//! Bedrock credentials: a Bedrock API key (bearer) or AWS access keys
//! (SigV4), found the way the AWS CLI finds them.
//!
//! Order: `--api-key`, then `AWS_BEARER_TOKEN_BEDROCK` (bearer); then
//! `AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY` (+ `AWS_SESSION_TOKEN`);
//! then the profile `AWS_PROFILE` (default `default`) of the shared
//! credentials file (`AWS_SHARED_CREDENTIALS_FILE`, default
//! `~/.aws/credentials`) or config file (`AWS_CONFIG_FILE`, default
//! `~/.aws/config`, sections `[profile NAME]`), with its keys or its
//! `credential_process` (run when first needed and again before the
//! credentials expire, see [`super::process`]). Profiles that get their
//! keys elsewhere are run by zut (see [`super::profile`]):
//! `role_arn` with `source_profile` or `credential_source = Environment`
//! (STS `AssumeRole`), `role_arn` with `web_identity_token_file`, SSO
//! profiles (`sso_session` or `sso_start_url`). Before the profiles,
//! `AWS_WEB_IDENTITY_TOKEN_FILE` + `AWS_ROLE_ARN` (+ `AWS_ROLE_SESSION_NAME`);
//! after them, container credentials (`AWS_CONTAINER_CREDENTIALS_*`, see
//! [`super::container`]). EC2 instance metadata is not queried.
//! Region: `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's `region`,
//! else `us-east-1`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::profile::{endpoint, Profiles};
use super::temporary::{session_name, Fetch, TemporaryCredentials};
use crate::error::ProviderError;

/// How requests are authenticated.
#[derive(Clone, PartialEq, Eq)]
pub enum BedrockCredentials {
    /// A Bedrock API key sent as `Authorization: Bearer`.
    Bearer(String),
    /// AWS access keys, for SigV4.
    Keys {
        /// Access key id.
        access_key_id: String,
        /// Secret access key.
        secret_access_key: String,
        /// Session token of temporary credentials.
        session_token: Option<String>,
    },
    /// A profile's `credential_process`: temporary keys, for SigV4.
    Process(super::process::CredentialProcess),
    /// Temporary keys from STS or the SSO portal, for SigV4.
    Temporary(TemporaryCredentials),
}

impl std::fmt::Debug for BedrockCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BedrockCredentials::Bearer(_) => f.write_str("Bearer([redacted])"),
            BedrockCredentials::Keys { access_key_id, .. } => f
                .debug_struct("Keys")
                .field("access_key_id", access_key_id)
                .finish_non_exhaustive(),
            BedrockCredentials::Process(p) => f.debug_tuple("Process").field(p).finish(),
            BedrockCredentials::Temporary(t) => f.debug_tuple("Temporary").field(t).finish(),
        }
    }
}

/// Resolved Bedrock settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BedrockAuth {
    /// Credentials.
    pub credentials: BedrockCredentials,
    /// Where they came from (a variable, or `profile NAME in FILE`), for errors.
    pub source: String,
    /// AWS region (`us-east-1`...).
    pub region: String,
}

/// Parsed INI sections: name → key → value.
pub(crate) type Sections = HashMap<String, HashMap<String, String>>;

fn parse_ini(text: &str, config_file: bool) -> Sections {
    let mut out: Sections = HashMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let name = name.trim();
            let name = if config_file {
                match name.strip_prefix("profile ") {
                    Some(n) => n.trim().to_string(),
                    None => name.to_string(),
                }
            } else {
                name.to_string()
            };
            out.entry(name.clone()).or_default();
            current = Some(name);
            continue;
        }
        if let (Some(section), Some((key, value))) = (&current, line.split_once('=')) {
            out.entry(section.clone())
                .or_default()
                .insert(key.trim().to_ascii_lowercase(), value.trim().to_string());
        }
    }
    out
}

pub(crate) fn read_sections(
    path: &Path,
    config_file: bool,
) -> Result<Option<Sections>, ProviderError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(parse_ini(&text, config_file))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ProviderError::Config(format!(
            "amazon-bedrock: cannot read {}: {e}",
            path.display()
        ))),
    }
}

/// Resolve Bedrock credentials and region (`api_key`: `--api-key`).
pub(crate) fn resolve(
    api_key: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<BedrockAuth, ProviderError> {
    let profile_name = env("AWS_PROFILE").unwrap_or_else(|| "default".to_string());
    let home = env("HOME").map(PathBuf::from);
    let file_path = |var: &str, rel: &str| -> Option<PathBuf> {
        env(var)
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".aws").join(rel)))
    };
    let creds_path = file_path("AWS_SHARED_CREDENTIALS_FILE", "credentials");
    let config_path = file_path("AWS_CONFIG_FILE", "config");
    let creds_file = match &creds_path {
        Some(p) => read_sections(p, false)?,
        None => None,
    };
    let config_file = match &config_path {
        Some(p) => read_sections(p, true)?,
        None => None,
    };
    let profile_in = |file: &Option<Sections>| -> Option<HashMap<String, String>> {
        file.as_ref().and_then(|f| f.get(&profile_name)).cloned()
    };
    let from_creds = profile_in(&creds_file);
    let from_config = profile_in(&config_file);
    let region = env("AWS_REGION")
        .or_else(|| env("AWS_DEFAULT_REGION"))
        .or_else(|| from_config.as_ref().and_then(|p| p.get("region").cloned()))
        .or_else(|| from_creds.as_ref().and_then(|p| p.get("region").cloned()))
        .unwrap_or_else(|| "us-east-1".to_string());
    let done = |credentials, source: String| {
        Ok(BedrockAuth {
            credentials,
            source,
            region: region.clone(),
        })
    };

    if let Some(key) = api_key.filter(|k| !k.is_empty() && *k != "<aws>") {
        return done(
            BedrockCredentials::Bearer(key.to_string()),
            "--api-key".into(),
        );
    }
    if let Some(token) = env("AWS_BEARER_TOKEN_BEDROCK") {
        return done(
            BedrockCredentials::Bearer(token),
            "AWS_BEARER_TOKEN_BEDROCK".into(),
        );
    }
    if let (Some(id), Some(secret)) = (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY")) {
        return done(
            BedrockCredentials::Keys {
                access_key_id: id,
                secret_access_key: secret,
                session_token: env("AWS_SESSION_TOKEN"),
            },
            "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY".into(),
        );
    }
    if let (Some(token_file), Some(role_arn)) =
        (env("AWS_WEB_IDENTITY_TOKEN_FILE"), env("AWS_ROLE_ARN"))
    {
        let fetch = Fetch::WebIdentity {
            role_arn,
            session_name: env("AWS_ROLE_SESSION_NAME").unwrap_or_else(session_name),
            token_file: PathBuf::from(token_file),
            named_by: "AWS_WEB_IDENTITY_TOKEN_FILE".into(),
            endpoint: endpoint(env, "STS", &format!("https://sts.{region}.amazonaws.com")),
        };
        let source = "AWS_WEB_IDENTITY_TOKEN_FILE/AWS_ROLE_ARN".to_string();
        return done(
            BedrockCredentials::Temporary(TemporaryCredentials::new(fetch, &source)),
            source,
        );
    }
    let profiles = Profiles {
        creds: (creds_file, creds_path.clone()),
        config: (config_file, config_path.clone()),
        home,
        region: region.clone(),
    };
    if let Some((credentials, source)) = profiles.credentials(&profile_name, env, 0)? {
        return done(credentials, source);
    }
    if let Some(fetch) = super::container::from_env(env)
        .map_err(|e| ProviderError::Config(format!("amazon-bedrock: {e}")))?
    {
        let source = match &fetch {
            Fetch::Container { named_by, .. } => named_by.clone(),
            _ => "container credentials".into(),
        };
        return done(
            BedrockCredentials::Temporary(TemporaryCredentials::new(fetch, &source)),
            source,
        );
    }
    let files: Vec<String> = [&creds_path, &config_path]
        .into_iter()
        .flatten()
        .map(|p| p.display().to_string())
        .collect();
    Err(ProviderError::Config(format!(
        "no credentials for provider amazon-bedrock: set AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key), \
         or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE naming a profile with keys in {}",
        if files.is_empty() {
            "~/.aws/credentials".to_string()
        } else {
            files.join(" or ")
        }
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_from_both_files() {
        let creds = "[default]\naws_access_key_id = A\naws_secret_access_key = S\n[work]\naws_access_key_id=W\naws_secret_access_key=WS\naws_session_token = T\n";
        let config = "[default]\nregion = eu-west-3\n[profile sso]\nsso_session = x\n";
        let c = parse_ini(creds, false);
        assert_eq!(c["work"]["aws_session_token"], "T");
        let g = parse_ini(config, true);
        assert_eq!(g["default"]["region"], "eu-west-3");
        assert!(g["sso"].contains_key("sso_session"));
    }
}
